package ec2fake

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
)

// fleetInput is an instant fleet of count instances of capacity type ct
// over the given overrides, as Karpenter builds it (one launch template,
// overrides with subnet or zone).
func fleetInput(ct ec2types.DefaultTargetCapacityType, count int32, overrides ...ec2types.FleetLaunchTemplateOverridesRequest) *ec2.CreateFleetInput {
	return &ec2.CreateFleetInput{
		Type: ec2types.FleetTypeInstant,
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{
			TotalTargetCapacity: aws.Int32(count), DefaultTargetCapacityType: ct,
		},
		LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateName: aws.String("karpenter.k8s.aws/123"), Version: aws.String("$Latest")},
			Overrides:                   overrides,
		}},
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeInstance, Tags: []ec2types.Tag{{Key: aws.String("karpenter.sh/nodepool"), Value: aws.String("default")}}}},
	}
}

func inZone(t, zone string) ec2types.FleetLaunchTemplateOverridesRequest {
	return ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: ec2types.InstanceType(t), AvailabilityZone: aws.String(zone)}
}

func inSubnet(t, subnet string) ec2types.FleetLaunchTemplateOverridesRequest {
	return ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: ec2types.InstanceType(t), SubnetId: aws.String(subnet)}
}

// fleetSummary is what launched and what failed, one line each.
func fleetSummary(out *ec2.CreateFleetOutput) []string {
	var lines []string
	for _, i := range out.Instances {
		o := i.LaunchTemplateAndOverrides.Overrides
		lines = append(lines, fmt.Sprintf("launched %d %s %s %s", len(i.InstanceIds), o.InstanceType, aws.ToString(o.AvailabilityZone), i.Lifecycle))
	}
	for _, e := range out.Errors {
		o := e.LaunchTemplateAndOverrides.Overrides
		lines = append(lines, fmt.Sprintf("error %s %s %s %s", aws.ToString(e.ErrorCode), o.InstanceType, aws.ToString(o.AvailabilityZone), e.Lifecycle))
	}
	return lines
}

// createFleetBoth runs in on two identical fixtures, one in process and
// one over HTTP, after setup, and fails unless both answer alike.
func createFleetBoth(t *testing.T, setup func(*Backend), in *ec2.CreateFleetInput) (*ec2.CreateFleetOutput, *errInfo, *Backend) {
	t.Helper()
	local, _ := newPlacementFixture(t)
	remote, _ := newPlacementFixture(t)
	setup(local)
	setup(remote)
	p := newPair(t, remote)
	ctx := context.Background()
	lo, lerr := local.CreateFleet(ctx, cloneInput(in))
	ro, rerr := p.client.CreateFleet(ctx, cloneInput(in))
	if diff := cmp.Diff(describeErr(lerr), describeErr(rerr)); diff != "" {
		t.Fatalf("in-process and HTTP errors differ (-in-process +http):\n%s", diff)
	}
	if lerr != nil {
		return nil, describeErr(lerr), local
	}
	if diff := cmp.Diff(lo, ro, ignoreUnexported, cmp.FilterPath(func(p cmp.Path) bool {
		sf, ok := p.Last().(cmp.StructField)
		return ok && sf.Name() == "ResultMetadata"
	}, cmp.Ignore())); diff != "" {
		t.Fatalf("in-process and HTTP answers differ (-in-process +http):\n%s", diff)
	}
	return lo, nil, local
}

func script(c ...Capacity) func(*Backend) {
	return func(b *Backend) {
		for _, x := range c {
			if err := b.SetCapacity(x); err != nil {
				panic(err)
			}
		}
	}
}

