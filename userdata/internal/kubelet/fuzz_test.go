package kubelet

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzParseArgs: any argv is read without a panic; either the kubelet
// exits at a word of argv, or every accepted flag is one the releases
// have, in argv order.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{"--max-pods=110 --node-labels a=b", "-v 2 -- x", "--cgroups-per-qos false", "-h", "--config-dir=/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Fields(s)
		flags, exit, _, bad := ParseArgs(args, ReleasesAL2)
		if exit != "" {
			if bad < 0 || bad >= len(args) || flags != nil {
				t.Fatalf("ParseArgs(%q): exit %q at %d with %v", args, exit, bad, flags)
			}
			return
		}
		for _, a := range flags {
			if in, unknown, _ := lookupFlag(a.Name, ReleasesAL2); in|unknown == 0 {
				t.Fatalf("ParseArgs(%q) accepted --%s", args, a.Name)
			}
		}
	})
}

// FuzzParseGates: any --feature-gates value is read without a panic, and
// what it reads, written back as name=bool entries, reads the same.
func FuzzParseGates(f *testing.F) {
	for _, s := range []string{"A=true,B=false", " A = 1 ,,", "A", "=true", "A=t,A=f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		gates, err := ParseGates(s)
		if err != nil {
			return
		}
		var entries []string
		for name, on := range gates {
			if strings.ContainsAny(name, ",=") || name != strings.TrimSpace(name) {
				t.Fatalf("ParseGates(%q) read the name %q", s, name)
			}
			entries = append(entries, fmt.Sprintf("%s=%v", name, on))
		}
		again, err := ParseGates(strings.Join(entries, ","))
		if err != nil || len(again) != len(gates) {
			t.Fatalf("ParseGates(%q) = %v; written back it reads %v, %v", s, gates, again, err)
		}
		for name, on := range gates {
			if again[name] != on {
				t.Fatalf("ParseGates(%q): %s=%v reads back as %v", s, name, on, again[name])
			}
		}
	})
}
