package powershell

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// desc writes a token as kind:value, "?" for text only known at run time
// and a trailing "!" when the value is not known.
func desc(t Token) string {
	kinds := map[kind]string{kindWord: "w", kindString: "s", kindVar: "v", kindOp: "op", kindGroup: "g", kindType: "t", kindEnd: "end"}
	s := kinds[t.kind] + ":" + strings.NewReplacer(string(unknown), "?", string(varRef), "$").Replace(t.value)
	if t.kind == kindEnd {
		s = "end:" + t.raw
	}
	if !t.known && (t.kind == kindString || t.kind == kindWord) {
		s += "!"
	}
	return s
}

// TestLex pins the lexer against PowerShell's tokenizer rules
// (about_Quoting_Rules, about_Special_Characters, about_Comments,
// about_Variables, about_Parsing): verbatim and expandable strings with
// their smart-quote spellings and doubled quotes, backtick escapes,
// here-strings, variables with scopes and braces, groups and type
// literals, statement ends, comments and line continuations.
func TestLex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		want []string
	}{
		{"Write-Host 'it''s'", []string{"w:Write-Host", "s:it's"}},
		{"\u2018a\u2019\u2019b\u2019", []string{"s:a\u2019b"}},
		{"\"a`tb\"", []string{"s:a\tb"}},
		{"\"a`qb`0\"", []string{"s:aqb\x00"}},
		{"\"a\"\"b\"", []string{"s:a\"b"}},
		{"\u201ca\u201d", []string{"s:a"}},
		{"\"a$x\"", []string{"s:a$!"}},
		{"\"a${x y}b\"", []string{"s:a$b!"}},
		{"\"a$(Get-Date)b\"", []string{"s:a?b!"}},
		{"\"`u{41}\"", []string{"s:?!"}},
		{"\"cost: $ 5\"", []string{"s:cost: $ 5"}},
		{"$env:ProgramFiles", []string{"v:env:ProgramFiles"}},
		{"$script:a:b", []string{"v:script:a", "w::b"}},
		{"${a b}", []string{"v:a b"}},
		{"$$ $? $^", []string{"v:$", "v:?", "v:^"}},
		{"@('a') @{a=1} $(x) (1) [0]", []string{"g:?", "g:?", "g:?", "g:?", "g:?"}},
		{"[string] [System.Collections.Generic.List[int]] [a-b]", []string{"t:string", "t:System.Collections.Generic.List[int]", "g:?"}},
		{"a && b", []string{"w:a", "op:&&", "w:b"}},
		{"$x += 1; $y -= 1; $z = 1", []string{"v:x", "op:+=", "w:1", "end:;", "v:y", "op:-=", "w:1", "end:;", "v:z", "op:=", "w:1"}},
		{"a -=-b", []string{"w:a", "w:-=-b"}},
		{"a # comment\nb", []string{"w:a", "end:\n", "w:b"}},
		{"a <# block\ncomment #> b", []string{"w:a", "w:b"}},
		{"a `\nb", []string{"w:a", "w:b"}},
		{"a `\r\nb", []string{"w:a", "w:b"}},
		{"@'\nx\n'@", []string{"s:x"}},
		{"@'\n'@", []string{"s:"}},
		{"@\"\n$a b\n\"@", []string{"s:$ b!"}},
		{"@' \r\nx\r\n'@", []string{"s:x"}},
		{"if ($a) { b } | c", []string{"w:if", "g:?", "end:{", "w:b", "end:}", "end:|", "w:c"}},
		{"a`;b a$b", []string{"w:a;b", "w:a", "v:b"}},
		{"(a # ) comment\n) ( `) ) ([x] {y} <# ) #> 'z)' \"w)\" @'\n)\n'@)", []string{"g:?", "g:?", "g:?"}},
	}
	for _, tt := range tests {
		toks, err := Lex(tt.src)
		if err != nil {
			t.Errorf("Lex(%q): %v", tt.src, err)
			continue
		}
		var got []string
		for _, tok := range toks {
			got = append(got, desc(tok))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Lex(%q) (-want +got):\n%s", tt.src, diff)
		}
	}
}

// TestLexErrors: what PowerShell's parser refuses as incomplete is an
// error on the line where the open construct starts.
func TestLexErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src, want string
		line      int
	}{
		{"a\xff", "not valid UTF-8", 1},
		{"if ($a) {\nb\n", "'{' not closed", 3},
		{"a }", "'}' without '{'", 1},
		{"a `", "line continuation", 1},
		{"a`", "ends with a backtick", 1},
		{"a\n<# x", "block comment <# is not closed", 2},
		{"'abc", "single-quoted string is not closed", 1},
		{"\"abc", "double-quoted string is not closed", 1},
		{"\"abc`", "string ends in a backtick", 1},
		{"\"`u{41\"", "`u{ is not closed", 1},
		{"\"$(x\"", "double-quoted string is not closed", 1}, // the quote inside $( ) opens a string
		{"\"${x\"", "${ is not closed", 1},
		{"$x = @'abc'@", "must end the line", 1},
		{"@'\nabc\n", "here-string @' is not closed", 1},
		{"@\"\n$(\n\"@", "\"(\" is not closed", 2},
		{"(a]", "\"]\" does not match \"(\"", 1},
		{"(a\n", "\"(\" is not closed", 1},
		{"( <# x )", "block comment <# is not closed", 1},
		{"( 'x )", "single-quoted string is not closed", 1},
		{")", "without its opening bracket", 1},
		{"$x = ${a", "${ is not closed", 1},
	}
	for _, tt := range tests {
		_, err := Lex(tt.src)
		var le *Error
		if !errors.As(err, &le) || !strings.Contains(err.Error(), tt.want) || le.Line() != tt.line {
			t.Errorf("Lex(%q) = %v; want an *Error on line %d containing %q", tt.src, err, tt.line, tt.want)
		}
	}
}

// TestStatements: statements end at newlines, ';', '|', '{' and '}'.
func TestStatements(t *testing.T) {
	t.Parallel()
	sts, err := Statements("a; b | c\n\nif (x) { d }")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range sts {
		var words []string
		for _, tok := range st {
			words = append(words, tok.Raw())
		}
		got = append(got, strings.Join(words, " "))
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "if (x)", "d"}, got); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}
	if _, err := Statements("'x"); err == nil {
		t.Error("Statements of an open string: no error")
	}
}

// TestTokenAccessors: what callers outside the package read of a token.
func TestTokenAccessors(t *testing.T) {
	t.Parallel()
	toks, err := Lex("[int]$x = \"a$y\" 'b' c")
	if err != nil {
		t.Fatal(err)
	}
	type acc struct {
		Raw, Value     string
		Known, Literal bool
		Type, String   bool
	}
	var got []acc
	for _, tok := range toks {
		v, known, ok := tok.Literal()
		got = append(got, acc{tok.Raw(), strings.ReplaceAll(v, string(unknown), "?"), known, ok, tok.IsType(), tok.IsString()})
	}
	want := []acc{
		{Raw: "[int]", Type: true},
		{Raw: "$x"},
		{Raw: "="},
		{Raw: "\"a$y\"", Value: "a?", Literal: true, String: true},
		{Raw: "'b'", Value: "b", Known: true, Literal: true, String: true},
		{Raw: "c", Value: "c", Known: true, Literal: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("accessors (-want +got):\n%s", diff)
	}
}
