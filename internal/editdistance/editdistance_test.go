package editdistance

import "testing"

func TestLevenshtein(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"arch", "", 4}, {"", "arch", 4}, {"arch", "arhc", 2}, {"zone", "zones", 1}, {"kitten", "sitting", 3}} {
		if got := Levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
