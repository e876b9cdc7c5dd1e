package weighting

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/validation"
)

// NodePools expands p into one Karpenter NodePool per tier, highest weight
// first, for the instance types of catalog. Each NodePool is base with:
//
//   - the name base.Name + "-" + the tier's name (the tier's name alone when
//     base.Name is empty), which must stay within 63 characters;
//   - the tier's weight;
//   - requirements: base's, then the tier's, then the ones generated here.
//
// The generated requirements make the NodePools admit, among the types of
// catalog, exactly the types [Policy.Rank] puts in each tier, so no type is
// in two NodePools. A tier whose patterns match whole families gets
// karpenter.k8s.aws/instance-family In [those families], sorted, and a tier
// with a pattern of only '*' gets no such requirement. Families that higher
// tiers take whole are left out, or excluded with instance-family NotIn;
// types they take from a family only in part (through requirements or
// full-name patterns) are excluded with node.kubernetes.io/instance-type
// NotIn. A tier whose patterns match only some types of a family lists its
// types with node.kubernetes.io/instance-type In instead.
//
// Families excluded whole stay excluded when AWS adds sizes to them, and a
// '*' tier picks up new families by itself; a family that a higher tier
// takes only in part is split by name, so a size added later is admitted by
// both NodePools until NodePools runs again (Karpenter then prefers the
// higher weight).
//
// Every other field of base is carried into each NodePool: limits,
// disruption, expiry, taints, labels, annotations, minValues and unknown
// fields. Limits apply to each NodePool on its own, so the tiers together
// may launch up to their number times base's limits. What the API server
// wrote about base itself is not carried, since it would be wrong for a new
// object: the metadata fields uid, resourceVersion, generation,
// creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds,
// managedFields and selfLink, and kubectl's last-applied-configuration
// annotation.
//
// base.Weight must be 0, since the tiers set it, and base.Replicas nil,
// since a static NodePool cannot have a weight. An empty
// base.NodeClassRef.Group or Kind means karpenter.k8s.aws and EC2NodeClass;
// the name is required.
//
// A minValues on a requirement of base (or of a tier) whose key describes
// an instance type (see [compat.InstanceLabels]) must be met by each
// NodePool within the catalog, as [compat.Requirements.SatisfiesMinValues]
// counts: a tier whose NodePool admits fewer distinct values of the key
// than minValues is an error naming the tier and the key, since Karpenter
// would launch nothing from it. minValues on other keys, such as zones,
// depends on offerings the catalog does not know and is not checked.
//
// NodePools fails, naming the tier and the fix, when p is invalid (see
// [Policy.Validate]), when a tier's NodePool would admit no type of the
// catalog, when p.Strict is set and a pattern matches no type of the
// catalog, or when a NodePool would break Karpenter's rules (see
// [NodePool.Validate]) or miss base's minValues; and it fails for a catalog with a nameless,
// familyless or repeated type, or one whose name or family is not a valid
// label value.
func (p Policy) NodePools(catalog []compat.InstanceType, base NodePool) ([]NodePool, error) {
	c, err := p.compile()
	if err != nil {
		return nil, err
	}
	if err := checkCatalog(catalog); err != nil {
		return nil, err
	}
	if base, err = checkBase(base); err != nil {
		return nil, err
	}
	x := newExpansion(c, catalog)
	pools := make([]NodePool, 0, len(c.tiers))
	for t := range c.tiers {
		np, err := x.pool(t, p.Strict, base)
		if err != nil {
			return nil, err
		}
		pools = append(pools, np)
	}
	return pools, nil
}

func checkCatalog(catalog []compat.InstanceType) error {
	if err := checkTypes(catalog); err != nil {
		return err
	}
	for i := range catalog {
		it := &catalog[i]
		if err := validation.LabelValue(it.Name); err != nil {
			return fmt.Errorf("weighting: instance type %q: the name is not a valid label value (%v); fix the catalog", it.Name, err)
		}
		if err := validation.LabelValue(it.Family); err != nil {
			return fmt.Errorf("weighting: instance type %s: family %q is not a valid label value (%v); fix the catalog", it.Name, it.Family, err)
		}
	}
	return nil
}

