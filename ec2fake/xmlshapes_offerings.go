// Element names of the EC2 Query protocol for the answers of the
// operations offerings reads and launches with (DescribeAvailabilityZones,
// DescribeInstanceTypeOfferings, DescribeCapacityReservations,
// DescribeSubnets, CreateFleet), read from the deserializers of
// github.com/aws/aws-sdk-go-v2/service/ec2 v1.344.0
// (awsEc2query_deserializeDocument*). Every name agrees with the member's
// locationName in botocore's EC2 model (botocore 1.43.11,
// data/ec2/2016-11-15/service-2.json), which boto3 and the AWS CLI read,
// wherever that model has the member: it lacks a few newer ones
// (CapacityReservation's adjustment details and status, launch status,
// original start date and zero-size preference; CreateFleetInstance's zone
// and subnet), which botocore skips when it reads an answer. TestXMLShapesCoverEveryField fails when
// an SDK upgrade adds a field that is missing here, and the wire tests read
// every answer back through a real *ec2.Client.

package ec2fake

import (
	"reflect"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// offeringsXMLRoots are the item types of those answers.
var offeringsXMLRoots = []reflect.Type{
	reflect.TypeOf(ec2types.AvailabilityZone{}),
	reflect.TypeOf(ec2types.InstanceTypeOffering{}),
	reflect.TypeOf(ec2types.CapacityReservation{}),
	reflect.TypeOf(ec2types.Subnet{}),
	reflect.TypeOf(ec2types.CreateFleetError{}),
	reflect.TypeOf(ec2types.CreateFleetInstance{}),
}

// xmlShapesOfferings extends xmlShapes; a type is named in one of the two.
var xmlShapesOfferings = map[string][]xmlField{
	"AcceleratorCount": {
		{"Max", "max", ""},
		{"Min", "min", ""},
	},
	"AcceleratorTotalMemoryMiB": {
		{"Max", "max", ""},
		{"Min", "min", ""},
	},
	"AvailabilityZone": {
		{"Geography", "geographySet", "item"},
		{"GroupLongName", "groupLongName", ""},
		{"GroupName", "groupName", ""},
		{"Messages", "messageSet", "item"},
		{"NetworkBorderGroup", "networkBorderGroup", ""},
		{"OptInStatus", "optInStatus", ""},
		{"ParentZoneId", "parentZoneId", ""},
		{"ParentZoneName", "parentZoneName", ""},
		{"RegionName", "regionName", ""},
		{"State", "zoneState", ""},
		{"SubGeography", "subGeographySet", "item"},
		{"ZoneId", "zoneId", ""},
		{"ZoneName", "zoneName", ""},
		{"ZoneType", "zoneType", ""},
	},
	"AvailabilityZoneGeography": {
		{"Name", "name", ""},
	},
	"AvailabilityZoneMessage": {
		{"Message", "message", ""},
	},
	"AvailabilityZoneSubGeography": {
		{"Name", "name", ""},
	},
	"BaselineEbsBandwidthMbps": {
		{"Max", "max", ""},
		{"Min", "min", ""},
	},
	"BaselinePerformanceFactors": {
		{"Cpu", "cpu", ""},
	},
	"BlockDeviceMappingResponse": {
		{"DeviceName", "deviceName", ""},
		{"Ebs", "ebs", ""},
		{"NoDevice", "noDevice", ""},
		{"VirtualName", "virtualName", ""},
	},
	"BlockPublicAccessStates": {
		{"InternetGatewayBlockMode", "internetGatewayBlockMode", ""},
	},
	"CapacityAllocation": {
		{"AllocationMetadata", "allocationMetadataList", "item"},
		{"AllocationType", "allocationType", ""},
		{"Count", "count", ""},
	},
	"CapacityAllocationMetadataEntry": {
		{"Key", "key", ""},
		{"Value", "value", ""},
	},
	"CapacityReservation": {
		{"AdjustmentDetails", "adjustmentDetails", ""},
		{"AdjustmentStatus", "adjustmentStatus", ""},
		{"AvailabilityZone", "availabilityZone", ""},
		{"AvailabilityZoneId", "availabilityZoneId", ""},
		{"AvailableInstanceCount", "availableInstanceCount", ""},
		{"CapacityAllocations", "capacityAllocationSet", "item"},
		{"CapacityBlockId", "capacityBlockId", ""},
		{"CapacityReservationArn", "capacityReservationArn", ""},
		{"CapacityReservationFleetId", "capacityReservationFleetId", ""},
		{"CapacityReservationId", "capacityReservationId", ""},
		{"CommitmentInfo", "commitmentInfo", ""},
		{"CreateDate", "createDate", ""},
		{"DeliveryPreference", "deliveryPreference", ""},
		{"EbsOptimized", "ebsOptimized", ""},
		{"EndDate", "endDate", ""},
		{"EndDateType", "endDateType", ""},
		{"EphemeralStorage", "ephemeralStorage", ""},
		{"InstanceMatchCriteria", "instanceMatchCriteria", ""},
		{"InstancePlatform", "instancePlatform", ""},
		{"InstanceType", "instanceType", ""},
		{"Interruptible", "interruptible", ""},
		{"InterruptibleCapacityAllocation", "interruptibleCapacityAllocation", ""},
		{"InterruptionInfo", "interruptionInfo", ""},
		{"LaunchStatus", "launchStatus", ""},
		{"OriginalStartDate", "originalStartDate", ""},
		{"OutpostArn", "outpostArn", ""},
		{"OwnerId", "ownerId", ""},
		{"PlacementGroupArn", "placementGroupArn", ""},
		{"ReservationType", "reservationType", ""},
		{"StartDate", "startDate", ""},
		{"State", "state", ""},
		{"Tags", "tagSet", "item"},
		{"Tenancy", "tenancy", ""},
		{"TotalInstanceCount", "totalInstanceCount", ""},
		{"UnusedReservationBillingOwnerId", "unusedReservationBillingOwnerId", ""},
		{"ZeroSizePreference", "zeroSizePreference", ""},
	},
	"CapacityReservationAdjustmentDetails": {
		{"CommitmentDuration", "commitmentDuration", ""},
		{"CommitmentEndDate", "commitmentEndDate", ""},
		{"EndDate", "endDate", ""},
		{"EndDateType", "endDateType", ""},
		{"StartDate", "startDate", ""},
	},
	"CapacityReservationCommitmentInfo": {
		{"CommitmentDuration", "commitmentDuration", ""},
		{"CommitmentEndDate", "commitmentEndDate", ""},
		{"CommittedInstanceCount", "committedInstanceCount", ""},
	},
	"CpuPerformanceFactor": {
		{"References", "referenceSet", "item"},
	},
	"CreateFleetError": {
		{"ErrorCode", "errorCode", ""},
		{"ErrorMessage", "errorMessage", ""},
		{"LaunchTemplateAndOverrides", "launchTemplateAndOverrides", ""},
		{"Lifecycle", "lifecycle", ""},
	},
	"CreateFleetInstance": {
		{"AvailabilityZone", "availabilityZone", ""},
		{"AvailabilityZoneId", "availabilityZoneId", ""},
		{"InstanceIds", "instanceIds", "item"},
		{"InstanceType", "instanceType", ""},
		{"LaunchTemplateAndOverrides", "launchTemplateAndOverrides", ""},
		{"Lifecycle", "lifecycle", ""},
		{"Platform", "platform", ""},
		{"SubnetId", "subnetId", ""},
	},
	"EbsBlockDeviceResponse": {
		{"DeleteOnTermination", "deleteOnTermination", ""},
		{"Encrypted", "encrypted", ""},
		{"Iops", "iops", ""},
		{"KmsKeyId", "kmsKeyId", ""},
		{"SnapshotId", "snapshotId", ""},
		{"Throughput", "throughput", ""},
		{"VolumeSize", "volumeSize", ""},
		{"VolumeType", "volumeType", ""},
	},
	"FleetLaunchTemplateOverrides": {
		{"AvailabilityZone", "availabilityZone", ""},
		{"AvailabilityZoneId", "availabilityZoneId", ""},
		{"BlockDeviceMappings", "blockDeviceMappingSet", "item"},
		{"ImageId", "imageId", ""},
		{"InstanceRequirements", "instanceRequirements", ""},
		{"InstanceType", "instanceType", ""},
		{"MaxPrice", "maxPrice", ""},
		{"Placement", "placement", ""},
		{"Priority", "priority", ""},
		{"SubnetId", "subnetId", ""},
		{"WeightedCapacity", "weightedCapacity", ""},
	},
	"FleetLaunchTemplateSpecification": {
		{"LaunchTemplateId", "launchTemplateId", ""},
		{"LaunchTemplateName", "launchTemplateName", ""},
		{"Version", "version", ""},
	},
	"InstanceRequirements": {
		{"AcceleratorCount", "acceleratorCount", ""},
		{"AcceleratorManufacturers", "acceleratorManufacturerSet", "item"},
		{"AcceleratorNames", "acceleratorNameSet", "item"},
		{"AcceleratorTotalMemoryMiB", "acceleratorTotalMemoryMiB", ""},
		{"AcceleratorTypes", "acceleratorTypeSet", "item"},
		{"AllowedInstanceTypes", "allowedInstanceTypeSet", "item"},
		{"BareMetal", "bareMetal", ""},
		{"BaselineEbsBandwidthMbps", "baselineEbsBandwidthMbps", ""},
		{"BaselinePerformanceFactors", "baselinePerformanceFactors", ""},
		{"BurstablePerformance", "burstablePerformance", ""},
		{"CpuManufacturers", "cpuManufacturerSet", "item"},
		{"ExcludedInstanceTypes", "excludedInstanceTypeSet", "item"},
		{"InstanceGenerations", "instanceGenerationSet", "item"},
		{"LocalStorage", "localStorage", ""},
		{"LocalStorageTypes", "localStorageTypeSet", "item"},
		{"MaxSpotPriceAsPercentageOfOptimalOnDemandPrice", "maxSpotPriceAsPercentageOfOptimalOnDemandPrice", ""},
		{"MemoryGiBPerVCpu", "memoryGiBPerVCpu", ""},
		{"MemoryMiB", "memoryMiB", ""},
		{"NetworkBandwidthGbps", "networkBandwidthGbps", ""},
		{"NetworkInterfaceCount", "networkInterfaceCount", ""},
		{"OnDemandMaxPricePercentageOverLowestPrice", "onDemandMaxPricePercentageOverLowestPrice", ""},
		{"RequireEncryptionInTransit", "requireEncryptionInTransit", ""},
		{"RequireHibernateSupport", "requireHibernateSupport", ""},
		{"SpotMaxPricePercentageOverLowestPrice", "spotMaxPricePercentageOverLowestPrice", ""},
		{"TotalLocalStorageGB", "totalLocalStorageGB", ""},
		{"VCpuCount", "vCpuCount", ""},
	},
	"InstanceTypeOffering": {
		{"InstanceType", "instanceType", ""},
		{"Location", "location", ""},
		{"LocationType", "locationType", ""},
	},
	"InterruptibleCapacityAllocation": {
		{"InstanceCount", "instanceCount", ""},
		{"InterruptibleCapacityReservationId", "interruptibleCapacityReservationId", ""},
		{"InterruptionType", "interruptionType", ""},
		{"Status", "status", ""},
		{"TargetInstanceCount", "targetInstanceCount", ""},
		{"ZeroSizePreference", "zeroSizePreference", ""},
	},
	"InterruptionInfo": {
		{"InterruptionType", "interruptionType", ""},
		{"SourceCapacityReservationId", "sourceCapacityReservationId", ""},
	},
	"LaunchTemplateAndOverridesResponse": {
		{"LaunchTemplateSpecification", "launchTemplateSpecification", ""},
		{"Overrides", "overrides", ""},
	},
	"MemoryGiBPerVCpu": {
		{"Max", "max", ""},
		{"Min", "min", ""},
	},
	"MemoryMiB": {
		{"Max", "max", ""},
		{"Min", "min", ""},
	},
	"NetworkBandwidthGbps": {
		{"Max", "max", ""},
		{"Min", "min", ""},
	},
	"NetworkInterfaceCount": {
		{"Max", "max", ""},
		{"Min", "min", ""},
	},
	"PerformanceFactorReference": {
		{"InstanceFamily", "instanceFamily", ""},
	},
	"PlacementResponse": {
		{"GroupName", "groupName", ""},
	},
	"PrivateDnsNameOptionsOnLaunch": {
		{"EnableResourceNameDnsAAAARecord", "enableResourceNameDnsAAAARecord", ""},
		{"EnableResourceNameDnsARecord", "enableResourceNameDnsARecord", ""},
		{"HostnameType", "hostnameType", ""},
	},
	"Subnet": {
		{"AssignIpv6AddressOnCreation", "assignIpv6AddressOnCreation", ""},
		{"AvailabilityZone", "availabilityZone", ""},
		{"AvailabilityZoneId", "availabilityZoneId", ""},
		{"AvailableIpAddressCount", "availableIpAddressCount", ""},
		{"BlockPublicAccessStates", "blockPublicAccessStates", ""},
		{"CidrBlock", "cidrBlock", ""},
		{"CustomerOwnedIpv4Pool", "customerOwnedIpv4Pool", ""},
		{"DefaultForAz", "defaultForAz", ""},
		{"EnableDns64", "enableDns64", ""},
		{"EnableLniAtDeviceIndex", "enableLniAtDeviceIndex", ""},
		{"Ipv6CidrBlockAssociationSet", "ipv6CidrBlockAssociationSet", "item"},
		{"Ipv6Native", "ipv6Native", ""},
		{"MapCustomerOwnedIpOnLaunch", "mapCustomerOwnedIpOnLaunch", ""},
		{"MapPublicIpOnLaunch", "mapPublicIpOnLaunch", ""},
		{"OutpostArn", "outpostArn", ""},
		{"OwnerId", "ownerId", ""},
		{"PrivateDnsNameOptionsOnLaunch", "privateDnsNameOptionsOnLaunch", ""},
		{"State", "state", ""},
		{"SubnetArn", "subnetArn", ""},
		{"SubnetId", "subnetId", ""},
		{"Tags", "tagSet", "item"},
		{"Type", "type", ""},
		{"VpcId", "vpcId", ""},
	},
	"SubnetCidrBlockState": {
		{"State", "state", ""},
		{"StatusMessage", "statusMessage", ""},
	},
	"SubnetIpv6CidrBlockAssociation": {
		{"AssociationId", "associationId", ""},
		{"IpSource", "ipSource", ""},
		{"Ipv6AddressAttribute", "ipv6AddressAttribute", ""},
		{"Ipv6CidrBlock", "ipv6CidrBlock", ""},
		{"Ipv6CidrBlockState", "ipv6CidrBlockState", ""},
	},
	"TotalLocalStorageGB": {
		{"Max", "max", ""},
		{"Min", "min", ""},
	},
	"VCpuCountRange": {
		{"Max", "max", ""},
		{"Min", "min", ""},
	},
}
