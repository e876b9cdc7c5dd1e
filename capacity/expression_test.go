package capacity_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// TestExpressionErrors: an expression that does not compile, fails, or
// gives what nodeadm refuses is an *ExpressionError naming the expression
// and where in it, 1-based (cel-go's columns are 0-based; its own
// messages add one, common/error.go:46-51 at v0.29.2).
func TestExpressionErrors(t *testing.T) {
	m5 := capacity.Variables{DefaultENIs: 3, IPsPerENI: 10, MaxPods: 29}
	for _, tc := range []struct {
		text      string
		compile   bool // fails to compile (else to evaluate)
		line, col int
		reason    string
	}{
		{"max_pods +", true, 1, 11, "Syntax error"},
		{"max_pods *\n  bogus", true, 2, 3, "undeclared reference to 'bogus'"},
		{"max_pods * 1.5", true, 1, 10, "found no matching overload for '_*_' applied to '(int, double)'"},
		{"min(max_pods, 110)", true, 1, 4, "undeclared reference to 'min'"}, // nodeadm's environment has no min
		{"max_pods / (default_enis - 3)", false, 1, 10, "division by zero"},
		{"max_pods - 29", false, 1, 10, "the result 0 is not a positive integer"},
		{"max_pods > 1", false, 1, 10, "type conversion error from 'bool' to 'int'"},
		{"max_pods * 100000000", false, 1, 10, "the result 2900000000 is not a positive integer below 2^31"},
		{"int(double(max_pods) * 1e300)", false, 1, 4, "integer overflow"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			x, err := capacity.ParseMaxPodsExpression(tc.text)
			if err == nil {
				if tc.compile {
					t.Fatalf("compiled; want a compile error")
				}
				_, err = x.Eval(m5)
			} else if !tc.compile {
				t.Fatalf("compile error %v; want an evaluation error", err)
			}
			var xe *capacity.ExpressionError
			if !errors.As(err, &xe) {
				t.Fatalf("err = %v; want an *ExpressionError", err)
			}
			if xe.Expression != tc.text || xe.Line != tc.line || xe.Column != tc.col || !strings.Contains(xe.Reason, tc.reason) {
				t.Errorf("got %q at %d:%d: %s; want %d:%d: …%s…", xe.Expression, xe.Line, xe.Column, xe.Reason, tc.line, tc.col, tc.reason)
			}
			if !strings.Contains(err.Error(), strconv.Quote(tc.text)) {
				t.Errorf("message %q does not quote the expression", err)
			}
		})
	}
	if x, err := capacity.ParseMaxPodsExpression(""); err != nil || !x.IsZero() {
		t.Errorf(`ParseMaxPodsExpression("") = %v, %v; want no expression, as nodeadm reads an empty one`, x, err)
	}
}

// TestNodeadmCases: nodeadm's own TestCalcMaxPods cases (81fec2e8
// nodeadm/internal/kubelet/eni_max_pods_test.go) through Eval.
func TestNodeadmCases(t *testing.T) {
	for _, tc := range []struct {
		expr       string
		enis, ipv4 int64
		want       int64 // what CalcMaxPods returns
	}{
		{"", 3, 6, 17},
		{"", 6, 12, 68},
		{"default_enis * (ips_per_eni - 1) + 2", 3, 6, 17},
		{"((default_enis - 1) * (ips_per_eni - 1)) + 2", 3, 6, 12},
		{"max_pods + 100", 3, 6, 117},
		{"max_pods < 10 ? max_pods : 10", 3, 6, 10},
		{"-1", 3, 6, 17},
		{"0", 3, 6, 17},
		{"default_enis * ", 3, 6, 17},
		{"abc", 3, 6, 17},
	} {
		std := tc.enis*(tc.ipv4-1) + 2
		got := std
		if x, err := capacity.ParseMaxPodsExpression(tc.expr); err == nil && !x.IsZero() {
			if v, err := x.Eval(capacity.Variables{DefaultENIs: tc.enis, IPsPerENI: tc.ipv4, MaxPods: std}); err == nil {
				got = v
			}
		}
		if got != tc.want {
			t.Errorf("%q on %d × %d: %d, want %d", tc.expr, tc.enis, tc.ipv4, got, tc.want)
		}
	}
}

