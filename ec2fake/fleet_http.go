package ec2fake

import (
	"bytes"
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/ec2select/ec2select/ec2fake/internal/sdkfield"
)

// unsupportedFleetParams are real CreateFleet parameters ec2fake does not
// model; a request that sets one fails with CodeUnsupported rather than
// being answered as if EC2 had ignored it.
var unsupportedFleetParams = []string{
	"ExcessCapacityTerminationPolicy", "ReplaceUnhealthyInstances", "TerminateInstancesWithExpiration", "ValidFrom", "ValidUntil",
	"ReservedCapacityOptions", "SpotOptions.MaintenanceStrategies",
}

var unsupportedOverrideParams = []string{"BlockDeviceMapping", "IamInstanceProfile", "KeyName", "MetadataOptions", "Placement", "InstanceRequirements"}

func parseCreateFleet(n *formNode) (*ec2.CreateFleetInput, *apiError) {
	for _, p := range unsupportedFleetParams {
		if n.at(p) != nil {
			return nil, newAPIError(CodeUnsupported, "The parameter %s is valid in EC2 but ec2fake does not model it.", p)
		}
	}
	in := &ec2.CreateFleetInput{ClientToken: n.str("ClientToken"), Context: n.str("Context")}
	if v := n.str("Type"); v != nil {
		in.Type = ec2types.FleetType(*v)
	}
	var errs [6]*apiError
	in.DryRun, errs[0] = n.boolean("DryRun")
	in.TargetCapacitySpecification, errs[1] = parseTargetCapacity(n.child("TargetCapacitySpecification"))
	in.LaunchTemplateConfigs, errs[2] = parseLaunchTemplateConfigs(n)
	in.OnDemandOptions, errs[3] = parseOnDemandOptions(n.child("OnDemandOptions"))
	in.SpotOptions, errs[4] = parseSpotOptions(n.child("SpotOptions"))
	in.TagSpecifications, errs[5] = parseTagSpecifications(n)
	return in, firstErr(errs[:]...)
}

// at returns the node at a dotted path without marking it read.
func (n *formNode) at(path string) *formNode {
	for _, part := range strings.Split(path, ".") {
		if n == nil {
			return nil
		}
		n = n.children[part]
	}
	return n
}

func parseTargetCapacity(n *formNode) (*ec2types.TargetCapacitySpecificationRequest, *apiError) {
	if n == nil {
		return nil, nil
	}
	t := &ec2types.TargetCapacitySpecificationRequest{}
	if v := n.str("DefaultTargetCapacityType"); v != nil {
		t.DefaultTargetCapacityType = ec2types.DefaultTargetCapacityType(*v)
	}
	if v := n.str("TargetCapacityUnitType"); v != nil {
		t.TargetCapacityUnitType = ec2types.TargetCapacityUnitType(*v)
	}
	var e1, e2, e3 *apiError
	t.TotalTargetCapacity, e1 = n.int32("TotalTargetCapacity")
	t.OnDemandTargetCapacity, e2 = n.int32("OnDemandTargetCapacity")
	t.SpotTargetCapacity, e3 = n.int32("SpotTargetCapacity")
	return t, firstErr(e1, e2, e3)
}

func parseLaunchTemplateConfigs(n *formNode) ([]ec2types.FleetLaunchTemplateConfigRequest, *apiError) {
	configs, aerr := n.list("LaunchTemplateConfigs")
	if aerr != nil {
		return nil, aerr
	}
	out := make([]ec2types.FleetLaunchTemplateConfigRequest, 0, len(configs))
	for _, c := range configs {
		cfg := ec2types.FleetLaunchTemplateConfigRequest{}
		if s := c.child("LaunchTemplateSpecification"); s != nil {
			cfg.LaunchTemplateSpecification = &ec2types.FleetLaunchTemplateSpecificationRequest{
				LaunchTemplateId: s.str("LaunchTemplateId"), LaunchTemplateName: s.str("LaunchTemplateName"), Version: s.str("Version"),
			}
		}
		overrides, aerr := c.list("Overrides")
		if aerr != nil {
			return nil, aerr
		}
		for _, o := range overrides {
			ov, aerr := parseOverride(o)
			if aerr != nil {
				return nil, aerr
			}
			cfg.Overrides = append(cfg.Overrides, ov)
		}
		out = append(out, cfg)
	}
	return out, nil
}

