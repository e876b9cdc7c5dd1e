package weighting

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/offerings"
)

// RankOptions tunes [Policy.Rank]. The zero value ranks without prices.
type RankOptions struct {
	// Price returns the price of an instance type (any unit, the same for
	// all, such as USD per hour) and whether it is known. Within a tier,
	// types with a known price come first, cheapest first; the rest follow
	// by name. Nil means no price is known. It must return a finite,
	// non-negative price, and is called once per type.
	Price func(instanceType string) (float64, bool)
	// Unknown says what a type whose price the function does not know
	// means: ranked last in its tier (offerings.UnknownPriceLast, the zero
	// value), or not a candidate (offerings.UnknownPriceSkip), as Karpenter
	// treats an offering without a price since #9249: such a type then
	// goes to Ranking.Unpriced instead of a tier.
	Unknown offerings.UnknownPrice
}

// RankedTier is one tier of a [Ranking] and the instance types in it, in
// order of preference.
type RankedTier struct {
	Tier          Tier
	InstanceTypes []compat.InstanceType
}

// Ranking is the result of [Policy.Rank]. Its fields are plain values the
// caller owns; the Ranking also remembers the policy that made it, which
// [Ranking.Explain] reads but nothing modifies, so a Ranking is safe for
// concurrent use once no one modifies its fields.
type Ranking struct {
	// Tiers holds every tier of the policy, highest weight first, including
	// tiers that no type reached.
	Tiers []RankedTier
	// Unranked holds the types that no tier admits, by name.
	Unranked []compat.InstanceType
	// Unpriced holds, by name, the types a tier admits whose price is
	// unknown, when RankOptions.Unknown is offerings.UnknownPriceSkip.
	Unpriced []compat.InstanceType

	policy *compiled
}

// Rank puts each of types into the highest-weight tier of p that admits
// it: one of the tier's patterns matches it and it satisfies the tier's
// requirements (strictly: a requirement on a key the type does not define
// fails, unless it is NotIn or DoesNotExist). Types no tier admits go to
// [Ranking.Unranked]. Within a tier, types are ordered by price when
// opts.Price knows it, cheapest first, then by name; the result does not
// depend on the order of types or of p.Tiers.
//
// Rank fails, with nothing ranked, when p is invalid (see [Policy.Validate]),
// when a type has no name or family or two types share a name, or when the
// price function returns a negative or non-finite price.
func (p Policy) Rank(types []compat.InstanceType, opts RankOptions) (Ranking, error) {
	c, err := p.compile()
	if err != nil {
		return Ranking{}, err
	}
	if err := checkTypes(types); err != nil {
		return Ranking{}, err
	}
	keys := make([]rankKey, len(types))
	counts := make([]int, len(c.tiers)+2) // then the unranked, then the unpriced
	for i := range types {
		it := &types[i]
		k := rankKey{idx: int32(i), tier: int32(c.assign(it))}
		if k.tier < 0 {
			k.tier = int32(len(c.tiers))
		} else if opts.Price != nil {
			price, ok := opts.Price(it.Name)
			if ok && (math.IsNaN(price) || math.IsInf(price, 0) || price < 0) {
				return Ranking{}, fmt.Errorf("weighting: the price of %s is %v; the price function must return a finite, non-negative price, or false when it does not know", it.Name, price)
			}
			k.price, k.known = price, ok
			if !ok && opts.Unknown == offerings.UnknownPriceSkip {
				k.tier = int32(len(c.tiers) + 1)
			}
		}
		keys[i] = k
		counts[k.tier]++
	}
	slices.SortFunc(keys, func(a, b rankKey) int { return compareRankKeys(types, a, b) })

	r := Ranking{Tiers: make([]RankedTier, len(c.tiers)), policy: c}
	next := 0
	take := func(n int) []compat.InstanceType {
		if n == 0 {
			return nil
		}
		out := make([]compat.InstanceType, n)
		for j := range out {
			out[j] = types[keys[next+j].idx]
		}
		next += n
		return out
	}
	for i := range c.tiers {
		r.Tiers[i] = RankedTier{Tier: cloneTier(c.tiers[i].tier), InstanceTypes: take(counts[i])}
	}
	r.Unranked = take(counts[len(c.tiers)])
	r.Unpriced = take(counts[len(c.tiers)+1])
	return r, nil
}

// rankKey is what Rank sorts by: tier, then known prices first and
// cheapest first, then name (unique, so the order is total). It holds no
// pointers, which keeps the sort free of write barriers.
type rankKey struct {
	idx   int32 // position in the types given to Rank
	tier  int32 // position in compiled.tiers; len(tiers) when unranked
	known bool
	price float64
}

func compareRankKeys(types []compat.InstanceType, a, b rankKey) int {
	if a.tier != b.tier {
		return cmp.Compare(a.tier, b.tier)
	}
	if a.known != b.known {
		if a.known {
			return -1
		}
		return 1
	}
	if a.known && a.price != b.price {
		return cmp.Compare(a.price, b.price)
	}
	return strings.Compare(types[a.idx].Name, types[b.idx].Name)
}

// assign returns the position of the highest-weight tier that admits it,
// or -1.
func (c *compiled) assign(it *compat.InstanceType) int {
	for i := range c.tiers {
		if c.tiers[i].admits(it) {
			return i
		}
	}
	return -1
}

