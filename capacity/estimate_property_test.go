package capacity_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

var reservedKeys = []string{"cpu", "memory", "ephemeral-storage"}

// drawType is a catalog type, or one made up with any facts, known or not.
func drawType(t *rapid.T) compat.InstanceType {
	if rapid.Bool().Draw(t, "fromCatalog") {
		return rapid.SampledFrom(estCatalog()).Draw(t, "type")
	}
	it := compat.InstanceType{
		Name:            fmt.Sprintf("zz%d.large", rapid.IntRange(0, 9).Draw(t, "n")),
		Arch:            rapid.SampledFrom([]string{compat.ArchAMD64, compat.ArchARM64}).Draw(t, "arch"),
		VCPU:            rapid.IntRange(1, 448).Draw(t, "vcpu"),
		MemoryMiB:       rapid.Int64Range(512, 32<<20).Draw(t, "memory"),
		Hypervisor:      rapid.SampledFrom([]string{"nitro", "xen", ""}).Draw(t, "hypervisor"),
		InstanceStoreGB: rapid.SampledFrom([]int64{0, 75, 7600}).Draw(t, "store"),
	}
	if rapid.Bool().Draw(t, "facts") {
		it.Network = capacity4(rapid.IntRange(1, 15).Draw(t, "enis"), rapid.IntRange(1, 50).Draw(t, "ipv4"))
	}
	return it
}

// drawAmount is a reservation amount as a quantity string for key, and
// its value in the resource's unit.
func drawAmount(t *rapid.T, key, label string) (string, int64) {
	if key == "cpu" {
		m := rapid.Int64Range(0, 64000).Draw(t, label)
		return fmt.Sprintf("%dm", m), m
	}
	m := rapid.Int64Range(0, 64<<10).Draw(t, label)
	return fmt.Sprintf("%dMi", m), m << 20
}

// launchDraw is a drawn launch: the family, and a kubelet configuration
// whose reservation amounts can be raised key by key.
type launchDraw struct {
	launch capacity.Launch
	// keys are the reservation and eviction keys set, with their amounts.
	kube, system map[string]int64
	evict        map[string]int64 // memory.available, nodefs.available: bytes
}

func drawLaunch(t *rapid.T) launchDraw {
	f := rapid.SampledFrom(compat.AMIFamilies()).Draw(t, "family")
	d := launchDraw{kube: map[string]int64{}, system: map[string]int64{}, evict: map[string]int64{}}
	k := userdata.KubeletConfig{}
	if rapid.Bool().Draw(t, "maxPodsSet") {
		k.MaxPods = ptr(rapid.Int32Range(0, 1000).Draw(t, "maxPods"))
	}
	if f != compat.Bottlerocket && rapid.Bool().Draw(t, "podsPerCoreSet") {
		k.PodsPerCore = ptr(rapid.Int32Range(0, 20).Draw(t, "podsPerCore"))
	}
	for _, key := range reservedKeys {
		if rapid.Bool().Draw(t, "kube "+key) {
			_, v := drawAmount(t, key, "kube "+key+" amount")
			d.kube[key] = v
		}
		if rapid.Bool().Draw(t, "system "+key) {
			_, v := drawAmount(t, key, "system "+key+" amount")
			d.system[key] = v
		}
	}
	for _, s := range []string{"memory.available", "nodefs.available"} {
		if rapid.Bool().Draw(t, "evict "+s) {
			d.evict[s] = rapid.Int64Range(1, 64<<30).Draw(t, "evict "+s+" bytes")
		}
	}
	d.launch = capacity.Launch{
		Family:  f,
		Kubelet: k,
		Network: capacity.Network{
			PrefixDelegation:  rapid.Bool().Draw(t, "pd"),
			ReservedENIs:      rapid.IntRange(0, 2).Draw(t, "reserved"),
			EFAOnlyInterfaces: rapid.IntRange(0, 1).Draw(t, "efa"),
			IPv6:              rapid.Bool().Draw(t, "ipv6"),
		},
		RootVolumeBytes: rapid.SampledFrom([]int64{0, 8 << 30, 100 << 30}).Draw(t, "volume"),
	}
	if f == compat.AL2023 && rapid.Bool().Draw(t, "expression") {
		d.launch.MaxPodsExpression = capacity.MaxPodsFormula{ReservedENIs: rapid.IntRange(0, 3).Draw(t, "exprReserved"),
			PrefixDelegation: rapid.Bool().Draw(t, "exprPD"), Add: rapid.IntRange(-5, 5).Draw(t, "exprAdd"), Cap: rapid.IntRange(0, 300).Draw(t, "exprCap")}.String()
	}
	if rapid.Bool().Draw(t, "raid0") {
		d.launch.InstanceStorePolicy = userdata.RAID0
	}
	return d
}

