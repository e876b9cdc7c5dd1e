package userdata

import (
	"bytes"
)

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// lineAt returns the 1-based line number of byte offset off in src.
func lineAt(src []byte, off int) int {
	return bytes.Count(src[:min(off, len(src))], []byte("\n")) + 1
}
