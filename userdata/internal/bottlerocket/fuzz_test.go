package bottlerocket

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseKey: ParseKey never panics, and a key written back with its
// dotted segments quoted parses to the same segments.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"kubernetes.max-pods", `kubernetes.node-labels."a.b"`, `a"b.c"d`, "a..b", `"`, "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		segs, err := ParseKey(s)
		if err != nil {
			return
		}
		var parts []string
		for _, seg := range segs {
			if seg == "" {
				t.Fatalf("ParseKey(%q) = %q: an empty segment", s, segs)
			}
			if strings.Contains(seg, ".") {
				seg = `"` + seg + `"`
			}
			parts = append(parts, seg)
		}
		again, err := ParseKey(strings.Join(parts, "."))
		if err != nil || !slices.Equal(again, segs) {
			t.Fatalf("ParseKey(%q) = %q; written back and parsed: %q, %v", s, segs, again, err)
		}
	})
}

// FuzzClassify: Classify never panics and always says why.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"apiclient set kubernetes.max-pods=1", "apiclient set -j {}", "echo hi", "apiclient raw -m", "apiclient -s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, why := Classify(strings.Fields(s))
		if e > CannotTell || why == "" {
			t.Fatalf("Classify(%q) = %v, %q", s, e, why)
		}
	})
}

// FuzzReadLines: ReadLines never panics and every line is in the document.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte("[settings.kubernetes]\nmax-pods = 1\n[[a.b]]\nc = { d = 1 }\n"))
	f.Add([]byte("a.\"b.c\" = 1\r\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		n := bytes.Count(text, []byte("\n")) + 1
		all := ReadLines(text, 0)
		for k, line := range all {
			if line < 1 || line > n {
				t.Fatalf("%s at line %d of %d", k, line, n)
			}
		}
		for k, line := range ReadLines(text, 2) {
			if all[k] != line {
				t.Fatalf("%s at line %d; the full index says %d", k, line, all[k])
			}
		}
	})
}

// FuzzSettings: reading user data and checking it against the model never
// panics, and Check and Steps are deterministic.
func FuzzSettings(f *testing.F) {
	f.Add([]byte("[settings.kubernetes]\nnode-taint = 1\n[settings.bootstrap-commands.a]\ncommands = [['echo']]\nmode = 'once'\n"))
	f.Add([]byte("[settings.host-containers]\nadmin = 1\n[[settings.container-registry.credentials]]\nx = 1\n"))
	f.Add([]byte("#!/bin/bash\necho hi\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		settings, err := ReadUserData(text)
		if err != nil {
			return
		}
		first, steps := Check(settings), Steps(settings)
		if diff := cmp.Diff(first, Check(settings)); diff != "" {
			t.Fatalf("Check is not deterministic:\n%s", diff)
		}
		if diff := cmp.Diff(steps, Steps(settings)); diff != "" {
			t.Fatalf("Steps is not deterministic:\n%s", diff)
		}
		for _, f := range first {
			if len(f.Path) < 2 || f.Path[0] != "settings" {
				t.Fatalf("finding %v", f)
			}
		}
	})
}
