package systemd

import (
	"fmt"
	"strings"
)

// Directive is one KEY=VALUE assignment of a unit file, in its section.
type Directive struct {
	Section string // without brackets, e.g. "Service"
	Key     string
	Value   string // continuation lines joined by a space
	Line    int    // 1-based line of the key in the file
}

// ParseUnit reads a unit file or drop-in as systemd's config parser does
// (src/shared/conf-parser.c config_parse): "#" and ";" start comment
// lines, "[Section]" opens a section, KEY=VALUE assigns with whitespace
// around both trimmed, and a line ending in a backslash continues on the
// next, the backslash becoming a space. systemd ignores, with a warning,
// a line that is none of these or an assignment before any section; here
// that is an error, because a caller cannot tell what its author meant.
func ParseUnit(text string) ([]Directive, error) {
	var out []Directive
	section := ""
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		start := i
		line := strings.TrimRight(lines[i], "\r")
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			next := strings.TrimRight(lines[i], "\r")
			if t := strings.TrimLeft(next, whitespace); strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") {
				continue // comment lines inside a continuation are skipped
			}
			line = strings.TrimSuffix(line, "\\") + " " + next
		}
		line = strings.Trim(line, whitespace)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			if !strings.HasSuffix(line, "]") || len(line) < 3 {
				return nil, fmt.Errorf("line %d: %q is not a section header", start+1, line)
			}
			section = line[1 : len(line)-1]
		default:
			key, value, found := strings.Cut(line, "=")
			key = strings.Trim(key, whitespace)
			if !found || key == "" {
				return nil, fmt.Errorf("line %d: %q is not KEY=VALUE", start+1, line)
			}
			if section == "" {
				return nil, fmt.Errorf("line %d: %s= is outside any section", start+1, key)
			}
			out = append(out, Directive{Section: section, Key: key, Value: strings.Trim(value, whitespace), Line: start + 1})
		}
	}
	return out, nil
}