// with returns the launch with its reservations at their amounts plus
// extra (by key, same units).
func (d launchDraw) with(extra map[string]int64) capacity.Launch {
	l := d.launch
	k := l.Kubelet
	format := func(key string, v int64) string {
		if key == "cpu" {
			return fmt.Sprintf("%dm", v)
		}
		return fmt.Sprint(v)
	}
	k.KubeReserved, k.SystemReserved, k.EvictionHard = nil, nil, nil
	for key, v := range d.kube {
		if k.KubeReserved == nil {
			k.KubeReserved = map[string]string{}
		}
		k.KubeReserved[key] = format(key, v+extra["kube "+key])
	}
	for key, v := range d.system {
		if k.SystemReserved == nil {
			k.SystemReserved = map[string]string{}
		}
		k.SystemReserved[key] = format(key, v+extra["system "+key])
	}
	for s, v := range d.evict {
		if k.EvictionHard == nil {
			k.EvictionHard = map[string]string{}
		}
		k.EvictionHard[s] = fmt.Sprint(v + extra["evict "+s])
	}
	l.Kubelet = k
	return l
}

// TestEstimateLaws: whatever the type, family and configuration, 0 ≤
// allocatable ≤ capacity for every resource, allocatable is capacity less
// the terms taken from it, and each total is the sum of its terms.
func TestEstimateLaws(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := drawLaunch(t)
		e, err := capacity.NewEstimator(d.with(nil), capacity.EstimateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		it := drawType(t)
		est := e.Estimate(it)
		var sums [5]capacity.Quantities
		capacities := map[capacity.Resource]int{}
		for _, term := range est.Terms {
			if term.Amount < 0 {
				t.Fatalf("negative term %v", term)
			}
			sums[term.Kind] = sums[term.Kind].With(term.Resource, sums[term.Kind].Get(term.Resource)+term.Amount)
			if term.Kind == capacity.KindCapacity {
				capacities[term.Resource]++
			}
		}
		for _, r := range []capacity.Resource{capacity.ResourceCPU, capacity.ResourceMemory, capacity.ResourceEphemeralStorage, capacity.ResourcePods} {
			if capacities[r] != 1 {
				t.Fatalf("%d capacity terms for %s", capacities[r], r)
			}
			c, a := est.Capacity.Get(r), est.Allocatable.Get(r)
			if a < 0 || a > c {
				t.Fatalf("%s: allocatable %d, capacity %d\n%s", r, a, c, est.Explain())
			}
			taken := est.KubeReserved.Get(r) + est.SystemReserved.Get(r) + est.EvictionHard.Get(r) + est.Limits.Get(r)
			if a != max(c-taken, 0) {
				t.Fatalf("%s: allocatable %d, want max(%d − %d, 0)", r, a, c, taken)
			}
		}
		want := [5]capacity.Quantities{est.Capacity, est.KubeReserved, est.SystemReserved, est.EvictionHard, est.Limits}
		if sums != want {
			t.Fatalf("term sums %v, totals %v", sums, want)
		}
		if _, known := est.Amount(capacity.KindCapacity, capacity.ResourcePods); !known && est.Capacity.Pods != 0 {
			t.Fatalf("unknown max pods with pods %d", est.Capacity.Pods)
		}
	})
}

// TestEstimateMonotone: raising any reservation or eviction amount, with
// the same keys set, never raises allocatable.
func TestEstimateMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := drawLaunch(t)
		extra := map[string]int64{}
		for key := range d.kube {
			extra["kube "+key] = rapid.Int64Range(0, 1<<34).Draw(t, "more kube "+key)
		}
		for key := range d.system {
			extra["system "+key] = rapid.Int64Range(0, 1<<34).Draw(t, "more system "+key)
		}
		for s := range d.evict {
			extra["evict "+s] = rapid.Int64Range(0, 1<<34).Draw(t, "more evict "+s)
		}
		lo, err := capacity.NewEstimator(d.with(nil), capacity.EstimateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		hi, err := capacity.NewEstimator(d.with(extra), capacity.EstimateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		it := drawType(t)
		a, b := lo.Estimate(it), hi.Estimate(it)
		if a.Capacity != b.Capacity {
			t.Fatalf("capacity moved: %v → %v", a.Capacity, b.Capacity)
		}
		for _, r := range []capacity.Resource{capacity.ResourceCPU, capacity.ResourceMemory, capacity.ResourceEphemeralStorage, capacity.ResourcePods} {
			if b.Allocatable.Get(r) > a.Allocatable.Get(r) {
				t.Fatalf("%s: allocatable rose from %d to %d with more reserved", r, a.Allocatable.Get(r), b.Allocatable.Get(r))
			}
		}
	})
}

