package systemd

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

const whitespace = " \t\n\r"

// ErrSyntax is returned for text systemd refuses to parse.
var ErrSyntax = errors.New("systemd: cannot parse this")

// Split splits s into words the way extract_first_word does with
// EXTRACT_UNQUOTE: whitespace separates words, single and double quotes
// group and are removed, and a backslash escapes the next character. With
// cunescape, backslash sequences are C escapes (EXTRACT_CUNESCAPE) and an
// unknown one is an error; without it the escaped character is kept as is.
// With relax, an unterminated quote or a trailing backslash ends the word
// instead of being an error (EXTRACT_RELAX).
func Split(s string, cunescape, relax bool) ([]string, error) {
	var words []string
	i := 0
	for {
		for i < len(s) && strings.IndexByte(whitespace, s[i]) >= 0 {
			i++
		}
		if i >= len(s) {
			return words, nil
		}
		var w strings.Builder
		var quote byte
	word:
		for {
			if i >= len(s) {
				if quote != 0 && !relax {
					return nil, ErrSyntax
				}
				break
			}
			c := s[i]
			switch {
			case c == '\\':
				i++
				if i >= len(s) {
					if !relax {
						return nil, ErrSyntax
					}
					break word
				}
				if cunescape {
					r, n, ok := cunescapeOne(s[i:])
					if !ok {
						return nil, ErrSyntax
					}
					w.WriteRune(r)
					i += n
				} else {
					w.WriteByte(s[i])
					i++
				}
			case quote != 0:
				if c == quote {
					quote = 0
				} else {
					w.WriteByte(c)
				}
				i++
			case c == '\'' || c == '"':
				quote = c
				i++
			case strings.IndexByte(whitespace, c) >= 0:
				break word
			default:
				w.WriteByte(c)
				i++
			}
		}
		words = append(words, w.String())
	}
}

// cunescapeOne decodes one C escape (the text after the backslash) as
// systemd's cunescape_one does, returning the rune and the bytes consumed.
func cunescapeOne(s string) (rune, int, bool) {
	simple := map[byte]rune{'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v', '\\': '\\', '"': '"', '\'': '\'', 's': ' '}
	if r, ok := simple[s[0]]; ok {
		return r, 1, true
	}
	hex := func(n int) (rune, int, bool) {
		if len(s) < 1+n {
			return 0, 0, false
		}
		v, err := strconv.ParseUint(s[1:1+n], 16, 32)
		if err != nil || v == 0 || !utf8.ValidRune(rune(v)) {
			return 0, 0, false
		}
		return rune(v), 1 + n, true
	}
	switch s[0] {
	case 'x':
		return hex(2)
	case 'u':
		return hex(4)
	case 'U':
		return hex(8)
	}
	if s[0] >= '0' && s[0] <= '7' {
		if len(s) < 3 {
			return 0, 0, false
		}
		v, err := strconv.ParseUint(s[:3], 8, 32)
		if err != nil || v == 0 || v > 255 {
			return 0, 0, false
		}
		return rune(v), 3, true
	}
	return 0, 0, false
}

// Environment parses the value of an Environment= line and returns
// the assignments it makes. ok is false when systemd ignores the whole line
// (a syntax error). A '%' specifier other than "%%" makes the result
// version-dependent, reported through specifier.
func Environment(rvalue string) (env map[string]string, specifier, ok bool) {
	words, err := Split(rvalue, true, false)
	if err != nil {
		return nil, false, false
	}
	env = map[string]string{}
	for _, w := range words {
		if strings.Contains(strings.ReplaceAll(w, "%%", ""), "%") {
			specifier = true
		}
		w = strings.ReplaceAll(w, "%%", "%")
		name, value, found := strings.Cut(w, "=")
		if !found || !ValidEnvName(name) {
			continue // systemd logs "Invalid environment assignment, ignoring"
		}
		env[name] = value
	}
	return env, specifier, true
}

// ValidEnvName reports whether s is a valid environment variable name
// (letters, digits and '_', not starting with a digit).
func ValidEnvName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '_' {
			return false
		}
	}
	return true
}

// EnvFileValue reads the value of one KEY=value line of an EnvironmentFile
// the way parse_env_file does: quotes are special only at the start of the
// value (or right after a closing quote), a backslash outside quotes escapes
// the next character, and an unquoted value ends at the newline with
// trailing whitespace removed.
func EnvFileValue(s string) string {
	r := envReader{s: s}
	for r.i < len(r.s) && !r.done {
		envStates[r.state](&r, r.s[r.i])
		r.i++
	}
	out := r.b.String()
	if r.state == stateValue || r.done {
		out = out[:len(out)-r.trailing]
	}
	return out
}

// The states of parse_env_file's value reader.
const (
	statePreValue = iota
	stateValue
	stateSingle
	stateDouble
)

type envReader struct {
	s        string
	i        int
	b        strings.Builder
	state    int
	trailing int  // trailing whitespace bytes written in the unquoted state
	done     bool // the value ended at a newline
}

// escaped writes the character after a backslash (a backslash-newline is
// a line continuation and writes nothing).
func (r *envReader) escaped() {
	r.i++
	if r.i < len(r.s) && r.s[r.i] != '\n' {
		r.b.WriteByte(r.s[r.i])
	}
}

// envStates are the readers of each state, indexed by the constants.
var envStates = [...]func(*envReader, byte){
	statePreValue: (*envReader).preValue,
	stateValue:    (*envReader).value,
	stateSingle:   (*envReader).single,
	stateDouble:   (*envReader).double,
}

func (r *envReader) preValue(c byte) {
	switch {
	case c == '\n':
		r.done = true
	case c == ' ' || c == '\t':
	case c == '\'':
		r.state = stateSingle
	case c == '"':
		r.state = stateDouble
	case c == '\\':
		r.escaped()
		r.state = stateValue
	default:
		r.b.WriteByte(c)
		r.state = stateValue
	}
}

func (r *envReader) value(c byte) {
	switch {
	case c == '\n':
		r.done = true
	case c == '\\':
		r.escaped()
		r.trailing = 0
	default:
		if c == ' ' || c == '\t' {
			r.trailing++
		} else {
			r.trailing = 0
		}
		r.b.WriteByte(c)
	}
}

func (r *envReader) single(c byte) {
	if c == '\'' {
		r.state = statePreValue
		return
	}
	r.b.WriteByte(c)
}

func (r *envReader) double(c byte) {
	switch {
	case c == '"':
		r.state = statePreValue
	case c == '\\' && r.i+1 < len(r.s):
		r.i++
		switch r.s[r.i] {
		case '"', '\\', '`', '$':
			r.b.WriteByte(r.s[r.i])
		case '\n':
		default:
			r.b.WriteByte('\\')
			r.b.WriteByte(r.s[r.i])
		}
	default:
		r.b.WriteByte(c)
	}
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