// checkTypes rejects what would make a ranking ambiguous: a type without a
// name or family, and two types with one name.
func checkTypes(types []compat.InstanceType) error {
	seen := make(map[string]struct{}, len(types))
	for i := range types {
		it := &types[i]
		if it.Name == "" {
			return fmt.Errorf("weighting: instance type #%d has no name; set Name, or build it with compat.InstanceTypeFromEC2", i+1)
		}
		if it.Family == "" {
			return fmt.Errorf("weighting: instance type %s has no family; set Family (%q for %q), or build it with compat.InstanceTypeFromEC2", it.Name, familyOfName(it.Name), it.Name)
		}
		if _, dup := seen[it.Name]; dup {
			return fmt.Errorf("weighting: instance type %s appears twice; pass each type once", it.Name)
		}
		seen[it.Name] = struct{}{}
	}
	return nil
}

func familyOfName(name string) string {
	family, _, _ := strings.Cut(name, ".")
	return family
}

// Explain says which tier holds the instance type called name and why: the
// pattern that matched it, and for each tier of higher weight, why that tier
// did not take it. For example:
//
//	c7i.large: tier rest (weight 1), 3 of 40, via pattern "*"; not in tier flex (weight 100): family c7i matches none of [c7i-flex m7i-flex]
//
// It works on a Ranking returned by [Policy.Rank].
func (r Ranking) Explain(name string) string {
	if r.policy == nil {
		return name + ": not ranked; Explain works on a Ranking returned by Policy.Rank"
	}
	it, tier, pos, ok := r.find(name)
	if !ok {
		if slices.ContainsFunc(r.Unpriced, func(t compat.InstanceType) bool { return t.Name == name }) {
			return name + ": unpriced: its price is unknown, which RankOptions.Unknown makes unavailable"
		}
		return name + ": not in the ranking"
	}
	var b strings.Builder
	above := len(r.policy.tiers)
	if tier >= 0 {
		ct := &r.policy.tiers[tier]
		fmt.Fprintf(&b, "%s: tier %s (weight %d), %d of %d", name, ct.tier.Name, ct.tier.Weight, pos+1, len(r.Tiers[tier].InstanceTypes))
		if i := ct.match(it.Name, it.Family); i >= 0 { // not so only if the caller edited the ranking
			fmt.Fprintf(&b, ", via pattern %q", ct.tier.Families[i])
		}
		above = tier
	} else {
		fmt.Fprintf(&b, "%s: unranked, no tier admits it", name)
	}
	for i := range above {
		ct := &r.policy.tiers[i]
		fmt.Fprintf(&b, "; not in tier %s (weight %d): %s", ct.tier.Name, ct.tier.Weight, whyNot(ct, it))
	}
	return b.String()
}

// find locates the type called name: its tier (-1 when unranked) and its
// position there.
func (r Ranking) find(name string) (it *compat.InstanceType, tier, pos int, ok bool) {
	for i := range min(len(r.Tiers), len(r.policy.tiers)) {
		for j := range r.Tiers[i].InstanceTypes {
			if r.Tiers[i].InstanceTypes[j].Name == name {
				return &r.Tiers[i].InstanceTypes[j], i, j, true
			}
		}
	}
	for j := range r.Unranked {
		if r.Unranked[j].Name == name {
			return &r.Unranked[j], -1, j, true
		}
	}
	return nil, 0, 0, false
}

// whyNot says why t does not admit it.
func whyNot(t *compiledTier, it *compat.InstanceType) string {
	if i := t.match(it.Name, it.Family); i >= 0 {
		err := it.Compatible(t.reqs)
		var ie *compat.IncompatibleError
		if errors.As(err, &ie) {
			has := "does not define " + ie.Key
			if ie.Instance.Operator != "" {
				has = "has " + ie.Instance.String()
			}
			return fmt.Sprintf("pattern %q matches, but the type %s and the tier requires %s", t.tier.Families[i], has, ie.Required)
		}
		return fmt.Sprintf("pattern %q matches, but its requirements fail: %v", t.tier.Families[i], err)
	}
	var family, full bool
	for _, p := range t.patterns {
		family = family || !p.fullName
		full = full || p.fullName
	}
	switch {
	case family && full:
		return fmt.Sprintf("neither family %s nor name %s matches any of %s", it.Family, it.Name, patternList(t))
	case full:
		return fmt.Sprintf("name %s matches none of %s", it.Name, patternList(t))
	default:
		return fmt.Sprintf("family %s matches none of %s", it.Family, patternList(t))
	}
}

// Fallback returns what a provisioner would try next: the highest-weight
// tier of ranking with at least one type that available reports as having
// capacity, holding only those types, in ranking order. It reports false
// when no tier has an available type. A nil available treats every type as
// available.
func Fallback(ranking Ranking, available func(instanceType string) bool) (RankedTier, bool) {
	for _, rt := range ranking.Tiers {
		var types []compat.InstanceType
		for _, it := range rt.InstanceTypes {
			if available == nil || available(it.Name) {
				types = append(types, it)
			}
		}
		if len(types) > 0 {
			return RankedTier{Tier: cloneTier(rt.Tier), InstanceTypes: types}, true
		}
	}
	return RankedTier{}, false
}
