package compat

import (
	"slices"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

var (
	// Few keys and values, so both sides often constrain the same key: the
	// interesting cases. One key is well-known, one is not.
	propKeys   = []string{LabelInstanceGPUCount, "example.com/team"}
	propValues = []string{"", "a", "1", "2", "5", "05"}
	propBounds = []string{"0", "1", "2", "5"}
	propOps    = []Operator{In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte}
)

func genRequirement() *rapid.Generator[Requirement] {
	return rapid.Custom(func(t *rapid.T) Requirement {
		r := Requirement{Key: rapid.SampledFrom(propKeys).Draw(t, "key"), Operator: rapid.SampledFrom(propOps).Draw(t, "op")}
		switch r.Operator {
		case In, NotIn:
			r.Values = rapid.SliceOfN(rapid.SampledFrom(propValues), 1, 3).Draw(t, "values")
		case Gt, Lt, Gte, Lte:
			r.Values = []string{rapid.SampledFrom(propBounds).Draw(t, "bound")}
		}
		limit := 3
		if r.Operator == In {
			limit = len(slices.Compact(slices.Sorted(slices.Values(r.Values))))
		}
		r.MinValues = rapid.IntRange(0, limit).Draw(t, "minValues")
		return r
	})
}

func genRequirements() *rapid.Generator[[]Requirement] {
	return rapid.SliceOfN(genRequirement(), 0, 5)
}

// holds is the naive reference: r's definition applied to one label.
func holds(r Requirement, present bool, v string) bool {
	switch r.Operator {
	case In:
		return present && slices.Contains(r.Values, v)
	case NotIn:
		return !present || !slices.Contains(r.Values, v)
	case Exists:
		return present
	case DoesNotExist:
		return !present
	}
	if !present {
		return false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return false
	}
	b, _ := strconv.ParseInt(r.Values[0], 10, 64)
	switch r.Operator {
	case Gt:
		return n > b
	case Lt:
		return n < b
	case Gte:
		return n >= b
	}
	return n <= b
}

func onKey(rs []Requirement, key string) []Requirement {
	var out []Requirement
	for _, r := range rs {
		if r.Key == key {
			out = append(out, r)
		}
	}
	return out
}

// candidates returns label values that decide satisfiability of any
// combination of rs: every value named, every integer next to a bound in
// several spellings, and a fresh string.
func candidates(rs []Requirement) []string {
	out := []string{"fresh-value"}
	for _, r := range rs {
		switch r.Operator {
		case In, NotIn:
			out = append(out, r.Values...)
		case Gt, Lt, Gte, Lte:
			b, _ := strconv.ParseInt(r.Values[0], 10, 64)
			for _, n := range []int64{b - 1, b, b + 1} {
				s := strconv.FormatInt(n, 10)
				if n < 0 {
					out = append(out, s, "-0"+s[1:], "-00"+s[1:])
				} else {
					out = append(out, s, "0"+s, "00"+s)
				}
			}
		}
	}
	return out
}

// naiveSatisfiable reports whether some label state satisfies all of rs.
func naiveSatisfiable(rs []Requirement) bool {
	all := func(present bool, v string) bool {
		for _, r := range rs {
			if !holds(r, present, v) {
				return false
			}
		}
		return true
	}
	if all(false, "") {
		return true
	}
	for _, c := range candidates(rs) {
		if all(true, c) {
			return true
		}
	}
	return false
}

// naiveCompatible is Compatible over raw requirements, strictly. Keys must
// already be normalized.
func naiveCompatible(existing, incoming []Requirement) bool {
	for _, r := range incoming {
		in := onKey(incoming, r.Key)
		have := onKey(existing, r.Key)
		if len(have) == 0 {
			for _, r := range in {
				if !holds(r, false, "") {
					return false
				}
			}
			continue
		}
		if !naiveSatisfiable(append(have, in...)) {
			return false
		}
	}
	return true
}

func naiveMatches(rs []Requirement, labels map[string]string) bool {
	for _, r := range rs {
		v, ok := labels[r.Key]
		if !holds(r, ok, v) {
			return false
		}
	}
	return true
}

func genLabels() *rapid.Generator[map[string]string] {
	return rapid.MapOfN(rapid.SampledFrom(propKeys), rapid.SampledFrom(append(append([]string{"007", "-1", "x"}, propValues...), propBounds...)), 0, len(propKeys))
}

func TestPropertyCompatibleAgreesWithNaiveModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genRequirements().Draw(t, "existing"), genRequirements().Draw(t, "incoming")
		ra, rb := MustRequirements(a...), MustRequirements(b...)
		want := naiveCompatible(a, b)
		if got := ra.Compatible(rb) == nil; got != want {
			t.Fatalf("(%v).Compatible(%v) = %v; naive model says %v", ra, rb, got, want)
		}
		if _, conflict := ra.Conflict(rb); conflict == want {
			t.Fatalf("(%v).Conflict(%v) = %v; naive model says compatible=%v", ra, rb, conflict, want)
		}
	})
}

