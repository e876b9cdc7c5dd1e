package offerings

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// fleetInput is the CreateFleet request Karpenter makes for one capacity
// type (karpenter-provider-aws v1.14.1 pkg/providers/instance/instance.go:
// one override per offering, with its zone, launch template configs
// :463-507, overrides :509-572): an instant fleet of one instance.
func fleetInput(a Attempt) *ec2.CreateFleetInput {
	ct := ec2types.DefaultTargetCapacityType(a.Offerings[0].CapacityType.String())
	var overrides []ec2types.FleetLaunchTemplateOverridesRequest
	for _, o := range a.Offerings {
		overrides = append(overrides, ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: ec2types.InstanceType(o.InstanceType), AvailabilityZone: aws.String(o.Zone)})
	}
	return &ec2.CreateFleetInput{
		Type:                        ec2types.FleetTypeInstant,
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{TotalTargetCapacity: aws.Int32(1), DefaultTargetCapacityType: ct},
		LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateName: aws.String("karpenter.k8s.aws/default"), Version: aws.String("$Latest")},
			Overrides:                   overrides,
		}},
	}
}

// attemptOf is what Karpenter launches next: every candidate of the first
// candidate's capacity type (getCapacityType, instance.go:743-759, picks
// one capacity type per NodeClaim, reserved, then spot, then on-demand).
func attemptOf(l CandidateList) Attempt {
	var a Attempt
	for _, c := range l.Candidates {
		if c.Offering.CapacityType == l.Candidates[0].Offering.CapacityType {
			a.Offerings = append(a.Offerings, c.Offering)
		}
	}
	return a
}

// karpenterMarks is what Karpenter v1.14.1 learns from a CreateFleet: on
// an API error, nothing (instance.go:393-402 returns before
// updateUnavailableOfferingsCache); otherwise the per-instance errors
// whose codes it counts as unfulfillable capacity (instance.go:422,
// :610-642; errors.go:56-65), each for its override's offering.
func karpenterMarks(a Attempt, out *ec2.CreateFleetOutput, err error) Outcome {
	if err != nil {
		return Outcome{}
	}
	o, _ := FleetOutcome(a, out, nil)
	return o
}

// karpenter-provider-aws #9616: a CreateFleet that fails as a whole (an
// API error, not per-instance errors) never reached Karpenter's
// insufficient-capacity cache, so a NodePool allowing spot and on-demand
// kept launching spot and never fell back. Here a real *ec2.Client talks
// to ec2fake over HTTP; the whole call fails with a capacity error (or
// the InternalError the issue reports); FleetOutcome reads the failure as
// one of every offering the call asked for, the memory marks the spot
// offerings, and the next candidate list starts with on-demand. Reading
// the same answers as Karpenter does leaves the list as it was.
func TestKarpenterProviderAWS9616(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		code   string
		status int
		calls  int // the SDK retries a 500 twice (NewClient's retryer), a 400 not
	}{
		{"InsufficientInstanceCapacity", http.StatusInternalServerError, 3},
		{"InternalError", http.StatusInternalServerError, 3},
		{"UnfulfillableCapacity", http.StatusBadRequest, 1},
	} {
		t.Run(tc.code, func(t *testing.T) {
			backend := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return t0 }})
			srv := ec2fake.NewServer(backend)
			t.Cleanup(srv.Close)
			client := ec2fake.NewClient(srv.URL)
			region, err := Load(ctx, client, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			region.InstanceTypes = []string{"m5.large", "m5.xlarge"} // the NodePool's types
			opts := CandidateOptions{Requirements: compat.MustRequirements(
				compat.Requirement{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"spot", "on-demand"}},
				compat.Requirement{Key: compat.LabelZone, Operator: compat.In, Values: []string{"us-east-1a", "us-east-1b", "us-east-1c"}})}
			memory, _ := NewMemory(MemoryOptions{Now: func() time.Time { return t0 }})

			before, err := Candidates(region, memory.Marks(), t0, opts)
			if err != nil {
				t.Fatal(err)
			}
			attempt := attemptOf(before)
			if len(attempt.Offerings) != 6 || attempt.Offerings[0].CapacityType != Spot {
				t.Fatalf("first attempt: %v; want the six spot offerings", attempt.Offerings)
			}
			if err := backend.InjectFault(ec2fake.Fault{Operation: ec2fake.OpCreateFleet, Code: tc.code, HTTPStatus: tc.status, Times: tc.calls}); err != nil {
				t.Fatal(err)
			}
			out, err := client.CreateFleet(ctx, fleetInput(attempt))
			if err == nil || ClassifyError(err).Code != tc.code {
				t.Fatalf("CreateFleet: %v, %v; want the whole call to fail with %s", out, err, tc.code)
			}

			// Before: Karpenter's reading learns nothing; spot stays first.
			kmem, _ := NewMemory(MemoryOptions{Now: func() time.Time { return t0 }})
			kmem.Record(karpenterMarks(attempt, out, err))
			kept, _ := Candidates(region, kmem.Marks(), t0, opts)
			if got := kept.Candidates[0].Offering.CapacityType; got != Spot {
				t.Errorf("read as Karpenter reads it, the next launch is %s; #9616 says it stays spot", got)
			}

			// After: every spot offering of the call is marked, on-demand follows.
			outcome, ferr := FleetOutcome(attempt, out, err)
			if ferr != nil {
				t.Fatal(ferr)
			}
			marks := memory.Record(outcome)
			if len(marks) == 0 {
				t.Fatalf("no mark from %v", outcome)
			}
			after, _ := Candidates(region, memory.Marks(), t0, opts)
			want := []string{"m5.large us-east-1a on-demand", "m5.large us-east-1b on-demand", "m5.large us-east-1c on-demand",
				"m5.xlarge us-east-1a on-demand", "m5.xlarge us-east-1b on-demand", "m5.xlarge us-east-1c on-demand"}
			if diff := cmp.Diff(want, names(after.Candidates)); diff != "" {
				t.Errorf("candidates after the failed spot launch (-want +got):\n%s", diff)
			}
			for _, s := range after.Skipped {
				if s.Offering.CapacityType == Spot && s.Offering.Zone == "us-east-1a" && (s.Reason.Code != ReasonMarked || s.Reason.Mark.Code != tc.code) {
					t.Errorf("%s skipped for %v, want the %s mark", s.Offering, s.Reason, tc.code)
				}
			}
			// And the on-demand launch goes through.
			out, err = client.CreateFleet(ctx, fleetInput(attemptOf(after)))
			if err != nil || len(out.Instances) != 1 || out.Instances[0].Lifecycle != ec2types.InstanceLifecycleOnDemand {
				t.Fatalf("on-demand launch: %v, %v", out, err)
			}
		})
	}
}

