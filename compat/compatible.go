package compat

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Option relaxes [Requirements.Compatible]. The only options are those this
// package provides.
type Option interface {
	// allowsUndefined reports whether an undefined key may be skipped.
	allowsUndefined(key string, wk int) bool
}

type allowKeys []string // sorted, normalized

func (a allowKeys) allowsUndefined(key string, _ int) bool {
	_, found := slices.BinarySearch(a, key)
	return found
}

type allowWellKnown struct{}

func (allowWellKnown) allowsUndefined(_ string, wk int) bool { return wk >= 0 }

// AllowUndefined makes Compatible skip each of keys when the receiver does
// not define it, whatever the argument requires of it. Karpenter uses this
// leniency for labels that only exist once a node does.
func AllowUndefined(keys ...string) Option {
	a := make(allowKeys, len(keys))
	for i, k := range keys {
		a[i] = normalizeKey(k)
	}
	slices.Sort(a)
	return a
}

// AllowUndefinedWellKnown makes Compatible skip every well-known key (see
// [WellKnownLabels]) that the receiver does not define. This is Karpenter's
// scheduling leniency; it is wrong for mapping AMIs to instance types, which
// must be strict.
func AllowUndefinedWellKnown() Option { return allowWellKnown{} }

// Compatible reports whether some node can satisfy both r and in, key by
// key, returning nil if so. The comparison is asymmetric: r is what exists
// (an instance type, a node) and in is what is asked of it (an AMI, an
// offering, a pod). Keys only r constrains are not checked. A key only in
// constrains is undefined on r; strictly, that passes only when in accepts a
// missing label (DoesNotExist or NotIn), and the options relax this.
//
// The error is a *[IncompatibleError] when one key conflicts, and the
// [errors.Join] of one per key when several do; errors.As finds the first.
// When a key that is not well-known is undefined on r, the error guesses
// which key was meant (IncompatibleError.TypoOf), as Karpenter's hint
// "(typo of "topology.kubernetes.io/zone"?)" does.
func (r Requirements) Compatible(in Requirements, opts ...Option) error {
	i := r.conflictFrom(in, opts, 0)
	if i < 0 {
		return nil
	}
	return r.incompatible(in, opts, i)
}

