package userdata

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
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

// TestShellQuote is the audit of the one shell-quoting function: for any
// text, the quoted word parses as exactly one argument whose value is the
// text, byte for byte.
func TestShellQuote(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := nastyString().Draw(t, "s")
		q, err := shellQuote(s)
		if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\t' && r != '\n' }) {
			if err == nil {
				t.Fatalf("shellQuote(%q) accepted a control character or invalid UTF-8", s)
			}
			return
		}
		if err != nil {
			t.Fatalf("shellQuote(%q): %v", s, err)
		}
		f, err := syntax.NewParser().Parse(strings.NewReader("cmd "+q+"\n"), "")
		if err != nil {
			t.Fatalf("parsing cmd %s: %v", q, err)
		}
		if len(f.Stmts) != 1 {
			t.Fatalf("cmd %s parses as %d statements", q, len(f.Stmts))
		}
		call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) != 2 || len(call.Assigns) != 0 || len(f.Stmts[0].Redirs) != 0 {
			t.Fatalf("cmd %s is not one simple command with one argument", q)
		}
		fields, err := expand.Fields(&expand.Config{}, call.Args[1])
		if err != nil || len(fields) != 1 || fields[0] != s {
			t.Fatalf("cmd %s: the argument expands to %q (%v); want %q", q, fields, err, s)
		}
	})
}

// TestPSQuote audits the PowerShell quoting function the same way against
// the lexer the Windows linter uses.
func TestPSQuote(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := nastyString().Draw(t, "s")
		q, err := psQuote(s)
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			if err == nil {
				t.Fatalf("psQuote(%q) accepted invalid text", s)
			}
			return
		}
		if err != nil {
			t.Fatalf("psQuote(%q): %v", s, err)
		}
		toks, err := lexPowerShell("& $f -A " + q + "\n")
		if err != nil {
			t.Fatalf("lexing %s: %v", q, err)
		}
		st := psStatements(toks)
		if len(st) != 1 || len(st[0]) != 4 || st[0][3].kind != psString || st[0][3].value != s || !st[0][3].known {
			t.Fatalf("& $f -A %s lexes as %+v; want one statement ending in the string %q", q, st, s)
		}
	})
}

func TestPSQuoteCurlyQuotes(t *testing.T) {
	t.Parallel()
	got, err := psQuote("a'b\u2019c")
	if err != nil {
		t.Fatal(err)
	}
	if want := "'a''b\u2019\u2019c'"; got != want {
		t.Errorf("psQuote = %q; want %q", got, want)
	}
}

func TestSystemdSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		cunescape bool
		want      []string
		wantErr   bool
	}{
		{in: `--register-with-taints "k:NoExecute"`, want: []string{"--register-with-taints", "k:NoExecute"}},
		{in: `--node-labels="a=b,c=d" --max-pods=110`, want: []string{"--node-labels=a=b,c=d", "--max-pods=110"}},
		{in: `a'b c'd`, want: []string{"ab cd"}},
		{in: `a\ b`, want: []string{"a b"}},
		{in: `"unterminated`, want: []string{"unterminated"}},
		{in: `'KUBELET_EXTRA_ARGS=--a "b c"'`, cunescape: true, want: []string{`KUBELET_EXTRA_ARGS=--a "b c"`}},
		{in: `'A=\q'`, cunescape: true, wantErr: true},
		{in: `'A=\x41\n'`, cunescape: true, want: []string{"A=A\n"}},
		{in: `'A=b`, cunescape: true, wantErr: true},
	}
	for _, tt := range tests {
		got, err := systemdSplit(tt.in, tt.cunescape, !tt.cunescape)
		if (err != nil) != tt.wantErr {
			t.Errorf("systemdSplit(%q) error = %v; wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
			t.Errorf("systemdSplit(%q) = %q; want %q", tt.in, got, tt.want)
		}
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
		if got := windowsArgv(tt.in); strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
			t.Errorf("windowsArgv(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestEnvFileValue(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{in: `--node-labels="a=b" --x=y`, want: `--node-labels="a=b" --x=y`},
		{in: `"quoted value" tail`, want: `quoted valuetail`},
		{in: `a\ b  `, want: `a b`},
		{in: "a\nb", want: "a"},
	}
	for _, tt := range tests {
		if got := envFileValue(tt.in); got != tt.want {
			t.Errorf("envFileValue(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
