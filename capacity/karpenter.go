package capacity

import (
	"fmt"
	"math"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/nodeclass"
)

// KarpenterSettings are the karpenter-provider-aws controller settings its
// prediction depends on. The zero value is its defaults.
type KarpenterSettings struct {
	// ReservedENIs is RESERVED_ENIS: interfaces left out of max pods.
	ReservedENIs int
	// VMMemoryOverheadPercent is VM_MEMORY_OVERHEAD_PERCENT; nil means
	// its default, 0.075.
	VMMemoryOverheadPercent *float64
}

// Citations of Karpenter's rule (aws/karpenter-provider-aws v1.14.1,
// bde00654).
const (
	citeKarpTypes     = "karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go"
	citeKarpPods      = citeKarpTypes + ":576-591 (pods), :485-505 (ENILimitedPods)"
	citeKarpReserved  = citeKarpTypes + ":148-151 (kube-reserved pods: ENILimitedPods on AL2/AL2023/Custom, pods() on Bottlerocket and Windows), :522-552"
	citeKarpEviction  = citeKarpTypes + ":554-574 (100Mi and 10% unless evictionHard names memory.available or nodefs.available), :599-621"
	citeKarpStorage   = citeKarpTypes + ":369-405"
	citeKarpSystem    = citeKarpTypes + ":516-520"
	citeKarpFamilies  = "karpenter-provider-aws v1.14.1 pkg/providers/amifamily/resolver.go:127-134, bottlerocket.go:214-220, windows.go:101-108 (FeatureFlags)"
	karpenterMaxPods  = 110
	karpenterStorage  = 10 // percent of ephemeral storage Karpenter assumes nodefs.available takes
	karpenterEvictMem = 100 * mib
)

// Karpenter returns what karpenter-provider-aws v1.14.1 predicts for a node
// of it under the estimator's launch before any node of the type has
// registered: its InstanceType.Capacity and Overhead, computed as
// pkg/providers/instancetype/types.go computes them, every term with
// Source [SourceKarpenter]. Its Allocatable is Capacity − Overhead.Total()
// as Karpenter's is, not clamped at 0. Launch.MaxPodsExpression and
// EstimateOptions are not read: Karpenter reads neither.
func (e *Estimator) Karpenter(it compat.InstanceType, s KarpenterSettings) Estimate {
	pct := karpenterVMOverhead
	if s.VMMemoryOverheadPercent != nil {
		pct = *s.VMMemoryOverheadPercent
	}
	est := Estimate{InstanceType: it.Name, Family: e.launch.Family}
	memMiB := karpenterMemoryMiB(it, pct)
	mem := Term{Resource: ResourceMemory, Kind: KindCapacity, Amount: memMiB * mib, Source: SourceKarpenter,
		Rule: fmt.Sprintf("%d MiB published, less 64 MiB on arm64, less ceil(%g%%)", it.MemoryMiB, pct*100), Citation: citeKarpTypes + ":356-366"}
	storage := e.karpenterStorage(it)
	pods, podsTerm, unknown := e.karpenterPods(it, s.ReservedENIs)
	if unknown != "" {
		u := unknownPods(it, unknown)
		est.Unknown = append(est.Unknown, *u)
		est.MaxPods.Unresolved, est.MaxPods.unknown = unknown, u
	}
	est.MaxPods.Pods, est.MaxPods.Term = pods, podsTerm
	terms := []Term{
		{Resource: ResourceCPU, Kind: KindCapacity, Amount: int64(it.VCPU) * 1000, Source: SourceKarpenter, Rule: fmt.Sprintf("%d vCPUs", it.VCPU), Citation: citeKarpTypes + ":352-354"},
		mem, storage, podsTerm,
	}
	terms = append(terms, e.karpenterKubeReserved(it, pods, unknown, &est)...)
	for _, r := range []Resource{ResourceCPU, ResourceMemory, ResourceEphemeralStorage} {
		if x := e.user.systemReserved.exprs[r]; x != nil {
			t, u := e.expressionTerm(it, KindSystemReserved, r, x)
			if u != nil {
				est.Unknown = append(est.Unknown, *u)
				continue
			}
			t.Source = SourceKarpenter
			terms = append(terms, t)
		}
		if a := e.user.systemReserved.amounts[r]; a != nil {
			terms = append(terms, Term{Resource: r, Kind: KindSystemReserved, Amount: *a, Source: SourceKarpenter,
				Rule: "systemReserved " + e.user.systemReserved.text[r], Citation: citeKarpSystem})
		}
	}
	terms = append(terms, e.karpenterEviction(mem.Amount, storage.Amount)...)
	est.Terms = terms
	for _, t := range terms {
		switch t.Kind {
		case KindCapacity:
			est.Capacity = est.Capacity.With(t.Resource, t.Amount)
		case KindKubeReserved:
			est.KubeReserved = est.KubeReserved.With(t.Resource, est.KubeReserved.Get(t.Resource)+t.Amount)
		case KindSystemReserved:
			est.SystemReserved = est.SystemReserved.With(t.Resource, est.SystemReserved.Get(t.Resource)+t.Amount)
		case KindEvictionHard:
			est.EvictionHard = est.EvictionHard.With(t.Resource, est.EvictionHard.Get(t.Resource)+t.Amount)
		}
	}
	for r := range numResources {
		taken := est.KubeReserved.Get(r) + est.SystemReserved.Get(r) + est.EvictionHard.Get(r)
		est.Allocatable = est.Allocatable.With(r, est.Capacity.Get(r)-taken)
	}
	est.Unresolved = unresolved(est.Unknown, nil)
	return est
}

