package weighting

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/validation"
)

// MinWeight and MaxWeight bound [Tier.Weight], as Karpenter bounds a
// NodePool's spec.weight.
const (
	MinWeight = 1
	MaxWeight = 100
)

// Tier is one level of a [Policy]: the instance types its patterns match,
// narrowed by its requirements, preferred over every tier of lower weight.
type Tier struct {
	// Name identifies the tier in rankings, explanations and errors, and
	// becomes the suffix of its NodePool's name: a DNS-1123 label ("flex").
	Name string
	// Weight orders the tiers, highest first: 1 to 100, distinct within a
	// policy.
	Weight int32
	// Families are glob patterns (see the package documentation): "c7i-flex",
	// "c*-flex" and "*" match the instance family; a pattern with a dot,
	// such as "c7i.*large", matches the whole instance-type name. A type is
	// in the tier when any one pattern matches.
	Families []string
	// Requirements further narrow the tier, for example to one architecture.
	// They may only use keys that describe an instance type (see
	// [compat.InstanceLabels]), because ranking evaluates them against the
	// facts of each type; constraints such as a capacity type or a zone
	// belong in the base NodePool.
	Requirements []compat.Requirement
}

// Policy is a set of weighted tiers. Each instance type belongs to the
// highest-weight tier that matches it, or to none.
//
// A Policy is a plain value: its methods only read it, so it is safe for
// concurrent use as long as no one modifies its slices meanwhile. Methods
// that need it compiled compile it on each call, which costs a few
// microseconds for a handful of tiers; results never share memory with it.
// The zero Policy has no tiers, which [Policy.Validate] rejects.
type Policy struct {
	Tiers []Tier
	// Strict makes [Policy.NodePools] fail when a pattern matches no type of
	// the catalog, which catches typos ("c7i-flx"). When false, such a
	// pattern is allowed, so that one policy can serve regions that do not
	// yet offer a family; a tier that matches nothing at all is an error
	// either way, since its NodePool would admit nothing.
	Strict bool
}

// TierError reports a problem with one tier of a [Policy]: which tier, what
// is wrong, and how to fix it.
type TierError struct {
	// Tier is the tier's name, and Index its position in [Policy.Tiers].
	Tier  string
	Index int
	// Reason says what is wrong; Fix says what change would make it right.
	Reason, Fix string
}

func (e *TierError) Error() string {
	return fmt.Sprintf("weighting: %s: %s; %s", e.tierName(), e.Reason, e.Fix)
}

func (e *TierError) tierName() string {
	if e.Tier == "" {
		return fmt.Sprintf("tier #%d (unnamed)", e.Index+1)
	}
	return fmt.Sprintf("tier %q", e.Tier)
}

// errNoTiers is returned for a policy without tiers.
var errNoTiers = errors.New("weighting: the policy has no tiers; add at least one, for example {Name: \"rest\", Weight: 1, Families: [\"*\"]}")

// Validate reports every problem with p: no tiers; a tier with an empty,
// malformed or repeated name; a weight outside 1–100 or shared with another
// tier; no patterns, or a malformed one; requirements that do not compile or
// use a key that does not describe an instance type. Each problem is a
// *[TierError]; several are joined with [errors.Join].
func (p Policy) Validate() error {
	_, err := p.compile()
	return err
}

// compiledTier is a Tier checked and made ready to match. tier is a deep
// copy, so later changes to the caller's policy do not reach results.
type compiledTier struct {
	tier     Tier
	patterns []pattern
	reqs     compat.Requirements
	any      bool // some pattern matches every family
	index    int  // position in Policy.Tiers
}

// compiled is a validated policy, tiers highest weight first. It is never
// modified after compile returns, so results may share it.
type compiled struct {
	tiers []compiledTier
}

