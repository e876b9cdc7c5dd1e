package ec2fake

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// laterFields are the fields ec2fake serves that aws-sdk-go-v2's ec2 module
// added after v1.275.1, the lowest release go.mod requires. The element
// tables name them; against an older release they are absent from the
// types, and from the answers. .ci/run tests both the floor and the newest
// releases.
var laterFields = map[string]bool{
	"AvailabilityZone.Geography": true, "AvailabilityZone.SubGeography": true,
	"CapacityAllocation.AllocationMetadata": true,
	"CapacityReservation.AdjustmentDetails": true, "CapacityReservation.AdjustmentStatus": true,
	"CapacityReservation.LaunchStatus": true, "CapacityReservation.OriginalStartDate": true,
	"CapacityReservation.ZeroSizePreference": true, "CapacityReservationCommitmentInfo.CommitmentDuration": true,
	"CreateFleetInstance.AvailabilityZone": true, "CreateFleetInstance.AvailabilityZoneId": true, "CreateFleetInstance.SubnetId": true,
	"EbsBlockDevice.EbsCardIndex": true, "EbsInfo.EbsCards": true, "EbsInfo.MaximumEbsCards": true,
	"FleetLaunchTemplateOverrides.AvailabilityZoneId": true,
	"GpuDeviceInfo.GpuPartitionSize":                  true, "GpuDeviceInfo.LogicalGpuCount": true, "GpuDeviceInfo.Workloads": true,
	"Image.ImageWatermarks": true, "Image.InstanceTypeSpecification": true, "Image.PublicSsmParameterName": true, "Image.ScanResults": true,
	"InstanceTypeInfo.SupportedInRegion": true, "InterruptibleCapacityAllocation.ZeroSizePreference": true,
	"NetworkCardInfo.AdditionalFlexibleNetworkInterfaces": true, "NetworkCardInfo.InterfaceTypes": true,
	"NetworkInfo.ConnectionTrackingConfiguration": true, "NetworkInfo.Ipv4AddressesPerSecondaryInterface": true,
	"NetworkInfo.MaximumSecondaryNetworkInterfaces": true, "NetworkInfo.SecondaryNetworkSupported": true,
}

// laterShapes are the element tables reached only through laterFields.
var laterShapes = map[string]bool{
	"ImageWatermark": true, "InstanceTypeItem": true, "InstanceTypeSpecification": true, "ScanResults": true,
	"DefaultConnectionTrackingConfiguration": true, "EbsCardInfo": true, "AvailabilityZoneSubGeography": true,
	"AvailabilityZoneGeography": true, "CapacityReservationAdjustmentDetails": true, "CapacityAllocationMetadataEntry": true,
}

// decodeUpstream decodes an upstream JSON file into SDK types, refusing
// unknown fields, except that against an SDK release older than the one
// the file was recorded with, fields that release lacks (laterFields) are
// dropped, as that release's own JSON would drop them.
func decodeUpstream(t testing.TB, path string, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return
	}
	field, ok := strings.CutPrefix(err.Error(), `json: unknown field "`)
	field = strings.TrimSuffix(field, `"`)
	later := false
	for f := range laterFields {
		later = later || ok && strings.HasSuffix(f, "."+field)
	}
	if !later {
		t.Fatalf("%s: %v", path, err)
	}
	t.Logf("%s: the SDK release in use has no field %s (a later one has); decoding without it", path, field)
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
