package offerings_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/offerings"
)

func ExampleClassify() {
	for _, code := range []string{"InsufficientInstanceCapacity", "VcpuLimitExceeded", "InsufficientFreeAddressesInSubnet", "RequestLimitExceeded", "InvalidAMIID.NotFound", "NewIn2030"} {
		c := offerings.Classify(code)
		fmt.Printf("%-34s %-20s %-27s retry %t\n", code, c.Class, c.Scope, c.Class.Retry())
	}
	// Output:
	// InsufficientInstanceCapacity       offering-unavailable offering                    retry true
	// VcpuLimitExceeded                  account-limit        instance-type-capacity-type retry true
	// InsufficientFreeAddressesInSubnet  subnet-unavailable   subnet                      retry true
	// RequestLimitExceeded               throttled            account                     retry true
	// InvalidAMIID.NotFound              configuration        offering                    retry false
	// NewIn2030                          unknown              offering                    retry true
}

// The same offering failing again, each time after its mark ran out: the
// back-off doubles to its cap, and a success starts it over.
func ExampleMemory() {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	m, _ := offerings.NewMemory(offerings.MemoryOptions{Now: func() time.Time { return now }})
	o := offerings.Offering{InstanceType: "p5.48xlarge", Zone: "us-east-1a", CapacityType: offerings.OnDemand}
	for range 6 {
		mark, _ := m.Observe(offerings.Failure{Offering: o, Code: "InsufficientInstanceCapacity"})
		fmt.Println(mark.Deadline.Sub(mark.Since))
		now = mark.Deadline
	}
	m.Succeeded(o, "")
	mark, _ := m.Observe(offerings.Failure{Offering: o, Code: "InsufficientInstanceCapacity"})
	fmt.Println("after a success:", mark.Deadline.Sub(mark.Since))
	// Output:
	// 3m0s
	// 6m0s
	// 12m0s
	// 24m0s
	// 48m0s
	// 48m0s
	// after a success: 3m0s
}

// Load a region from EC2 (here ec2fake over HTTP), mark a spot offering
// out after a failed launch, and ask for the candidates of a NodePool that
// allows spot and on-demand in one zone: on-demand follows.
func ExampleCandidates() {
	srv := ec2fake.NewServer(ec2fake.NewWithCatalog(ec2fake.Options{}))
	defer srv.Close()
	ctx := context.Background()
	region, err := offerings.Load(ctx, ec2fake.NewClient(srv.URL), offerings.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	region.InstanceTypes = []string{"m7i.large", "m7g.large"}
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	memory, _ := offerings.NewMemory(offerings.MemoryOptions{Now: func() time.Time { return now }})
	memory.Observe(offerings.Failure{Offering: offerings.Offering{InstanceType: "m7i.large", Zone: "us-east-1a", CapacityType: offerings.Spot},
		Code: "InsufficientInstanceCapacity"})

	pool := compat.MustRequirements(compat.Requirement{Key: compat.LabelZone, Operator: compat.In, Values: []string{"us-east-1a"}})
	list, _ := offerings.Candidates(region, memory.Marks(), now, offerings.CandidateOptions{Requirements: pool})
	for _, c := range list.Candidates {
		fmt.Println(c.Offering)
	}
	for _, s := range list.Skipped {
		if s.Offering.Zone == "us-east-1a" {
			fmt.Println("skipped", s.Offering, s.Reason.Code, "until", s.Until().Format(time.TimeOnly))
		}
	}
	// Output:
	// m7g.large us-east-1a spot
	// m7g.large us-east-1a on-demand
	// m7i.large us-east-1a on-demand
	// skipped m7i.large us-east-1a spot marked until 12:03:00
}
