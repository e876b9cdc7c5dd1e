package offerings

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Attempt is one launch request in this package's terms: the offerings it
// asked EC2 for (a CreateFleet's overrides, or the one offering of a
// RunInstances) and, by zone name, the subnet it used there, when it
// named subnets.
type Attempt struct {
	Offerings []Offering        `json:"offerings"`
	Subnets   map[string]string `json:"subnets,omitempty"`
}

// Launched is one offering a launch got instances of.
type Launched struct {
	Offering    Offering `json:"offering"`
	SubnetID    string   `json:"subnetID,omitempty"`
	InstanceIDs []string `json:"instanceIDs"`
}

// Outcome is what one launch found out: what launched, and each failure
// with the offering it concerns.
type Outcome struct {
	Launched []Launched `json:"launched,omitempty"`
	Failures []Failure  `json:"failures,omitempty"`
}

// FleetOutcome reads the answer of a CreateFleet (type instant) made for
// a. A call that failed as a whole (err, an API error such as
// InsufficientInstanceCapacity, RequestLimitExceeded or InternalError, or
// no answer at all) is a failure of every offering a asked for: that is
// what it found out, and a memory that ignores it keeps retrying the same
// offerings (karpenter-provider-aws #9616: instance.go:391-402 returns
// before updateUnavailableOfferingsCache, line 574, which reads only the
// per-instance errors). Otherwise each per-instance error and each group
// of instances is matched to the offering of a with its instance type,
// zone and capacity type (the error's lifecycle); an answer naming an
// offering a did not ask for is an error, naming it.
func FleetOutcome(a Attempt, out *ec2.CreateFleetOutput, err error) (Outcome, error) {
	if err != nil || out == nil {
		return wholeCall(a, err), nil
	}
	var o Outcome
	for _, e := range out.Errors {
		ov := e.LaunchTemplateAndOverrides
		offering, subnet, ferr := a.match(overrideOf(ov), e.Lifecycle)
		if ferr != nil {
			return Outcome{}, ferr
		}
		o.Failures = append(o.Failures, Failure{Offering: offering, SubnetID: subnet, Code: aws.ToString(e.ErrorCode), Message: aws.ToString(e.ErrorMessage)})
	}
	for _, i := range out.Instances {
		where := overrideOf(i.LaunchTemplateAndOverrides)
		where.instanceType = string(i.InstanceType)
		if where.zone == "" {
			where.zone = aws.ToString(i.AvailabilityZone)
		}
		offering, subnet, ferr := a.match(where, i.Lifecycle)
		if ferr != nil {
			return Outcome{}, ferr
		}
		o.Launched = append(o.Launched, Launched{Offering: offering, SubnetID: subnet, InstanceIDs: slices.Clone(i.InstanceIds)})
	}
	return o, nil
}

// RunInstancesOutcome reads the answer of a RunInstances made for a, which
// must hold exactly one offering: RunInstances launches one instance type
// in one zone.
func RunInstancesOutcome(a Attempt, out *ec2.RunInstancesOutput, err error) (Outcome, error) {
	if len(a.Offerings) != 1 {
		return Outcome{}, fmt.Errorf("offerings: RunInstancesOutcome: the attempt holds %d offerings; RunInstances launches exactly one", len(a.Offerings))
	}
	if err != nil || out == nil {
		return wholeCall(a, err), nil
	}
	o := a.Offerings[0]
	l := Launched{Offering: o, SubnetID: a.Subnets[o.Zone]}
	for _, i := range out.Instances {
		l.InstanceIDs = append(l.InstanceIDs, aws.ToString(i.InstanceId))
	}
	return Outcome{Launched: []Launched{l}}, nil
}

// wholeCall is the outcome of a call that failed as a whole.
func wholeCall(a Attempt, err error) Outcome {
	c := ClassifyError(err)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	var o Outcome
	for _, off := range a.Offerings {
		o.Failures = append(o.Failures, Failure{Offering: off, SubnetID: a.Subnets[off.Zone], Code: c.Code, Message: msg})
	}
	return o
}

// place is where an override or instance group says it launched.
type place struct{ instanceType, zone, subnet string }

func overrideOf(ov *ec2types.LaunchTemplateAndOverridesResponse) place {
	if ov == nil || ov.Overrides == nil {
		return place{}
	}
	o := ov.Overrides
	return place{instanceType: string(o.InstanceType), zone: aws.ToString(o.AvailabilityZone), subnet: aws.ToString(o.SubnetId)}
}

// match finds the offering of a that p and the lifecycle name: the same
// instance type, in p's zone (or the zone of p's subnet), of the capacity
// type the lifecycle says (on-demand covers a reserved offering, which
// launches as on-demand into its reservation).
func (a Attempt) match(p place, lifecycle ec2types.InstanceLifecycle) (Offering, string, error) {
	zone := p.zone
	if zone == "" {
		for z, s := range a.Subnets {
			if s == p.subnet {
				zone = z
			}
		}
	}
	for _, o := range a.Offerings {
		if o.InstanceType == p.instanceType && o.Zone == zone && lifecycleMatches(o.CapacityType, lifecycle) {
			subnet := p.subnet
			if subnet == "" {
				subnet = a.Subnets[zone]
			}
			return o, subnet, nil
		}
	}
	return Offering{}, "", fmt.Errorf("offerings: the answer names %s in zone %q (subnet %q, lifecycle %q), which the attempt did not ask for", p.instanceType, zone, p.subnet, lifecycle)
}

func lifecycleMatches(ct CapacityType, l ec2types.InstanceLifecycle) bool {
	switch l {
	case ec2types.InstanceLifecycleSpot:
		return ct == Spot
	case ec2types.InstanceLifecycleCapacityBlock, ec2types.InstanceLifecycleInterruptibleCapacityReservation:
		return ct == Reserved
	case ec2types.InstanceLifecycleOnDemand, "":
		return ct == OnDemand || ct == Reserved
	}
	return false
}