func TestCreateFleet(t *testing.T) {
	none := func(*Backend) {}
	for _, tc := range []struct {
		name    string
		setup   func(*Backend)
		in      *ec2.CreateFleetInput
		want    []string
		wantErr *errInfo
	}{
		{"unlimited capacity", none, fleetInput("spot", 2, inZone("m5.large", "us-east-1a")),
			[]string{"launched 2 m5.large us-east-1a spot"}, nil},
		{"3 instances, then InsufficientInstanceCapacity", script(Capacity{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "spot", Instances: 3}),
			fleetInput("spot", 5, inZone("m5.large", "us-east-1a")),
			[]string{"launched 3 m5.large us-east-1a spot", "error InsufficientInstanceCapacity m5.large us-east-1a spot"}, nil},
		{"falls to the next override", script(Capacity{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "spot"}),
			fleetInput("spot", 2, inZone("m5.large", "us-east-1a"), inZone("m5.large", "us-east-1b")),
			[]string{"launched 2 m5.large us-east-1b spot", "error InsufficientInstanceCapacity m5.large us-east-1a spot"}, nil},
		{"nothing launches: errors only, no API error", script(
			Capacity{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "spot", Code: "MaxSpotInstanceCountExceeded"},
			Capacity{InstanceType: "m5.large", Zone: "us-east-1b", CapacityType: "spot"}),
			fleetInput("spot", 1, inZone("m5.large", "us-east-1a"), inZone("m5.large", "us-east-1b")),
			[]string{"error MaxSpotInstanceCountExceeded m5.large us-east-1a spot", "error InsufficientInstanceCapacity m5.large us-east-1b spot"}, nil},
		{"priority decides the order", none, fleetInput("on-demand", 1,
			ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: "m5.large", AvailabilityZone: aws.String("us-east-1a"), Priority: aws.Float64(2)},
			ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: "c5.large", AvailabilityZone: aws.String("us-east-1a"), Priority: aws.Float64(1)}),
			[]string{"launched 1 c5.large us-east-1a on-demand"}, nil},
		{"type not offered in the zone", none, fleetInput("on-demand", 1, inZone("m5.large", "us-east-1e"), inZone("m4.large", "us-east-1e")),
			[]string{"launched 1 m4.large us-east-1e on-demand", "error Unsupported m5.large us-east-1e on-demand"}, nil},
		{"subnet out of addresses", none, fleetInput("on-demand", 5, inSubnet("m5.large", subnetB), inSubnet("m5.large", subnetFull)),
			[]string{"launched 3 m5.large us-east-1b on-demand", "error InsufficientFreeAddressesInSubnet m5.large us-east-1b on-demand",
				"error InsufficientFreeAddressesInSubnet m5.large us-east-1c on-demand"}, nil},
		{"capacity block before its window", none, fleetInput("capacity-block", 1, inZone("p5.48xlarge", "us-east-1c")),
			[]string{"error ReservationCapacityExceeded p5.48xlarge us-east-1c capacity-block"}, nil},
		{"mixed targets", script(Capacity{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "spot", Instances: 1}),
			func() *ec2.CreateFleetInput {
				in := fleetInput("spot", 3, inZone("m5.large", "us-east-1a"))
				in.TargetCapacitySpecification.OnDemandTargetCapacity = aws.Int32(1)
				return in
			}(),
			[]string{"launched 1 m5.large us-east-1a on-demand", "launched 1 m5.large us-east-1a spot", "error InsufficientInstanceCapacity m5.large us-east-1a spot"}, nil},
		{"maintain fleets", none, func() *ec2.CreateFleetInput {
			in := fleetInput("spot", 1, inZone("m5.large", "us-east-1a"))
			in.Type = ""
			return in
		}(),
			nil, &errInfo{CodeUnsupported, `Fleet type "" is valid in EC2 but ec2fake serves only instant fleets (the default is maintain); set Type to instant.`, 400}},
		{"unknown subnet", none, fleetInput("spot", 1, inSubnet("m5.large", "subnet-0ffffffffffffffff")),
			nil, &errInfo{CodeInvalidSubnetIDNotFound, "The subnet ID 'subnet-0ffffffffffffffff' does not exist", 400}},
		{"dry run", none, func() *ec2.CreateFleetInput {
			in := fleetInput("spot", 1, inZone("m5.large", "us-east-1a"))
			in.DryRun = aws.Bool(true)
			return in
		}(), nil, &errInfo{CodeDryRunOperation, dryRunMessage, 412}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err, _ := createFleetBoth(t, tc.setup, tc.in)
			if diff := cmp.Diff(tc.wantErr, err); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err == nil {
				if diff := cmp.Diff(tc.want, fleetSummary(out)); diff != "" {
					t.Errorf("fleet (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// An on-demand fleet that asks for reservations first fills the open one
// (never the targeted one, which only a launch naming it may use), and
// describes show the reservation's instances taken.
func TestCreateFleetUsesOpenReservationsFirst(t *testing.T) {
	in := fleetInput("on-demand", 3, inZone("m5.large", "us-east-1a"), inZone("m5.large", "us-east-1b"))
	in.OnDemandOptions = &ec2types.OnDemandOptionsRequest{CapacityReservationOptions: &ec2types.CapacityReservationOptionsRequest{
		UsageStrategy: ec2types.FleetCapacityReservationUsageStrategyUseCapacityReservationsFirst}}
	limited := script(Capacity{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "on-demand"}, Capacity{InstanceType: "m5.large", Zone: "us-east-1b", CapacityType: "on-demand"})
	out, err, b := createFleetBoth(t, limited, in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"launched 2 m5.large us-east-1a on-demand", "error InsufficientInstanceCapacity m5.large us-east-1a on-demand", "error InsufficientInstanceCapacity m5.large us-east-1b on-demand"}
	if diff := cmp.Diff(want, fleetSummary(out)); diff != "" {
		t.Errorf("fleet (-want +got):\n%s", diff)
	}
	rs, _ := b.DescribeCapacityReservations(context.Background(), &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{crOpen, crTargeted}})
	if diff := cmp.Diff([]string{crOpen + " active 0/4", crTargeted + " active 1/1"}, reservationSummary(rs.CapacityReservations)); diff != "" {
		t.Errorf("reservations after the launch (-want +got):\n%s", diff)
	}
}

// Whole-call errors come from InjectFault: the SDK retries a throttle
// (NewClient's retryer, 3 attempts) and the launch then goes through; a
// capacity error for the whole call is returned as the API error it is.
func TestCreateFleetWholeCallErrors(t *testing.T) {
	b, _ := newPlacementFixture(t)
	p := newPair(t, b)
	ctx := context.Background()
	if err := b.InjectFault(Fault{Operation: OpCreateFleet, Code: CodeRequestLimitExceeded, Times: 2}); err != nil {
		t.Fatal(err)
	}
	out, err := p.client.CreateFleet(ctx, fleetInput("spot", 1, inZone("m5.large", "us-east-1a")))
	if err != nil || len(out.Instances) != 1 {
		t.Fatalf("after two throttles: %v, %v", out, err)
	}
	if n := len(b.Calls()); n != 3 {
		t.Errorf("%d calls logged, want 3 (two throttled, one answered)", n)
	}
	if err := b.InjectFault(Fault{Operation: OpCreateFleet, Code: CodeInsufficientInstanceCapacity, Times: 1}); err != nil {
		t.Fatal(err)
	}
	_, err = p.client.CreateFleet(ctx, fleetInput("spot", 1, inZone("m5.large", "us-east-1a")))
	if diff := cmp.Diff(&errInfo{CodeInsufficientInstanceCapacity, "ec2fake: injected fault InsufficientInstanceCapacity", 400}, describeErr(err)); diff != "" {
		t.Errorf("whole-call capacity error (-want +got):\n%s", diff)
	}
}

// A parameter EC2 has but the fake does not model is refused as
// Unsupported; one EC2 does not have is UnknownParameter.
func TestCreateFleetParameters(t *testing.T) {
	b, _ := newPlacementFixture(t)
	h := b.Handler()
	for _, tc := range []struct{ body, code, message string }{
		{"Action=CreateFleet&Type=instant&ValidUntil=2030-01-01T00:00:00Z", CodeUnsupported, "The parameter ValidUntil is valid in EC2 but ec2fake does not model it."},
		{"Action=CreateFleet&Type=instant&Colour=blue", CodeUnknownParameter, "The parameter Colour is not recognized"},
		{"Action=CreateFleet&Type=instant&LaunchTemplateConfigs.x.Overrides.1.InstanceType=m5.large", CodeUnknownParameter, "The parameter LaunchTemplateConfigs.x is not recognized"},
		{"Action=CreateFleet&Type=instant&LaunchTemplateConfigs.1.Overrides.1.Placement.GroupName=pg", CodeUnsupported, "The parameter LaunchTemplateConfigs.1.Overrides.1.Placement is valid in EC2 but ec2fake does not model it."},
		{"Action=DescribeSubnets&SubnetId.1=subnet-1&Shape=round", CodeUnknownParameter, "The parameter Shape is not recognized"},
	} {
		t.Run(tc.body, func(t *testing.T) {
			code, message := postForm(t, h, tc.body)
			if code != tc.code || message != tc.message {
				t.Errorf("answer %s %q, want %s %q", code, message, tc.code, tc.message)
			}
		})
	}
}

// The request the SDK sends for a fleet with every field the fake reads
// arrives whole: the call log holds what the client sent.
func TestCreateFleetRequestArrivesWhole(t *testing.T) {
	b, _ := newPlacementFixture(t)
	p := newPair(t, b)
	in := fleetInput("spot", 2, ec2types.FleetLaunchTemplateOverridesRequest{
		InstanceType: "m5.large", SubnetId: aws.String(subnetA), AvailabilityZone: aws.String("us-east-1a"),
		ImageId: aws.String("ami-0123456789abcdef0"), Priority: aws.Float64(0.5), WeightedCapacity: aws.Float64(1), MaxPrice: aws.String("0.1"),
	})
	in.ClientToken = aws.String("token-1")
	in.Context = aws.String("ctx-1")
	in.TargetCapacitySpecification.TargetCapacityUnitType = ec2types.TargetCapacityUnitTypeUnits
	in.SpotOptions = &ec2types.SpotOptionsRequest{AllocationStrategy: "price-capacity-optimized", SingleAvailabilityZone: aws.Bool(false), MinTargetCapacity: aws.Int32(1)}
	in.OnDemandOptions = &ec2types.OnDemandOptionsRequest{AllocationStrategy: "lowest-price", CapacityReservationOptions: &ec2types.CapacityReservationOptionsRequest{UsageStrategy: "use-capacity-reservations-first"}}
	if _, err := p.client.CreateFleet(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	calls := b.Calls()
	got := calls[len(calls)-1].Input.(*ec2.CreateFleetInput)
	if diff := cmp.Diff(in, got, ignoreUnexported); diff != "" {
		t.Errorf("what arrived differs from what was sent (-sent +arrived):\n%s", diff)
	}
	if strings.Count(fmt.Sprint(fleetSummary(mustFleet(t, b, in))), "launched") != 1 {
		t.Error("the same request in process launched nothing")
	}
}

func mustFleet(t *testing.T, b *Backend, in *ec2.CreateFleetInput) *ec2.CreateFleetOutput {
	t.Helper()
	out, err := b.CreateFleet(context.Background(), cloneInput(in))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// postForm posts a raw EC2 Query body and returns the error's code and
// message ("" for an answer that is no error).
func postForm(t *testing.T, h http.Handler, body string) (string, string) {
	t.Helper()
	_, doc, _ := post(t, h, http.MethodPost, body)
	if len(doc.Errors) == 0 {
		return "", ""
	}
	return doc.Errors[0].Code, doc.Errors[0].Message
}

// Each instance takes an address of its subnet: describes show fewer free
// addresses, and the next launch gets only what is left.
func TestCreateFleetTakesAddresses(t *testing.T) {
	b, _ := newPlacementFixture(t)
	ctx := context.Background()
	mustFleet(t, b, fleetInput("on-demand", 2, inSubnet("m5.large", subnetB)))
	out, err := b.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{subnetB}})
	if err != nil || aws.ToInt32(out.Subnets[0].AvailableIpAddressCount) != 1 {
		t.Fatalf("subnet after two instances: %v, %v; want 1 free address", out, err)
	}
	got := fleetSummary(mustFleet(t, b, fleetInput("on-demand", 2, inSubnet("m5.large", subnetB))))
	want := []string{"launched 1 m5.large us-east-1b on-demand", "error InsufficientFreeAddressesInSubnet m5.large us-east-1b on-demand"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("second fleet (-want +got):\n%s", diff)
	}
}
