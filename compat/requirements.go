package compat

import (
	"slices"
	"strings"
)

// Requirements is an immutable, compiled set of requirements with one
// constraint per key; adding a key twice intersects the two.
//
// The zero value is the empty set: it constrains nothing and matches every
// node. A Requirements is safe for concurrent use and cheap to copy. Compare
// two sets with [Requirements.Equal], not ==.
type Requirements struct {
	s *set
}

type set struct {
	entries []entry // sorted by key
	// index holds, for each well-known key, 1 + its position in entries, or
	// 0 when the set does not constrain it.
	index [maxWellKnown]int32
}

// NewRequirements validates and compiles rs. Keys must be qualified names
// (the deprecated beta keys are renamed to their stable names); In and NotIn
// take one or more label values; Exists and DoesNotExist take none; Gt, Lt,
// Gte and Lte take exactly one non-negative integer. Requirements on the
// same key are intersected. The error names the first bad requirement and
// how to fix it.
func NewRequirements(rs ...Requirement) (Requirements, error) {
	entries := make([]entry, 0, len(rs))
	for _, r := range rs {
		e, err := compile(r)
		if err != nil {
			return Requirements{}, err
		}
		entries = append(entries, e)
	}
	return fromEntries(entries), nil
}

// MustRequirements is like [NewRequirements] but panics on invalid input.
// It is meant for literals in tests and examples only.
func MustRequirements(rs ...Requirement) Requirements {
	r, err := NewRequirements(rs...)
	if err != nil {
		panic(err)
	}
	return r
}

// fromEntries sorts entries, intersects those sharing a key, and indexes
// the result. It takes ownership of entries.
func fromEntries(entries []entry) Requirements {
	if len(entries) == 0 {
		return Requirements{}
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	out := entries[:1]
	for i := 1; i < len(entries); i++ {
		last := &out[len(out)-1]
		if entries[i].key == last.key {
			*last = intersect(last, &entries[i])
			continue
		}
		out = append(out, entries[i])
	}
	return indexed(slices.Clip(out))
}

// indexed wraps entries, already sorted with unique keys, as Requirements.
func indexed(entries []entry) Requirements {
	if len(entries) == 0 {
		return Requirements{}
	}
	s := &set{entries: entries}
	for i := range s.entries {
		if wk := s.entries[i].wk; wk >= 0 {
			s.index[wk] = int32(i + 1)
		}
	}
	return Requirements{s: s}
}

// find returns the entry for key (with well-known index wk, or -1), or nil.
func (r Requirements) find(key string, wk int) *entry {
	if r.s == nil {
		return nil
	}
	if wk >= 0 {
		return r.s.wellKnown(wk)
	}
	i, found := slices.BinarySearchFunc(r.s.entries, key, func(e entry, k string) int { return strings.Compare(e.key, k) })
	if !found {
		return nil
	}
	return &r.s.entries[i]
}

// wellKnown returns the entry on the well-known key wk, or nil. It is
// small enough to inline, for Compatible's loop.
func (s *set) wellKnown(wk int) *entry {
	if i := s.index[wk]; i > 0 {
		return &s.entries[i-1]
	}
	return nil
}

func (r Requirements) entries() []entry {
	if r.s == nil {
		return nil
	}
	return r.s.entries
}

// Len returns the number of keys r constrains.
func (r Requirements) Len() int { return len(r.entries()) }

// Get returns the requirements r places on key, as [Requirements.List]
// states them, and whether r constrains key at all. Most keys come back as
// one requirement; a constraint that no single requirement can state comes
// back as several, which intersect to it: an integer range (Gte 4, Lte 16),
// a present label excluding values (Exists, NotIn [a]), or a contradiction
// (Exists, DoesNotExist).
func (r Requirements) Get(key string) ([]Requirement, bool) {
	key = normalizeKey(key)
	e := r.find(key, wellKnownIndex(key))
	if e == nil {
		return nil, false
	}
	return e.list(), true
}

// Has reports whether r constrains key, as [Requirements.Get] does, without
// allocating.
func (r Requirements) Has(key string) bool {
	key = normalizeKey(key)
	return r.find(key, wellKnownIndex(key)) != nil
}

// Keys returns the constrained keys, sorted.
func (r Requirements) Keys() []string {
	keys := make([]string, 0, r.Len())
	for i := range r.entries() {
		keys = append(keys, r.s.entries[i].key)
	}
	return keys
}

// List returns r as requirements, sorted by key; NewRequirements(r.List()...)
// equals r. Integer bounds are stated as Gte and Lte (Gt and Lt are
// rewritten to them), except that an upper bound below zero is stated as
// "Lt 0". See [Requirements.Get] for keys stated by several requirements.
func (r Requirements) List() []Requirement {
	var out []Requirement
	for i := range r.entries() {
		out = append(out, r.s.entries[i].list()...)
	}
	return out
}

// String formats r as its List joined by ", ", or "" for the empty set.
func (r Requirements) String() string {
	var b strings.Builder
	for i, req := range r.List() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(req.String())
	}
	return b.String()
}

