package weighting

import (
	"math"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
)

// tierNames flattens a ranking for comparison: tier name → type names, in
// order, with "unranked" last.
func tierNames(r Ranking) map[string][]string {
	out := make(map[string][]string)
	for _, rt := range r.Tiers {
		out[rt.Tier.Name] = names(rt.InstanceTypes)
	}
	out["unranked"] = names(r.Unranked)
	return out
}

func TestRank(t *testing.T) {
	arm := compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchARM64}}
	prices := map[string]float64{
		"c7i-flex.large": 0.08479, "c7i-flex.xlarge": 0.16958, "m7i-flex.large": 0.09576,
		"c7i.large": 0.08925, "m5.large": 0.096, "c6g.large": 0.068,
	}
	price := func(name string) (float64, bool) { p, ok := prices[name]; return p, ok }
	catalog := []string{"c7i-flex.large", "c7i-flex.xlarge", "m7i-flex.large", "m7i-flex.2xlarge", "c7i.large", "c7i.xlarge", "m5.large", "c6g.large", "c6g.xlarge", "t3.micro"}

	tests := []struct {
		name   string
		policy Policy
		opts   RankOptions
		want   map[string][]string
	}{
		{
			name:   "flex first, by name without prices",
			policy: flexPolicy(),
			want: map[string][]string{
				"flex":     {"c7i-flex.large", "c7i-flex.xlarge", "m7i-flex.2xlarge", "m7i-flex.large"},
				"rest":     {"c6g.large", "c6g.xlarge", "c7i.large", "c7i.xlarge", "m5.large", "t3.micro"},
				"unranked": {},
			},
		},
		{
			name:   "known prices first, cheapest first, then unknown by name",
			policy: flexPolicy(),
			opts:   RankOptions{Price: price},
			want: map[string][]string{
				"flex":     {"c7i-flex.large", "m7i-flex.large", "c7i-flex.xlarge", "m7i-flex.2xlarge"},
				"rest":     {"c6g.large", "c7i.large", "m5.large", "c6g.xlarge", "c7i.xlarge", "t3.micro"},
				"unranked": {},
			},
		},
		{
			name: "no catch-all tier leaves types unranked",
			policy: Policy{Tiers: []Tier{
				{Name: "flex", Weight: 10, Families: []string{"*-flex"}},
				{Name: "graviton", Weight: 5, Families: []string{"c6g"}},
			}},
			want: map[string][]string{
				"flex":     {"c7i-flex.large", "c7i-flex.xlarge", "m7i-flex.2xlarge", "m7i-flex.large"},
				"graviton": {"c6g.large", "c6g.xlarge"},
				"unranked": {"c7i.large", "c7i.xlarge", "m5.large", "t3.micro"},
			},
		},
		{
			name: "a higher tier takes what both match, whatever the order of Tiers",
			policy: Policy{Tiers: []Tier{
				{Name: "c", Weight: 10, Families: []string{"c*"}},
				{Name: "rest", Weight: 1, Families: []string{"*"}},
				{Name: "flex", Weight: 50, Families: []string{"*-flex"}},
			}},
			want: map[string][]string{
				"flex":     {"c7i-flex.large", "c7i-flex.xlarge", "m7i-flex.2xlarge", "m7i-flex.large"},
				"c":        {"c6g.large", "c6g.xlarge", "c7i.large", "c7i.xlarge"},
				"rest":     {"m5.large", "t3.micro"},
				"unranked": {},
			},
		},
		{
			name: "requirements narrow a tier; what fails them falls through",
			policy: Policy{Tiers: []Tier{
				{Name: "arm", Weight: 20, Families: []string{"*"}, Requirements: []compat.Requirement{arm}},
				{Name: "big", Weight: 10, Families: []string{"c*"}, Requirements: []compat.Requirement{{Key: compat.LabelInstanceCPU, Operator: compat.Gte, Values: []string{"4"}}}},
				{Name: "rest", Weight: 1, Families: []string{"*"}},
			}},
			want: map[string][]string{
				"arm":      {"c6g.large", "c6g.xlarge"},
				"big":      {"c7i-flex.xlarge", "c7i.xlarge"},
				"rest":     {"c7i-flex.large", "c7i.large", "m5.large", "m7i-flex.2xlarge", "m7i-flex.large", "t3.micro"},
				"unranked": {},
			},
		},
		{
			name: "full-name patterns and single-character wildcards",
			policy: Policy{Tiers: []Tier{
				{Name: "large", Weight: 30, Families: []string{"c7i.*large", "m?.large"}},
				{Name: "micro", Weight: 20, Families: []string{"*.micro"}},
			}},
			want: map[string][]string{
				"large":    {"c7i.large", "c7i.xlarge", "m5.large"},
				"micro":    {"t3.micro"},
				"unranked": {"c6g.large", "c6g.xlarge", "c7i-flex.large", "c7i-flex.xlarge", "m7i-flex.2xlarge", "m7i-flex.large"},
			},
		},
		{
			name: "an empty tier stays in the ranking",
			policy: Policy{Tiers: []Tier{
				{Name: "x8", Weight: 30, Families: []string{"x8*"}},
				{Name: "rest", Weight: 1, Families: []string{"*"}},
			}},
			want: map[string][]string{
				"x8":       {},
				"rest":     {"c6g.large", "c6g.xlarge", "c7i-flex.large", "c7i-flex.xlarge", "c7i.large", "c7i.xlarge", "m5.large", "m7i-flex.2xlarge", "m7i-flex.large", "t3.micro"},
				"unranked": {},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.policy.Rank(mkTypes(t, catalog...), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tierNames(r)); diff != "" {
				t.Errorf("Rank mismatch (-want +got):\n%s", diff)
			}
			for i := 1; i < len(r.Tiers); i++ {
				if r.Tiers[i-1].Tier.Weight <= r.Tiers[i].Tier.Weight {
					t.Errorf("tier %s (weight %d) before tier %s (weight %d)", r.Tiers[i-1].Tier.Name, r.Tiers[i-1].Tier.Weight, r.Tiers[i].Tier.Name, r.Tiers[i].Tier.Weight)
				}
			}
		})
	}
}

