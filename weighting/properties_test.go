package weighting

import (
	"cmp"
	"errors"
	"slices"
	"testing"

	"github.com/ec2select/ec2select/compat"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

var (
	genFamilies = []string{"c7i-flex", "m7i-flex", "c8i-flex", "c7i", "m7i", "c6g", "m6g", "r7g", "m5", "t3", "g5", "inf2"}
	genSizes    = []string{"large", "xlarge", "2xlarge", "8xlarge", "metal"}
	genPatterns = []string{
		"c7i-flex", "m7i-flex", "c*-flex", "*-flex", "c*", "m?", "?5", "*g", "*i", "c?i*", "t3",
		"c7i.*large", "*.metal", "r7g.large", "*.?xlarge", "x9*", "*",
	}
	genRequirements = [][]compat.Requirement{
		nil, nil, nil,
		{{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchAMD64}}},
		{{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchARM64}}},
		{{Key: compat.LabelInstanceCPU, Operator: compat.Gte, Values: []string{"8"}}},
		{{Key: compat.LabelInstanceCPU, Operator: compat.Lt, Values: []string{"8"}}},
		{{Key: compat.LabelInstanceCapabilityFlex, Operator: compat.In, Values: []string{"true"}}},
		{{Key: compat.LabelInstanceSize, Operator: compat.NotIn, Values: []string{"metal"}}},
	}
)

// drawCatalog draws distinct instance types from a small universe, so that
// patterns hit often, with random vCPU counts.
func drawCatalog(t *rapid.T) []compat.InstanceType {
	var all []string
	for _, f := range genFamilies {
		for _, s := range genSizes {
			all = append(all, f+"."+s)
		}
	}
	chosen := rapid.SliceOfNDistinct(rapid.SampledFrom(all), 0, 25, rapid.ID[string]).Draw(t, "types")
	types := mkTypes(t, chosen...)
	for i := range types {
		types[i].VCPU = rapid.SampledFrom([]int{1, 2, 4, 8, 16, 64}).Draw(t, "vcpu")
	}
	return types
}

func drawPolicy(t *rapid.T) Policy {
	weights := rapid.SliceOfNDistinct(rapid.Int32Range(MinWeight, MaxWeight), 1, 5, rapid.ID[int32]).Draw(t, "weights")
	p := Policy{Tiers: make([]Tier, len(weights))}
	for i, w := range weights {
		p.Tiers[i] = Tier{
			Name:         string(rune('a' + i)),
			Weight:       w,
			Families:     rapid.SliceOfN(rapid.SampledFrom(genPatterns), 1, 3).Draw(t, "patterns"),
			Requirements: rapid.SampledFrom(genRequirements).Draw(t, "requirements"),
		}
	}
	return p
}

// drawPrice draws a price function that knows some types' prices, with
// ties.
func drawPrice(t *rapid.T, types []compat.InstanceType) func(string) (float64, bool) {
	prices := make(map[string]float64)
	for _, it := range types {
		if rapid.Bool().Draw(t, "priced") {
			prices[it.Name] = rapid.SampledFrom([]float64{0.1, 0.2, 0.3}).Draw(t, "price")
		}
	}
	return func(name string) (float64, bool) { p, ok := prices[name]; return p, ok }
}

