package ec2fake

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPatternRules(t *testing.T) {
	tests := []struct {
		pattern string
		matches []string
		misses  []string
	}{
		// No wildcard: the whole value must be equal, case-sensitively.
		{"al2023", []string{"al2023"}, []string{"AL2023", "al2023-x", "al202", ""}},
		{"", []string{""}, []string{"a"}},
		// '*' is any run of characters, including none.
		{"*", []string{"", "a", "anything at all"}, nil},
		{"amazon-eks-node-*", []string{"amazon-eks-node-", "amazon-eks-node-1.31-v20250317"}, []string{"amazon-eks-gpu-node-1.31"}},
		{"*-nvidia-*", []string{"a-nvidia-b", "-nvidia-"}, []string{"nvidia-b", "a-nvidia"}},
		{"a*b*c", []string{"abc", "aXbYc", "abbbc", "acbc"}, []string{"ab", "bc", "acb"}},
		{"**", []string{"", "x"}, nil},
		// '?' is zero or one character (AWS: "database????" means up to four).
		{"database????", []string{"database", "database1", "database12", "database1234"}, []string{"database12345", "databas"}},
		{"v?1", []string{"v1", "vx1"}, []string{"vxy1"}},
		{"?", []string{"", "a", "é"}, []string{"ab"}},
		{"a?", []string{"a", "ab"}, []string{"abc", "b"}},
		{"?*?", []string{"", "a", "abc"}, nil},
		// '\' escapes the next character.
		{`\*amazon\?\\`, []string{`*amazon?\`}, []string{`xamazon?\`, `*amazon\`, `*amazonx\`}},
		{`a\*`, []string{"a*"}, []string{"a", "ab"}},
		{`a\?b`, []string{"a?b"}, []string{"ab", "axb"}},
		{`\a`, []string{"a"}, []string{`\a`}},
		{`trailing\`, []string{`trailing\`}, []string{"trailing"}},
		// Characters, not bytes.
		{"日?本", []string{"日本", "日x本", "日語本"}, []string{"日xx本"}},
	}
	for _, tc := range tests {
		p := compilePattern(tc.pattern)
		for _, s := range tc.matches {
			if !p.match(s) {
				t.Errorf("pattern %q does not match %q; want a match", tc.pattern, s)
			}
		}
		for _, s := range tc.misses {
			if p.match(s) {
				t.Errorf("pattern %q matches %q; want no match", tc.pattern, s)
			}
		}
	}
}

// referenceRegexp translates an EC2 pattern into an anchored regexp: the
// naive model the matcher is checked against.
func referenceRegexp(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	for i := 0; i < len(pattern); {
		r, w := utf8.DecodeRuneInString(pattern[i:])
		i += w
		switch r {
		case '\\':
			if i < len(pattern) {
				r, w = utf8.DecodeRuneInString(pattern[i:])
				i += w
			}
			b.WriteString(regexp.QuoteMeta(string(r)))
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.?`)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`\z`)
	return regexp.MustCompile(b.String())
}

func FuzzPattern(f *testing.F) {
	seeds := [][2]string{
		{"*", ""}, {"a?c", "ac"}, {`\*\?\\`, `*?\`}, {"a*b?c*", "axxbcyy"}, {"????????????????????????????????????????????????????????????????????a", "a"},
		{"*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, {"日?本*", "日本語"}, {`x\`, `x\`},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, s string) {
		p := compilePattern(pat) // must not panic on any input
		got := p.match(s)
		if got != p.match(s) {
			t.Fatalf("pattern %q on %q is not deterministic", pat, s)
		}
		if !utf8.ValidString(pat) || !utf8.ValidString(s) {
			return // the regexp reference works on valid UTF-8 only
		}
		if want := referenceRegexp(pat).MatchString(s); got != want {
			t.Fatalf("pattern %q on %q = %v; the reference regexp says %v", pat, s, got, want)
		}
	})
}

func TestPatternMatchDoesNotAllocate(t *testing.T) {
	for _, pat := range []string{"amazon-eks-node-al2023-x86_64-*", "exact-name", "*-nvidia-?86_64-v*", "*"} {
		p := compilePattern(pat)
		allocs := testing.AllocsPerRun(100, func() {
			p.match("amazon-eks-node-al2023-x86_64-nvidia-1.31-v20250403")
		})
		if allocs != 0 {
			t.Errorf("matching %q allocates %v times per call; want 0", pat, allocs)
		}
	}
}
