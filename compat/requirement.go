package compat

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/internal/validation"
)

// Operator is a node-selector operator: Kubernetes' six plus Karpenter's Gte
// and Lte.
type Operator string

// The operators. Values are the strings Kubernetes and Karpenter use, so a
// corev1.NodeSelectorOperator converts with a plain type conversion.
const (
	In           Operator = "In"
	NotIn        Operator = "NotIn"
	Exists       Operator = "Exists"
	DoesNotExist Operator = "DoesNotExist"
	Gt           Operator = "Gt"
	Lt           Operator = "Lt"
	Gte          Operator = "Gte"
	Lte          Operator = "Lte"
)

// Requirement is one node-selector requirement, a plain value mirroring
// corev1.NodeSelectorRequirement (plus Karpenter's Gte and Lte). It is not
// validated until it is compiled by [NewRequirements].
//
// Its meaning over a node's labels:
//
//	In v...        the label is present and its value is one of v
//	NotIn v...     the label is absent, or its value is none of v
//	Exists         the label is present
//	DoesNotExist   the label is absent
//	Gt n, Lt n     the label is present and is an integer > n (< n)
//	Gte n, Lte n   the label is present and is an integer >= n (<= n)
//
// MinValues, when positive, is Karpenter's minValues: it does not change
// which nodes satisfy r, but asks a set of instance types to offer at least
// that many distinct values of Key (see [Requirements.SatisfiesMinValues]).
// Zero means none, as Karpenter's nil; Karpenter accepts 1 to 50.
type Requirement struct {
	Key       string
	Operator  Operator
	Values    []string
	MinValues int
}

// maxMinValues is the largest minValues Karpenter's CRDs accept
// (kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim.go,
// NodeSelectorRequirementWithMinValues: +kubebuilder:validation:Maximum:=50).
const maxMinValues = 50

// String formats r as "key In [v1 v2]", "key Gt 4" or "key Exists", with
// " minValues n" after it when MinValues is set.
func (r Requirement) String() string {
	if r.MinValues != 0 {
		return r.Key + " " + r.constraint() + " minValues " + strconv.Itoa(r.MinValues)
	}
	return r.Key + " " + r.constraint()
}

// constraint formats r without its key.
func (r Requirement) constraint() string {
	switch r.Operator {
	case In, NotIn:
		vs := make([]string, len(r.Values))
		for i, v := range r.Values {
			if v == "" || strings.ContainsAny(v, " []\"") {
				v = strconv.Quote(v) // keep empty and odd values visible
			}
			vs[i] = v
		}
		return string(r.Operator) + " [" + strings.Join(vs, " ") + "]"
	}
	if len(r.Values) == 0 {
		return string(r.Operator)
	}
	return string(r.Operator) + " " + strings.Join(r.Values, " ")
}

// value is one label value of a compiled requirement, with its integer
// reading parsed once so that bounds checks never parse on the hot path.
type value struct {
	s     string
	n     int64
	isInt bool
}