// Per-instance errors (the case Karpenter handles) are read alike: the
// failed override's offering is marked and the others stay candidates.
func TestFleetOutcomePerInstanceErrors(t *testing.T) {
	ctx := context.Background()
	backend := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return t0 }})
	srv := ec2fake.NewServer(backend)
	t.Cleanup(srv.Close)
	client := ec2fake.NewClient(srv.URL)
	if err := backend.SetCapacity(ec2fake.Capacity{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "spot"}); err != nil {
		t.Fatal(err)
	}
	a := Attempt{Offerings: []Offering{
		{InstanceType: "m5.large", Zone: "us-east-1a", ZoneID: "use1-az2", CapacityType: Spot},
		{InstanceType: "m5.large", Zone: "us-east-1b", ZoneID: "use1-az4", CapacityType: Spot},
	}}
	out, err := client.CreateFleet(ctx, fleetInput(a))
	if err != nil {
		t.Fatal(err)
	}
	got, err := FleetOutcome(a, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Failures) != 1 || got.Failures[0].Offering != a.Offerings[0] || got.Failures[0].Code != "InsufficientInstanceCapacity" ||
		len(got.Launched) != 1 || got.Launched[0].Offering != a.Offerings[1] || len(got.Launched[0].InstanceIDs) != 1 {
		t.Errorf("outcome %+v", got)
	}
	if diff := cmp.Diff(got, karpenterMarks(a, out, nil)); diff != "" {
		t.Errorf("per-instance errors read differently from Karpenter (-ours +karpenter):\n%s", diff)
	}
	if _, err := FleetOutcome(Attempt{Offerings: a.Offerings[:1]}, out, nil); err == nil {
		t.Error("an answer naming an offering the attempt lacks was accepted")
	}
}