func TestRankKeepsFacts(t *testing.T) {
	types := mkTypes(t, "c7i-flex.large", "m5.large")
	r, err := flexPolicy().Rank(types, RankOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(types[:1], r.Tiers[0].InstanceTypes); diff != "" {
		t.Errorf("flex tier mismatch (-want +got):\n%s", diff)
	}
	// The ranking shares nothing with the policy or the input.
	p := flexPolicy()
	r, _ = p.Rank(types, RankOptions{})
	p.Tiers[0].Families[0] = "zzz"
	types[0].Name = "changed"
	if got := r.Tiers[0].Tier.Families[0]; got != "c7i-flex" {
		t.Errorf("the ranking's tier changed with the policy: %q", got)
	}
	if got := r.Tiers[0].InstanceTypes[0].Name; got != "c7i-flex.large" {
		t.Errorf("the ranking's type changed with the input: %q", got)
	}
	if got := r.Explain("c7i-flex.large"); !strings.Contains(got, `via pattern "c7i-flex"`) {
		t.Errorf("Explain after the policy changed = %q", got)
	}
}

func TestRankErrors(t *testing.T) {
	nameless := mkType(t, "m5.large")
	nameless.Name = ""
	familyless := mkType(t, "m5.large")
	familyless.Family = ""
	tests := []struct {
		name  string
		types []compat.InstanceType
		price func(string) (float64, bool)
		want  string
	}{
		{"duplicate", mkTypes(t, "m5.large", "c5.large", "m5.large"), nil, "weighting: instance type m5.large appears twice; pass each type once"},
		{"no name", []compat.InstanceType{nameless}, nil, "weighting: instance type #1 has no name"},
		{"no family", []compat.InstanceType{familyless}, nil, `weighting: instance type m5.large has no family; set Family ("m5" for "m5.large")`},
		{"NaN price", mkTypes(t, "m5.large"), func(string) (float64, bool) { return math.NaN(), true }, "weighting: the price of m5.large is NaN"},
		{"negative price", mkTypes(t, "m5.large"), func(string) (float64, bool) { return -1, true }, "weighting: the price of m5.large is -1"},
		{"infinite price", mkTypes(t, "m5.large"), func(string) (float64, bool) { return math.Inf(1), true }, "weighting: the price of m5.large is +Inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := flexPolicy().Rank(tt.types, RankOptions{Price: tt.price})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Rank() error = %v; want one starting %q", err, tt.want)
			}
			if r.Tiers != nil || r.Unranked != nil {
				t.Errorf("Rank() returned a partial ranking with its error: %+v", r)
			}
		})
	}
	// An unknown price is not an error, whatever the number beside it.
	if _, err := flexPolicy().Rank(mkTypes(t, "m5.large"), RankOptions{Price: func(string) (float64, bool) { return math.NaN(), false }}); err != nil {
		t.Errorf("Rank with an unknown NaN price: %v", err)
	}
}

