package compat

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SatisfiesMinValues checks instance types against the minValues of r: for
// every key r gives a minValues, the types together must offer at least
// that many distinct values that r accepts on the key. It is Karpenter's
// cloudprovider.InstanceTypes.SatisfiesMinValues (kubernetes-sigs/karpenter
// 2266468104f3, pkg/cloudprovider/types.go:399): types are taken in the
// caller's order (Karpenter's: cheapest first), and needed is the length
// of the shortest prefix that satisfies every key, or len(types) when none
// does. With no minValues in r, it returns 0 and nil.
//
// Types are candidates the caller has already found compatible with r, as
// in Karpenter; on each key only values r accepts count, and a type whose
// requirement on the key is not a plain set of values (windows-build on a
// Windows-capable type) or that does not define the key offers none. Two
// differences from Karpenter, both where it miscounts: it counts a type's
// values that r rejects (a type's "tenancy In [default dedicated]" gives
// "tenancy In [default] minValues 2" two values), and it passes an empty
// list of types.
//
// The error is a *[MinValuesError] naming each key that falls short and by
// how much. A key no instance type defines (a zone, a capacity type) always
// falls short: offerings, not instance facts, carry it.
func (r Requirements) SatisfiesMinValues(types []InstanceType) (needed int, err error) {
	keys := r.minValuesKeys()
	if len(keys) == 0 {
		return 0, nil
	}
	seen := make([][]string, len(keys)) // distinct values per key, sorted
	var buf [2]value
	for i := range types {
		t := &types[i]
		for k, e := range keys {
			if len(seen[k]) >= e.minValues || e.wk < 0 || !wellKnown.rows[e.wk].instance() {
				// Met keys stay met, so their values no longer matter:
				// seen holds at most minValues (<= 50) values per key.
				continue
			}
			have, _ := wellKnown.rows[e.wk].entry(t, e.wk, buf[:0])
			if have.complement {
				continue
			}
			for _, v := range have.values {
				if e.hasValue(v.s) {
					seen[k] = insertSorted(seen[k], v.s)
				}
			}
		}
		if satisfied(keys, seen) {
			return i + 1, nil
		}
	}
	return len(types), shortfalls(keys, seen, len(types))
}

// minValuesKeys returns the entries of r that carry a minValues.
func (r Requirements) minValuesKeys() []*entry {
	var keys []*entry
	for i := range r.entries() {
		if e := &r.s.entries[i]; e.minValues > 0 {
			keys = append(keys, e)
		}
	}
	return keys
}

func insertSorted(vs []string, v string) []string {
	i, found := slices.BinarySearch(vs, v)
	if found {
		return vs
	}
	return slices.Insert(vs, i, v)
}

func satisfied(keys []*entry, seen [][]string) bool {
	for k, e := range keys {
		if len(seen[k]) < e.minValues {
			return false
		}
	}
	return true
}

func shortfalls(keys []*entry, seen [][]string, types int) *MinValuesError {
	err := &MinValuesError{InstanceTypes: types}
	for k, e := range keys {
		if len(seen[k]) < e.minValues {
			err.Shortfalls = append(err.Shortfalls, Shortfall{Key: e.key, MinValues: e.minValues, Values: seen[k]})
		}
	}
	return err
}

// MinValuesError says which keys' minValues a list of instance types does
// not meet. Shortfalls are sorted by key.
type MinValuesError struct {
	InstanceTypes int // how many types were checked
	Shortfalls    []Shortfall
}

// Shortfall is one key whose minValues is not met.
type Shortfall struct {
	Key       string
	MinValues int
	// Values are the distinct values the types offer that the
	// requirement accepts, sorted: fewer than MinValues.
	Values []string
}

// Missing is how many more distinct values the key needs.
func (s Shortfall) Missing() int { return s.MinValues - len(s.Values) }

func (e *MinValuesError) Error() string {
	parts := make([]string, len(e.Shortfalls))
	for i, s := range e.Shortfalls {
		parts[i] = fmt.Sprintf("%s has %d distinct value%s %v, needs %d (%d short)", s.Key, len(s.Values), plural(len(s.Values)), s.Values, s.MinValues, s.Missing())
		if wk := wellKnownIndex(s.Key); wk < 0 || !wellKnown.rows[wk].instance() {
			parts[i] += ", and no instance type defines it"
		}
	}
	return "compat: minValues not met by " + strconv.Itoa(e.InstanceTypes) + " instance type" + plural(e.InstanceTypes) + ": " +
		strings.Join(parts, "; ") + "; allow more instance types or values, or lower minValues"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