// TestLearnedReplacesModel: the learned memory is the memory capacity
// exactly when the lookup has the type under the AMI, and otherwise the
// model's figure is; nothing else in capacity moves.
func TestLearnedReplacesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := drawLaunch(t)
		d.launch.AMIID = "ami-0abc"
		it := drawType(t)
		learned := lookup{}
		present := rapid.Bool().Draw(t, "present")
		v := rapid.Int64Range(1, 1<<45).Draw(t, "learned")
		if present {
			learned[[2]string{it.Name, "ami-0abc"}] = v
		} else {
			learned[[2]string{it.Name, "ami-other"}] = v
		}
		model := rapid.SampledFrom([]capacity.MemoryModel{capacity.MeasuredOverhead, capacity.KarpenterOverhead}).Draw(t, "model")
		with, err := capacity.NewEstimator(d.with(nil), capacity.EstimateOptions{Learned: learned, Memory: model})
		if err != nil {
			t.Fatal(err)
		}
		without, _ := capacity.NewEstimator(d.with(nil), capacity.EstimateOptions{Memory: model})
		a, b := with.Estimate(it), without.Estimate(it)
		term, _ := termOf(a, capacity.ResourceMemory, capacity.KindCapacity)
		if present != (term.Source == capacity.SourceLearned) || present && a.Capacity.Memory != v || !present && a.Capacity.Memory != b.Capacity.Memory {
			t.Fatalf("present %v: memory %d from %v; learned %d, model %d", present, a.Capacity.Memory, term.Source, v, b.Capacity.Memory)
		}
		a.Capacity.Memory, b.Capacity.Memory = 0, 0
		if a.Capacity != b.Capacity {
			t.Fatalf("the lookup moved other capacity: %v vs %v", a.Capacity, b.Capacity)
		}
	})
}

// TestFitAgreesWithAllocatable: a type fits exactly when daemons + count ×
// pod ≤ allocatable resource by resource (naive comparison here), Holds is
// the most pods that fit, and the shortfalls are the resources short, by
// how much.
func TestFitAgreesWithAllocatable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := drawLaunch(t)
		e, err := capacity.NewEstimator(d.with(nil), capacity.EstimateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ests := e.EstimateAll(rapid.SliceOfN(rapid.Custom(drawType), 1, 5).Draw(t, "types"))
		q := func(label string) capacity.Quantities {
			return capacity.Quantities{
				CPU:              rapid.Int64Range(0, 8000).Draw(t, label+" cpu"),
				Memory:           rapid.Int64Range(0, 64<<30).Draw(t, label+" memory"),
				EphemeralStorage: rapid.Int64Range(0, 50<<30).Draw(t, label+" storage"),
				Pods:             rapid.Int64Range(0, 20).Draw(t, label+" pods"),
			}
		}
		req := capacity.FitRequest{Pod: q("pod"), Daemons: q("daemons"), Count: rapid.Int64Range(0, 300).Draw(t, "count")}
		fit, err := capacity.CheckFit(ests, req)
		if err != nil {
			t.Fatal(err)
		}
		fits := func(alloc capacity.Quantities, n int64) bool {
			return req.Daemons.CPU+n*req.Pod.CPU <= alloc.CPU && req.Daemons.Memory+n*req.Pod.Memory <= alloc.Memory &&
				req.Daemons.EphemeralStorage+n*req.Pod.EphemeralStorage <= alloc.EphemeralStorage && req.Daemons.Pods+n <= alloc.Pods
		}
		for i, v := range fit.Verdicts {
			alloc := ests[i].Allocatable
			if ests[i].Err() != nil {
				if v.Fits || v.Unresolved == "" {
					t.Fatalf("%s: unknown figures but verdict %+v", v.InstanceType, v)
				}
				continue
			}
			if want := fits(alloc, max(req.Count, 1)); v.Fits != want {
				t.Fatalf("%s: Fits %v, naive %v (allocatable %v)", v.InstanceType, v.Fits, want, alloc)
			}
			if v.Holds > 0 && !fits(alloc, v.Holds) || fits(alloc, v.Holds+1) {
				t.Fatalf("%s: Holds %d is not the most that fit (allocatable %v)", v.InstanceType, v.Holds, alloc)
			}
			for _, s := range v.Short {
				if s.Need <= s.Allocatable || s.By != s.Need-s.Allocatable || s.Cause.Resource != s.Resource {
					t.Fatalf("%s: bad shortfall %+v", v.InstanceType, s)
				}
			}
			if v.Fits != (len(v.Short) == 0) {
				t.Fatalf("%s: Fits %v with %d shortfalls", v.InstanceType, v.Fits, len(v.Short))
			}
		}
	})
}

// TestQuantityRoundTrip: what FormatQuantity writes, ParseQuantity reads
// back exactly.
func TestQuantityRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := rapid.SampledFrom([]capacity.Resource{capacity.ResourceCPU, capacity.ResourceMemory, capacity.ResourceEphemeralStorage, capacity.ResourcePods}).Draw(t, "resource")
		v := rapid.OneOf(rapid.Int64Range(0, 1<<62), rapid.Map(rapid.Int64Range(0, 1<<20), func(n int64) int64 { return n << 30 })).Draw(t, "v")
		if r == capacity.ResourceCPU {
			v /= 1000 // millicores of an int64 of cores
		}
		s := capacity.FormatQuantity(r, v)
		got, err := capacity.ParseQuantity(r, s)
		if err != nil || got != v {
			t.Fatalf("%s %d → %q → %d, %v", r, v, s, got, err)
		}
	})
}
