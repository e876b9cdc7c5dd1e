// Package nasty is a test helper: a rapid generator of strings rich in
// characters that mean something to one of the languages userdata writes,
// shared by the quoting tests of userdata and its shell and powershell
// packages. Only tests import it.
package nasty

import (
	"strings"

	"pgregory.net/rapid"
)

// pieces mean something to bash, systemd, PowerShell, YAML, TOML or MIME.
var pieces = []string{"'", `"`, `\`, "`", "$", "$(id)", "${x}", "\n", "\r", "\t", " ", ";", "&", "|", "<", ">", "%", "%%", "#", "!",
	"*", "?", "[", "]", "{", "}", "(", ")", "~", "=", ",", ":", "--", "\u2018", "\u2019", "\u201c", "\u201d", "\u2013",
	"'@", "@'", "\"@", "</powershell>", "<#", "#>", "\x00", "\x1b", "é", "--register-with-taints=x:NoExecute"}

// String draws any string, or one assembled from pieces and short
// ordinary words.
func String() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.String(),
		rapid.Custom(func(t *rapid.T) string {
			parts := rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom(pieces), rapid.StringMatching(`[a-z0-9.-]{0,6}`)), 0, 8).Draw(t, "parts")
			return strings.Join(parts, "")
		}),
	)
}
