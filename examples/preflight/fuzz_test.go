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
