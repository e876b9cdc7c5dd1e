package weighting

import (
	"fmt"
	"strings"
)

// pattern is one compiled entry of [Tier.Families].
type pattern struct {
	text string
	// fullName is set when text has a dot: it is matched against the whole
	// instance-type name ("c7i.*large"), not the family.
	fullName bool
	// any is set when text is nothing but stars: it matches every family.
	any bool
}

// patternError says what is wrong with a pattern and how to fix it.
type patternError struct {
	pattern, reason, fix string
}

func (e *patternError) Error() string {
	return fmt.Sprintf("pattern %q %s; %s", e.pattern, e.reason, e.fix)
}

// parsePattern checks s against the grammar in the package documentation.
// The caller adds the tier to the error.
func parsePattern(s string) (pattern, *patternError) {
	if s == "" {
		return pattern{}, &patternError{s, "is empty", `write a family ("c7i-flex"), a glob ("c*-flex"), a full name ("c7i.*large") or "*"`}
	}
	dots := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '*', c == '?':
		case c == '.':
			dots++
		case 'A' <= c && c <= 'Z':
			return pattern{}, &patternError{s, fmt.Sprintf("has upper-case %q", c), fmt.Sprintf("EC2 names are lower case: write %q", strings.ToLower(s))}
		default:
			return pattern{}, &patternError{s, fmt.Sprintf("has %q at byte %d", c, i), "use lower-case letters, digits, '-', '.', '*' and '?' only"}
		}
	}
	if dots > 1 {
		return pattern{}, &patternError{s, fmt.Sprintf("has %d dots", dots), `an instance-type name has one ("c7i.*large"), a family none ("c7i")`}
	}
	return pattern{
		text:     s,
		fullName: dots == 1,
		any:      dots == 0 && strings.Trim(s, "*") == "",
	}, nil
}

// subject returns what p is matched against for a type with this name and
// family.
func (p pattern) subject(name, family string) string {
	if p.fullName {
		return name
	}
	return family
}

// globMatch reports whether s matches pattern, in which '*' stands for any
// run of bytes, including none, and '?' for exactly one byte; every other
// byte stands for itself. It runs in O(len(pattern)·len(s)) time without
// allocating: on a mismatch it retries the most recent star one byte further
// on, which is enough because an earlier star can never do better than a
// later one.
func globMatch(pattern, s string) bool {
	p, i := 0, 0
	star, restart := -1, 0 // position of the last '*' and where its run ends
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, restart = p, i
			p++
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case star >= 0:
			restart++
			p, i = star+1, restart
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