func TestExplain(t *testing.T) {
	policy := Policy{Tiers: []Tier{
		{Name: "flex", Weight: 100, Families: []string{"c7i-flex", "m7i-flex"}},
		{Name: "arm", Weight: 50, Families: []string{"c*"}, Requirements: []compat.Requirement{{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchARM64}}}},
		{Name: "large", Weight: 20, Families: []string{"m5", "*.large"}},
		{Name: "rest", Weight: 1, Families: []string{"c*"}},
	}}
	r, err := policy.Rank(mkTypes(t, "c7i-flex.large", "c7i-flex.xlarge", "c7i.large", "c6g.large", "m5.xlarge", "t3.large", "t3.micro"), RankOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, want string }{
		{"c7i-flex.xlarge", `c7i-flex.xlarge: tier flex (weight 100), 2 of 2, via pattern "c7i-flex"`},
		{"c6g.large", `c6g.large: tier arm (weight 50), 1 of 1, via pattern "c*"; not in tier flex (weight 100): family c6g matches none of [c7i-flex m7i-flex]`},
		{"t3.large", `t3.large: tier large (weight 20), 3 of 3, via pattern "*.large"; not in tier flex (weight 100): family t3 matches none of [c7i-flex m7i-flex]; not in tier arm (weight 50): family t3 matches none of [c*]`},
		{"c7i.large", `c7i.large: tier large (weight 20), 1 of 3, via pattern "*.large"; not in tier flex (weight 100): family c7i matches none of [c7i-flex m7i-flex]; ` +
			`not in tier arm (weight 50): pattern "c*" matches, but the type has kubernetes.io/arch In [amd64] and the tier requires kubernetes.io/arch In [arm64]`},
		{"t3.micro", `t3.micro: unranked, no tier admits it; not in tier flex (weight 100): family t3 matches none of [c7i-flex m7i-flex]; not in tier arm (weight 50): family t3 matches none of [c*]; ` +
			`not in tier large (weight 20): neither family t3 nor name t3.micro matches any of [m5 *.large]; not in tier rest (weight 1): family t3 matches none of [c*]`},
		{"m5.xlarge", `m5.xlarge: tier large (weight 20)`},
		{"x9.large", "x9.large: not in the ranking"},
	}
	for _, tt := range tests {
		got := r.Explain(tt.name)
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("Explain(%q) =\n%s\nwant it to start\n%s", tt.name, got, tt.want)
		}
	}
	if got := (Ranking{}).Explain("m5.large"); !strings.Contains(got, "Policy.Rank") {
		t.Errorf("Explain on the zero Ranking = %q", got)
	}
	full := Policy{Tiers: []Tier{{Name: "big", Weight: 9, Families: []string{"*.metal"}}}}
	r, _ = full.Rank(mkTypes(t, "c5.large"), RankOptions{})
	if got, want := r.Explain("c5.large"), "c5.large: unranked, no tier admits it; not in tier big (weight 9): name c5.large matches none of [*.metal]"; got != want {
		t.Errorf("Explain = %q; want %q", got, want)
	}
}

func TestFallback(t *testing.T) {
	r, err := flexPolicy().Rank(mkTypes(t, "c7i-flex.large", "m7i-flex.large", "c7i.large", "m5.large", "t3.micro"), RankOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.Unranked = mkTypes(t, "x1.large") // never a fallback
	set := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, m := range names {
				if m == n {
					return true
				}
			}
			return false
		}
	}
	tests := []struct {
		name      string
		available func(string) bool
		wantTier  string
		wantTypes []string
		wantOK    bool
	}{
		{"everything available", nil, "flex", []string{"c7i-flex.large", "m7i-flex.large"}, true},
		{"some flex", set("m7i-flex.large", "m5.large"), "flex", []string{"m7i-flex.large"}, true},
		{"no flex capacity", set("m5.large", "t3.micro", "x1.large"), "rest", []string{"m5.large", "t3.micro"}, true},
		{"nothing", set("x1.large"), "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Fallback(r, tt.available)
			if ok != tt.wantOK || got.Tier.Name != tt.wantTier {
				t.Fatalf("Fallback() = tier %q, %v; want %q, %v", got.Tier.Name, ok, tt.wantTier, tt.wantOK)
			}
			if diff := cmp.Diff(tt.wantTypes, names(got.InstanceTypes), cmpEmpty); diff != "" {
				t.Errorf("Fallback types mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// cmpEmpty treats nil and empty slices as equal.
var cmpEmpty = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

// TestConcurrentUse runs every entry point on shared values at once; the
// race detector checks that none of them writes to what it is given.
func TestConcurrentUse(t *testing.T) {
	p := flexPolicy()
	types := mkTypes(t, "c7i-flex.large", "m7i-flex.large", "c7i.large", "m5.large")
	r, err := p.Rank(types, RankOptions{})
	if err != nil {
		t.Fatal(err)
	}
	base := NodePool{Name: "default", NodeClassRef: NodeClassRef{Name: "default"}, Labels: map[string]string{"a": "b"}}
	done := make(chan error)
	for range 4 {
		go func() {
			var err error
			for range 20 {
				if _, err = p.Rank(types, RankOptions{}); err != nil {
					break
				}
				var pools []NodePool
				if pools, err = p.NodePools(types, base); err != nil {
					break
				}
				Order(pools)
				r.Explain("m5.large")
				Fallback(r, nil)
				if _, err = pools[0].EncodeYAML(); err != nil {
					break
				}
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// TestRankAllocs guards the hot path: allocations do not grow with the
// number of types (the map and the output slices are sized once).
func TestRankAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("slow under -short")
	}
	allocs := func(n int) float64 {
		var all []string
		for _, f := range []string{"c7i-flex", "m7i", "c6g", "r7g", "m5", "t3", "c5", "m6i"} {
			for _, s := range []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "metal", "medium"} {
				all = append(all, f+"."+s)
			}
		}
		types := mkTypes(t, all[:n]...)
		p := flexPolicy()
		return testing.AllocsPerRun(20, func() {
			if _, err := p.Rank(types, RankOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(10), allocs(80)
	if large > small+4 {
		t.Errorf("Rank allocates %v times for 80 types and %v for 10; want about the same", large, small)
	}
}