// refRank is the reference model of Rank: for each type, try the tiers
// from the highest weight down with the reference matcher and the full,
// error-returning compatibility check; then sort each tier plainly.
func refRank(t *rapid.T, p Policy, types []compat.InstanceType, price func(string) (float64, bool)) map[string][]string {
	tiers := slices.Clone(p.Tiers)
	slices.SortFunc(tiers, func(a, b Tier) int { return cmp.Compare(b.Weight, a.Weight) })
	got := make(map[string][]compat.InstanceType)
	for _, it := range types {
		home := "unranked"
	tiers:
		for _, tier := range tiers {
			reqs, err := compat.NewRequirements(tier.Requirements...)
			if err != nil {
				t.Fatal(err)
			}
			for _, pat := range tier.Families {
				subject := it.Family
				if slices.Contains([]byte(pat), '.') {
					subject = it.Name
				}
				if refMatch(pat, subject) && it.Requirements().Compatible(reqs) == nil {
					home = tier.Name
					break tiers
				}
			}
		}
		got[home] = append(got[home], it)
	}
	out := map[string][]string{"unranked": {}}
	for _, tier := range tiers {
		out[tier.Name] = []string{}
	}
	for home, its := range got {
		slices.SortFunc(its, func(a, b compat.InstanceType) int {
			pa, oka := price(a.Name)
			pb, okb := price(b.Name)
			if home != "unranked" && (oka || okb) {
				switch {
				case oka && !okb:
					return -1
				case okb && !oka:
					return 1
				case pa != pb:
					return cmp.Compare(pa, pb)
				}
			}
			return cmp.Compare(a.Name, b.Name)
		})
		out[home] = names(its)
	}
	return out
}

// TestRankProperties: every type lands in exactly one place, the one the
// reference model picks, in the reference order.
func TestRankProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		types := drawCatalog(t)
		p := drawPolicy(t)
		price := drawPrice(t, types)
		r, err := p.Rank(types, RankOptions{Price: price})
		if err != nil {
			t.Fatal(err)
		}
		count := make(map[string]int)
		for _, rt := range r.Tiers {
			for _, it := range rt.InstanceTypes {
				count[it.Name]++
			}
		}
		for _, it := range r.Unranked {
			count[it.Name]++
		}
		for _, it := range types {
			if count[it.Name] != 1 {
				t.Fatalf("%s appears %d times", it.Name, count[it.Name])
			}
		}
		if len(count) != len(types) {
			t.Fatalf("%d types in the ranking; %d given", len(count), len(types))
		}
		if diff := gocmp.Diff(refRank(t, p, types, price), tierNames(r), cmpEmpty); diff != "" {
			t.Fatalf("Rank disagrees with the reference (-ref +got):\n%s", diff)
		}
		for _, it := range types {
			if got := r.Explain(it.Name); len(got) <= len(it.Name) || got[:len(it.Name)+1] != it.Name+":" {
				t.Fatalf("Explain(%s) = %q", it.Name, got)
			}
		}
	})
}

// TestRankOrderIndependence: shuffling the types or the tiers changes
// nothing.
func TestRankOrderIndependence(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		types := drawCatalog(t)
		p := drawPolicy(t)
		price := drawPrice(t, types)
		want, err := p.Rank(types, RankOptions{Price: price})
		if err != nil {
			t.Fatal(err)
		}
		shuffled := Policy{Tiers: rapid.Permutation(p.Tiers).Draw(t, "tiers")}
		got, err := shuffled.Rank(rapid.Permutation(types).Draw(t, "types"), RankOptions{Price: price})
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(want, got, cmpopts.IgnoreUnexported(Ranking{})); diff != "" {
			t.Fatalf("Rank depends on input order (-want +got):\n%s", diff)
		}
	})
}