// checkBase validates base as far as it can before names and weights are
// set, fills in the default node class, and returns a deep copy.
func checkBase(base NodePool) (NodePool, error) {
	switch {
	case base.Weight != 0:
		return NodePool{}, fmt.Errorf("weighting: base NodePool %s: spec.weight: %d is set; leave it 0, since each NodePool takes its tier's weight", base.Name, base.Weight)
	case base.Replicas != nil:
		return NodePool{}, fmt.Errorf("weighting: base NodePool %s: spec.replicas is set; a static NodePool cannot have a weight, so leave it nil", base.Name)
	}
	if base.NodeClassRef.Group == "" {
		base.NodeClassRef.Group = DefaultNodeClassGroup
	}
	if base.NodeClassRef.Kind == "" {
		base.NodeClassRef.Kind = DefaultNodeClassKind
	}
	probe := base
	if probe.Name == "" {
		probe.Name = "base"
	}
	if err := probe.validate(); err != nil {
		return NodePool{}, fmt.Errorf("weighting: base NodePool %s: %v", probe.Name, err)
	}
	base = clonePool(base)
	for k := range base.Unknown {
		if slices.Contains(serverMetadata, k) {
			delete(base.Unknown, k)
		}
	}
	delete(base.ObjectAnnotations, lastApplied)
	if len(base.Unknown) == 0 {
		base.Unknown = nil
	}
	if len(base.ObjectAnnotations) == 0 {
		base.ObjectAnnotations = nil
	}
	return base, nil
}

// serverMetadata are the metadata fields the API server writes about an
// object, which a new object must not carry.
var serverMetadata = []string{"/metadata/creationTimestamp", "/metadata/deletionGracePeriodSeconds", "/metadata/deletionTimestamp",
	"/metadata/generation", "/metadata/managedFields", "/metadata/resourceVersion", "/metadata/selfLink", "/metadata/uid"}

// lastApplied is kubectl's record of what was last applied to an object.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// clonePool returns a deep copy of np.
func clonePool(np NodePool) NodePool {
	np.ObjectLabels = maps.Clone(np.ObjectLabels)
	np.ObjectAnnotations = maps.Clone(np.ObjectAnnotations)
	if np.Replicas != nil {
		n := *np.Replicas
		np.Replicas = &n
	}
	np.Limits = maps.Clone(np.Limits)
	np.Disruption.Budgets = slices.Clone(np.Disruption.Budgets)
	for i := range np.Disruption.Budgets {
		np.Disruption.Budgets[i].Reasons = slices.Clone(np.Disruption.Budgets[i].Reasons)
	}
	np.Labels = maps.Clone(np.Labels)
	np.Annotations = maps.Clone(np.Annotations)
	np.Requirements = cloneRequirements(np.Requirements)
	np.Taints = slices.Clone(np.Taints)
	np.StartupTaints = slices.Clone(np.StartupTaints)
	if np.Unknown != nil {
		np.Unknown = cloneJSON(np.Unknown).(map[string]any)
	}
	return np
}

// cloneJSON deep-copies a value encoding/json decoded into an any.
func cloneJSON(v any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneJSON(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = cloneJSON(e)
		}
		return out
	}
	return v
}

func cloneRequirements(rs []compat.Requirement) []compat.Requirement {
	rs = slices.Clone(rs)
	for i := range rs {
		rs[i].Values = slices.Clone(rs[i].Values)
	}
	return rs
}

// expansion holds what NodePools works out from the catalog once: which
// types each tier's patterns match and which tier ranks each type.
type expansion struct {
	c        *compiled
	catalog  []compat.InstanceType
	families map[string]int // family → number of catalog types in it
	matched  [][]int        // per tier, the types a pattern matches
	assigned []int          // per type, the tier that ranks it, or -1
	claimed  []bool         // per type, ranked by a tier already expanded
}

func newExpansion(c *compiled, catalog []compat.InstanceType) *expansion {
	x := &expansion{
		c:        c,
		catalog:  catalog,
		families: make(map[string]int),
		matched:  make([][]int, len(c.tiers)),
		assigned: make([]int, len(catalog)),
		claimed:  make([]bool, len(catalog)),
	}
	for i := range catalog {
		it := &catalog[i]
		x.families[it.Family]++
		for t := range c.tiers {
			if c.tiers[t].match(it.Name, it.Family) >= 0 {
				x.matched[t] = append(x.matched[t], i)
			}
		}
		x.assigned[i] = c.assign(it)
	}
	return x
}