// TestKarpenterExpression: Karpenter's NodeClassCEL environment (alpha)
// gives what its own tests pin (aws/karpenter-provider-aws 6e13b3e0
// pkg/cel/environment_test.go): min and max over ints and doubles,
// instance_type in conditions, a negative result returned, a double
// truncated, only int or double results compiling.
func TestKarpenterExpression(t *testing.T) {
	vars := capacity.Variables{VCPUs: 4, MemoryMiB: 8192, DefaultENIs: 3, IPsPerENI: 10, MaxPods: 20, InstanceType: "m5.large"}
	for _, tc := range []struct {
		expr string
		want int64
	}{
		{"max(3, 7)", 7}, {"max(3.9, 7.9)", 7}, {"max(3, 7.9)", 7}, {"max(7.9, 3)", 7}, // :212-215
		{"min(3, 7)", 3}, {"min(3.9, 7.9)", 3}, {"min(3, 7.9)", 3}, {"min(7.9, 3)", 3}, // :216-219
		{`instance_type == "m5.large" ? vcpus * 2 : vcpus`, 8}, // :122-127
		{"vcpus - 100", -96},               // :134-138 (4 vCPUs here)
		{"double(memory_mib) * 0.5", 4096}, // :391-395
		{"max(60, vcpus * 30)", 120},
	} {
		x, err := capacity.ParseKarpenterExpression(tc.expr)
		if err != nil {
			t.Errorf("%q: %v", tc.expr, err)
			continue
		}
		if got, err := x.Eval(vars); err != nil || got != tc.want {
			t.Errorf("%q = %d, %v; want %d", tc.expr, got, err, tc.want)
		}
	}
	for _, bad := range []string{"vcpus > 2", `instance_type`, "", "  "} {
		if _, err := capacity.ParseKarpenterExpression(bad); err == nil {
			t.Errorf("%q compiled; Karpenter refuses it", bad)
		}
	}
	x, _ := capacity.ParseKarpenterExpression("vcpus / (vcpus - 4)")
	var xe *capacity.ExpressionError
	if _, err := x.Eval(vars); !errors.As(err, &xe) || !strings.Contains(xe.Reason, "division by zero") || xe.Column != 7 {
		t.Errorf("division by zero: %v; want an *ExpressionError at 1:7", err)
	}
}

// TestNodeClassCELEstimate: with Launch.NodeClassCEL, a kubeReserved or
// systemReserved expression is evaluated for each type with Karpenter's
// variables and written as Karpenter writes it (pkg/cel/environment.go
// :365-389): cpu in millicores rounded up to 10m, memory in MiB rounded up
// to 16Mi, ephemeral-storage in GiB; Karpenter's prediction takes the same
// amounts. A negative result leaves the figure unknown.
func TestNodeClassCELEstimate(t *testing.T) {
	m5 := estType(t, "m5.large") // 2 vCPUs, 8192 MiB, 3 × 10: Karpenter's pods 29
	l := capacity.Launch{Family: compat.AL2023, NodeClassCEL: true, Kubelet: userdata.KubeletConfig{
		KubeReserved:   map[string]string{"cpu": "70 + vcpus", "memory": "memory_mib / 100", "ephemeral-storage": "2Gi"},
		SystemReserved: map[string]string{"memory": "max_pods * 11", "ephemeral-storage": "1 + 1", "pid": "max_pods * 10"},
	}}
	e := mustEstimator(t, l, capacity.EstimateOptions{})
	est := e.Estimate(m5)
	want := map[[2]capacity.Kind]int64{}
	got := map[[2]capacity.Kind]int64{}
	for _, k := range []capacity.Kind{capacity.KindKubeReserved, capacity.KindSystemReserved} {
		for _, r := range []capacity.Resource{capacity.ResourceCPU, capacity.ResourceMemory, capacity.ResourceEphemeralStorage} {
			if v, ok := est.Amount(k, r); ok {
				got[[2]capacity.Kind{k, capacity.Kind(r)}] = v
			}
		}
	}
	want[[2]capacity.Kind{capacity.KindKubeReserved, capacity.Kind(capacity.ResourceCPU)}] = 80                     // 72 → 80m
	want[[2]capacity.Kind{capacity.KindKubeReserved, capacity.Kind(capacity.ResourceMemory)}] = mib(96)             // 81 → 96Mi
	want[[2]capacity.Kind{capacity.KindKubeReserved, capacity.Kind(capacity.ResourceEphemeralStorage)}] = 2 << 30   // a quantity, kept
	want[[2]capacity.Kind{capacity.KindSystemReserved, capacity.Kind(capacity.ResourceMemory)}] = mib(320)          // 29 × 11 = 319 → 320Mi
	want[[2]capacity.Kind{capacity.KindSystemReserved, capacity.Kind(capacity.ResourceEphemeralStorage)}] = 2 << 30 // 2Gi
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("amounts (-want +got)\n%s\n%s", diff, est.Explain())
	}
	mem, _ := termOf(est, capacity.ResourceMemory, capacity.KindKubeReserved)
	if !strings.Contains(mem.Rule, `kubeReserved memory "memory_mib / 100" gives 81 for m5.large, written as 96Mi (Karpenter's alpha NodeClassCEL)`) {
		t.Errorf("rule %q", mem.Rule)
	}
	k := e.Karpenter(m5, capacity.KarpenterSettings{})
	if k.KubeReserved.Memory != mib(96) || k.SystemReserved.Memory != mib(320) {
		t.Errorf("Karpenter's prediction: kube-reserved memory %d, system-reserved memory %d; want 96Mi, 320Mi", k.KubeReserved.Memory, k.SystemReserved.Memory)
	}

	l.Kubelet.KubeReserved = map[string]string{"memory": "vcpus - 100"}
	est = mustEstimator(t, l, capacity.EstimateOptions{}).Estimate(m5)
	if len(est.Unknown) != 1 || est.Unknown[0].Reason != capacity.ReasonExpression || est.Unknown[0].Input != `Launch.Kubelet.KubeReserved["memory"]` {
		t.Errorf("negative expression: Unknown %+v", est.Unknown)
	}
	if _, ok := est.Amount(capacity.KindKubeReserved, capacity.ResourceMemory); ok {
		t.Errorf("an unknown reservation counts as set")
	}
}

