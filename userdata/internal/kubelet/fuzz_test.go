package kubelet

import (
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
			if _, ok := lookupFlag(a.Name, ReleasesAL2); !ok {
				t.Fatalf("ParseArgs(%q) accepted --%s", args, a.Name)
			}
		}
	})
}
