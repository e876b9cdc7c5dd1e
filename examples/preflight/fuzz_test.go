package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Whatever the input, reading manifests never panics, and every finding
// names a place and a fix.
func FuzzReadManifests(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.yaml")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("kind: EC2NodeClass\napiVersion: karpenter.k8s.aws/v1\nmetadata: {name: a}\nspec: {amiFamily: Custom, amiSelectorTerms: [{id: ami-1}], kubelet: {evictionSoftGracePeriod: {memory.available: x}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := &findings{}
		readManifests([]input{{name: "in.yaml", data: data}}, out)
		for _, fd := range out.sorted() {
			if fd.Where == "" || fd.Fix == "" || fd.Message == "" {
				t.Fatalf("finding without a place, message or fix: %+v", fd)
			}
		}
	})
}

// -pod and -daemons: never a panic, and what parses is written back as
// the same amounts.
func FuzzParseResources(f *testing.F) {
	for _, s := range []string{defaultPod, "cpu=150m,memory=300Mi,pods=4", "ephemeral-storage=1e3", "cpu", "cpu=1,cpu=2", "memory=-1", "cpu=9223372036854775807"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, pods bool) {
		q, err := parseResources(s, pods)
		if err != nil {
			return
		}
		again, err := parseResources(formatResources(q, pods), pods)
		if err != nil || again != q {
			t.Fatalf("parseResources(%q) = %v, but its formatting %q reads as %v, %v", s, q, formatResources(q, pods), again, err)
		}
	})
}