// pool builds tier t's NodePool and then marks the types t ranks as
// claimed, so tiers below exclude them. Tiers must be expanded in order.
func (x *expansion) pool(t int, strict bool, base NodePool) (NodePool, error) {
	ct := &x.c.tiers[t]
	fail := func(reason, fix string) error {
		return &TierError{Tier: ct.tier.Name, Index: x.index(t), Reason: reason, Fix: fix}
	}
	if strict {
		for i, pat := range ct.patterns {
			if !x.anyMatch(pat) {
				return NodePool{}, fail(fmt.Sprintf("pattern %q matches no instance type of the catalog", ct.tier.Families[i]),
					"correct the pattern (families look like \"c7i-flex\", full names like \"c7i.large\"), or clear Policy.Strict to allow patterns for families the catalog does not offer yet")
			}
		}
	}
	np := clonePool(base)
	np.Weight = ct.tier.Weight
	np.Name = ct.tier.Name
	if base.Name != "" {
		np.Name = base.Name + "-" + ct.tier.Name
	}
	if err := poolName(np.Name); err != nil {
		return NodePool{}, fail(fmt.Sprintf("its NodePool's %v", err), "shorten the base NodePool's name or the tier's")
	}
	np.Requirements = append(np.Requirements, cloneRequirements(ct.tier.Requirements)...)
	np.Requirements = append(np.Requirements, x.generate(t)...)
	// checkBase has validated the rest, and the name is checked above;
	// the weight is the tier's, which Policy.Validate has checked.
	if err := np.validateRequirements(); err != nil {
		return NodePool{}, fail(fmt.Sprintf("its NodePool %s is invalid: %v", np.Name, err), "change the tier or the base NodePool as the message says")
	}
	reqs, err := compat.NewRequirements(np.Requirements...)
	if err != nil { // validate has already compiled them
		return NodePool{}, fail(err.Error(), "fix the requirement")
	}
	if err := x.checkAdmits(t, reqs); err != nil {
		return NodePool{}, fail(err.reason, err.fix)
	}
	if err := x.checkMinValues(np.Requirements, len(base.Requirements), reqs); err != nil {
		return NodePool{}, fail(err.reason, err.fix)
	}
	for i, a := range x.assigned {
		if a == t {
			x.claimed[i] = true
		}
	}
	return np, nil
}

// index is the position in Policy.Tiers of compiled tier t, for errors.
func (x *expansion) index(t int) int {
	return x.c.tiers[t].index
}

func (x *expansion) anyMatch(p pattern) bool {
	if p.any {
		return len(x.catalog) > 0
	}
	for i := range x.catalog {
		if globMatch(p.text, p.subject(x.catalog[i].Name, x.catalog[i].Family)) {
			return true
		}
	}
	return false
}

// generate returns the requirements that make tier t admit, within the
// catalog, exactly what its patterns match minus what higher tiers claimed.
func (x *expansion) generate(t int) []compat.Requirement {
	ct := &x.c.tiers[t]
	claimedIn := make(map[string]int) // family → claimed types in it
	for i, ok := range x.claimed {
		if ok {
			claimedIn[x.catalog[i].Family]++
		}
	}
	whole := func(f string) bool { return claimedIn[f] == x.families[f] }

	var gen []compat.Requirement
	add := func(key string, op compat.Operator, values []string) {
		if len(values) > 0 {
			slices.Sort(values)
			gen = append(gen, compat.Requirement{Key: key, Operator: op, Values: values})
		}
	}
	// partial lists the claimed types of families in keep that are not
	// claimed whole.
	partial := func(keep func(family string) bool) []string {
		var names []string
		for i, ok := range x.claimed {
			if f := x.catalog[i].Family; ok && keep(f) && !whole(f) {
				names = append(names, x.catalog[i].Name)
			}
		}
		return names
	}

	if ct.any {
		var out []string
		for f := range claimedIn {
			if whole(f) {
				out = append(out, f)
			}
		}
		add(compat.LabelInstanceFamily, compat.NotIn, out)
		add(compat.LabelInstanceType, compat.NotIn, partial(func(string) bool { return true }))
		return gen
	}

	matchedIn := make(map[string]int) // family → matched types in it
	for _, i := range x.matched[t] {
		matchedIn[x.catalog[i].Family]++
	}
	byFamily := true
	for f, n := range matchedIn {
		byFamily = byFamily && n == x.families[f]
	}
	if !byFamily {
		var names []string
		for _, i := range x.matched[t] {
			if !x.claimed[i] {
				names = append(names, x.catalog[i].Name)
			}
		}
		add(compat.LabelInstanceType, compat.In, names)
		if len(names) == 0 {
			gen = append(gen, nothing)
		}
		return gen
	}
	var in []string
	for f := range matchedIn {
		if !whole(f) {
			in = append(in, f)
		}
	}
	add(compat.LabelInstanceFamily, compat.In, in)
	if len(in) == 0 {
		gen = append(gen, nothing)
	}
	add(compat.LabelInstanceType, compat.NotIn, partial(func(f string) bool { return matchedIn[f] > 0 }))
	return gen
}

