package edit

import (
	"fmt"
	"regexp"
	"strings"
)

// SedCommand is one command of a sed script.
type SedCommand struct {
	// Address is the regular expression of a /REGEX/ address, "" when the
	// command has none (it applies to every line).
	Address string
	// Name is the command: 'a' (append text after the line), 'i' (insert
	// it before), 'c' (replace the line by it) or 's' (substitute).
	Name byte
	// Text is the text of a, i and c, without its final newline.
	Text string
	// Pattern, Replacement and Flags are an s command's parts.
	Pattern, Replacement, Flags string
}

// Sed is a parsed sed script.
type Sed []SedCommand

// ParseSed reads a sed script (several -e scripts are joined by
// newlines, as sed joins them). An error says which command is not
// followed.
func ParseSed(script string) (Sed, error) {
	var out Sed
	rest := script
	for {
		rest = strings.TrimLeft(rest, " \t\n;")
		if rest == "" {
			return out, nil
		}
		var c SedCommand
		var err error
		c, rest, err = parseSedCommand(rest)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
}

func parseSedCommand(s string) (SedCommand, string, error) {
	var c SedCommand
	if strings.HasPrefix(s, "/") {
		end := delimited(s, 1, '/')
		if end < 0 {
			return c, "", fmt.Errorf("unterminated address %q", s)
		}
		c.Address = unescapeDelim(s[1:end], '/')
		s = strings.TrimLeft(s[end+1:], " \t")
	} else if s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == '$' || s[0] == '\\') {
		return c, "", fmt.Errorf("line-number and custom-delimiter addresses are not followed (%q)", firstLine(s))
	}
	if s == "" {
		return c, "", fmt.Errorf("an address without a command")
	}
	c.Name = s[0]
	switch c.Name {
	case 'a', 'i', 'c':
		text, rest, err := sedText(s[1:])
		c.Text = text
		return c, rest, err
	case 's':
		return parseSubstitute(c, s[1:])
	}
	return c, "", fmt.Errorf("sed command %q is not followed", string(c.Name))
}

// sedText reads the text of a, i or c: GNU's one-line form "a TEXT", or
// "a\" and the text on the following lines, each but the last ending in a
// backslash. Escapes inside the text are not followed.
func sedText(s string) (text, rest string, err error) {
	s = strings.TrimLeft(s, " \t")
	if strings.HasPrefix(s, "\\\n") {
		s = s[2:]
	} else if strings.HasPrefix(s, "\\") {
		// "a\  text": the text keeps its leading blanks (GNU sed 4.9; older
		// releases may trim them, which changes no file Lint follows: JSON
		// and shell assignments ignore them).
		s = s[1:]
	}
	var lines []string
	for {
		line, after, more := strings.Cut(s, "\n")
		if strings.HasSuffix(line, "\\") && more {
			lines = append(lines, strings.TrimSuffix(line, "\\"))
			s = after
			continue
		}
		lines = append(lines, line)
		text, err = unescapeText(strings.Join(lines, "\n"))
		if err != nil {
			return "", "", err
		}
		if text == "" {
			return "", "", fmt.Errorf("a, i or c without text")
		}
		return text, after, nil
	}
}

// unescapeText removes the backslash before a character of the text of a,
// i or c that is not a letter or digit, which then stands for itself (GNU
// sed: "a \ \ text" keeps its leading spaces); a backslash before a letter
// or digit is one of GNU's escape sequences (\t, \n, \o...), which are not
// followed.
func unescapeText(text string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(text) || isAlnumByte(text[i+1]) {
			return "", fmt.Errorf("escape sequences in the text of a, i or c are not followed (%q)", text)
		}
		i++
		b.WriteByte(text[i])
	}
	return b.String(), nil
}

func isAlnumByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func parseSubstitute(c SedCommand, s string) (SedCommand, string, error) {
	if s == "" || s[0] == '\\' || s[0] == '\n' {
		return c, "", fmt.Errorf("s without a delimiter")
	}
	d := s[0]
	p := delimited(s, 1, d)
	if p < 0 {
		return c, "", fmt.Errorf("unterminated s command %q", firstLine(s))
	}
	r := delimited(s, p+1, d)
	if r < 0 {
		return c, "", fmt.Errorf("unterminated s command %q", firstLine(s))
	}
	c.Pattern = unescapeDelim(s[1:p], d)
	c.Replacement = unescapeDelim(s[p+1:r], d)
	rest := s[r+1:]
	i := 0
	for i < len(rest) && rest[i] != ';' && rest[i] != '\n' && rest[i] != ' ' && rest[i] != '}' {
		i++
	}
	c.Flags = rest[:i]
	for _, f := range c.Flags {
		if f != 'g' {
			return c, "", fmt.Errorf("s flag %q is not followed", string(f))
		}
	}
	return c, rest[i:], nil
}

// delimited returns the index of the first unescaped d at or after i.
func delimited(s string, i int, d byte) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\n':
			return -1
		case d:
			return i
		}
	}
	return -1
}

