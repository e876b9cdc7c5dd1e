// Command icefallback replays karpenter-provider-aws #9616 against
// ec2fake over HTTP: a NodePool allows spot and on-demand, EC2 answers
// every spot CreateFleet with an API error for the whole call, and
// Karpenter, which learns only from per-instance errors, launches spot
// again and again. Read with offerings.FleetOutcome, the same answer marks
// the spot offerings, and the next launch is on-demand.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/offerings"
)

func main() { cli.Main(command.Name, run) }

var command = cli.Command{Name: "icefallback", Usage: `Usage: go run ./examples/icefallback [-code CODE] [-launches N]

It replays karpenter-provider-aws #9616 against ec2fake over HTTP with a
real *ec2.Client: a NodePool allows spot and on-demand, and EC2 answers
every spot CreateFleet with an API error for the whole call (not one error
per instance). Karpenter v1.14.1 learns only from per-instance errors, so
it launches spot again and again. Read with offerings.FleetOutcome, the
same answer marks the spot offerings, and the next launch is on-demand.
`}

// options are the command line's.
type options struct {
	code     string
	launches int
}

// run parses args and replays the issue.
func run(ctx context.Context, w io.Writer, args []string) error {
	fs := command.FlagSet()
	var o options
	fs.StringVar(&o.code, "code", "InsufficientInstanceCapacity", "the EC2 error `code` every spot CreateFleet fails with as a whole (e.g. InternalError, as the issue reports)")
	fs.IntVar(&o.launches, "launches", 4, "how many launches to replay on each side, ten seconds apart (1-20)")
	if help, err := command.Parse(fs, w, args); help || err != nil {
		return err
	}
	if err := o.check(fs); err != nil {
		return err
	}
	return replay(ctx, w, o)
}

func (o options) check(fs *flag.FlagSet) error {
	switch c := offerings.Classify(o.code); {
	case o.launches < 1 || o.launches > 20:
		return cli.Usagef("-launches %d: give 1 to 20", o.launches)
	case strings.TrimSpace(o.code) == "" || strings.ContainsAny(o.code, " \t<>&"):
		return cli.Usagef("-code %q: give an EC2 error code such as InsufficientInstanceCapacity", o.code)
	case c.Class == offerings.Configuration:
		return cli.Usagef("-code %s is a configuration error (%s): it marks nothing, so there is no fallback to show; give a capacity, throttling or server error", o.code, c.Source)
	}
	return nil
}

// start is the replay's clock: launches are ten seconds apart from it.
var start = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// nodePool is the NodePool's requirements on offerings, and its types.
var (
	nodePool = compat.MustRequirements(
		compat.Requirement{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"spot", "on-demand"}},
		compat.Requirement{Key: compat.LabelZone, Operator: compat.In, Values: []string{"us-east-1a", "us-east-1b", "us-east-1c"}},
	)
	nodePoolTypes = []string{"m7i.large", "m7i.xlarge"}
)

func replay(ctx context.Context, w io.Writer, o options) error {
	fmt.Fprintf(w, `karpenter-provider-aws #9616: when CreateFleet fails as a whole (an API error rather than one error
per instance), Karpenter returns before it updates its unavailable-offerings cache
(pkg/providers/instance/instance.go:391-402 at v1.14.1; the cache is updated at line 422 from the
answer's per-instance errors only), so nothing is marked and the spot -> on-demand fallback never fires.

NodePool: karpenter.sh/capacity-type In [spot, on-demand], zones us-east-1a-c, types %s.
ec2fake (us-east-1 from its catalog) answers every spot CreateFleet with %s for the whole call.
`, strings.Join(nodePoolTypes, ", "), o.code)
	for _, side := range []side{{name: "Before", title: "Karpenter v1.14.1's reading: per-instance errors only", karpenter: true},
		{name: "After", title: "offerings.FleetOutcome: a whole-call error is a failure of every offering the call asked for"}} {
		if err := side.replay(ctx, w, o); err != nil {
			return err
		}
	}
	return nil
}

// side is one reading of the same answers.
type side struct {
	name, title string
	karpenter   bool
}

func (s side) replay(ctx context.Context, w io.Writer, o options) error {
	now := start
	clock := func() time.Time { return now }
	backend := ec2fake.NewWithCatalog(ec2fake.Options{Now: clock})
	srv := ec2fake.NewServer(backend)
	defer srv.Close()
	client := ec2fake.NewClient(srv.URL) // a real *ec2.Client, over HTTP
	region, err := offerings.Load(ctx, client, offerings.LoadOptions{})
	if err != nil {
		return err
	}
	region.InstanceTypes = nodePoolTypes
	memory, err := offerings.NewMemory(offerings.MemoryOptions{Now: clock})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s: %s\n", s.name, s.title)
	spot := 0
	for i := 1; i <= o.launches; i++ {
		list, err := offerings.Candidates(region, memory.Marks(), now, offerings.CandidateOptions{Requirements: nodePool})
		if err != nil {
			return err
		}
		attempt := attemptOf(list)
		if attempt.Offerings[0].CapacityType == offerings.Spot {
			spot++
			if err := backend.InjectFault(ec2fake.Fault{Operation: ec2fake.OpCreateFleet, Code: o.code, Times: 1}); err != nil {
				return err
			}
		}
		out, callErr := client.CreateFleet(ctx, fleetInput(attempt), func(o *ec2.Options) { o.RetryMaxAttempts = 1 })
		outcome, err := s.read(attempt, out, callErr)
		if err != nil {
			return err
		}
		marks := memory.Record(outcome)
		fmt.Fprintf(w, "  launch %d at %s: %-9s over %d offerings -> %s\n", i, now.Format(time.TimeOnly), attempt.Offerings[0].CapacityType, len(attempt.Offerings), result(out, callErr, marks))
		if i == 1 && !s.karpenter {
			candidatesTable(w, region, memory, now)
		}
		now = now.Add(10 * time.Second)
	}
	fmt.Fprintf(w, "  %s: %d of %d launches were spot\n", s.name, spot, o.launches)
	return nil
}

