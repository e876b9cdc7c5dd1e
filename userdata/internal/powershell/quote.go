package powershell

import (
	"strings"

	"github.com/ec2select/ec2select/internal/validation"
)

// isSingleQuote reports whether PowerShell treats r as a single quote:
// the ASCII apostrophe and U+2018 to U+201B.
func isSingleQuote(r rune) bool {
	return r == '\'' || (r >= '\u2018' && r <= '\u201b')
}

// Quote is the only place ec2select turns a string into a PowerShell
// argument: a verbatim (single-quoted) string, in which '$' and '`' are
// inert and a quote character is written twice. PowerShell counts the curly
// quotes U+2018 to U+201B as single quotes too, so they are doubled as well.
func Quote(s string) (string, error) {
	if err := validation.ArgumentText(s); err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for _, r := range s {
		if isSingleQuote(r) {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String(), nil
}
