package powershell

import (
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// nastyString draws strings rich in characters that mean something to
// bash, systemd, PowerShell, YAML, TOML or MIME.
func nastyString() *rapid.Generator[string] {
	pieces := []string{"'", `"`, `\`, "`", "$", "$(id)", "${x}", "\n", "\r", "\t", " ", ";", "&", "|", "<", ">", "%", "%%", "#", "!",
		"*", "?", "[", "]", "{", "}", "(", ")", "~", "=", ",", ":", "--", "\u2018", "\u2019", "\u201c", "\u201d", "\u2013",
		"'@", "@'", "\"@", "</powershell>", "<#", "#>", "\x00", "\x1b", "é", "--register-with-taints=x:NoExecute"}
	return rapid.OneOf(
		rapid.String(),
		rapid.Custom(func(t *rapid.T) string {
			parts := rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom(pieces), rapid.StringMatching(`[a-z0-9.-]{0,6}`)), 0, 8).Draw(t, "parts")
			return strings.Join(parts, "")
		}),
	)
}

// TestPSQuote audits the PowerShell quoting function the same way against
// the lexer the Windows linter uses.
func TestPSQuote(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := nastyString().Draw(t, "s")
		q, err := Quote(s)
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			if err == nil {
				t.Fatalf("Quote(%q) accepted invalid text", s)
			}
			return
		}
		if err != nil {
			t.Fatalf("Quote(%q): %v", s, err)
		}
		toks, err := Lex("& $f -A " + q + "\n")
		if err != nil {
			t.Fatalf("lexing %s: %v", q, err)
		}
		st := statements(toks)
		if len(st) != 1 || len(st[0]) != 4 || st[0][3].kind != kindString || st[0][3].value != s || !st[0][3].known {
			t.Fatalf("& $f -A %s lexes as %+v; want one statement ending in the string %q", q, st, s)
		}
	})
}

func TestPSQuoteCurlyQuotes(t *testing.T) {
	t.Parallel()
	got, err := Quote("a'b\u2019c")
	if err != nil {
		t.Fatal(err)
	}
	if want := "'a''b\u2019\u2019c'"; got != want {
		t.Errorf("Quote = %q; want %q", got, want)
	}
}

func TestWindowsArgv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{in: `--node-labels="a=b" --register-with-taints="k:NoExecute"`, want: []string{"--node-labels=a=b", "--register-with-taints=k:NoExecute"}},
		{in: `a\\"b c"`, want: []string{`a\b c`}},
		{in: `a\"b`, want: []string{`a"b`}},
		{in: `"a""b"`, want: []string{`a"b`}},
		{in: `a\b`, want: []string{`a\b`}},
		{in: "  x\ty  ", want: []string{"x", "y"}},
	}
	for _, tt := range tests {
		if got := WindowsArgv(tt.in); strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
			t.Errorf("WindowsArgv(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
