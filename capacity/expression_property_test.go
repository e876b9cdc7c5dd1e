package capacity_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
)

// drawDefaultRule is a maxPodsExpression equal to nodeadm's standard rule
// for every type: max_pods or the ENI formula, wrapped in identities users
// might write (parentheses, + 0, * 1, a cap no type reaches, a ternary
// whose branches agree, a round trip through double).
func drawDefaultRule(t *rapid.T) string {
	x := rapid.SampledFrom([]string{
		"max_pods",
		"default_enis * (ips_per_eni - 1) + 2",
		"(ips_per_eni - 1) * default_enis + 2",
		"2 + default_enis * ips_per_eni - default_enis",
		"((default_enis - 0) * (ips_per_eni - 1)) + 2",
	}).Draw(t, "base")
	for i := range rapid.IntRange(0, 4).Draw(t, "wraps") {
		switch rapid.IntRange(0, 6).Draw(t, fmt.Sprintf("wrap%d", i)) {
		case 0:
			x = "(" + x + ")"
		case 1:
			x = x + " + 0"
		case 2:
			x = "(" + x + ") * 1"
		case 3:
			x = "(" + x + ") < 100000 ? (" + x + ") : 100000"
		case 4:
			x = "default_enis > 0 ? (" + x + ") : (" + x + ")"
		case 5:
			x = "int(double(" + x + "))"
		default:
			x = "max_pods == (" + x + ") ? max_pods : 1"
		}
	}
	return x
}

// TestDefaultRuleExpression: an expression equal to nodeadm's standard
// rule gives the estimate without an expression, for every catalog type.
func TestDefaultRuleExpression(t *testing.T) {
	plain := mustEstimator(t, capacity.Launch{Family: compat.AL2023}, capacity.EstimateOptions{})
	types := estCatalog()
	want := plain.EstimateAll(types)
	rapid.Check(t, func(t *rapid.T) {
		x := drawDefaultRule(t)
		e, err := capacity.NewEstimator(capacity.Launch{Family: compat.AL2023, MaxPodsExpression: x}, capacity.EstimateOptions{})
		if err != nil {
			t.Fatalf("%q: %v", x, err)
		}
		for i, it := range types {
			got := e.Estimate(it)
			if got.Capacity != want[i].Capacity || got.Allocatable != want[i].Allocatable || got.KubeReserved != want[i].KubeReserved || len(got.Warnings) != len(want[i].Warnings) {
				t.Fatalf("%q on %s: capacity %v allocatable %v; without it %v, %v", x, it.Name, got.Capacity, got.Allocatable, want[i].Capacity, want[i].Allocatable)
			}
		}
	})
}

// TestUnsetStaysUnset: a reservation or threshold is set exactly when the
// family or the user's configuration sets it (a naive model of each
// family, below), whatever capacity the caller gives; and allocatable
// stays within capacity.
func TestUnsetStaysUnset(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := drawLaunch(t)
		l := d.with(nil)
		e, err := capacity.NewEstimator(l, capacity.EstimateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		it := drawType(t)
		var g capacity.Given
		for _, p := range []**int64{&g.CPU, &g.Memory, &g.EphemeralStorage, &g.Pods} {
			if rapid.Bool().Draw(t, "given") {
				v := rapid.Int64Range(0, 1<<40).Draw(t, "amount")
				*p = &v
			}
		}
		for _, est := range []capacity.Estimate{e.Estimate(it), mustGiven(t, e, it, g)} {
			for _, r := range []capacity.Resource{capacity.ResourceCPU, capacity.ResourceMemory, capacity.ResourceEphemeralStorage} {
				unknown := false
				for _, u := range est.Unknown {
					unknown = unknown || u.Resource == r && u.Kind == capacity.KindKubeReserved
				}
				_, kube := est.Amount(capacity.KindKubeReserved, r)
				if want := modelKubeReserved(l, est, r) && !unknown; kube != want {
					t.Fatalf("%s kube-reserved %s set %v, model %v\n%s", l.Family, r, kube, want, est.Explain())
				}
				_, system := est.Amount(capacity.KindSystemReserved, r)
				if _, want := d.system[r.String()]; system != want {
					t.Fatalf("%s system-reserved %s set %v, configured %v", l.Family, r, system, want)
				}
			}
			for r, signal := range map[capacity.Resource]string{capacity.ResourceMemory: "memory.available", capacity.ResourceEphemeralStorage: "nodefs.available"} {
				_, set := est.Amount(capacity.KindEvictionHard, r)
				_, user := d.evict[signal]
				if want := user || len(d.evict) == 0 || l.Family == compat.AL2023; set != want {
					t.Fatalf("%s eviction-hard %s set %v, model %v", l.Family, signal, set, want)
				}
			}
			for _, r := range []capacity.Resource{capacity.ResourceCPU, capacity.ResourceMemory, capacity.ResourceEphemeralStorage, capacity.ResourcePods} {
				if a, c := est.Allocatable.Get(r), est.Capacity.Get(r); a < 0 || a > c {
					t.Fatalf("%s: allocatable %d, capacity %d", r, a, c)
				}
			}
		}
	})
}

func mustGiven(t *rapid.T, e *capacity.Estimator, it compat.InstanceType, g capacity.Given) capacity.Estimate {
	est, err := e.EstimateGiven(it, g)
	if err != nil {
		t.Fatal(err)
	}
	return est
}

// modelKubeReserved says whether r's kube-reserved is set: the user's
// entry; else the family's default (AL2, AL2023 and Bottlerocket reserve
// cpu and ephemeral-storage, and memory by max pods, Bottlerocket only
// when max-pods is set), unless the family takes the user's map as a flag
// that replaces its own whole (AL2, Custom, Windows).
func modelKubeReserved(l capacity.Launch, est capacity.Estimate, r capacity.Resource) bool {
	if _, ok := l.Kubelet.KubeReserved[r.String()]; ok {
		return true
	}
	f := l.Family
	switch {
	case f != compat.AL2 && f != compat.AL2023 && f != compat.Bottlerocket:
		return false
	case f == compat.AL2 && len(l.Kubelet.KubeReserved) > 0:
		return false
	case r == capacity.ResourceMemory && f == compat.Bottlerocket:
		return est.MaxPods.ReservationPods > 0
	}
	return true
}
