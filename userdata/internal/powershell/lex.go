package powershell

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

type kind int

const (
	kindWord   kind = iota // a bareword, including -Parameter
	kindString             // a quoted string or here-string
	kindVar                // $name
	kindOp                 // & . = += etc.
	kindGroup              // ( … ), @( … ), $( … ), @{ … }, [ … ] (not a type)
	kindType               // [TypeName]
	kindEnd                // end of a statement: newline, ';', '|', '{', '}'
)

// unknown stands for text only known when the script runs.
const unknown = '\ue000'

// varRef stands, in an expandable string's value, for a variable whose
// value the walker substitutes (Token.vars names them, in order).
const varRef = '\ue001'

// Error is a lexing error at a 1-based line of the script.
type Error struct {
	line int
	msg  string
}

// Line is the 1-based line of the script the error is on.
func (e *Error) Line() int { return e.line }

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func errorf(line int, format string, args ...any) error {
	return &Error{line: line, msg: fmt.Sprintf(format, args...)}
}

// Token is one lexical token; [Walker.Eval] gives its value.
type Token struct {
	kind  kind
	raw   string
	value string // evaluated; contains unknown where unknown
	known bool
	line  int // 1-based
	depth int // brace depth at the token
	// adjacent: no whitespace between this token and the previous one.
	adjacent bool
	// vars are the variables an expandable string refers to, in order;
	// each stands at a varRef in value.
	vars []string
}

type lexer struct {
	src   string
	pos   int
	line  int
	depth int
	toks  []Token
}

func isDoubleQuote(r rune) bool { return r == '"' || r == '\u201c' || r == '\u201d' || r == '\u201e' }
func isDash(r rune) bool        { return r == '-' || r == '\u2013' || r == '\u2014' || r == '\u2015' }

// Lex tokenizes a script. It fails on anything left open at the
// end: a string, here-string, block comment, bracket or brace.
func Lex(src string) ([]Token, error) {
	if !utf8.ValidString(src) {
		return nil, errorf(1, "the script is not valid UTF-8")
	}
	lx := &lexer{src: src, line: 1}
	if err := lx.run(); err != nil {
		return nil, err
	}
	if lx.depth != 0 {
		return nil, errorf(lx.line, "%d '{' not closed at the end of the script", lx.depth)
	}
	return lx.toks, nil
}

func (lx *lexer) peek(off int) rune {
	if lx.pos+off >= len(lx.src) {
		return -1
	}
	r, _ := utf8.DecodeRuneInString(lx.src[lx.pos+off:])
	return r
}

func (lx *lexer) next() rune {
	r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
	lx.pos += n
	if r == '\n' {
		lx.line++
	}
	return r
}

func (lx *lexer) emit(t Token) {
	lx.toks = append(lx.toks, t)
}

func (lx *lexer) run() error {
	spaced := true
	for lx.pos < len(lx.src) {
		start, line := lx.pos, lx.line
		skipped, err := lx.separator(line)
		if err != nil {
			return err
		}
		if skipped {
			spaced = true
			continue
		}
		if lx.comment() {
			continue
		}
		tok, err := lx.token()
		if err != nil {
			return err
		}
		tok.raw, tok.line, tok.depth, tok.adjacent = lx.src[start:lx.pos], line, lx.depth, !spaced
		lx.emit(tok)
		spaced = false
	}
	return nil
}

// separator consumes what separates tokens: statement ends, braces,
// whitespace, line continuations and block comments. It reports whether
// it consumed anything.
func (lx *lexer) separator(line int) (bool, error) {
	r := lx.peek(0)
	switch {
	case r == '\n' || r == ';' || r == '|':
		lx.next()
		lx.emit(Token{kind: kindEnd, raw: string(r), line: line, depth: lx.depth})
	case r == '`' && (lx.peek(1) == '\n' || (lx.peek(1) == '\r' && lx.peek(2) == '\n')):
		lx.next()
		if lx.peek(0) == '\r' {
			lx.next()
		}
		lx.next()
	case r == '`' && lx.pos+1 >= len(lx.src):
		return false, errorf(line, "the script ends with a line continuation (`)")
	case unicode.IsSpace(r):
		lx.next()
	case r == '<' && lx.peek(1) == '#':
		end := strings.Index(lx.src[lx.pos+2:], "#>")
		if end < 0 {
			return false, errorf(line, "block comment <# is not closed")
		}
		for stop := lx.pos + 2 + end + 2; lx.pos < stop; {
			lx.next()
		}
	case r == '{' || r == '}':
		return true, lx.brace(r, line)
	default:
		return false, nil
	}
	return true, nil
}