// read is what one side learns from a CreateFleet answer.
func (s side) read(a offerings.Attempt, out *ec2.CreateFleetOutput, err error) (offerings.Outcome, error) {
	if s.karpenter && err != nil {
		return offerings.Outcome{}, nil // instance.go:393-402: returned before the cache is updated
	}
	return offerings.FleetOutcome(a, out, err)
}

// attemptOf is the next launch: every candidate of the first candidate's
// capacity type, as Karpenter launches one capacity type per NodeClaim
// (instance.go:743-759: reserved, then spot, then on-demand).
func attemptOf(l offerings.CandidateList) offerings.Attempt {
	var a offerings.Attempt
	for _, c := range l.Candidates {
		if c.Offering.CapacityType == l.Candidates[0].Offering.CapacityType {
			a.Offerings = append(a.Offerings, c.Offering)
		}
	}
	return a
}

// fleetInput is Karpenter's request for one instance of the attempt's
// capacity type: an instant fleet with one override per offering.
func fleetInput(a offerings.Attempt) *ec2.CreateFleetInput {
	var overrides []ec2types.FleetLaunchTemplateOverridesRequest
	for _, o := range a.Offerings {
		overrides = append(overrides, ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: ec2types.InstanceType(o.InstanceType), AvailabilityZone: aws.String(o.Zone)})
	}
	return &ec2.CreateFleetInput{
		Type: ec2types.FleetTypeInstant,
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{
			TotalTargetCapacity: aws.Int32(1), DefaultTargetCapacityType: ec2types.DefaultTargetCapacityType(a.Offerings[0].CapacityType.String()),
		},
		LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateName: aws.String("karpenter.k8s.aws/default"), Version: aws.String("$Latest")},
			Overrides:                   overrides,
		}},
	}
}

// result says what a launch got and what it marked.
func result(out *ec2.CreateFleetOutput, err error, marks []offerings.Mark) string {
	if err != nil {
		c := offerings.ClassifyError(err)
		s := fmt.Sprintf("%s for the whole call (%s); offerings marked: %d", c.Code, c.Class, len(marks))
		if len(marks) > 0 {
			s += fmt.Sprintf(", until %s", marks[0].Deadline.Format(time.TimeOnly))
		}
		return s
	}
	var got []string
	for _, i := range out.Instances {
		// The zone is the override's: this request names zones, and the
		// instance's own AvailabilityZone came with a later SDK release than
		// the one the module requires.
		var zone string
		if lt := i.LaunchTemplateAndOverrides; lt != nil && lt.Overrides != nil {
			zone = aws.ToString(lt.Overrides.AvailabilityZone)
		}
		got = append(got, fmt.Sprintf("%s %s %s %s", strings.Join(i.InstanceIds, ","), i.InstanceType, zone, i.Lifecycle))
	}
	return "launched " + strings.Join(got, "; ")
}

// candidatesTable prints the NodePool's offerings per zone and capacity
// type after the first failure, and why any is out.
func candidatesTable(w io.Writer, region offerings.Region, memory *offerings.Memory, now time.Time) {
	av, err := offerings.Assess(region, memory.Marks(), now)
	if err != nil {
		fmt.Fprintf(w, "    %v\n", err)
		return
	}
	fmt.Fprintf(w, "    the NodePool's offerings now:\n")
	for _, a := range av {
		if a.Offering.CapacityType == offerings.Reserved || nodePool.Compatible(zoneReqs(a.Offering)) != nil {
			continue
		}
		why := "available"
		if !a.Available {
			why = fmt.Sprintf("%s: %s until %s", a.Reason.Code, a.Reason.Mark.Code, a.Until().Format(time.TimeOnly))
		}
		fmt.Fprintf(w, "      %-11s %-11s %-10s %s\n", a.Offering.InstanceType, a.Offering.Zone, a.Offering.CapacityType, why)
	}
}

// zoneReqs are the offering's zone and capacity type, what the NodePool
// asks of it here.
func zoneReqs(o offerings.Offering) compat.Requirements {
	return compat.MustRequirements(
		compat.Requirement{Key: compat.LabelZone, Operator: compat.In, Values: []string{o.Zone}},
		compat.Requirement{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{o.CapacityType.String()}},
	)
}