// karpenterENILimitedPods is ENILimitedPods: the default card's interfaces
// less reserved and efa-only ones, × (IPv4 per interface − 1) + 2, or 0
// when none are left.
func karpenterENILimitedPods(enis, ipv4 int64, reserved, efaOnly int) int64 {
	usable := max(enis-int64(reserved)-int64(efaOnly), 0)
	if usable == 0 {
		return 0
	}
	return usable*(ipv4-1) + 2
}

// karpenterPods is pods(): maxPods, else ENILimitedPods where the family
// supports ENI-limited density, else 110; then podsPerCore.
func (e *Estimator) karpenterPods(it compat.InstanceType, reservedENIs int) (int64, Term, string) {
	t := Term{Resource: ResourcePods, Kind: KindCapacity, Source: SourceKarpenter, Citation: citeKarpPods + "; " + citeKarpFamilies}
	switch {
	case e.user.maxPods != nil:
		t.Amount, t.Rule = *e.user.maxPods, fmt.Sprintf("kubelet maxPods %d", *e.user.maxPods)
	case e.launch.Family.IsWindows():
		t.Amount, t.Rule = karpenterMaxPods, "110: Windows has no ENI-limited pod density"
	default:
		enis, ipv4, from, ok := eniFacts(it, false)
		if !ok {
			return 0, t, noFacts(it)
		}
		t.Amount = karpenterENILimitedPods(enis, ipv4, reservedENIs, e.launch.Network.EFAOnlyInterfaces)
		t.Rule = fmt.Sprintf("ENILimitedPods: (%d − %d reserved − %d efa-only) × (%d − 1) + 2, from %s", enis, reservedENIs, e.launch.Network.EFAOnlyInterfaces, ipv4, from)
	}
	if ppc := e.user.podsPerCore; ppc > 0 && e.launch.Family != compat.Bottlerocket {
		if limit := ppc * int64(it.VCPU); limit < t.Amount {
			t.Amount = limit
			t.Rule += fmt.Sprintf("; podsPerCore %d × %d vCPUs", ppc, it.VCPU)
		}
	}
	return t.Amount, t, ""
}