// brace tracks the brace depth; '{' and '}' also end statements.
func (lx *lexer) brace(r rune, line int) error {
	lx.next()
	if r == '{' {
		lx.depth++
	} else if lx.depth--; lx.depth < 0 {
		return errorf(line, "'}' without '{'")
	}
	lx.emit(Token{kind: kindEnd, raw: string(r), line: line, depth: lx.depth})
	return nil
}

// comment consumes a line comment; it does not set spaced, as the
// original lexer did not.
func (lx *lexer) comment() bool {
	if lx.peek(0) != '#' {
		return false
	}
	for lx.pos < len(lx.src) && lx.peek(0) != '\n' {
		lx.next()
	}
	return true
}

// token lexes one token that is not a separator.
func (lx *lexer) token() (Token, error) {
	r := lx.peek(0)
	line := lx.line
	switch {
	case isSingleQuote(r):
		lx.next()
		v, err := lx.singleQuoted()
		return Token{kind: kindString, value: v, known: true}, err
	case isDoubleQuote(r):
		lx.next()
		v, known, vars, err := lx.doubleQuoted(isDoubleQuote, true, false)
		return Token{kind: kindString, value: v, known: known, vars: vars}, err
	case r == '@' && (isSingleQuote(lx.peek(1)) || isDoubleQuote(lx.peek(1))):
		return lx.hereString()
	case r == '@' && (lx.peek(1) == '(' || lx.peek(1) == '{'), r == '(', r == '$' && lx.peek(1) == '(', r == '[':
		return lx.bracketed(r)
	case r == '$':
		lx.next()
		name, err := lx.varName()
		return Token{kind: kindVar, value: name}, err
	case r == ')' || r == ']':
		return Token{}, errorf(line, "%q without its opening bracket", string(r))
	case r == '&' && lx.peek(1) == '&':
		lx.next()
		lx.next()
		return Token{kind: kindOp, value: "&&", known: true}, nil
	case r == '&':
		lx.next()
		return Token{kind: kindOp, value: "&", known: true}, nil
	case r == '=':
		lx.next()
		return Token{kind: kindOp, value: "=", known: true}, nil
	case strings.ContainsRune("+-*/%", r) && lx.peek(1) == '=' && !isDash(lx.peek(2)):
		lx.next()
		lx.next()
		return Token{kind: kindOp, value: string(r) + "=", known: true}, nil
	}
	return lx.bareword()
}

// bracketed reads @( ), @{ }, ( ), $( ) and [ ]: a group whose value is
// only known at run time, or a type literal such as [string].
func (lx *lexer) bracketed(r rune) (Token, error) {
	lx.next()
	open := r
	if r == '@' || r == '$' {
		open = lx.next()
	}
	start := lx.pos
	if err := lx.group(open); err != nil {
		return Token{}, err
	}
	if inner := lx.src[start : lx.pos-1]; open == '[' && isTypeName(inner) {
		return Token{kind: kindType, value: inner, known: true}, nil
	}
	return Token{kind: kindGroup, value: string(unknown)}, nil
}

// singleQuoted reads a verbatim string after its opening quote: any single
// quote character ends it unless another follows, which stands for one.
func (lx *lexer) singleQuoted() (string, error) {
	line := lx.line
	var b strings.Builder
	for lx.pos < len(lx.src) {
		r := lx.next()
		if isSingleQuote(r) {
			if isSingleQuote(lx.peek(0)) {
				b.WriteRune(lx.next())
				continue
			}
			return b.String(), nil
		}
		b.WriteRune(r)
	}
	return "", errorf(line, "single-quoted string is not closed")
}