func newValue(s string) value {
	if !looksNumeric(s) {
		return value{s: s} // skip ParseInt, whose error allocates
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return value{s: s, n: n, isInt: err == nil}
}

// looksNumeric reports whether s is an optional sign and digits, the only
// strings ParseInt might accept.
func looksNumeric(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// entry is the compiled constraint on one key: the set of "label absent" and
// label values it accepts. It is a predicate over the key's label:
//
//   - absent: a node without the label satisfies it;
//   - otherwise the label's value must be in values (plain set) or not in
//     values (complement), and, when hasGte or hasLte, read as an integer
//     within [gte, lte].
//
// Entries are kept canonical, so equal constraints have equal entries:
// values are sorted and unique; a plain set never carries bounds; a
// bounded complement has gte <= lte and excludes only integers within its
// bounds; absent is only set on an unbounded complement (NotIn) or an empty
// plain set (DoesNotExist).
type entry struct {
	key        string
	wk         int // index in wellKnown, or -1
	absent     bool
	complement bool
	hasGte     bool
	hasLte     bool
	gte, lte   int64
	values     []value
	// minValues is the largest MinValues of the requirements on key, or 0.
	minValues int
}

func (e *entry) bounded() bool { return e.hasGte || e.hasLte }

// inBounds reports whether v passes e's integer bounds.
func (e *entry) inBounds(v value) bool {
	if !e.bounded() {
		return true
	}
	return v.isInt && (!e.hasGte || v.n >= e.gte) && (!e.hasLte || v.n <= e.lte)
}

// contains reports whether s is among e's values.
func (e *entry) contains(s string) bool {
	_, found := slices.BinarySearchFunc(e.values, s, func(v value, s string) int { return strings.Compare(v.s, s) })
	return found
}

// hasValue reports whether a present label with value s satisfies e.
func (e *entry) hasValue(s string) bool {
	if !e.complement {
		return e.contains(s)
	}
	return !e.contains(s) && e.inBounds(newValue(s))
}

// satisfiable reports whether some node (with or without the label)
// satisfies e. A complement always admits a value: there are infinitely
// many strings, and infinitely many spellings ("7", "07", "007") of any
// integer inside non-crossing bounds.
func (e *entry) satisfiable() bool {
	return e.absent || e.complement || len(e.values) > 0
}

// intersects reports whether some node satisfies both a and b. It is
// satisfiable(intersect(a, b)) computed without allocating.
func intersects(a, b *entry) bool {
	if a.absent && b.absent {
		return true
	}
	switch {
	case a.complement && b.complement:
		lo, hasLo := maxBound(a.gte, a.hasGte, b.gte, b.hasGte)
		hi, hasHi := minBound(a.lte, a.hasLte, b.lte, b.hasLte)
		return !hasLo || !hasHi || lo <= hi
	case a.complement:
		return plainMeetsComplement(b, a)
	case b.complement:
		return plainMeetsComplement(a, b)
	}
	// Two plain sets: a sorted merge looking for a common value.
	i, j := 0, 0
	for i < len(a.values) && j < len(b.values) {
		switch c := strings.Compare(a.values[i].s, b.values[j].s); {
		case c == 0:
			return true
		case c < 0:
			i++
		default:
			j++
		}
	}
	return false
}

func plainMeetsComplement(plain, co *entry) bool {
	for _, v := range plain.values {
		if co.inBounds(v) && !co.contains(v.s) {
			return true
		}
	}
	return false
}

func maxBound(a int64, hasA bool, b int64, hasB bool) (int64, bool) {
	switch {
	case hasA && hasB:
		return max(a, b), true
	case hasA:
		return a, true
	}
	return b, hasB
}

func minBound(a int64, hasA bool, b int64, hasB bool) (int64, bool) {
	switch {
	case hasA && hasB:
		return min(a, b), true
	case hasA:
		return a, true
	}
	return b, hasB
}

// intersect returns the canonical entry accepted by both a and b, which
// must have the same key.
func intersect(a, b *entry) entry {
	out := entry{key: a.key, wk: a.wk, absent: a.absent && b.absent, complement: a.complement && b.complement, minValues: max(a.minValues, b.minValues)}
	out.gte, out.hasGte = maxBound(a.gte, a.hasGte, b.gte, b.hasGte)
	out.lte, out.hasLte = minBound(a.lte, a.hasLte, b.lte, b.hasLte)
	switch {
	case a.complement && b.complement:
		out.values = unionValues(a.values, b.values)
	case a.complement:
		out.values = filterValues(b.values, func(v value) bool { return !a.contains(v.s) })
	case b.complement:
		out.values = filterValues(a.values, func(v value) bool { return !b.contains(v.s) })
	default:
		out.values = filterValues(a.values, func(v value) bool { return b.contains(v.s) })
	}
	out.normalize()
	return out
}

// normalize restores the canonical form after values or bounds changed.
func (e *entry) normalize() {
	if !e.complement {
		// A plain set keeps only values inside the bounds, then drops them.
		if e.bounded() {
			e.values = filterValues(e.values, e.inBounds)
		}
		e.hasGte, e.hasLte, e.gte, e.lte = false, false, 0, 0
		return
	}
	if e.hasGte && e.hasLte && e.gte > e.lte {
		// No integer fits: nothing but (possibly) absence is accepted.
		*e = entry{key: e.key, wk: e.wk, absent: e.absent, minValues: e.minValues}
		return
	}
	if e.bounded() {
		// Excluding a value the bounds already reject says nothing.
		e.values = filterValues(e.values, e.inBounds)
	}
	if len(e.values) == 0 {
		e.values = nil
	}
}

func filterValues(vs []value, keep func(value) bool) []value {
	n := 0
	for _, v := range vs {
		if keep(v) {
			n++
		}
	}
	if n == len(vs) {
		return vs // entries are immutable, so sharing is safe
	}
	out := make([]value, 0, n)
	for _, v := range vs {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

func unionValues(a, b []value) []value {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]value, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := strings.Compare(a[i].s, b[j].s); {
		case c == 0:
			out = append(out, a[i])
			i, j = i+1, j+1
		case c < 0:
			out = append(out, a[i])
			i++
		default:
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

func sortedValues(ss []string) []value {
	vs := make([]value, 0, len(ss))
	for _, s := range ss {
		vs = append(vs, newValue(s))
	}
	slices.SortFunc(vs, func(a, b value) int { return strings.Compare(a.s, b.s) })
	return slices.CompactFunc(vs, func(a, b value) bool { return a.s == b.s })
}

// compile validates r and returns its canonical entry.
func compile(r Requirement) (entry, error) {
	if err := validation.QualifiedName(r.Key); err != nil {
		return entry{}, fmt.Errorf("compat: requirement %s: key %q is not a valid label key: %v", r, r.Key, err)
	}
	key := normalizeKey(r.Key)
	e := entry{key: key, wk: wellKnownIndex(key), minValues: r.MinValues}
	if err := checkMinValues(r); err != nil {
		return entry{}, err
	}
	switch r.Operator {
	case In, NotIn:
		if len(r.Values) == 0 {
			instead := DoesNotExist // In nothing: the label must be absent
			if r.Operator == NotIn {
				instead = Exists
			}
			return entry{}, fmt.Errorf("compat: requirement %s: %s needs at least one value; for no values at all, use %s", r, r.Operator, instead)
		}
		for _, v := range r.Values {
			if err := validation.LabelValue(v); err != nil {
				return entry{}, fmt.Errorf("compat: requirement %s: value %q is not a valid label value: %v", r, v, err)
			}
		}
		e.values = sortedValues(r.Values)
		e.complement = r.Operator == NotIn
		e.absent = r.Operator == NotIn
	case Exists, DoesNotExist:
		if len(r.Values) != 0 {
			return entry{}, fmt.Errorf("compat: requirement %s: %s takes no values; use In or NotIn to constrain values", r, r.Operator)
		}
		e.complement = r.Operator == Exists
		e.absent = r.Operator == DoesNotExist
	case Gt, Lt, Gte, Lte:
		n, err := boundValue(r)
		if err != nil {
			return entry{}, err
		}
		e.complement = true
		switch r.Operator {
		case Gt:
			if n == math.MaxInt64 {
				return entry{key: key, wk: e.wk, minValues: e.minValues}, nil // no integer is greater
			}
			e.gte, e.hasGte = n+1, true
		case Gte:
			e.gte, e.hasGte = n, true
		case Lt:
			e.lte, e.hasLte = n-1, true
		case Lte:
			e.lte, e.hasLte = n, true
		}
	case "":
		return entry{}, fmt.Errorf("compat: requirement on %q has no operator; use one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte", r.Key)
	default:
		return entry{}, fmt.Errorf("compat: requirement %s: unknown operator %q; use one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte", r, r.Operator)
	}
	e.normalize()
	return e, nil
}

// checkMinValues applies Karpenter's rules for minValues
// (kubernetes-sigs/karpenter 2266468104f3): between 1 and 50 when set
// (pkg/apis/v1/nodeclaim.go:117-119, CRD markers), and with In at most the
// number of values (pkg/apis/v1/nodeclaim_validation.go:144, and the CEL
// rule at pkg/apis/v1/nodepool.go:230). Values are counted once each:
// Karpenter counts "In [a a] minValues 2" as two, though no set of instance
// types can offer two distinct values of it. Any operator may carry
// minValues, as in Karpenter ("instance-family Exists minValues 5").
func checkMinValues(r Requirement) error {
	if r.MinValues == 0 {
		return nil
	}
	if r.MinValues < 0 || r.MinValues > maxMinValues {
		return fmt.Errorf("compat: requirement %s: minValues must be between 1 and %d (0 for none), got %d", r, maxMinValues, r.MinValues)
	}
	if r.Operator != In {
		return nil
	}
	distinct := len(slices.Compact(slices.Sorted(slices.Values(r.Values))))
	if distinct < r.MinValues {
		return fmt.Errorf("compat: requirement %s: minValues %d asks for more values than the %d distinct ones it lists; list more values or lower minValues", r, r.MinValues, distinct)
	}
	return nil
}

func boundValue(r Requirement) (int64, error) {
	if len(r.Values) != 1 {
		return 0, fmt.Errorf("compat: requirement %s: %s takes exactly one value, a non-negative integer; got %d", r, r.Operator, len(r.Values))
	}
	s := r.Values[0]
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || s[0] == '+' {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("compat: requirement %s: value %q is out of range for a 64-bit integer", r, s)
		}
		return 0, fmt.Errorf("compat: requirement %s: %s takes a non-negative integer, got %q", r, r.Operator, s)
	}
	return n, nil
}

// list states e as the fewest requirements whose intersection is e, each
// carrying e's minValues, as Karpenter's BoundedNodeSelectorRequirements
// does for a range. The exception: an intersection can leave In with fewer
// values than its minValues, which NewRequirements rejects as written, so
// such a key is stated as In without it and "Exists minValues n", which
// intersect back to the same entry.
func (e *entry) list() []Requirement {
	rs := e.listConstraints()
	if e.minValues == 0 {
		return rs
	}
	if len(rs) == 1 && rs[0].Operator == In && len(rs[0].Values) < e.minValues {
		return append(rs, Requirement{Key: e.key, Operator: Exists, MinValues: e.minValues})
	}
	for i := range rs {
		rs[i].MinValues = e.minValues
	}
	return rs
}

func (e *entry) listConstraints() []Requirement {
	strs := func() []string {
		ss := make([]string, len(e.values))
		for i, v := range e.values {
			ss[i] = v.s
		}
		return ss
	}
	switch {
	case !e.complement && e.absent:
		return []Requirement{{Key: e.key, Operator: DoesNotExist}}
	case !e.complement && len(e.values) > 0:
		return []Requirement{{Key: e.key, Operator: In, Values: strs()}}
	case !e.complement:
		// Nothing satisfies it: state it as the contradiction it is.
		return []Requirement{{Key: e.key, Operator: Exists}, {Key: e.key, Operator: DoesNotExist}}
	case e.absent:
		return []Requirement{{Key: e.key, Operator: NotIn, Values: strs()}}
	}
	var rs []Requirement
	if e.hasGte {
		rs = append(rs, Requirement{Key: e.key, Operator: Gte, Values: []string{strconv.FormatInt(e.gte, 10)}})
	}
	if e.hasLte {
		if e.lte < 0 {
			rs = append(rs, Requirement{Key: e.key, Operator: Lt, Values: []string{strconv.FormatInt(e.lte+1, 10)}})
		} else {
			rs = append(rs, Requirement{Key: e.key, Operator: Lte, Values: []string{strconv.FormatInt(e.lte, 10)}})
		}
	}
	if !e.bounded() {
		rs = append(rs, Requirement{Key: e.key, Operator: Exists})
	}
	if len(e.values) > 0 {
		rs = append(rs, Requirement{Key: e.key, Operator: NotIn, Values: strs()})
	}
	return rs
}

func (e *entry) equal(o *entry) bool {
	return e.key == o.key && e.minValues == o.minValues && e.absent == o.absent && e.complement == o.complement &&
		e.hasGte == o.hasGte && e.hasLte == o.hasLte && e.gte == o.gte && e.lte == o.lte &&
		slices.EqualFunc(e.values, o.values, func(a, b value) bool { return a.s == b.s })
}
