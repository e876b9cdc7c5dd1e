package weighting

import (
	"cmp"
	"slices"
	"strings"
)

// Order returns pools in the order Karpenter's provisioner tries NodePools
// (OrderByWeight in Karpenter core): highest weight first, a NodePool
// without a weight counting as 0, and among equal weights the name that
// sorts later (byte-wise) first. Pools with the same weight and name keep
// their relative order, which Karpenter's unstable sort leaves undefined.
// pools is not modified; the result is a new slice sharing nothing with it
// but the NodePools' own slices and maps.
func Order(pools []NodePool) []NodePool {
	out := slices.Clone(pools)
	slices.SortStableFunc(out, func(a, b NodePool) int {
		if c := cmp.Compare(b.Weight, a.Weight); c != 0 {
			return c
		}
		return strings.Compare(b.Name, a.Name)
	})
	return out
}