// Equal reports whether r and o accept exactly the same nodes, key by key.
func (r Requirements) Equal(o Requirements) bool {
	return slices.EqualFunc(r.entries(), o.entries(), func(a, b entry) bool { return a.equal(&b) })
}

// Intersect returns the requirements that both r and o impose: keys of
// either, and the intersection of the two constraints on a key of both. A
// key on which r and o contradict each other comes back unsatisfiable
// (listed as Exists with DoesNotExist), never silently dropped.
func (r Requirements) Intersect(o Requirements) Requirements {
	a, b := r.entries(), o.entries()
	switch {
	case len(a) == 0:
		return o
	case len(b) == 0:
		return r
	}
	out := make([]entry, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := strings.Compare(a[i].key, b[j].key); {
		case c == 0:
			out = append(out, intersect(&a[i], &b[j]))
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
	return indexed(append(out, b[j:]...))
}

// Matches reports whether a node with these labels satisfies every
// requirement in r. A stable key also finds its deprecated beta label
// (beta.kubernetes.io/arch for kubernetes.io/arch, and so on) when the
// stable one is missing.
func (r Requirements) Matches(labels map[string]string) bool {
	for i := range r.entries() {
		e := &r.s.entries[i]
		v, ok := labels[e.key]
		if !ok {
			if beta := betaKey(e.key); beta != "" {
				v, ok = labels[beta]
			}
		}
		if ok && !e.hasValue(v) || !ok && !e.absent {
			return false
		}
	}
	return true
}

// FromLabels returns one In requirement per label: the requirements a node
// with exactly these labels satisfies and that pin every label it has.
// Beta keys are renamed to their stable names. Labels are not validated: a
// node's labels are taken as facts.
func FromLabels(labels map[string]string) Requirements {
	return indexed(labelEntries(labels, false))
}

// FromNodeLabels is [FromLabels] for the labels of a real node: when the
// node has an instance-type label, every instance label it lacks (see
// [InstanceLabels]; tenancy excepted) becomes DoesNotExist. A node Karpenter launched on an
// m5.large carries no instance-gpu-count label because it has no GPU; this
// states that fact, so a strict comparison with an NVIDIA AMI's
// "instance-gpu-count Exists" fails instead of passing as "unknown".
func FromNodeLabels(labels map[string]string) Requirements {
	_, typed := labels[LabelInstanceType]
	if !typed {
		_, typed = labels[labelBetaType]
	}
	return indexed(labelEntries(labels, typed))
}

// labelEntries returns one In entry per label, sorted by key, and with
// absentInstanceKeys a DoesNotExist entry for every instance key the labels
// lack. It sorts only the labels' keys: the instance keys come from the
// sorted table of well-known keys and are merged in.
func labelEntries(labels map[string]string, absentInstanceKeys bool) []entry {
	type label struct{ key, value string }
	pairs := make([]label, 0, len(labels))
	for k, v := range labels {
		pairs = append(pairs, label{normalizeKey(k), v})
	}
	slices.SortFunc(pairs, func(a, b label) int { return strings.Compare(a.key, b.key) })
	extra := 0
	if absentInstanceKeys {
		extra = wellKnown.instances
	}
	entries := make([]entry, 0, len(pairs)+extra)
	values := make([]value, len(pairs))
	rows := wellKnown.rows
	wk := 0 // the next well-known key to consider for DoesNotExist
	addAbsentBefore := func(key string, inclusive bool) {
		for ; absentInstanceKeys && wk < len(rows); wk++ {
			c := strings.Compare(rows[wk].label, key)
			if c > 0 || c == 0 && !inclusive {
				return
			}
			// Tenancy excepted: a node without the label has one all the same.
			if m := rows[wk].missing; m != notInstance && m != unsaid && c < 0 {
				entries = append(entries, entry{key: rows[wk].label, wk: wk, absent: true})
			}
		}
	}
	for i, p := range pairs {
		addAbsentBefore(p.key, true)
		values[i] = newValue(p.value)
		e := entry{key: p.key, wk: wellKnownIndex(p.key), values: values[i : i+1 : i+1]}
		if n := len(entries); n > 0 && entries[n-1].key == p.key {
			// A beta label and its stable twin: both must hold.
			entries[n-1] = intersect(&entries[n-1], &e)
			continue
		}
		entries = append(entries, e)
	}
	addAbsentBefore("\xff", true)
	return entries
}
