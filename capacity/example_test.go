package capacity_test

import (
	"errors"
	"fmt"
	"time"

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
	for _, c := range cache.Apply(mapping) {
		fmt.Printf("%s on %s: %d MiB learned %v; instance-memory label still %s\n",
			c.InstanceType.Name, c.AMI.ID, c.MemoryBytes>>20, c.Learned, c.InstanceType.Labels()[compat.LabelInstanceMemory])
	}
	// Output:
	// recorded: true <nil>
	// true capacity: node ip-10-0-1-1 runs ami-0nvidia, but m5.large maps to ami-0standard (bottlerocket-aws-k8s-1.32-x86_64-v1.36.0-1a2b3c4d), which new nodes will run; what this node reports says nothing about them: the node's image is not the AMI its instance type maps to
	// m5.large on ami-0standard: 7558 MiB learned true; instance-memory label still 8192
}

// Two replicas learn different figures, exchange snapshots (through a
// file, a ConfigMap, anything) and end with the same, lower, figures; a
// third, restarted empty, is restored from one snapshot.
func ExampleCache_Merge() {
	now := func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }
	amis := []amiselect.AMI{{ID: "ami-0standard", Requirements: amd64(amiselect.Standard.Requirements())}}
	m5 := compat.InstanceType{Name: "m5.large", Family: "m5", Category: "m", Generation: 5, Size: "large", Arch: "amd64", VCPU: 2, MemoryMiB: 8192}
	m5x := compat.InstanceType{Name: "m5.xlarge", Family: "m5", Category: "m", Generation: 5, Size: "xlarge", Arch: "amd64", VCPU: 4, MemoryMiB: 16384}

	a, _ := capacity.New(capacity.Options{Now: now})
	b, _ := capacity.New(capacity.Options{Now: now})
	a.Observe(capacity.Observation{NodeLabels: m5.Labels(), ImageID: "ami-0standard", MemoryBytes: 7_926_000_000}, amis)
	b.Observe(capacity.Observation{NodeLabels: m5.Labels(), ImageID: "ami-0standard", MemoryBytes: 7_925_000_000}, amis)
	b.Observe(capacity.Observation{NodeLabels: m5x.Labels(), ImageID: "ami-0standard", MemoryBytes: 16_100_000_000}, amis)

	fromA, _ := a.Snapshot()
	fromB, _ := b.Snapshot()
	fmt.Println(a.Merge(fromB), b.Merge(fromA))
	for _, c := range []*capacity.Cache{a, b} {
		small, _ := c.Memory("m5.large", "ami-0standard")
		large, _ := c.Memory("m5.xlarge", "ami-0standard")
		fmt.Println(small, large)
	}

	restarted, _ := capacity.New(capacity.Options{Now: now})
	fmt.Println(restarted.Merge(fromB))
	fmt.Println(restarted.Memory("m5.large", "ami-0standard"))

	fmt.Println(restarted.Merge(fromB[:40]))
	// Output:
	// <nil> <nil>
	// 7925000000 16100000000
	// 7925000000 16100000000
	// <nil>
	// 7925000000 true
	// capacity: the snapshot is truncated: its JSON stops at byte 40; merge a whole snapshot Cache.Snapshot wrote
}

// A snapshot lists the instance types and AMIs its entries use, then the
// entries as columns: indices into those lists, memory in bytes, and when
// it was last seen, in Unix seconds.
func ExampleCache_Snapshot() {
	now := func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }
	amis := []amiselect.AMI{{ID: "ami-0standard", Requirements: amd64(amiselect.Standard.Requirements())}}
	m5 := compat.InstanceType{Name: "m5.large", Family: "m5", Category: "m", Generation: 5, Size: "large", Arch: "amd64", VCPU: 2, MemoryMiB: 8192}
	cache, _ := capacity.New(capacity.Options{Now: now})
	cache.Observe(capacity.Observation{NodeLabels: m5.Labels(), ImageID: "ami-0standard", MemoryBytes: 7_926_000_000}, amis)
	snapshot, err := cache.Snapshot()
	fmt.Printf("%s %v\n", snapshot, err)
	// Output:
	// {"version":2,"types":["m5.large"],"amis":["ami-0standard"],"type":[0],"ami":[0],"memory":[7926000000],"observed":[1795348800],"sum":"9d5b184a"} <nil>
}

// A test suite shares one Cache and resets it between specs instead of
// swapping the pointer, which would race with the code under test.
func ExampleCache_Reset() {
	amis := []amiselect.AMI{{ID: "ami-0standard", Requirements: amd64(amiselect.Standard.Requirements())}}
	m5 := compat.InstanceType{Name: "m5.large", Family: "m5", Category: "m", Generation: 5, Size: "large", Arch: "amd64", VCPU: 2, MemoryMiB: 8192}
	cache, _ := capacity.New(capacity.Options{Size: 100})
	cache.Observe(capacity.Observation{NodeLabels: m5.Labels(), ImageID: "ami-0standard", MemoryBytes: 7_926_000_000}, amis)
	fmt.Printf("%+v\n", cache.Stats())

	cache.Reset()
	fmt.Println(cache.Memory("m5.large", "ami-0standard"))
	fmt.Printf("%+v\n", cache.Stats())
	// Output:
	// {Hits:0 Misses:0 Evictions:0 Expired:0 Recorded:1 Refused:0 Merged:0 Len:1}
	// 0 false
	// {Hits:0 Misses:1 Evictions:0 Expired:0 Recorded:0 Refused:0 Merged:0 Len:0}
}