func (p Policy) compile() (*compiled, error) {
	if len(p.Tiers) == 0 {
		return nil, errNoTiers
	}
	instanceKeys := compat.InstanceLabels()
	var errs []error
	fail := func(i int, reason, fix string) {
		errs = append(errs, &TierError{Tier: p.Tiers[i].Name, Index: i, Reason: reason, Fix: fix})
	}
	c := &compiled{tiers: make([]compiledTier, 0, len(p.Tiers))}
	for i, t := range p.Tiers {
		ct := compiledTier{tier: cloneTier(t), index: i}
		switch err := dnsLabel(t.Name); {
		case t.Name == "":
			fail(i, "the name is empty", "give every tier a name such as \"flex\" or \"rest\"")
		case err != nil:
			fail(i, fmt.Sprintf("name %q is not a DNS-1123 label (%v)", t.Name, err), "use lower-case letters, digits and '-', since the name ends up in a NodePool's name")
		}
		for j := range i {
			if t.Name != "" && p.Tiers[j].Name == t.Name {
				fail(i, fmt.Sprintf("the name is also used by tier #%d", j+1), "give each tier its own name")
				break
			}
		}
		if t.Weight < MinWeight || t.Weight > MaxWeight {
			fail(i, fmt.Sprintf("weight %d is outside %d–%d", t.Weight, MinWeight, MaxWeight), "use a weight from 1 to 100, as Karpenter's NodePool weight allows; higher is preferred")
		}
		for j := range i {
			if p.Tiers[j].Weight == t.Weight {
				fail(i, fmt.Sprintf("weight %d is also the weight of tier %q", t.Weight, p.Tiers[j].Name), "give each tier a distinct weight, so that the order between them is the one you mean")
				break
			}
		}
		if len(t.Families) == 0 {
			fail(i, "it has no family patterns", "list at least one pattern, such as \"c7i-flex\", \"c*-flex\" or \"*\" for everything")
		}
		for _, s := range t.Families {
			pat, perr := parsePattern(s)
			if perr != nil {
				fail(i, fmt.Sprintf("pattern %q %s", perr.pattern, perr.reason), perr.fix)
				continue
			}
			ct.patterns = append(ct.patterns, pat)
			ct.any = ct.any || pat.any
		}
		reqs, err := compat.NewRequirements(t.Requirements...)
		if err != nil {
			fail(i, fmt.Sprintf("its requirements are invalid: %v", err), "fix the requirement as the message says")
		}
		for _, k := range reqs.Keys() {
			if _, ok := slices.BinarySearch(instanceKeys, k); !ok {
				fail(i, fmt.Sprintf("requirement key %s does not describe an instance type, so no type can be ranked by it", k),
					"move it to the base NodePool's requirements, or use a key from compat.InstanceLabels")
			}
		}
		ct.reqs = reqs
		c.tiers = append(c.tiers, ct)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortFunc(c.tiers, func(a, b compiledTier) int { return int(b.tier.Weight) - int(a.tier.Weight) })
	return c, nil
}

// match returns the first of t's patterns that matches a type with this
// name and family, or -1.
func (t *compiledTier) match(name, family string) int {
	for i, p := range t.patterns {
		if p.any || globMatch(p.text, p.subject(name, family)) {
			return i
		}
	}
	return -1
}

// admits reports whether it is in t: a pattern matches and the requirements
// hold.
func (t *compiledTier) admits(it *compat.InstanceType) bool {
	if t.match(it.Name, it.Family) < 0 {
		return false
	}
	_, conflict := it.Conflict(t.reqs)
	return !conflict
}

func cloneTier(t Tier) Tier {
	t.Families = slices.Clone(t.Families)
	t.Requirements = slices.Clone(t.Requirements)
	for i := range t.Requirements {
		t.Requirements[i].Values = slices.Clone(t.Requirements[i].Values)
	}
	return t
}

// patternList formats a tier's patterns for explanations: [c7i-flex m7i-flex].
func patternList(t *compiledTier) string {
	return "[" + strings.Join(t.tier.Families, " ") + "]"
}

// dnsLabel checks s against Kubernetes' IsDNS1123Label: at most 63
// lower-case letters, digits and '-', starting and ending with a letter or
// digit.
func dnsLabel(s string) error {
	if len(s) > validation.MaxNameLength {
		return fmt.Errorf("%d characters; at most %d are allowed", len(s), validation.MaxNameLength)
	}
	if strings.Contains(s, ".") {
		return errors.New("must not contain '.'")
	}
	return validation.DNS1123Subdomain(s)
}
