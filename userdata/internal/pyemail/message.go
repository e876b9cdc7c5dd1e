package pyemail

import (
	"regexp"
	"strings"
	"unicode"
)

// Get returns the value of the first field named name, compared ignoring
// case, as Message.get does.
func (m *Message) Get(name string) (string, bool) {
	for _, f := range m.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value, true
		}
	}
	return "", false
}

// ContentType is get_content_type: the Content-Type's media type in lower
// case, the default type (text/plain; message/rfc822 in a
// multipart/digest) when there is no Content-Type, and text/plain when the
// value is not one type and one subtype.
func (m *Message) ContentType() string {
	v, ok := m.Get("content-type")
	if !ok {
		return m.defaultType
	}
	ctype, _, _ := strings.Cut(v, ";")
	ctype = strings.ToLower(pyStrip(ctype))
	if strings.Count(ctype, "/") != 1 {
		return "text/plain"
	}
	return ctype
}

// pyStrip is str.strip() without arguments: Python's whitespace, which
// includes the separators U+001C to U+001F that Go's does not.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f })
}

// Param is get_param(name, header=header): the first parameter of the
// field whose name matches ignoring case, unquoted. unmodelled is set
// when the field has RFC 2231 parameters (name*=, name*0=), whose decoding
// is not followed.
func (m *Message) Param(header, name string) (value string, ok, unmodelled bool) {
	v, has := m.Get(header)
	if !has {
		return "", false, false
	}
	params := parseParams(v)
	for _, p := range params[1:] {
		if rfc2231.MatchString(p.name) {
			return "", false, true
		}
	}
	for _, p := range params {
		if strings.EqualFold(p.name, name) {
			return unquote(p.value), true, false
		}
	}
	return "", false, false
}

// rfc2231 is email.utils' rfc2231_continuation.
var rfc2231 = regexp.MustCompile(`^[A-Za-z0-9_]+\*(?:[0-9]+\*?)?$`)

type param struct{ name, value string }

// parseParams is Message._get_params_preserve over _parseparam, with
// utils.decode_params's unquote of every value but the first (and its
// quote, which Param's unquote undoes).
func parseParams(v string) []param {
	var out []param
	for i, f := range splitParams(v) {
		name, value, found := strings.Cut(f, "=")
		if found {
			name, value = pyStrip(name), pyStrip(value)
		} else {
			name, value = pyStrip(f), ""
		}
		if i > 0 {
			value = `"` + quote(unquote(value)) + `"`
		}
		out = append(out, param{name, value})
	}
	return out
}

// splitParams is _parseparam: the value cut at ';' outside double quotes
// (a quote escaped with '\' does not count), each name lower-cased and
// stripped around '='.
func splitParams(s string) []string {
	s = ";" + s
	var out []string
	for strings.HasPrefix(s, ";") {
		s = s[1:]
		end := strings.IndexByte(s, ';')
		for end > 0 && (strings.Count(s[:end], `"`)-strings.Count(s[:end], `\"`))%2 != 0 {
			next := strings.IndexByte(s[end+1:], ';')
			if next < 0 {
				end = -1
				break
			}
			end += 1 + next
		}
		if end < 0 {
			end = len(s)
		}
		f := s[:end]
		if i := strings.IndexByte(f, '='); i >= 0 {
			f = strings.ToLower(pyStrip(f[:i])) + "=" + pyStrip(f[i+1:])
		}
		out = append(out, pyStrip(f))
		s = s[end:]
	}
	return out
}

// unquote is email.utils.unquote.
func unquote(s string) string {
	if len(s) > 1 {
		if strings.HasPrefix(s, `"`) && strings.HasSuffix(s, `"`) {
			return strings.ReplaceAll(strings.ReplaceAll(s[1:len(s)-1], `\\`, `\`), `\"`, `"`)
		}
		if strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">") {
			return s[1 : len(s)-1]
		}
	}
	return s
}

// quote is email.utils.quote.
func quote(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`)
}

// Boundary is get_boundary: the boundary parameter, unquoted once more
// (collapse_rfc2231_value), without trailing whitespace.
func (m *Message) Boundary() (string, bool) {
	b, ok, unmodelled := m.Param("content-type", "boundary")
	if !ok || unmodelled {
		return "", false
	}
	return strings.TrimRightFunc(unquote(b), func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }), true
}

// Filename is get_filename: Content-Disposition's filename parameter,
// else Content-Type's name, unquoted once more and stripped.
func (m *Message) Filename() (name string, unmodelled bool) {
	v, ok, un := m.Param("content-disposition", "filename")
	if !ok && !un {
		v, ok, un = m.Param("content-type", "name")
	}
	if un || !ok {
		return "", un
	}
	return pyStrip(unquote(v)), false
}