func TestPropertyMatchesAgreesWithNaiveModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rs := genRequirements().Draw(t, "requirements")
		labels := genLabels().Draw(t, "labels")
		if got, want := MustRequirements(rs...).Matches(labels), naiveMatches(rs, labels); got != want {
			t.Fatalf("(%v).Matches(%v) = %v; naive model says %v", MustRequirements(rs...), labels, got, want)
		}
	})
}

func TestPropertyIntersect(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := MustRequirements(genRequirements().Draw(t, "a")...)
		b := MustRequirements(genRequirements().Draw(t, "b")...)
		c := MustRequirements(genRequirements().Draw(t, "c")...)
		if ab, ba := a.Intersect(b), b.Intersect(a); !ab.Equal(ba) {
			t.Fatalf("not commutative: %v ∩ %v = %v, but the other way %v", a, b, ab, ba)
		}
		if l, r := a.Intersect(b).Intersect(c), a.Intersect(b.Intersect(c)); !l.Equal(r) {
			t.Fatalf("not associative: (a∩b)∩c = %v, a∩(b∩c) = %v", l, r)
		}
		if aa := a.Intersect(a); !aa.Equal(a) {
			t.Fatalf("not idempotent: %v ∩ itself = %v", a, aa)
		}
		labels := genLabels().Draw(t, "labels")
		if got, want := a.Intersect(b).Matches(labels), a.Matches(labels) && b.Matches(labels); got != want {
			t.Fatalf("(%v ∩ %v).Matches(%v) = %v; want %v", a, b, labels, got, want)
		}
	})
}

func TestPropertyListRoundTrips(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := MustRequirements(genRequirements().Draw(t, "requirements")...)
		back, err := NewRequirements(r.List()...)
		if err != nil {
			t.Fatalf("NewRequirements(%v.List()): %v", r, err)
		}
		if !back.Equal(r) {
			t.Fatalf("round trip of %v gave %v", r, back)
		}
	})
}

func TestPropertyFromLabelsMatches(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		labels := rapid.MapOf(rapid.StringMatching(`[a-z]([a-z0-9.-]{0,10}/)?[a-z]{1,8}`), rapid.String()).Draw(t, "labels")
		if !FromLabels(labels).Matches(labels) {
			t.Fatalf("FromLabels(%v) does not match its labels", labels)
		}
		if !FromNodeLabels(labels).Matches(labels) {
			t.Fatalf("FromNodeLabels(%v) does not match its labels", labels)
		}
	})
}

func TestPropertyNeverPanics(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Requirement {
			return Requirement{
				Key:      rapid.OneOf(rapid.String(), rapid.SampledFrom(propKeys)).Draw(t, "key"),
				Operator: rapid.OneOf(rapid.SampledFrom(propOps), rapid.Map(rapid.String(), func(s string) Operator { return Operator(s) })).Draw(t, "op"),
				Values:   rapid.SliceOfN(rapid.OneOf(rapid.String(), rapid.SampledFrom(propValues)), 0, 3).Draw(t, "values"),
			}
		}), 0, 4).Draw(t, "requirements")
		r, err := NewRequirements(rs...)
		if err != nil {
			return
		}
		other := MustRequirements(genRequirements().Draw(t, "other")...)
		_ = r.Compatible(other)
		_ = other.Compatible(r, AllowUndefinedWellKnown())
		_ = r.Intersect(other).String()
		_ = r.Matches(rapid.MapOf(rapid.String(), rapid.String()).Draw(t, "labels"))
	})
}

// TestPropertyMinValuesIsMaxPerKey: compiling keeps, on each key, the
// largest minValues of the requirements on it, whatever else intersecting
// does to the key.
func TestPropertyMinValuesIsMaxPerKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rs := genRequirements().Draw(t, "requirements")
		got := MustRequirements(rs...)
		for _, key := range got.Keys() {
			want := 0
			for _, r := range onKey(normalized(rs), key) {
				want = max(want, r.MinValues)
			}
			listed, _ := got.Get(key)
			largest := 0
			for _, r := range listed {
				largest = max(largest, r.MinValues)
			}
			if largest != want {
				t.Fatalf("(%v).Get(%s) = %v; want minValues %d", got, key, listed, want)
			}
		}
	})
}
