package edit

import "testing"

// FuzzParseSed: any script parses or fails without panicking, and a
// parsed one applies (or declines) without panicking.
func FuzzParseSed(f *testing.F) {
	for _, s := range []string{`/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=" --x"`, "s,a,b,g;s/c/d/", "/x/i\\\ny\\\nz", "/a$/c b"} {
		f.Add(s, "A=1\nKUBELET_EXTRA_ARGS=x\nb a\n")
	}
	f.Fuzz(func(t *testing.T, script, text string) {
		s, err := ParseSed(script)
		if err != nil {
			return
		}
		s.Apply(text)
	})
}

// FuzzParseJQ: any filter parses or fails without panicking, and every
// edit has a path.
func FuzzParseJQ(f *testing.F) {
	for _, s := range []string{`.registerWithTaints += [{key: "a", effect: "NoSchedule"}]`, `. += {"a": {"b": [1, "x", null]}} | del(.c)`, `.["a"].b = $x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, filter string) {
		edits, err := ParseJQ(filter, []string{"--arg", "x", "1"})
		if err != nil {
			return
		}
		for _, e := range edits {
			if len(e.Path) == 0 {
				t.Fatalf("ParseJQ(%q): an edit without a path", filter)
			}
		}
	})
}