// kubernetes-sigs/karpenter #3198 (and RFC #3275): on repeated capacity
// errors Karpenter deletes the NodeClaim at once
// (kubernetes-sigs/karpenter v1.14.1
// pkg/controllers/nodeclaim/lifecycle/launch.go:85-97) and the offering
// comes back after a fixed three minutes however often it failed
// (karpenter-provider-aws v1.14.1 pkg/cache/cache.go:31,
// UnavailableOfferingsTTL): a NodeClaim created and deleted every three
// minutes for as long as the pods wait. Here a controller retries the one
// offering the moment Candidates lists it again; every retry fails in
// ec2fake (no capacity). The retries space out, 3, 6, 12, 24, 48, 48
// minutes apart, never in: five launches in the first 90 minutes where the
// fixed TTL makes thirty.
func TestKubernetesSigsKarpenter3198(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{now: t0}
	backend := ec2fake.NewWithCatalog(ec2fake.Options{Now: clock.Now})
	if err := backend.SetCapacity(ec2fake.Capacity{InstanceType: "p5.48xlarge", Zone: "us-east-1a", CapacityType: "on-demand"}); err != nil {
		t.Fatal(err)
	}
	region, err := Load(ctx, backend, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	region.InstanceTypes = []string{"p5.48xlarge"}
	opts := CandidateOptions{Requirements: compat.MustRequirements(
		compat.Requirement{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"on-demand"}},
		compat.Requirement{Key: compat.LabelZone, Operator: compat.In, Values: []string{"us-east-1a"}})}
	memory, _ := NewMemory(MemoryOptions{Now: clock.Now})

	var launches []time.Time
	for clock.now.Before(t0.Add(6 * time.Hour)) {
		l, err := Candidates(region, memory.Marks(), clock.now, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Candidates) == 0 { // marked: wait for the mark's deadline, as Candidates says
			clock.now = untilOf(t, l, "p5.48xlarge us-east-1a on-demand")
			continue
		}
		launches = append(launches, clock.now)
		a := Attempt{Offerings: []Offering{l.Candidates[0].Offering}}
		out, err := backend.CreateFleet(ctx, fleetInput(a))
		outcome, ferr := FleetOutcome(a, out, err)
		if ferr != nil || len(outcome.Failures) != 1 {
			t.Fatalf("launch %d: %+v, %v, %v", len(launches), outcome, err, ferr)
		}
		memory.Record(outcome)
	}
	var gaps []time.Duration
	for i := 1; i < len(launches); i++ {
		gaps = append(gaps, launches[i].Sub(launches[i-1]))
	}
	want := []time.Duration{3 * time.Minute, 6 * time.Minute, 12 * time.Minute, 24 * time.Minute, 48 * time.Minute}
	for len(want) < len(gaps) {
		want = append(want, 48*time.Minute)
	}
	if diff := cmp.Diff(want, gaps); diff != "" {
		t.Errorf("time between retries (-want +got):\n%s", diff)
	}
	for i := 1; i < len(gaps); i++ {
		if gaps[i] < gaps[i-1] {
			t.Errorf("retry %d came %s after the last, sooner than the %s before: spaced in", i+1, gaps[i], gaps[i-1])
		}
	}
	in90 := 0
	for _, l := range launches {
		if l.Before(t0.Add(90 * time.Minute)) {
			in90++
		}
	}
	if karpenter := int(90 * time.Minute / (3 * time.Minute)); in90 != 5 || karpenter != 30 {
		t.Errorf("launches in the first 90 minutes: %d (Karpenter's fixed TTL: %d); want 5", in90, karpenter)
	}
}

// untilOf is when the skipped offering named o may launch again.
func untilOf(t *testing.T, l CandidateList, o string) time.Time {
	t.Helper()
	for _, s := range l.Skipped {
		if s.Offering.String() == o {
			if s.Reason.Code != ReasonMarked || !s.Until().After(t0) {
				t.Fatalf("%s skipped for %v", o, s.Reason)
			}
			return s.Until()
		}
	}
	t.Fatalf("%s is neither a candidate nor skipped", o)
	return time.Time{}
}

// RunInstances launches one offering: its error is that offering's
// failure, its instances that offering's launch.
func TestRunInstancesOutcome(t *testing.T) {
	a := Attempt{Offerings: []Offering{{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: OnDemand}}, Subnets: map[string]string{"us-east-1a": "subnet-1"}}
	got, err := RunInstancesOutcome(a, nil, fmt.Errorf("launching: %w", &smithy.GenericAPIError{Code: "InsufficientFreeAddressesInSubnet"}))
	if err != nil || len(got.Failures) != 1 || got.Failures[0].SubnetID != "subnet-1" || got.Failures[0].Code != "InsufficientFreeAddressesInSubnet" {
		t.Errorf("failed RunInstances: %+v, %v", got, err)
	}
	out := &ec2.RunInstancesOutput{Instances: []ec2types.Instance{{InstanceId: aws.String("i-1")}, {InstanceId: aws.String("i-2")}}}
	got, err = RunInstancesOutcome(a, out, nil)
	if err != nil || len(got.Launched) != 1 || len(got.Launched[0].InstanceIDs) != 2 || got.Launched[0].SubnetID != "subnet-1" {
		t.Errorf("launched RunInstances: %+v, %v", got, err)
	}
	if _, err := RunInstancesOutcome(Attempt{}, out, nil); err == nil {
		t.Error("an attempt without its one offering was accepted")
	}
	m, _ := newTestMemory(t, MemoryOptions{})
	marks := m.Record(Outcome{Failures: []Failure{{Offering: a.Offerings[0], SubnetID: "subnet-1", Code: "InsufficientFreeAddressesInSubnet"}}})
	if len(marks) != 1 || marks[0].Scope != ScopeSubnet || marks[0].SubnetID != "subnet-1" || marks[0].Zone != "us-east-1a" {
		t.Errorf("marks %v, want the subnet", marks)
	}
}