// TestMaxPodsCalculatorLaunch: Launch.MaxPodsCalculator gives every type
// the figure the script prints for it with the network's flags, and AL2
// keeps reserving memory by bootstrap.sh's own figure (bootstrap.sh
// :522-532: the table's MAX_PODS, whatever --max-pods says).
func TestMaxPodsCalculatorLaunch(t *testing.T) {
	for _, n := range []capacity.Network{{}, {PrefixDelegation: true}, {ReservedENIs: 1, PrefixDelegation: true}} {
		calc := &capacity.MaxPodsCalculator{CNIVersion: "1.19.2"}
		e := mustEstimator(t, capacity.Launch{Family: compat.AL2, Network: n, MaxPodsCalculator: calc}, capacity.EstimateOptions{})
		plain := mustEstimator(t, capacity.Launch{Family: compat.AL2, Network: n}, capacity.EstimateOptions{})
		script := capacity.Calculator{CNIVersion: "1.19.2", PrefixDelegation: n.PrefixDelegation, CustomNetworking: n.ReservedENIs == 1}
		for _, it := range estCatalog() {
			want, err := script.MaxPods(it)
			est := e.Estimate(it)
			if err != nil {
				if est.Err() == nil {
					t.Errorf("%s: the script fails (%v) but the estimate knows pods %d", it.Name, err, est.Capacity.Pods)
				}
				continue
			}
			if est.Capacity.Pods != want || est.MaxPods.Term.Source != capacity.SourceUser {
				t.Errorf("%+v %s: pods %d from %v, the script prints %d", n, it.Name, est.Capacity.Pods, est.MaxPods.Term.Source, want)
			}
			if p := plain.Estimate(it); est.KubeReserved.Memory != p.KubeReserved.Memory {
				t.Errorf("%s: kube-reserved memory %d, bootstrap.sh's own %d", it.Name, est.KubeReserved.Memory, p.KubeReserved.Memory)
			}
		}
	}
	est := mustEstimator(t, capacity.Launch{Family: compat.AL2, Network: capacity.Network{PrefixDelegation: true}, MaxPodsCalculator: &capacity.MaxPodsCalculator{CNIVersion: "1.19.2"}}, capacity.EstimateOptions{}).
		Estimate(estType(t, "m5.large"))
	if want := "max-pods-calculator.sh --instance-type m5.large --cni-version 1.19.2 --cni-prefix-delegation-enabled prints 110, passed as --max-pods=110 (the family's figure, 29, is replaced)"; est.MaxPods.Term.Rule != want {
		t.Errorf("rule %q\nwant %q", est.MaxPods.Term.Rule, want)
	}
}

// TestFallbackMaxPods: a type whose max pods cannot be known takes the
// fallback, and so does the family's memory reservation, with the source
// and the assumption said; a known figure is never replaced.
func TestFallbackMaxPods(t *testing.T) {
	unknown := compat.InstanceType{Name: "zz9.large", VCPU: 2, MemoryMiB: 8192, Hypervisor: "nitro"}
	e := mustEstimator(t, capacity.Launch{Family: compat.AL2023}, capacity.EstimateOptions{FallbackMaxPods: 110})
	est := e.Estimate(unknown)
	if est.Err() != nil || est.Capacity.Pods != 110 || est.KubeReserved.Memory != mib(11*110+255) || est.MaxPods.Term.Source != capacity.SourceFallback {
		t.Errorf("pods %d from %v, kube-reserved memory %d, err %v; want 110 from fallback, 1465Mi", est.Capacity.Pods, est.MaxPods.Term.Source, est.KubeReserved.Memory, est.Err())
	}
	if len(est.Assumptions) != 1 || !strings.Contains(est.Assumptions[0], "FallbackMaxPods 110") {
		t.Errorf("Assumptions %q", est.Assumptions)
	}
	if known := e.Estimate(estType(t, "m5.large")); known.Capacity.Pods != 29 || len(known.Assumptions) != 0 {
		t.Errorf("m5.large: pods %d, assumptions %q; the fallback replaced a known figure", known.Capacity.Pods, known.Assumptions)
	}
}