// unescapeDelim removes the backslash before an escaped delimiter, which
// then stands for itself.
func unescapeDelim(s string, d byte) string {
	if d == '\\' {
		return s
	}
	return strings.ReplaceAll(s, "\\"+string(d), string(d))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// literal returns the text a basic regular expression matches when it is
// a plain string, with whether it is anchored at the start and at the
// end of a line; ok is false for anything else.
func literal(re string) (text string, start, end, ok bool) {
	start = strings.HasPrefix(re, "^")
	re = strings.TrimPrefix(re, "^")
	if strings.HasSuffix(re, "$") && !strings.HasSuffix(re, "\\$") {
		end, re = true, strings.TrimSuffix(re, "$")
	}
	if strings.ContainsAny(re, ".[]*\\^$") {
		return "", false, false, false
	}
	return re, start, end, true
}

// Apply runs the script over text as sed does, line by line. It reports
// false when a pattern or address is not a plain string (see
// [ParseSed]), or a replacement uses & or \N.
func (s Sed) Apply(text string) (string, bool) {
	trailing := strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	var out []string
	for _, line := range lines {
		before, after, cur, deleted, ok := s.applyLine(line)
		if !ok {
			return "", false
		}
		out = append(out, before...)
		if !deleted {
			out = append(out, cur)
		}
		out = append(out, after...)
	}
	result := strings.Join(out, "\n")
	if trailing {
		result += "\n"
	}
	return result, true
}

func (s Sed) applyLine(line string) (before, after []string, cur string, deleted, ok bool) {
	cur = line
	for _, c := range s {
		if c.Address != "" {
			m, ok := matches(c.Address, cur)
			if !ok {
				return nil, nil, "", false, false
			}
			if !m {
				continue
			}
		}
		switch c.Name {
		case 'a':
			after = append(after, c.Text)
		case 'i':
			before = append(before, c.Text)
		case 'c':
			before = append(before, c.Text)
			return before, after, cur, true, true
		case 's':
			next, ok := substitute(c, cur)
			if !ok {
				return nil, nil, "", false, false
			}
			cur = next
		}
	}
	return before, after, cur, false, true
}

// matches reports whether a /REGEX/ address selects line; ok is false
// when the expression is not one [basicRegexp] reads.
func matches(re, line string) (bool, bool) {
	text, start, end, ok := literal(re)
	switch {
	case !ok:
		rx, ok := basicRegexp(re)
		if !ok {
			return false, false
		}
		return rx.MatchString(line), true
	case start && end:
		return line == text, true
	case start:
		return strings.HasPrefix(line, text), true
	case end:
		return strings.HasSuffix(line, text), true
	}
	return strings.Contains(line, text), true
}

func substitute(c SedCommand, line string) (string, bool) {
	if strings.ContainsAny(c.Replacement, "&\\") {
		return "", false
	}
	text, start, end, ok := literal(c.Pattern)
	if !ok || start || end {
		rx, ok := basicRegexp(c.Pattern)
		if !ok {
			return "", false
		}
		n := 1
		if strings.Contains(c.Flags, "g") {
			n = -1
		}
		return replaceN(rx, line, c.Replacement, n), true
	}
	if text == "" {
		return "", false
	}
	if strings.Contains(c.Flags, "g") {
		return strings.ReplaceAll(line, text, c.Replacement), true
	}
	return strings.Replace(line, text, c.Replacement, 1), true
}

// basicRegexp reads a POSIX basic regular expression made of literal
// characters, '.', bracket expressions, '*' after any of them, and '^'
// and '$' anchors, with a backslash making a special character literal;
// ok is false for anything else (groups, intervals, GNU's \+ \? \|, back
// references), which is not followed. Go's RE2 then matches it as sed
// does: leftmost-longest is not needed for addresses, and for s the
// leftmost match of these expressions is the same.
func basicRegexp(re string) (*regexp.Regexp, bool) {
	var b strings.Builder
	for i := 0; i < len(re); i++ {
		c := re[i]
		switch {
		case c == '^' && i == 0, c == '$' && i == len(re)-1, c == '.', c == '*' && i > 0:
			b.WriteByte(c)
		case c == '[':
			end := strings.IndexByte(re[i+1:], ']')
			if end < 0 {
				return nil, false
			}
			b.WriteString(re[i : i+end+2])
			i += end + 1
		case c == '\\':
			if i+1 >= len(re) || isAlnumByte(re[i+1]) || strings.IndexByte("(){}+?|", re[i+1]) >= 0 {
				return nil, false
			}
			i++
			b.WriteString(regexp.QuoteMeta(re[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(re[i : i+1]))
		}
	}
	rx, err := regexp.Compile(b.String())
	return rx, err == nil
}

// replaceN replaces the first n matches of rx in s (all when n < 0) by
// repl, taken literally.
func replaceN(rx *regexp.Regexp, s, repl string, n int) string {
	var b strings.Builder
	last := 0
	for _, m := range rx.FindAllStringIndex(s, n) {
		b.WriteString(s[last:m[0]])
		b.WriteString(repl)
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
