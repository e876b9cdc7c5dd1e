package capacity_test

import (
	"errors"
	"fmt"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
)

func amd64(variant compat.Requirements) compat.Requirements {
	return variant.Intersect(compat.MustRequirements(compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{"amd64"}}))
}

// A plain m5.large node runs the standard AMI although the NVIDIA AMI is
// newer and first in the list: its memory is filed under the standard AMI,
// and a claim that it runs the NVIDIA AMI is refused with the reason.
func ExampleCache_Observe() {
	amis := []amiselect.AMI{
		{ID: "ami-0nvidia", Name: "bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.36.0-1a2b3c4d", Variant: amiselect.NVIDIA, Requirements: amd64(amiselect.NVIDIA.Requirements())},
		{ID: "ami-0standard", Name: "bottlerocket-aws-k8s-1.32-x86_64-v1.36.0-1a2b3c4d", Variant: amiselect.Standard, Requirements: amd64(amiselect.Standard.Requirements())},
	}
	m5 := compat.InstanceType{Name: "m5.large", Family: "m5", Category: "m", Generation: 5, Size: "large", Arch: "amd64", VCPU: 2, MemoryMiB: 8192}
	labels := m5.Labels()
	labels[compat.LabelHostname] = "ip-10-0-1-1"

	cache, err := capacity.New(capacity.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	recorded, err := cache.Observe(capacity.Observation{NodeLabels: labels, ImageID: "ami-0standard", MemoryBytes: 7_926_000_000}, amis)
	fmt.Println("recorded:", recorded, err)

	_, err = cache.Observe(capacity.Observation{NodeLabels: labels, ImageID: "ami-0nvidia", MemoryBytes: 7_000_000_000}, amis)
	fmt.Println(errors.Is(err, capacity.ErrNotMapped), err)

	mapping := amiselect.Map([]compat.InstanceType{m5}, amis)
	for _, it := range cache.Apply(mapping) {
		fmt.Printf("%s: %d MiB learned (catalog %d MiB)\n", it.Name, it.MemoryMiB, m5.MemoryMiB)
	}
	// Output:
	// recorded: true <nil>
	// true capacity: node ip-10-0-1-1 runs ami-0nvidia, but m5.large maps to ami-0standard (bottlerocket-aws-k8s-1.32-x86_64-v1.36.0-1a2b3c4d), which new nodes will run; what this node reports says nothing about them: the node's image is not the AMI its instance type maps to
	// m5.large: 7558 MiB learned (catalog 8192 MiB)
}