// nothing is the placeholder requirement for a tier left with no family:
// checkAdmits reports the tier before it is ever used.
var nothing = compat.Requirement{Key: compat.LabelInstanceFamily, Operator: compat.DoesNotExist}

type admitError struct{ reason, fix string }

// checkAdmits makes sure np, tier t's NodePool, admits at least one type of
// the catalog, and otherwise says why not. Keys a type does not define,
// such as a zone or capacity type from base, are not held against it.
func (x *expansion) checkAdmits(t int, reqs compat.Requirements) *admitError {
	allow := compat.AllowUndefined(reqs.Keys()...)
	for i := range x.catalog {
		if _, conflict := x.catalog[i].Conflict(reqs, allow); !conflict {
			return nil
		}
	}
	ct := &x.c.tiers[t]
	var taken, failed, ranked int
	for _, i := range x.matched[t] {
		switch {
		case x.claimed[i]:
			taken++
		case x.assigned[i] == t:
			ranked++
		default:
			failed++
		}
	}
	switch {
	case len(x.matched[t]) == 0:
		return &admitError{
			reason: fmt.Sprintf("its patterns %s match no instance type of the catalog, so its NodePool would admit nothing", patternList(ct)),
			fix:    "correct the patterns, or remove the tier",
		}
	case ranked == 0:
		return &admitError{
			reason: fmt.Sprintf("of the %d instance types its patterns match, %d are taken by higher-weight tiers and %d fail its requirements, so its NodePool would admit nothing", len(x.matched[t]), taken, failed),
			fix:    "a tier gets only what higher tiers leave: narrow the higher tiers, widen this one, or remove it",
		}
	default:
		return &admitError{
			reason: fmt.Sprintf("the base NodePool's requirements exclude all %d instance types the tier ranks, so its NodePool would admit nothing", ranked),
			fix:    "loosen the base requirements, or change the tier's patterns",
		}
	}
}

// checkMinValues makes sure that a NodePool whose requirements are rs
// (the base's first nBase of them, then the tier's), compiled as reqs,
// admits within the catalog enough distinct values of each key that
// describes an instance type to meet its minValues. Other keys' values
// come from offerings, which the catalog does not know.
func (x *expansion) checkMinValues(rs []compat.Requirement, nBase int, reqs compat.Requirements) *admitError {
	if !slices.ContainsFunc(rs, func(r compat.Requirement) bool { return r.MinValues != 0 }) {
		return nil
	}
	allow := compat.AllowUndefined(reqs.Keys()...)
	var admitted []compat.InstanceType
	for i := range x.catalog {
		if _, conflict := x.catalog[i].Conflict(reqs, allow); !conflict {
			admitted = append(admitted, x.catalog[i])
		}
	}
	_, err := reqs.SatisfiesMinValues(admitted)
	var short *compat.MinValuesError
	if !errors.As(err, &short) {
		return nil
	}
	instance := compat.InstanceLabels()
	for _, s := range short.Shortfalls {
		if _, ok := slices.BinarySearch(instance, s.Key); !ok {
			continue
		}
		whose := "its tier's"
		if minValuesOf(rs[:nBase], s.Key) == s.MinValues {
			whose = "the base NodePool's"
		}
		return &admitError{
			reason: fmt.Sprintf("its NodePool admits %d distinct values of %s from the catalog (%s), fewer than %s minValues %d, so Karpenter would launch nothing from it",
				len(s.Values), s.Key, strings.Join(s.Values, ", "), whose, s.MinValues),
			fix: fmt.Sprintf("lower minValues on the requirement on %s, or widen the tier", s.Key),
		}
	}
	return nil
}

// minValuesOf is the minValues rs ask of key, as compat intersects them.
func minValuesOf(rs []compat.Requirement, key string) int {
	reqs, err := compat.NewRequirements(rs...)
	if err != nil {
		return 0 // NodePools has validated the base
	}
	got, _ := reqs.Get(key)
	n := 0
	for _, r := range got {
		n = max(n, r.MinValues)
	}
	return n
}
