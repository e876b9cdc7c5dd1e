package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ec2select/ec2select/examples/internal/cli"
)

// Whatever the input, reading manifests never panics, and an error is
// always bad input (exit status 2) naming the file.
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
		_, err := readManifests(splitDocuments("in.yaml", data))
		var ie *cli.InputError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("readManifests = %v, want an *cli.InputError", err)
		}
	})
}
