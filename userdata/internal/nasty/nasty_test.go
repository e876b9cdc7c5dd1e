package nasty

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestStringDrawsPieces: the generator reaches the pieces that mean
// something to the languages userdata writes, not only random text.
func TestStringDrawsPieces(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	rapid.Check(t, func(t *rapid.T) {
		s := String().Draw(t, "s")
		for _, p := range []string{"'", "$(id)", "</powershell>", "--register-with-taints=x:NoExecute"} {
			if strings.Contains(s, p) {
				seen[p] = true
			}
		}
	})
	if len(seen) == 0 {
		t.Error("100 draws held none of the special pieces")
	}
}
