package compat

import (
	"strings"

	"github.com/ec2select/ec2select/internal/editdistance"
)

// typoOf guesses which key an undefined, not well-known key was meant to
// be: a well-known key or one of r's. A candidate qualifies by Karpenter's
// rule (kubernetes-sigs/karpenter 2266468104f3, pkg/scheduling/
// requirements.go:202-221, labelHint: the candidate contains the key, or
// ends with the part of the key after its '/'), or by being at most two
// edits away, which catches the misspellings that rule misses
// ("kubernetes.io/arhc"). Karpenter takes the first qualifying key in map
// order, so its hint can change from run to run ("zone" may suggest
// topology.k8s.aws/zone-id); this takes the candidate whose name part is
// fewest edits from the key's, then the whole key, then the first in
// sorted order. It runs only when explaining a failure.
func typoOf(key string, r Requirements) string {
	best, bestName, bestWhole := "", 0, 0
	consider := func(c string) {
		if c == key || !qualifies(key, c) {
			return
		}
		name, whole := editdistance.Levenshtein(namePart(key), namePart(c)), editdistance.Levenshtein(key, c)
		if best == "" || name < bestName || name == bestName && (whole < bestWhole || whole == bestWhole && c < best) {
			best, bestName, bestWhole = c, name, whole
		}
	}
	for i := range wellKnown.rows {
		consider(wellKnown.rows[i].label)
	}
	for i := range r.entries() {
		consider(r.s.entries[i].key)
	}
	return best
}

func qualifies(key, candidate string) bool {
	return strings.Contains(candidate, key) || strings.HasSuffix(candidate, namePart(key)) || editdistance.Levenshtein(key, candidate) <= 2
}

// namePart is what follows a key's '/', or the whole key.
func namePart(key string) string {
	if _, name, found := strings.Cut(key, "/"); found {
		return name
	}
	return key
}
