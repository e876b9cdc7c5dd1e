package userdata

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file emulates the parts of systemd that stand between bootstrap.sh
// (or nodeadm) and the kubelet's argv: the Environment= line of a unit
// drop-in, the EnvironmentFile= format, and the splitting of an unbraced
// $VAR in ExecStart=. It follows current systemd (extract_first_word,
// cunescape_one, parse_env_file); older releases differ only on input this
// package reports as a hazard anyway.

const systemdWhitespace = " \t\n\r"

var errSystemdSyntax = errors.New("systemd cannot parse this")

// systemdSplit splits s into words the way extract_first_word does with
// EXTRACT_UNQUOTE: whitespace separates words, single and double quotes
// group and are removed, and a backslash escapes the next character. With
// cunescape, backslash sequences are C escapes (EXTRACT_CUNESCAPE) and an
// unknown one is an error; without it the escaped character is kept as is.
// With relax, an unterminated quote or a trailing backslash ends the word
// instead of being an error (EXTRACT_RELAX).
func systemdSplit(s string, cunescape, relax bool) ([]string, error) {
	var words []string
	i := 0
	for {
		for i < len(s) && strings.IndexByte(systemdWhitespace, s[i]) >= 0 {
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
					return nil, errSystemdSyntax
				}
				break
			}
			c := s[i]
			switch {
			case c == '\\':
				i++
				if i >= len(s) {
					if !relax {
						return nil, errSystemdSyntax
					}
					break word
				}
				if cunescape {
					r, n, ok := cunescapeOne(s[i:])
					if !ok {
						return nil, errSystemdSyntax
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
			case strings.IndexByte(systemdWhitespace, c) >= 0:
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

// systemdEnvironment parses the value of an Environment= line and returns
// the assignments it makes. ok is false when systemd ignores the whole line
// (a syntax error). A '%' specifier other than "%%" makes the result
// version-dependent, reported through specifier.
func systemdEnvironment(rvalue string) (env map[string]string, specifier, ok bool) {
	words, err := systemdSplit(rvalue, true, false)
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
		if !found || !validEnvName(name) {
			continue // systemd logs "Invalid environment assignment, ignoring"
		}
		env[name] = value
	}
	return env, specifier, true
}

func validEnvName(s string) bool {
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

// envFileValue reads the value of one KEY=value line of an EnvironmentFile
// the way parse_env_file does: quotes are special only at the start of the
// value (or right after a closing quote), a backslash outside quotes escapes
// the next character, and an unquoted value ends at the newline with
// trailing whitespace removed.
func envFileValue(s string) string {
	const (
		preValue = iota
		value
		single
		double
	)
	var b strings.Builder
	state := preValue
	trailing := 0 // trailing whitespace bytes written in the unquoted state
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch state {
		case preValue:
			switch {
			case c == '\n':
				return b.String()
			case strings.IndexByte(" \t", c) >= 0:
			case c == '\'':
				state = single
			case c == '"':
				state = double
			case c == '\\':
				i++
				if i < len(s) && s[i] != '\n' {
					b.WriteByte(s[i])
				}
				state = value
			default:
				b.WriteByte(c)
				state = value
			}
		case value:
			switch {
			case c == '\n':
				return b.String()[:b.Len()-trailing]
			case c == '\\':
				i++
				trailing = 0
				if i < len(s) && s[i] != '\n' {
					b.WriteByte(s[i])
				}
			default:
				if c == ' ' || c == '\t' {
					trailing++
				} else {
					trailing = 0
				}
				b.WriteByte(c)
			}
		case single:
			if c == '\'' {
				state = preValue
			} else {
				b.WriteByte(c)
			}
		case double:
			switch {
			case c == '"':
				state = preValue
			case c == '\\' && i+1 < len(s):
				i++
				switch s[i] {
				case '"', '\\', '`', '$':
					b.WriteByte(s[i])
				case '\n':
				default:
					b.WriteByte('\\')
					b.WriteByte(s[i])
				}
			default:
				b.WriteByte(c)
			}
		}
	}
	if state == value {
		return b.String()[:b.Len()-trailing]
	}
	return b.String()
}

// windowsArgv splits a command line the way Go programs on Windows (the
// kubelet among them) build os.Args: spaces and tabs separate arguments,
// double quotes group and are removed, "" inside quotes is a literal quote,
// and backslashes are literal except before a double quote, where 2n
// backslashes give n and 2n+1 give n and a literal quote.
func windowsArgv(cmd string) []string {
	var args []string
	for len(cmd) > 0 {
		if cmd[0] == ' ' || cmd[0] == '\t' {
			cmd = cmd[1:]
			continue
		}
		var arg []byte
		inQuote := false
		slashes := 0
		i := 0
	scan:
		for ; i < len(cmd); i++ {
			c := cmd[i]
			switch c {
			case ' ', '\t':
				if !inQuote {
					break scan
				}
			case '"':
				arg = append(arg, strings.Repeat(`\`, slashes/2)...)
				if slashes%2 == 0 {
					if inQuote && i+1 < len(cmd) && cmd[i+1] == '"' {
						arg = append(arg, '"')
						i++
					}
					inQuote = !inQuote
				} else {
					arg = append(arg, '"')
				}
				slashes = 0
				continue
			case '\\':
				slashes++
				continue
			}
			arg = append(arg, strings.Repeat(`\`, slashes)...)
			slashes = 0
			arg = append(arg, c)
		}
		arg = append(arg, strings.Repeat(`\`, slashes)...)
		args = append(args, string(arg))
		cmd = cmd[i:]
	}
	return args
}
