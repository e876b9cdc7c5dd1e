package userdata

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is a small PowerShell lexer: enough to find assignments and
// calls in the <powershell> block of Windows userData, to evaluate string
// literals exactly, and to prove that a script is lexically complete (no
// open string, comment, bracket or line continuation), which custom
// PowerShell spliced before Render's bootstrap call must be.

type psKind int

const (
	psWord   psKind = iota // a bareword, including -Parameter
	psString               // a quoted string or here-string
	psVar                  // $name
	psOp                   // & . = += etc.
	psGroup                // ( … ), @( … ), $( … ), @{ … }, [ … ] (not a type)
	psType                 // [TypeName]
	psEnd                  // end of a statement: newline, ';', '|', '{', '}'
)

// psUnknown stands for text only known when the script runs.
const psUnknown = '\ue000'

// psError is a lexing error at a 1-based line of the script.
type psError struct {
	line int
	msg  string
}

func (e *psError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func psErrorf(line int, format string, args ...any) error {
	return &psError{line: line, msg: fmt.Sprintf(format, args...)}
}

type psToken struct {
	kind  psKind
	raw   string
	value string // evaluated; contains psUnknown where unknown
	known bool
	line  int // 1-based
	depth int // brace depth at the token
	// adjacent: no whitespace between this token and the previous one.
	adjacent bool
}

type psLexer struct {
	src   string
	pos   int
	line  int
	depth int
	toks  []psToken
}

func isPSDoubleQuote(r rune) bool { return r == '"' || r == '\u201c' || r == '\u201d' || r == '\u201e' }
func isPSDash(r rune) bool        { return r == '-' || r == '\u2013' || r == '\u2014' || r == '\u2015' }

// lexPowerShell tokenizes a script. It fails on anything left open at the
// end: a string, here-string, block comment, bracket or brace.
func lexPowerShell(src string) ([]psToken, error) {
	if !utf8.ValidString(src) {
		return nil, psErrorf(1, "the script is not valid UTF-8")
	}
	lx := &psLexer{src: src, line: 1}
	if err := lx.run(); err != nil {
		return nil, err
	}
	if lx.depth != 0 {
		return nil, psErrorf(lx.line, "%d '{' not closed at the end of the script", lx.depth)
	}
	return lx.toks, nil
}

func (lx *psLexer) peek(off int) rune {
	if lx.pos+off >= len(lx.src) {
		return -1
	}
	r, _ := utf8.DecodeRuneInString(lx.src[lx.pos+off:])
	return r
}

func (lx *psLexer) next() rune {
	r, n := utf8.DecodeRuneInString(lx.src[lx.pos:])
	lx.pos += n
	if r == '\n' {
		lx.line++
	}
	return r
}

func (lx *psLexer) emit(t psToken) {
	lx.toks = append(lx.toks, t)
}

func (lx *psLexer) run() error {
	spaced := true
	for lx.pos < len(lx.src) {
		r := lx.peek(0)
		start, line := lx.pos, lx.line
		switch {
		case r == '\n' || r == ';' || r == '|':
			lx.next()
			lx.emit(psToken{kind: psEnd, raw: string(r), line: line, depth: lx.depth})
			spaced = true
			continue
		case r == '`' && (lx.peek(1) == '\n' || (lx.peek(1) == '\r' && lx.peek(2) == '\n')):
			lx.next()
			if lx.peek(0) == '\r' {
				lx.next()
			}
			lx.next()
			spaced = true
			continue
		case r == '`' && lx.pos+1 >= len(lx.src):
			return psErrorf(line, "the script ends with a line continuation (`)")
		case unicode.IsSpace(r):
			lx.next()
			spaced = true
			continue
		case r == '#':
			for lx.pos < len(lx.src) && lx.peek(0) != '\n' {
				lx.next()
			}
			continue
		case r == '<' && lx.peek(1) == '#':
			end := strings.Index(lx.src[lx.pos+2:], "#>")
			if end < 0 {
				return psErrorf(line, "block comment <# is not closed")
			}
			for lx.pos < start+2+end+2 {
				lx.next()
			}
			spaced = true
			continue
		case r == '{':
			lx.next()
			lx.depth++
			lx.emit(psToken{kind: psEnd, raw: "{", line: line, depth: lx.depth})
			spaced = true
			continue
		case r == '}':
			lx.next()
			lx.depth--
			if lx.depth < 0 {
				return psErrorf(line, "'}' without '{'")
			}
			lx.emit(psToken{kind: psEnd, raw: "}", line: line, depth: lx.depth})
			spaced = true
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

// token lexes one token that is not a separator.
func (lx *psLexer) token() (psToken, error) {
	r := lx.peek(0)
	line := lx.line
	switch {
	case isPSSingleQuote(r):
		lx.next()
		v, err := lx.singleQuoted()
		return psToken{kind: psString, value: v, known: true}, err
	case isPSDoubleQuote(r):
		lx.next()
		v, known, err := lx.doubleQuoted(isPSDoubleQuote, true, false)
		return psToken{kind: psString, value: v, known: known}, err
	case r == '@' && (isPSSingleQuote(lx.peek(1)) || isPSDoubleQuote(lx.peek(1))):
		return lx.hereString()
	case r == '@' && (lx.peek(1) == '(' || lx.peek(1) == '{'):
		lx.next()
		open := lx.next()
		if err := lx.group(open); err != nil {
			return psToken{}, err
		}
		return psToken{kind: psGroup, value: string(psUnknown)}, nil
	case r == '(':
		lx.next()
		if err := lx.group('('); err != nil {
			return psToken{}, err
		}
		return psToken{kind: psGroup, value: string(psUnknown)}, nil
	case r == '$' && lx.peek(1) == '(':
		lx.next()
		lx.next()
		if err := lx.group('('); err != nil {
			return psToken{}, err
		}
		return psToken{kind: psGroup, value: string(psUnknown)}, nil
	case r == '$':
		lx.next()
		name, err := lx.varName()
		return psToken{kind: psVar, value: name}, err
	case r == '[':
		lx.next()
		startPos := lx.pos
		if err := lx.group('['); err != nil {
			return psToken{}, err
		}
		inner := lx.src[startPos : lx.pos-1]
		if isTypeName(inner) {
			return psToken{kind: psType, value: inner, known: true}, nil
		}
		return psToken{kind: psGroup, value: string(psUnknown)}, nil
	case r == ')' || r == ']':
		return psToken{}, psErrorf(line, "%q without its opening bracket", string(r))
	case r == '&' && lx.peek(1) == '&':
		lx.next()
		lx.next()
		return psToken{kind: psOp, value: "&&", known: true}, nil
	case r == '&':
		lx.next()
		return psToken{kind: psOp, value: "&", known: true}, nil
	case r == '=':
		lx.next()
		return psToken{kind: psOp, value: "=", known: true}, nil
	case strings.ContainsRune("+-*/%", r) && lx.peek(1) == '=' && !isPSDash(lx.peek(2)):
		lx.next()
		lx.next()
		return psToken{kind: psOp, value: string(r) + "=", known: true}, nil
	}
	return lx.bareword()
}

// singleQuoted reads a verbatim string after its opening quote: any single
// quote character ends it unless another follows, which stands for one.
func (lx *psLexer) singleQuoted() (string, error) {
	line := lx.line
	var b strings.Builder
	for lx.pos < len(lx.src) {
		r := lx.next()
		if isPSSingleQuote(r) {
			if isPSSingleQuote(lx.peek(0)) {
				b.WriteRune(lx.next())
				continue
			}
			return b.String(), nil
		}
		b.WriteRune(r)
	}
	return "", psErrorf(line, "single-quoted string is not closed")
}

// doubleQuoted reads an expandable string after its opening quote (or the
// body of an expandable here-string, with closing deciding where it ends).
// Backtick escapes are decoded; variables and subexpressions are unknown.
func (lx *psLexer) doubleQuoted(closing func(rune) bool, doubling, eofOK bool) (string, bool, error) {
	line := lx.line
	var b strings.Builder
	known := true
	for lx.pos < len(lx.src) {
		r := lx.peek(0)
		switch {
		case closing(r):
			lx.next()
			if doubling && isPSDoubleQuote(lx.peek(0)) {
				b.WriteRune(lx.next())
				continue
			}
			return b.String(), known, nil
		case r == '`':
			lx.next()
			if lx.pos >= len(lx.src) {
				return "", false, psErrorf(line, "string ends in a backtick")
			}
			e := lx.next()
			switch e {
			case '0':
				b.WriteByte(0)
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'e':
				b.WriteByte(0x1b)
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case 'u':
				if lx.peek(0) == '{' {
					end := strings.IndexByte(lx.src[lx.pos:], '}')
					if end < 0 {
						return "", false, psErrorf(line, "`u{ is not closed")
					}
					lx.pos += end + 1
					b.WriteRune(psUnknown)
					known = false
					continue
				}
				b.WriteRune(e)
			default:
				b.WriteRune(e)
			}
		case r == '$' && lx.peek(1) == '(':
			lx.next()
			lx.next()
			if err := lx.group('('); err != nil {
				return "", false, err
			}
			b.WriteRune(psUnknown)
			known = false
		case r == '$' && (lx.peek(1) == '{' || isPSNameStart(lx.peek(1))):
			lx.next()
			if _, err := lx.varName(); err != nil {
				return "", false, err
			}
			b.WriteRune(psUnknown)
			known = false
		default:
			b.WriteRune(lx.next())
		}
	}
	if eofOK {
		return b.String(), known, nil
	}
	return "", false, psErrorf(line, "double-quoted string is not closed")
}

func isPSNameStart(r rune) bool {
	return r == '_' || r == '?' || r == '^' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// varName reads a variable name after '$': ${any text} or letters, digits
// and '_' with an optional scope or drive ("env:", "script:").
func (lx *psLexer) varName() (string, error) {
	line := lx.line
	if lx.peek(0) == '{' {
		end := strings.IndexByte(lx.src[lx.pos:], '}')
		if end < 0 {
			return "", psErrorf(line, "${ is not closed")
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
func (lx *psLexer) hereString() (psToken, error) {
	line := lx.line
	lx.next()
	q := lx.next()
	for lx.peek(0) == ' ' || lx.peek(0) == '\t' || lx.peek(0) == '\r' {
		lx.next()
	}
	if lx.peek(0) != '\n' {
		return psToken{}, psErrorf(line, "a here-string's opening @%c must end the line", q)
	}
	lx.next()
	single := isPSSingleQuote(q)
	startPos := lx.pos
	// The here-string ends at the first line that starts with a matching
	// quote followed by '@'.
	for off := lx.pos; off < len(lx.src); {
		r, n := utf8.DecodeRuneInString(lx.src[off:])
		if ((single && isPSSingleQuote(r)) || (!single && isPSDoubleQuote(r))) && strings.HasPrefix(lx.src[off+n:], "@") {
			body := ""
			if off > startPos {
				body = strings.TrimSuffix(lx.src[startPos:off-1], "\r")
			}
			for lx.pos < off+n+1 {
				lx.next()
			}
			if single {
				return psToken{kind: psString, value: body, known: true}, nil
			}
			sub := &psLexer{src: body, line: line + 1}
			v, known, err := sub.doubleQuoted(func(rune) bool { return false }, false, true)
			if err != nil {
				return psToken{}, err
			}
			return psToken{kind: psString, value: v, known: known}, nil
		}
		nl := strings.IndexByte(lx.src[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return psToken{}, psErrorf(line, "here-string @%c is not closed", q)
}

// group skips to the bracket matching open, lexing what is inside so that
// strings and comments in it cannot hide a closing bracket.
func (lx *psLexer) group(open rune) error {
	line := lx.line
	closeOf := map[rune]rune{'(': ')', '{': '}', '[': ']'}
	want := closeOf[open]
	inner := &psLexer{src: lx.src, pos: lx.pos, line: lx.line}
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
			return psErrorf(inner.line, "%q does not match %q", string(r), string(open))
		case r == '#':
			for inner.pos < len(inner.src) && inner.peek(0) != '\n' {
				inner.next()
			}
		case r == '<' && inner.peek(1) == '#':
			end := strings.Index(inner.src[inner.pos+2:], "#>")
			if end < 0 {
				return psErrorf(inner.line, "block comment <# is not closed")
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
		case isPSSingleQuote(r), isPSDoubleQuote(r), r == '@' && (isPSSingleQuote(inner.peek(1)) || isPSDoubleQuote(inner.peek(1))):
			if _, err := inner.token(); err != nil {
				return err
			}
		default:
			inner.next()
		}
	}
	return psErrorf(line, "%q is not closed", string(open))
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
func (lx *psLexer) bareword() (psToken, error) {
	var b strings.Builder
	for lx.pos < len(lx.src) {
		r := lx.peek(0)
		if unicode.IsSpace(r) || strings.ContainsRune(";|&(){}", r) || isPSSingleQuote(r) || isPSDoubleQuote(r) {
			break
		}
		if r == '`' {
			lx.next()
			if lx.pos >= len(lx.src) {
				return psToken{}, psErrorf(lx.line, "the script ends with a backtick")
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
	return psToken{kind: psWord, value: b.String(), known: true}, nil
}

// psStatements splits tokens at statement ends.
func psStatements(toks []psToken) [][]psToken {
	var out [][]psToken
	var cur []psToken
	for _, t := range toks {
		if t.kind == psEnd {
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
