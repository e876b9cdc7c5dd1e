// Package editdistance holds the Levenshtein distance that compat's typo
// hints and userdata's Bottlerocket setting hints both use.
package editdistance

// Levenshtein is the edit distance between a and b in bytes: the fewest
// insertions, deletions and substitutions that turn one into the other.
func Levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