// TestEstimateGiven: the caller's capacity replaces the estimate's, and
// the family's rules apply to it: the cpu reservation by the given cores,
// the storage threshold as a percentage of the given volume; nil keeps
// the estimate's own, and a negative amount is refused.
func TestEstimateGiven(t *testing.T) {
	e := mustEstimator(t, capacity.Launch{Family: compat.AL2023}, capacity.EstimateOptions{})
	m5 := estType(t, "m5.large")
	cpu, storage, pods := int64(8000), int64(100<<30), int64(58)
	est, err := e.EstimateGiven(m5, capacity.Given{CPU: &cpu, EphemeralStorage: &storage, Pods: &pods})
	if err != nil {
		t.Fatal(err)
	}
	own := e.Estimate(m5)
	if est.Capacity != (capacity.Quantities{CPU: 8000, Memory: own.Capacity.Memory, EphemeralStorage: 100 << 30, Pods: 58}) {
		t.Errorf("capacity %v", est.Capacity)
	}
	// 8 cores: 60 + 10 + 10 + 4 × 2.5 = 90m (bootstrap.sh's and nodeadm's rule).
	// 10% as the kubelet keeps it, a float32 (pkg/kubelet/eviction/api/types.go:111-117).
	if est.KubeReserved.CPU != 90 || est.EvictionHard.EphemeralStorage != int64(float64(storage)*float64(float32(10)/100)) || est.KubeReserved.Memory != own.KubeReserved.Memory {
		t.Errorf("kube-reserved cpu %d, eviction storage %d, kube-reserved memory %d", est.KubeReserved.CPU, est.EvictionHard.EphemeralStorage, est.KubeReserved.Memory)
	}
	if term, _ := termOf(est, capacity.ResourceCPU, capacity.KindCapacity); term.Source != capacity.SourceGiven {
		t.Errorf("cpu capacity from %v", term.Source)
	}
	neg := int64(-1)
	if _, err := e.EstimateGiven(m5, capacity.Given{Memory: &neg}); err == nil || !strings.Contains(err.Error(), "Given.Memory is -1") {
		t.Errorf("negative memory: %v", err)
	}
	// A given pods capacity makes an unknown type's pods known, not the
	// family's own figure its memory reservation follows.
	est, _ = e.EstimateGiven(compat.InstanceType{Name: "zz9.large", VCPU: 2, MemoryMiB: 8192}, capacity.Given{Pods: &pods})
	if len(est.Unknown) != 1 || est.Unknown[0].Kind != capacity.KindKubeReserved {
		t.Errorf("unknown type with given pods: Unknown %+v", est.Unknown)
	}
}

// TestEnumsAsText: every enum marshals as its name and reads it back, and
// a word that names none is refused.
func TestEnumsAsText(t *testing.T) {
	u := capacity.Unknown{Resource: capacity.ResourceMemory, Kind: capacity.KindKubeReserved, Reason: capacity.ReasonNoInterfaceFacts, Input: "x"}
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"Resource":"memory","Kind":"kube-reserved","Reason":"no-interface-facts","Input":"x","Detail":"","Fix":""}`; string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
	var back capacity.Unknown
	if err := json.Unmarshal(b, &back); err != nil || back != u {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	term, _ := json.Marshal(capacity.Term{Source: capacity.SourceFallback})
	if !strings.Contains(string(term), `"Source":"fallback"`) || strings.Contains(string(term), "Unset") {
		t.Errorf("term %s", term)
	}
	var r capacity.Reason
	if err := r.UnmarshalText([]byte("nope")); err == nil {
		t.Errorf("Reason read %q", "nope")
	}
	var k capacity.Kind
	if err := k.UnmarshalText([]byte("")); err == nil {
		t.Errorf("Kind read the empty word")
	}
}

// estType is a catalog type by name.
func estType(t testing.TB, name string) compat.InstanceType {
	t.Helper()
	for _, it := range estCatalog() {
		if it.Name == name {
			return it
		}
	}
	t.Fatalf("%s is not in the catalog", name)
	return compat.InstanceType{}
}
