package ec2fake

import (
	"strings"
	"unicode/utf8"
)

// pattern is one compiled filter value. EC2 filter values are wildcard
// patterns: '*' matches any run of characters (including none), '?' matches
// at most one character, and '\' makes the character after it literal, so
// `\*`, `\?` and `\\` stand for '*', '?' and '\'. A trailing lone '\' is a
// literal backslash.
//
// Patterns without wildcards, prefixes ending in '*', and a bare '*' are
// matched without the automaton. The others run a bit-set NFA over the runes
// of the input; its scratch space lives in the pattern, so a pattern must not
// be used by two goroutines at once (each request compiles its own).
type pattern struct {
	kind patternKind
	lit  string // exact and prefix kinds: the unescaped literal
	toks []patTok
	cur  []uint64
	next []uint64
}

type patternKind uint8

const (
	patExact patternKind = iota
	patPrefix
	patAny
	patGeneral
)

type patTok struct {
	op byte // 0: literal rune r; '*': any run; '?': zero or one rune
	r  rune
}

func compilePattern(s string) *pattern {
	var toks []patTok
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		switch r {
		case '\\':
			if i < len(s) {
				r, w = utf8.DecodeRuneInString(s[i:])
				i += w
			}
			toks = append(toks, patTok{r: r})
		case '*':
			if n := len(toks); n > 0 && toks[n-1].op == '*' {
				continue // "**" means the same as "*"
			}
			toks = append(toks, patTok{op: '*'})
		case '?':
			toks = append(toks, patTok{op: '?'})
		default:
			toks = append(toks, patTok{r: r})
		}
	}
	p := &pattern{kind: patGeneral, toks: toks}
	wild := 0
	for _, t := range toks {
		if t.op != 0 {
			wild++
		}
	}
	switch {
	case wild == 0:
		p.kind, p.lit = patExact, literalOf(toks)
	case wild == 1 && len(toks) == 1 && toks[0].op == '*':
		p.kind = patAny
	case wild == 1 && toks[len(toks)-1].op == '*':
		p.kind, p.lit = patPrefix, literalOf(toks[:len(toks)-1])
	default:
		words := (len(toks) + 1 + 63) / 64
		p.cur, p.next = make([]uint64, words), make([]uint64, words)
	}
	return p
}

func literalOf(toks []patTok) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteRune(t.r)
	}
	return b.String()
}

// match reports whether s matches the whole pattern.
func (p *pattern) match(s string) bool {
	switch p.kind {
	case patExact:
		return s == p.lit
	case patPrefix:
		return strings.HasPrefix(s, p.lit)
	case patAny:
		return true
	}
	n := len(p.toks)
	clear(p.cur)
	p.cur[0] = 1
	p.closure(p.cur)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		clear(p.next)
		live := false
		for j := 0; j < n; j++ {
			if p.cur[j>>6]&(1<<(j&63)) == 0 {
				continue
			}
			switch t := p.toks[j]; t.op {
			case '*':
				p.next[j>>6] |= 1 << (j & 63)
				live = true
			case '?':
				p.next[(j+1)>>6] |= 1 << ((j + 1) & 63)
				live = true
			default:
				if t.r == r {
					p.next[(j+1)>>6] |= 1 << ((j + 1) & 63)
					live = true
				}
			}
		}
		if !live {
			return false
		}
		p.closure(p.next)
		p.cur, p.next = p.next, p.cur
	}
	return p.cur[n>>6]&(1<<(n&63)) != 0
}

// closure adds the states reachable without consuming input: '*' and '?'
// may both match nothing. States only move forward, so one ascending pass
// reaches the fixed point.
func (p *pattern) closure(set []uint64) {
	for j, t := range p.toks {
		if t.op != 0 && set[j>>6]&(1<<(j&63)) != 0 {
			set[(j+1)>>6] |= 1 << ((j + 1) & 63)
		}
	}
}

// valueSet is the compiled values of one filter; a field matches the filter
// when it matches any of them.
type valueSet []*pattern

func compileValues(values []string) valueSet {
	vs := make(valueSet, len(values))
	for i, v := range values {
		vs[i] = compilePattern(v)
	}
	return vs
}

func (vs valueSet) any(s string) bool {
	for _, p := range vs {
		if p.match(s) {
			return true
		}
	}
	return false
}

// optional matches a field that may be absent: an absent field matches no
// value, not even "*".
func (vs valueSet) optional(s *string) bool {
	return s != nil && vs.any(*s)
}

// enum matches a string-typed enum field, where "" means absent.
func enum[T ~string](vs valueSet, v T) bool {
	return v != "" && vs.any(string(v))
}

func (vs valueSet) boolean(b *bool) bool {
	if b == nil {
		return false
	}
	if *b {
		return vs.any("true")
	}
	return vs.any("false")
}
