package shell

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ec2select/ec2select/userdata/internal/nasty"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
	"pgregory.net/rapid"
)

// TestShellQuote is the audit of the one shell-quoting function: for any
// text, the quoted word parses as exactly one argument whose value is the
// text, byte for byte.
func TestShellQuote(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := nasty.String().Draw(t, "s")
		q, err := Quote(s)
		if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\t' && r != '\n' }) {
			if err == nil {
				t.Fatalf("Quote(%q) accepted a control character or invalid UTF-8", s)
			}
			return
		}
		if err != nil {
			t.Fatalf("Quote(%q): %v", s, err)
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
