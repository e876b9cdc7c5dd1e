package kubelet

import (
	"strings"
	"testing"
)

func TestReleases(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		r    Releases
		want string
	}{
		{0, "none"},
		{Minor(24), "1.24"},
		{Span(24, 32), "1.24–1.32"},
		{Span(28, 36) &^ Minor(33), "1.28–1.32, 1.34–1.36"},
		{Minor(23) | Minor(37), "none"}, // outside the tables
		{Span(20, 25), "1.24–1.25"},
	} {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("%b: %q; want %q", tt.r, got, tt.want)
		}
	}
	if !ReleasesAL2.Has(32) || ReleasesAL2.Has(33) || ReleasesCurrent.Has(27) || !ReleasesAll.Has(LastMinor) {
		t.Error("the families' release sets are off")
	}
}

// TestParseMinor: amiselect's spelling of a Kubernetes version, "1.32".
func TestParseMinor(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int{"1.32": 32, "1.9": 9, "1.036": 36} {
		if got, err := ParseMinor(s); err != nil || got != want {
			t.Errorf("ParseMinor(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for s, hint := range map[string]string{"v1.32": `drop the "v"`, "1.32.1": "drop the patch", "2.0": "", "1": "", "1.": "", "1.-1": "", "1.+2": "", "1.1234": "", "": ""} {
		_, err := ParseMinor(s)
		if err == nil {
			t.Errorf("ParseMinor(%q) accepted it", s)
			continue
		}
		if hint != "" && !strings.Contains(err.Error(), hint) {
			t.Errorf("ParseMinor(%q): %v; want the hint %q", s, err, hint)
		}
	}
}