// karpenterKubeReserved is kubeReservedResources, with the user's entries
// assigned over Karpenter's own.
func (e *Estimator) karpenterKubeReserved(it compat.InstanceType, pods int64, podsUnknown string, est *Estimate) []Term {
	reservePods, why := pods, "pods()"
	if e.launch.Family == compat.AL2 || e.launch.Family == compat.AL2023 || e.launch.Family == compat.Custom {
		// UsesENILimitedMemoryOverhead: ENILimitedPods with no reserved
		// interfaces, whatever maxPods says.
		reservePods, why, podsUnknown = 0, "ENILimitedPods with 0 reserved", ""
		if enis, ipv4, _, ok := eniFacts(it, false); ok {
			reservePods = karpenterENILimitedPods(enis, ipv4, 0, e.launch.Network.EFAOnlyInterfaces)
		} else {
			podsUnknown = noFacts(it)
		}
	}
	var out []Term
	for _, r := range []Resource{ResourceCPU, ResourceMemory, ResourceEphemeralStorage} {
		t := Term{Resource: r, Kind: KindKubeReserved, Source: SourceKarpenter, Citation: citeKarpReserved}
		switch {
		case e.user.kubeReserved.exprs[r] != nil:
			xt, u := e.expressionTerm(it, KindKubeReserved, r, e.user.kubeReserved.exprs[r])
			if u != nil {
				est.Unknown = append(est.Unknown, *u)
				continue
			}
			t = xt
			t.Source = SourceKarpenter
		case e.user.kubeReserved.amounts[r] != nil:
			t.Amount, t.Rule = *e.user.kubeReserved.amounts[r], "kubeReserved "+e.user.kubeReserved.text[r]
		case r == ResourceCPU:
			t.Amount, t.Rule = karpenterCPUReserve(it.VCPU), "6% of the first core, 1%, 0.5%, 0.25% beyond"
		case r == ResourceMemory:
			if podsUnknown != "" {
				u := unknownPods(it, podsUnknown)
				u.Resource, u.Kind = ResourceMemory, KindKubeReserved
				est.Unknown = append(est.Unknown, *u)
				continue
			}
			t.Amount, t.Rule = reservationBytes(reservePods), fmt.Sprintf("11 × %d + 255 MiB, from %s", reservePods, why)
		default:
			t.Amount, t.Rule = gib, "1Gi"
		}
		out = append(out, t)
	}
	return out
}

// karpenterCPUReserve is kubeReservedResources' cpu loop, in its float64
// arithmetic.
func karpenterCPUReserve(vcpus int) int64 {
	cpu := int64(vcpus) * 1000
	var sum int64
	for _, rg := range [...]struct {
		start, end int64
		percentage float64
	}{{0, 1000, 0.06}, {1000, 2000, 0.01}, {2000, 4000, 0.005}, {4000, 1 << 31, 0.0025}} {
		if cpu >= rg.start {
			r := float64(rg.end - rg.start)
			if cpu < rg.end {
				r = float64(cpu - rg.start)
			}
			sum += int64(r * rg.percentage)
		}
	}
	return sum
}

// karpenterStorage is ephemeralStorage(): the instance store under RAID0,
// else the root volume, else the family's default.
func (e *Estimator) karpenterStorage(it compat.InstanceType) Term {
	t := Term{Resource: ResourceEphemeralStorage, Kind: KindCapacity, Source: SourceKarpenter, Citation: citeKarpStorage}
	switch {
	case e.launch.InstanceStorePolicy == nodeclass.RAID0 && it.InstanceStoreGB > 0:
		t.Amount, t.Rule = it.InstanceStoreGB*1_000_000_000, fmt.Sprintf("instance store %dG", it.InstanceStoreGB)
	case e.launch.RootVolumeBytes > 0:
		t.Amount, t.Rule = e.launch.RootVolumeBytes, "the root volume"
	default:
		t.Amount, t.Rule, _ = e.defaultVolume()
	}
	return t
}

// karpenterEviction is evictionThreshold(): 100Mi of memory and
// ceil(10%) of storage, unless evictionHard names memory.available or
// nodefs.available, whose percentages Karpenter takes of its own
// capacity figures, rounded up.
func (e *Estimator) karpenterEviction(memory, storage int64) []Term {
	mem := Term{Resource: ResourceMemory, Kind: KindEvictionHard, Amount: karpenterEvictMem, Source: SourceKarpenter, Rule: "100Mi", Citation: citeKarpEviction}
	st := Term{Resource: ResourceEphemeralStorage, Kind: KindEvictionHard, Source: SourceKarpenter, Citation: citeKarpEviction,
		Amount: int64(math.Ceil(float64(storage) / 100 * karpenterStorage)), Rule: "ceil(10%)"}
	if t := e.user.evictionHard.memory; t != nil {
		mem.Amount, mem.Rule = karpenterSignal(*t, memory), "memory.available "+t.text
	}
	if t := e.user.evictionHard.storage; t != nil {
		st.Amount, st.Rule = karpenterSignal(*t, storage), "nodefs.available "+t.text
	}
	return []Term{mem, st}
}

// karpenterSignal is computeEvictionSignal: a percentage of capacity,
// rounded up, with 100% meaning none; or the quantity.
func karpenterSignal(t threshold, capacity int64) int64 {
	if !t.percent && !t.ignored {
		return t.amount
	}
	p := t.pct
	if p == 100 {
		p = 0 // mustParsePercentage: 100% disables the threshold
	}
	return int64(math.Ceil(float64(capacity) / 100 * p))
}
