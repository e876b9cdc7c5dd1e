package powershell

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ec2select/ec2select/userdata/internal/nasty"
	"pgregory.net/rapid"
)

// TestPSQuote audits the PowerShell quoting function the same way against
// the lexer the Windows linter uses.
func TestPSQuote(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := nasty.String().Draw(t, "s")
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