// TestRankMonotonic: raising one tier's weight never moves a type to a
// tier of lower weight, and keeps every type the tier had.
func TestRankMonotonic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		types := drawCatalog(t)
		p := drawPolicy(t)
		k := rapid.IntRange(0, len(p.Tiers)-1).Draw(t, "tier")
		var free []int32
		for w := p.Tiers[k].Weight + 1; w <= MaxWeight; w++ {
			if !slices.ContainsFunc(p.Tiers, func(tr Tier) bool { return tr.Weight == w }) {
				free = append(free, w)
			}
		}
		if len(free) == 0 {
			t.Skip("no higher weight is free")
		}
		raised := Policy{Tiers: slices.Clone(p.Tiers)}
		raised.Tiers[k].Weight = rapid.SampledFrom(free).Draw(t, "weight")

		before, err := p.Rank(types, RankOptions{})
		if err != nil {
			t.Fatal(err)
		}
		after, err := raised.Rank(types, RankOptions{})
		if err != nil {
			t.Fatal(err)
		}
		home := func(r Ranking) map[string]string {
			m := make(map[string]string)
			for _, rt := range r.Tiers {
				for _, it := range rt.InstanceTypes {
					m[it.Name] = rt.Tier.Name
				}
			}
			return m
		}
		weight := func(p Policy, tier string) int32 {
			for _, tr := range p.Tiers {
				if tr.Name == tier {
					return tr.Weight
				}
			}
			return 0 // unranked
		}
		hb, ha := home(before), home(after)
		for _, it := range types {
			// Compare by the old weights: the type's new tier must not be
			// one it preferred less before.
			wb, wa := weight(p, hb[it.Name]), weight(p, ha[it.Name])
			if ha[it.Name] != p.Tiers[k].Name && wa < wb {
				t.Fatalf("%s moved from tier %q (weight %d) down to tier %q (weight %d)", it.Name, hb[it.Name], wb, ha[it.Name], wa)
			}
			if hb[it.Name] == p.Tiers[k].Name && ha[it.Name] != p.Tiers[k].Name {
				t.Fatalf("%s left the raised tier %q for %q", it.Name, p.Tiers[k].Name, ha[it.Name])
			}
			if weight(raised, ha[it.Name]) < weight(p, hb[it.Name]) {
				t.Fatalf("%s now sits in a tier of weight %d; before, %d", it.Name, weight(raised, ha[it.Name]), weight(p, hb[it.Name]))
			}
		}
	})
}

// TestNodePoolsProperties: the NodePools partition the catalog exactly as
// Rank does, and NodePools fails exactly when a tier would be empty (or,
// when strict, a pattern matches nothing), naming that tier.
func TestNodePoolsProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		types := drawCatalog(t)
		p := drawPolicy(t)
		p.Strict = rapid.Bool().Draw(t, "strict")
		r, err := p.Rank(types, RankOptions{})
		if err != nil {
			t.Fatal(err)
		}
		bad := make(map[string]bool) // tiers NodePools must refuse
		for _, rt := range r.Tiers {
			bad[rt.Tier.Name] = len(rt.InstanceTypes) == 0
			if p.Strict {
				for _, pat := range rt.Tier.Families {
					matched := false
					for _, it := range types {
						subject := it.Family
						if slices.Contains([]byte(pat), '.') {
							subject = it.Name
						}
						matched = matched || refMatch(pat, subject)
					}
					bad[rt.Tier.Name] = bad[rt.Tier.Name] || !matched
				}
			}
		}
		// A base with every field but those the tiers set; its requirements
		// are left out so that only the tiers decide which fail.
		base := drawNodePool(t)
		base.Name, base.Weight, base.Replicas, base.Requirements = "np", 0, nil, nil
		pools, err := p.NodePools(types, base)
		if err != nil {
			var te *TierError
			if !errors.As(err, &te) || !bad[te.Tier] {
				t.Fatalf("NodePools() = %v; tiers that must fail: %v", err, bad)
			}
			// The first bad tier, in weight order, is the one reported.
			for _, rt := range r.Tiers {
				if bad[rt.Tier.Name] {
					if rt.Tier.Name != te.Tier {
						t.Fatalf("NodePools() reported tier %s; tier %s comes first", te.Tier, rt.Tier.Name)
					}
					break
				}
			}
			return
		}
		for tier, isBad := range bad {
			if isBad {
				t.Fatalf("NodePools() succeeded, but tier %s should have failed", tier)
			}
		}
		checkPartition(t, p, types, pools)
		want := clonePool(base) // what the API server wrote about base is dropped
		for _, k := range serverMetadata {
			delete(want.Unknown, k)
		}
		if len(want.Unknown) == 0 {
			want.Unknown = nil
		}
		for _, np := range pools {
			carried := np
			carried.Name, carried.Weight, carried.Requirements = want.Name, 0, nil
			if diff := gocmp.Diff(want, carried); diff != "" {
				t.Fatalf("NodePool %s does not carry its base (-want +got):\n%s", np.Name, diff)
			}
			y, err := np.EncodeYAML()
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeNodePool(y)
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff(np, back); diff != "" {
				t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
			}
		}
	})
}