// doubleQuoted reads an expandable string after its opening quote (or the
// body of an expandable here-string, with closing deciding where it ends).
// Backtick escapes are decoded; subexpressions are unknown; a variable is
// a varRef, named in vars, for the walker to substitute.
func (lx *lexer) doubleQuoted(closing func(rune) bool, doubling, eofOK bool) (value string, known bool, vars []string, err error) {
	line := lx.line
	var b strings.Builder
	known = true
	for lx.pos < len(lx.src) {
		r := lx.peek(0)
		switch {
		case closing(r):
			lx.next()
			if doubling && isDoubleQuote(lx.peek(0)) {
				b.WriteRune(lx.next())
				continue
			}
			return b.String(), known, vars, nil
		case r == '`':
			lx.next()
			if lx.pos >= len(lx.src) {
				return "", false, nil, errorf(line, "string ends in a backtick")
			}
			ok, err := lx.escape(&b, line)
			if err != nil {
				return "", false, nil, err
			}
			known = known && ok
		case r == '$' && lx.peek(1) == '(':
			lx.next()
			lx.next()
			if err := lx.group('('); err != nil {
				return "", false, nil, err
			}
			b.WriteRune(unknown)
			known = false
		case r == '$' && (lx.peek(1) == '{' || isNameStart(lx.peek(1))):
			lx.next()
			name, err := lx.varName()
			if err != nil {
				return "", false, nil, err
			}
			b.WriteRune(varRef)
			vars = append(vars, name)
			known = false
		default:
			b.WriteRune(lx.next())
		}
	}
	if eofOK {
		return b.String(), known, vars, nil
	}
	return "", false, nil, errorf(line, "double-quoted string is not closed")
}

// escapes are PowerShell's backtick escapes in expandable strings.
var escapes = map[rune]byte{'0': 0, 'a': '\a', 'b': '\b', 'e': 0x1b, 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}

// escape writes the character after a backtick; known is false for
// `u{...}, whose value the lexer does not compute.
func (lx *lexer) escape(b *strings.Builder, line int) (known bool, err error) {
	e := lx.next()
	if c, ok := escapes[e]; ok {
		b.WriteByte(c)
		return true, nil
	}
	if e == 'u' && lx.peek(0) == '{' {
		end := strings.IndexByte(lx.src[lx.pos:], '}')
		if end < 0 {
			return false, errorf(line, "`u{ is not closed")
		}
		lx.pos += end + 1
		b.WriteRune(unknown)
		return false, nil
	}
	b.WriteRune(e)
	return true, nil
}

func isNameStart(r rune) bool {
	return r == '_' || r == '?' || r == '^' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// varName reads a variable name after '$': ${any text} or letters, digits
// and '_' with an optional scope or drive ("env:", "script:").
func (lx *lexer) varName() (string, error) {
	line := lx.line
	if lx.peek(0) == '{' {
		end := strings.IndexByte(lx.src[lx.pos:], '}')
		if end < 0 {
			return "", errorf(line, "${ is not closed")
		}
		name := lx.src[lx.pos+1 : lx.pos+end]
		for stop := lx.pos + end + 1; lx.pos < stop; {
			lx.next()
		}
		return name, nil
	}
	start := lx.pos
	if r := lx.peek(0); r == '$' || r == '?' || r == '^' {
		lx.next()
		return lx.src[start:lx.pos], nil
	}
	for lx.pos < len(lx.src) {
		r := lx.peek(0)
		if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			lx.next()
			continue
		}
		if r == ':' && lx.pos > start && !strings.Contains(lx.src[start:lx.pos], ":") {
			if n := lx.peek(1); n == '_' || unicode.IsLetter(n) {
				lx.next()
				continue
			}
		}
		break
	}
	return lx.src[start:lx.pos], nil
}