// incompatible explains the conflict at in's entry i and each after it.
func (r Requirements) incompatible(in Requirements, opts []Option, i int) error {
	var errs []error
	for ; i >= 0; i = r.conflictFrom(in, opts, i+1) {
		e := &in.s.entries[i]
		err := explain(e.key, r.find(e.key, e.wk), e)
		if err.Instance.Operator == "" && e.wk < 0 {
			err.TypoOf = typoOf(e.key, r)
			if err.TypoOf != "" {
				err.Fix = fmt.Sprintf("if you meant %s, use that key; otherwise %s", err.TypoOf, err.Fix)
			}
		}
		errs = append(errs, err)
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// Conflict is Compatible without an error value: it returns the first key,
// in sorted order, on which r and in conflict, and whether there is one. It
// allocates nothing, for callers that compare many pairs and explain few.
func (r Requirements) Conflict(in Requirements, opts ...Option) (key string, conflict bool) {
	i := r.conflictFrom(in, opts, 0)
	if i < 0 {
		return "", false
	}
	return in.s.entries[i].key, true
}

// conflictFrom returns the index of the first entry of in, at or after
// start, that r cannot satisfy, or -1.
func (r Requirements) conflictFrom(in Requirements, opts []Option, start int) int {
	ins := in.entries()
	for i := start; i < len(ins); i++ {
		e := &ins[i]
		var have *entry
		switch {
		case r.s == nil:
		case e.wk >= 0: // find's well-known branch, inlined: the hot path
			have = r.s.wellKnown(e.wk)
		default:
			have = r.find(e.key, e.wk)
		}
		if have == nil {
			if !e.absent && !allowed(opts, e.key, e.wk) {
				return i
			}
			continue
		}
		switch {
		// intersects, with its two commonest cases inline: both accept a
		// missing label, or both are one value. This loop is Map's hot path.
		case have.absent && e.absent:
		case !have.complement && !e.complement && len(have.values) == 1 && len(e.values) == 1:
			if have.values[0].s != e.values[0].s {
				return i
			}
		case !intersects(have, e):
			return i
		}
	}
	return -1
}

func allowed(opts []Option, key string, wk int) bool {
	for _, o := range opts {
		if o != nil && o.allowsUndefined(key, wk) {
			return true
		}
	}
	return false
}

// IncompatibleError says why a key of the required side cannot be satisfied
// by the instance side.
type IncompatibleError struct {
	Key string
	// Instance is the instance side's requirement on Key, or a Requirement
	// with an empty Operator when the instance side does not define Key.
	// Required is the other side's. When a side's constraint takes several
	// requirements to state (see [Requirements.Get]), the field holds the
	// one that conflicts, or the first if only their combination does;
	// Error prints them all.
	Instance, Required Requirement
	// Reason says in a few words why no node satisfies both.
	Reason string
	// Fix says what change would make the two compatible.
	Fix string
	// TypoOf is, when the instance side does not define Key, a well-known
	// key or a key of the instance side that Key may be a misspelling of
	// (see [Requirements.Compatible]), or "".
	TypoOf string

	instanceAll, requiredAll []Requirement
}

func (e *IncompatibleError) Error() string {
	instance := "does not define it"
	if len(e.instanceAll) > 0 {
		instance = "has " + joinConstraints(e.instanceAll)
	} else if e.Instance.Operator != "" {
		instance = "has " + e.Instance.constraint()
	}
	required := e.Required.constraint()
	if len(e.requiredAll) > 0 {
		required = joinConstraints(e.requiredAll)
	}
	if e.TypoOf != "" {
		instance += fmt.Sprintf(" (typo of %q?)", e.TypoOf)
	}
	return fmt.Sprintf("compat: %s: instance side %s; required side has %s: %s; %s", e.Key, instance, required, e.Reason, e.Fix)
}

// joinConstraints formats requirements on one key without repeating it.
func joinConstraints(rs []Requirement) string {
	ss := make([]string, len(rs))
	for i, r := range rs {
		ss[i] = r.constraint()
	}
	return strings.Join(ss, " and ")
}

// explain builds the error for a conflict on key between have (nil when
// undefined) and want. It runs only on the failure path.
func explain(key string, have, want *entry) *IncompatibleError {
	wantList := want.list()
	err := &IncompatibleError{Key: key, Required: wantList[0], requiredAll: wantList}
	if have == nil {
		err.Reason = "a missing label cannot satisfy it"
		err.Fix = fmt.Sprintf("define %s on the instance side, require it with DoesNotExist or NotIn to accept instances without it, or compare with AllowUndefined(%q)", key, key)
		return err
	}
	haveList := have.list()
	err.Instance, err.instanceAll = haveList[0], haveList
	// Point at the single pair of requirements that conflicts, if there is one.
pairs:
	for _, h := range haveList {
		he, _ := compile(h)
		for _, w := range wantList {
			we, _ := compile(w)
			if !intersects(&he, &we) {
				err.Instance, err.Required = h, w
				break pairs
			}
		}
	}
	switch {
	case !have.satisfiable():
		err.Reason = "the instance side's own requirements on it contradict each other"
		err.Fix = "correct the instance side's requirements"
	case !want.satisfiable():
		err.Reason = "the required side's own requirements on it contradict each other"
		err.Fix = fmt.Sprintf("drop one of %s on %s", joinConstraints(wantList), key)
	case have.absent && !have.complement:
		err.Reason = "the instance side has no such label"
		err.Fix = fmt.Sprintf("only DoesNotExist or NotIn on %s accept an instance without the label", key)
	case want.absent && !want.complement:
		err.Reason = "the label must be absent, and the instance side has it"
		err.Fix = fmt.Sprintf("to accept this instance, require %s", suggestion(key, have))
	default:
		err.Reason = "no value satisfies both"
		err.Fix = fmt.Sprintf("to accept this instance, the requirement must allow %s", suggestion(key, have))
	}
	return err
}

// suggestion proposes the simplest requirement that accepts have.
func suggestion(key string, have *entry) string {
	if !have.complement && len(have.values) > 0 {
		return Requirement{Key: key, Operator: In, Values: have.list()[0].Values}.String()
	}
	return key + " " + joinConstraints(have.list())
}
