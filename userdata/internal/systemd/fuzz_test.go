package systemd

import (
	"strings"
	"testing"
)

// FuzzSplit checks that the systemd parsers never panic, and that a word
// list without quotes, backslashes or whitespace inside the words splits
// back to itself.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{`'KUBELET_EXTRA_ARGS=--a "b c"'`, `A=\x41\n`, `"unterminated`, "a\\\nb", `%h%%`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, cunescape := range []bool{false, true} {
			_, _ = Split(s, cunescape, !cunescape)
		}
		_, _, _ = Environment(s)
		_ = EnvFileValue(s)
		words := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(whitespace, r) })
		if strings.ContainsAny(s, "'\"\\") || len(words) == 0 {
			return
		}
		got, err := Split(strings.Join(words, " "), false, true)
		if err != nil || strings.Join(got, "\x00") != strings.Join(words, "\x00") {
			t.Fatalf("Split(%q) = %q, %v; want %q", s, got, err, words)
		}
	})
}

// FuzzParseUnit: any text parses or fails without panicking, and every
// directive has a section, a key and a line.
func FuzzParseUnit(f *testing.F) {
	for _, s := range []string{"[Service]\nEnvironment='A=1'\n", "[Service]\nExecStart=/a \\\n b\n", "x\n[", "[Unit]\n#c\\\nA=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ds, err := ParseUnit(text)
		if err != nil {
			return
		}
		for _, d := range ds {
			if d.Section == "" || d.Key == "" || d.Line < 1 {
				t.Fatalf("ParseUnit(%q): directive %+v", text, d)
			}
		}
	})
}
