package weighting

import (
	"path"
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"c7i-flex", "c7i-flex", true},
		{"c7i-flex", "c7i", false},
		{"c7i", "c7i-flex", false}, // whole subject, not a prefix
		{"c7*", "c7i-flex", true},
		{"c7*", "c7", true},
		{"c7*", "c6i", false},
		{"c*-flex", "c7i-flex", true},
		{"c*-flex", "c8i-flex", true},
		{"c*-flex", "m7i-flex", false},
		{"*-flex", "m7i-flex", true},
		{"*", "", true},
		{"*", "anything", true},
		{"**", "x", true},
		{"?", "", false},
		{"?", "c", true},
		{"?", "c5", false},
		{"c?", "c5", true},
		{"c?i", "c7i", true},
		{"c?i", "c7gi", false},
		{"c7i.*large", "c7i.large", true},
		{"c7i.*large", "c7i.48xlarge", true},
		{"c7i.*large", "c7i.metal-24xl", false},
		{"*.metal", "c5.metal", true},
		{"*a*b", "xaxxab", true},
		{"*a*b", "xaxxa", false},
		{"a*b*c", "abbbbc", true},
		{"a*b*c", "acb", false},
		{"", "", true},
		{"", "x", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v; want %v", tt.pattern, tt.s, got, tt.want)
		}
		if got := refMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("refMatch(%q, %q) = %v; want %v (the reference is wrong)", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestParsePattern(t *testing.T) {
	tests := []struct {
		in      string
		want    pattern
		wantErr string
	}{
		{in: "c7i-flex", want: pattern{text: "c7i-flex"}},
		{in: "c*-flex", want: pattern{text: "c*-flex"}},
		{in: "*", want: pattern{text: "*", any: true}},
		{in: "***", want: pattern{text: "***", any: true}},
		{in: "c7i.*large", want: pattern{text: "c7i.*large", fullName: true}},
		{in: "*.*", want: pattern{text: "*.*", fullName: true}},
		{in: "?", want: pattern{text: "?"}},
		{in: "", wantErr: "empty"},
		{in: "C7i-flex", wantErr: `write "c7i-flex"`},
		{in: "c7i flex", wantErr: "lower-case letters"},
		{in: "c7i[a]", wantErr: "lower-case letters"},
		{in: "c7i/flex", wantErr: "lower-case letters"},
		{in: "c7i.large.x", wantErr: "has 2 dots"},
		{in: "c7é", wantErr: "lower-case letters"},
	}
	for _, tt := range tests {
		got, err := parsePattern(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parsePattern(%q) error = %v; want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parsePattern(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

// refMatch is the reference glob matcher: dynamic programming over every
// prefix pair, too slow for the hot path but plainly right. m[i][j] says
// whether pattern[i:] matches s[j:].
func refMatch(pattern, s string) bool {
	m := make([][]bool, len(pattern)+1)
	for i := range m {
		m[i] = make([]bool, len(s)+1)
	}
	m[len(pattern)][len(s)] = true
	for i := len(pattern) - 1; i >= 0; i-- {
		for j := len(s); j >= 0; j-- {
			switch {
			case pattern[i] == '*':
				m[i][j] = m[i+1][j] || j < len(s) && m[i][j+1]
			case j < len(s) && (pattern[i] == '?' || pattern[i] == s[j]):
				m[i][j] = m[i+1][j+1]
			}
		}
	}
	return m[0][0]
}

// FuzzGlobMatch checks globMatch against the reference on any input, and
// against path.Match where the two grammars agree.
func FuzzGlobMatch(f *testing.F) {
	for _, seed := range [][2]string{
		{"c*-flex", "c7i-flex"}, {"*a*b*c", "aabbcc"}, {"?*?", "ab"}, {"c7i.*large", "c7i.48xlarge"},
		{"*", ""}, {"a**b", "ab"}, {"*x*x*x*", "xxyxx"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if len(pattern) > 64 || len(s) > 64 {
			return // the reference is quadratic
		}
		got := globMatch(pattern, s)
		if want := refMatch(pattern, s); got != want {
			t.Fatalf("globMatch(%q, %q) = %v; the reference says %v", pattern, s, got, want)
		}
		// path.Match agrees on ASCII without '/' and its own metacharacters;
		// its '?' stands for a rune, not a byte.
		if strings.ContainsAny(pattern, `[\/`) || strings.Contains(s, "/") || !isASCII(pattern+s) {
			return
		}
		if want, err := path.Match(pattern, s); err == nil && got != want {
			t.Fatalf("globMatch(%q, %q) = %v; path.Match says %v", pattern, s, got, want)
		}
	})
}

// FuzzParsePattern checks that parsing never panics and that an accepted
// pattern is one the grammar allows, classified right.
func FuzzParsePattern(f *testing.F) {
	for _, seed := range []string{"c7i-flex", "*", "c7i.*large", "", "C7", "a.b.c", "?*"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePattern(s)
		if err != nil {
			if !strings.Contains(err.Error(), "pattern") {
				t.Fatalf("parsePattern(%q) error %q does not name the pattern", s, err)
			}
			return
		}
		if s == "" || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-.*?") != "" || strings.Count(s, ".") > 1 {
			t.Fatalf("parsePattern(%q) accepted a pattern outside the grammar", s)
		}
		if p.text != s || p.fullName != strings.Contains(s, ".") || p.any != (strings.Trim(s, "*") == "") {
			t.Fatalf("parsePattern(%q) = %+v", s, p)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