func parseOverride(n *formNode) (ec2types.FleetLaunchTemplateOverridesRequest, *apiError) {
	o := ec2types.FleetLaunchTemplateOverridesRequest{
		SubnetId: n.str("SubnetId"), AvailabilityZone: n.str("AvailabilityZone"),
		ImageId: n.str("ImageId"), MaxPrice: n.str("MaxPrice"),
	}
	if id := n.str("AvailabilityZoneId"); id != nil && !sdkfield.Set(&o, "AvailabilityZoneId", id) {
		return o, newAPIError(CodeUnsupported, "The parameter %s.AvailabilityZoneId needs an aws-sdk-go-v2 ec2 release of v1.315.0 or later in the program that runs ec2fake; name AvailabilityZone or SubnetId instead.", n.path)
	}
	for _, p := range unsupportedOverrideParams {
		if n.at(p) != nil {
			return o, newAPIError(CodeUnsupported, "The parameter %s.%s is valid in EC2 but ec2fake does not model it.", n.path, p)
		}
	}
	if v := n.str("InstanceType"); v != nil {
		o.InstanceType = ec2types.InstanceType(*v)
	}
	var e1, e2 *apiError
	o.Priority, e1 = n.float64("Priority")
	o.WeightedCapacity, e2 = n.float64("WeightedCapacity")
	return o, firstErr(e1, e2)
}

func parseOnDemandOptions(n *formNode) (*ec2types.OnDemandOptionsRequest, *apiError) {
	if n == nil {
		return nil, nil
	}
	o := &ec2types.OnDemandOptionsRequest{MaxTotalPrice: n.str("MaxTotalPrice")}
	if v := n.str("AllocationStrategy"); v != nil {
		o.AllocationStrategy = ec2types.FleetOnDemandAllocationStrategy(*v)
	}
	if c := n.child("CapacityReservationOptions"); c != nil {
		o.CapacityReservationOptions = &ec2types.CapacityReservationOptionsRequest{}
		if v := c.str("UsageStrategy"); v != nil {
			o.CapacityReservationOptions.UsageStrategy = ec2types.FleetCapacityReservationUsageStrategy(*v)
		}
	}
	var e1, e2, e3 *apiError
	o.MinTargetCapacity, e1 = n.int32("MinTargetCapacity")
	o.SingleAvailabilityZone, e2 = n.boolean("SingleAvailabilityZone")
	o.SingleInstanceType, e3 = n.boolean("SingleInstanceType")
	return o, firstErr(e1, e2, e3)
}

func parseSpotOptions(n *formNode) (*ec2types.SpotOptionsRequest, *apiError) {
	if n == nil {
		return nil, nil
	}
	o := &ec2types.SpotOptionsRequest{MaxTotalPrice: n.str("MaxTotalPrice")}
	if v := n.str("AllocationStrategy"); v != nil {
		o.AllocationStrategy = ec2types.SpotAllocationStrategy(*v)
	}
	if v := n.str("InstanceInterruptionBehavior"); v != nil {
		o.InstanceInterruptionBehavior = ec2types.SpotInstanceInterruptionBehavior(*v)
	}
	var e1, e2, e3, e4 *apiError
	o.InstancePoolsToUseCount, e1 = n.int32("InstancePoolsToUseCount")
	o.MinTargetCapacity, e2 = n.int32("MinTargetCapacity")
	o.SingleAvailabilityZone, e3 = n.boolean("SingleAvailabilityZone")
	o.SingleInstanceType, e4 = n.boolean("SingleInstanceType")
	return o, firstErr(e1, e2, e3, e4)
}

func parseTagSpecifications(n *formNode) ([]ec2types.TagSpecification, *apiError) {
	specs, aerr := n.list("TagSpecification")
	if aerr != nil {
		return nil, aerr
	}
	var out []ec2types.TagSpecification
	for _, s := range specs {
		spec := ec2types.TagSpecification{}
		if v := s.str("ResourceType"); v != nil {
			spec.ResourceType = ec2types.ResourceType(*v)
		}
		tags, aerr := s.list("Tag")
		if aerr != nil {
			return nil, aerr
		}
		for _, t := range tags {
			spec.Tags = append(spec.Tags, ec2types.Tag{Key: t.str("Key"), Value: t.str("Value")})
		}
		out = append(out, spec)
	}
	return out, nil
}

// createFleetResponse writes CreateFleet's answer: the fleet's ID, the
// errors and the instances launched.
func (e *xmlEncoder) createFleetResponse(requestID string, out *ec2.CreateFleetOutput) []byte {
	var buf bytes.Buffer
	buf.WriteString(xmlHeader)
	buf.WriteString(`<CreateFleetResponse xmlns="` + ec2Namespace + `">`)
	element(&buf, "requestId", requestID)
	element(&buf, "fleetId", aws.ToString(out.FleetId))
	writeItems(e, &buf, "errorSet", out.Errors)
	writeItems(e, &buf, "fleetInstanceSet", out.Instances)
	buf.WriteString("</CreateFleetResponse>")
	return buf.Bytes()
}

func element(buf *bytes.Buffer, name, value string) {
	open(buf, name)
	text(buf, value)
	closeTag(buf, name)
}

func writeItems[T any](e *xmlEncoder, buf *bytes.Buffer, set string, items []T) {
	open(buf, set)
	for i := range items {
		open(buf, "item")
		e.writeStruct(buf, reflect.ValueOf(&items[i]).Elem())
		closeTag(buf, "item")
	}
	closeTag(buf, set)
}
