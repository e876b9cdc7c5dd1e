package userdata

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// shellQuote is the only place this package turns a string into a bash
// word. The word is s between single quotes, with each ' written as '\”
// (close the quotes, an escaped quote, reopen). Inside single quotes bash
// gives no character a special meaning, so the word is s, byte for byte.
// NUL cannot be passed in an argument and invalid UTF-8 cannot be parsed
// reliably, so both are errors. So are the other control characters except
// tab and newline: no bootstrap argument needs them, and the shell parser
// this package verifies scripts with reads U+0080, U+0081 and "\r\n"
// differently from bash.
func shellQuote(s string) (string, error) {
	if err := checkText(s); err != nil {
		return "", err
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' && r != '\n' {
			return "", fmt.Errorf("%q contains the control character %U", s, r)
		}
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			b.WriteString(`'\''`)
			continue
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('\'')
	return b.String(), nil
}

// isPSSingleQuote reports whether PowerShell treats r as a single quote:
// the ASCII apostrophe and U+2018 to U+201B.
func isPSSingleQuote(r rune) bool {
	return r == '\'' || (r >= '\u2018' && r <= '\u201b')
}

// psQuote is the only place this package turns a string into a PowerShell
// argument: a verbatim (single-quoted) string, in which '$' and '`' are
// inert and a quote character is written twice. PowerShell counts the curly
// quotes U+2018 to U+201B as single quotes too, so they are doubled as well.
func psQuote(s string) (string, error) {
	if err := checkText(s); err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for _, r := range s {
		if isPSSingleQuote(r) {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String(), nil
}

func checkText(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%q is not valid UTF-8", s)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("%q contains a NUL byte, which no argument can carry", s)
	}
	return nil
}

func utf8Valid(b []byte) bool { return utf8.Valid(b) }
