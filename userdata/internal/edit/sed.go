package edit

import (
	"fmt"
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
		s = strings.TrimLeft(s[1:], " \t")
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
		text = strings.Join(lines, "\n")
		if strings.Contains(text, "\\") {
			return "", "", fmt.Errorf("escape sequences in the text of a, i or c are not followed (%q)", text)
		}
		if text == "" {
			return "", "", fmt.Errorf("a, i or c without text")
		}
		return text, after, nil
	}
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
// when the expression is not a plain string.
func matches(re, line string) (bool, bool) {
	text, start, end, ok := literal(re)
	switch {
	case !ok:
		return false, false
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
	text, start, end, ok := literal(c.Pattern)
	if !ok || text == "" || strings.ContainsAny(c.Replacement, "&\\") || start || end {
		return "", false
	}
	if strings.Contains(c.Flags, "g") {
		return strings.ReplaceAll(line, text, c.Replacement), true
	}
	return strings.Replace(line, text, c.Replacement, 1), true
}
