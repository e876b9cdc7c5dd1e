package capacity

import (
	"math"
	"strconv"

	"github.com/ec2select/ec2select/compat"
)

// MemoryLookup is where an estimate finds the memory nodes really
// reported: a [*Cache] is one.
type MemoryLookup interface {
	// Memory returns the memory, in bytes, nodes of instanceType report
	// under the AMI amiID, and whether any has.
	Memory(instanceType, amiID string) (int64, bool)
}

// MemoryModel is how an estimate models a node's memory capacity when no
// node of the type has reported it: the published memory less what the
// kernel, firmware and hypervisor keep. The zero value is
// [MeasuredOverhead].
type MemoryModel uint8

const (
	// MeasuredOverhead takes 160 MiB + 4% of the published memory
	// (rounded up to a MiB). It is the tightest line of that shape at or
	// above the overhead Karpenter's maintainers measured on Bottlerocket
	// nodes of 646 instance types (karpenter-provider-aws PR #4517,
	// recorded in testdata/karpenter-memory-overhead-2023.txt): it takes
	// at least the measured overhead for 95% of them, and errs by 1.4% of
	// memory on average, where a flat 7.5% errs by 4.1% and still takes
	// too little for 2.0%.
	// Small types pay most for the fixed part, as measured: 10% of a
	// c5.large's 4 GiB.
	MeasuredOverhead MemoryModel = iota
	// KarpenterOverhead is karpenter-provider-aws's default: 64 MiB less
	// on arm64, then ceil(7.5%) of the rest (VM_MEMORY_OVERHEAD_PERCENT
	// 0.075).
	KarpenterOverhead
)

// String returns the model's name.
func (m MemoryModel) String() string {
	switch m {
	case MeasuredOverhead:
		return "measured-overhead"
	case KarpenterOverhead:
		return "karpenter-overhead"
	}
	return "MemoryModel(" + strconv.Itoa(int(m)) + ")"
}

const (
	mib = 1 << 20
	gib = 1 << 30

	// The measured-overhead line.
	overheadFixedMiB   = 160
	overheadPercentage = 4

	// Karpenter's default VM_MEMORY_OVERHEAD_PERCENT.
	karpenterVMOverhead = 0.075

	citeMeasuredModel  = "ec2select: 160 MiB + 4%, fitted above karpenter-provider-aws PR #4517's measurements (33450d8f pkg/providers/instancetype/zz_generated.memory_overhead.go; capacity/testdata/karpenter-memory-overhead-2023.txt)"
	citeKarpenterModel = "karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go:356-366 (memory), pkg/operator/options/options.go:58 (VM_MEMORY_OVERHEAD_PERCENT 0.075)"
)

// measuredOverheadMiB is the measured-overhead model's MiB for a type
// publishing published MiB.
func measuredOverheadMiB(published int64) int64 {
	return overheadFixedMiB + (published*overheadPercentage+99)/100
}

// karpenterMemoryMiB is Karpenter's memory(): the published MiB, less 64
// on arm64, less ceil(percent) of that, computed as Karpenter computes it.
func karpenterMemoryMiB(it compat.InstanceType, percent float64) int64 {
	size := it.MemoryMiB
	if it.Arch == compat.ArchARM64 {
		size -= 64
	}
	return size - int64(math.Ceil(float64(size*mib)*percent/1024/1024))
}

// memoryTerm is the memory capacity term: learned when the lookup has the
// type under the AMI, else the model's.
func (e *Estimator) memoryTerm(it compat.InstanceType) Term {
	t := Term{Resource: ResourceMemory, Kind: KindCapacity}
	if e.opts.Learned != nil && e.launch.AMIID != "" {
		if b, ok := e.opts.Learned.Memory(it.Name, e.launch.AMIID); ok {
			t.Amount, t.Source = b, SourceLearned
			t.Rule = "reported by nodes of the type under " + e.launch.AMIID
			t.Citation = "capacity.Cache (the lowest figure observed)"
			return t
		}
	}
	t.Source = SourceHeuristic
	switch e.opts.Memory {
	case KarpenterOverhead:
		m := karpenterMemoryMiB(it, karpenterVMOverhead)
		t.Amount = m * mib
		arm := ""
		if it.Arch == compat.ArchARM64 {
			arm = " − 64 MiB (arm64)"
		}
		t.Rule = "karpenter-overhead model: " + strconv.FormatInt(it.MemoryMiB, 10) + " MiB published" + arm + " − ceil(7.5%)"
		t.Citation = citeKarpenterModel
	default:
		t.Amount = max(it.MemoryMiB-measuredOverheadMiB(it.MemoryMiB), 0) * mib
		t.Rule = "measured-overhead model: " + strconv.FormatInt(it.MemoryMiB, 10) + " MiB published − (160 MiB + 4%)"
		t.Citation = citeMeasuredModel
	}
	return t
}
