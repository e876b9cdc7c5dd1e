package capacity

import (
	"github.com/ec2select/ec2select/amiselect/amimap"
	"github.com/ec2select/ec2select/compat"
)

// Capacity is what a Cache knows about one mapped instance type: the memory
// its nodes report under the AMI they launch with, beside the type's facts,
// which it leaves alone.
type Capacity struct {
	// InstanceType is the type as mapped, its facts unchanged: MemoryMiB is
	// still the published figure, which its instance-memory label and
	// requirement state and NodePools select on.
	InstanceType compat.InstanceType
	// AMI is the AMI the type's nodes launch with.
	AMI amimap.AMI
	// MemoryBytes is the memory nodes of the type report under AMI, the
	// lowest seen; zero when Learned is false.
	MemoryBytes int64
	// Learned reports whether a node has been observed. When it has not,
	// keep your own estimate (Karpenter's: the published memory less
	// VM_MEMORY_OVERHEAD_PERCENT).
	Learned bool
}

// Apply returns the capacity learned for each instance type of m's groups,
// in m's order, under the AMI its group launches with. Unmapped types are
// not returned: no node can launch as them. Apply changes no instance
// type: learned memory is capacity (what pods can be given), not an
// instance fact, and rewriting MemoryMiB would move the type's
// karpenter.k8s.aws/instance-memory label and so change which NodePools
// select it.
//
// A fork of Karpenter's AWS provider feeds it where the provider puts its
// discovered capacity into the instance type it offers the scheduler
// (pkg/providers/instancetype/instancetype.go, DefaultProvider.get), in
// place of the estimate computeCapacity made from the published memory
// less VM_MEMORY_OVERHEAD_PERCENT (types.go, memory), and leaves the
// requirements, instance-memory included, as they are:
//
//	for _, c := range cache.Apply(mapping) {
//		if it := offered[c.InstanceType.Name]; it != nil && c.Learned {
//			it.Capacity[corev1.ResourceMemory] = *resource.NewQuantity(c.MemoryBytes, resource.BinarySI)
//		}
//	}
func (c *Cache) Apply(m amimap.Mapping) []Capacity {
	n := 0
	for _, g := range m.Groups {
		n += len(g.InstanceTypes)
	}
	out := make([]Capacity, 0, n)
	for _, g := range m.Groups {
		for _, it := range g.InstanceTypes {
			mem, ok := c.Memory(it.Name, g.AMI.ID)
			out = append(out, Capacity{InstanceType: it, AMI: g.AMI, MemoryBytes: mem, Learned: ok})
		}
	}
	return out
}