// hereString reads @'…'@ or @"…"@: the opening must end its line and the
// closing must start one.
func (lx *lexer) hereString() (Token, error) {
	line := lx.line
	lx.next()
	q := lx.next()
	for lx.peek(0) == ' ' || lx.peek(0) == '\t' || lx.peek(0) == '\r' {
		lx.next()
	}
	if lx.peek(0) != '\n' {
		return Token{}, errorf(line, "a here-string's opening @%c must end the line", q)
	}
	lx.next()
	single := isSingleQuote(q)
	startPos := lx.pos
	// The here-string ends at the first line that starts with a matching
	// quote followed by '@'.
	for off := lx.pos; off < len(lx.src); {
		r, n := utf8.DecodeRuneInString(lx.src[off:])
		if ((single && isSingleQuote(r)) || (!single && isDoubleQuote(r))) && strings.HasPrefix(lx.src[off+n:], "@") {
			body := ""
			if off > startPos {
				body = strings.TrimSuffix(lx.src[startPos:off-1], "\r")
			}
			for lx.pos < off+n+1 {
				lx.next()
			}
			if single {
				return Token{kind: kindString, value: body, known: true}, nil
			}
			sub := &lexer{src: body, line: line + 1}
			v, known, vars, err := sub.doubleQuoted(func(rune) bool { return false }, false, true)
			if err != nil {
				return Token{}, err
			}
			return Token{kind: kindString, value: v, known: known, vars: vars}, nil
		}
		nl := strings.IndexByte(lx.src[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return Token{}, errorf(line, "here-string @%c is not closed", q)
}

// group skips to the bracket matching open, lexing what is inside so that
// strings and comments in it cannot hide a closing bracket.
func (lx *lexer) group(open rune) error {
	line := lx.line
	closeOf := map[rune]rune{'(': ')', '{': '}', '[': ']'}
	want := closeOf[open]
	inner := &lexer{src: lx.src, pos: lx.pos, line: lx.line}
	for inner.pos < len(inner.src) {
		r := inner.peek(0)
		switch {
		case r == want:
			inner.next()
			lx.pos, lx.line = inner.pos, inner.line
			return nil
		case r == '(' || r == '{' || r == '[':
			inner.next()
			if err := inner.group(r); err != nil {
				return err
			}
		case r == ')' || r == '}' || r == ']':
			return errorf(inner.line, "%q does not match %q", string(r), string(open))
		case r == '#':
			for inner.pos < len(inner.src) && inner.peek(0) != '\n' {
				inner.next()
			}
		case r == '<' && inner.peek(1) == '#':
			end := strings.Index(inner.src[inner.pos+2:], "#>")
			if end < 0 {
				return errorf(inner.line, "block comment <# is not closed")
			}
			target := inner.pos + 2 + end + 2
			for inner.pos < target {
				inner.next()
			}
		case r == '`':
			inner.next()
			if inner.pos < len(inner.src) {
				inner.next()
			}
		case isSingleQuote(r), isDoubleQuote(r), r == '@' && (isSingleQuote(inner.peek(1)) || isDoubleQuote(inner.peek(1))):
			if _, err := inner.token(); err != nil {
				return err
			}
		default:
			inner.next()
		}
	}
	return errorf(line, "%q is not closed", string(open))
}

func isTypeName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '.' || r == '_' || r == ',' || r == '[' || r == ']' || r == ' ' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return unicode.IsLetter([]rune(s)[0])
}

// bareword reads a command name or argument: everything up to whitespace
// or a separator, with backtick escapes decoded.
func (lx *lexer) bareword() (Token, error) {
	var b strings.Builder
	for lx.pos < len(lx.src) {
		r := lx.peek(0)
		if unicode.IsSpace(r) || strings.ContainsRune(";|&(){}", r) || isSingleQuote(r) || isDoubleQuote(r) {
			break
		}
		if r == '`' {
			lx.next()
			if lx.pos >= len(lx.src) {
				return Token{}, errorf(lx.line, "the script ends with a backtick")
			}
			b.WriteRune(lx.next())
			continue
		}
		if r == '$' && b.Len() > 0 {
			break
		}
		b.WriteRune(lx.next())
	}
	if b.Len() == 0 {
		// A lone character the lexer has no rule for: keep it as a word so
		// the scan always advances.
		b.WriteRune(lx.next())
	}
	return Token{kind: kindWord, value: b.String(), known: true}, nil
}

// statements splits tokens at statement ends.
func statements(toks []Token) [][]Token {
	var out [][]Token
	var cur []Token
	for _, t := range toks {
		if t.kind == kindEnd {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, t)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// Line is the 1-based line of the script the token is on.
func (t Token) Line() int { return t.line }

// Statements lexes src and splits it into statements (at newlines, ';',
// '|', '{' and '}').
func Statements(src string) ([][]Token, error) {
	toks, err := Lex(src)
	if err != nil {
		return nil, err
	}
	return statements(toks), nil
}

// Raw is the token's text as written.
func (t Token) Raw() string { return t.raw }

// Literal returns a string or bareword token's value, and whether it is
// known before the script runs; ok is false for other tokens. A variable
// in an expandable string is unknown here ([Walker.Eval] substitutes it).
func (t Token) Literal() (value string, known, ok bool) {
	if t.kind != kindString && t.kind != kindWord {
		return "", false, false
	}
	return strings.ReplaceAll(t.value, string(varRef), string(unknown)), t.known, true
}

// IsType reports whether the token is a type literal such as [string].
func (t Token) IsType() bool { return t.kind == kindType }

// IsString reports whether the token is a quoted string or here-string.
func (t Token) IsString() bool { return t.kind == kindString }
