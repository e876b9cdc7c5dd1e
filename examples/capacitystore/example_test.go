package capacitystore

import (
	"context"
	"fmt"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"k8s.io/client-go/kubernetes"
)

// A leader saves what it learned; after a failover, the next leader loads
// it and sizes its first launch by it. (The example runs against the tests'
// real API server.)
func ExampleStore() {
	cfg, err := sharedAPIServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	clients, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	o := Options{Name: "example-capacity", Writer: "karpenter-7d4f9-x2x8q"}

	leader, _ := capacity.New(capacity.Options{})
	store, err := New(clients.CoreV1(), leader, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	ami := amiselect.AMI{ID: "ami-0aa06077113319855", Arch: compat.ArchAMD64, Requirements: compat.MustRequirements(
		compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchAMD64}})}
	labels := map[string]string{compat.LabelInstanceType: "m5.large", compat.LabelArch: compat.ArchAMD64}
	leader.Observe(capacity.Observation{NodeLabels: labels, ImageID: ami.ID, MemoryBytes: 7_926_000_000}, []amiselect.AMI{ami})
	if err := store.Save(ctx); err != nil { // or let Start save on its interval
		fmt.Println(err)
		return
	}

	next, _ := capacity.New(capacity.Options{})
	store, _ = New(clients.CoreV1(), next, o)
	if err := store.Load(ctx); err != nil { // Start loads first too
		fmt.Println(err)
		return
	}
	memory, ok := next.Memory("m5.large", ami.ID)
	fmt.Println("the next leader knows m5.large:", ok, memory>>20, "MiB")
	// Output: the next leader knows m5.large: true 7558 MiB
}
