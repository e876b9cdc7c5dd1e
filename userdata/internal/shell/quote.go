package shell

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/ec2select/ec2select/internal/validation"
)

// Quote is the only place ec2select turns a string into a bash
// word. The word is s between single quotes, with each ' written as '\”
// (close the quotes, an escaped quote, reopen). Inside single quotes bash
// gives no character a special meaning, so the word is s, byte for byte.
// NUL cannot be passed in an argument and invalid UTF-8 cannot be parsed
// reliably, so both are errors. So are the other control characters except
// tab and newline: no bootstrap argument needs them, and the shell parser
// this package verifies scripts with reads U+0080, U+0081 and "\r\n"
// differently from bash.
func Quote(s string) (string, error) {
	if err := validation.ArgumentText(s); err != nil {
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
