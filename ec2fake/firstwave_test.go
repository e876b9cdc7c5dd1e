package ec2fake

import (
	"os"
	"testing"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// firstWaveCatalog returns the first-wave catalog (60 images, 194
// instance types) the generator builds on, recorded in
// catalog/upstream/first-wave-*.json. The Describe* semantics tests run
// on it rather than on DefaultCatalog, so that their expected counts and
// names stay put when the catalog grows.
func firstWaveCatalog(t testing.TB) ([]ec2types.Image, []ec2types.InstanceTypeInfo) {
	t.Helper()
	var images struct{ Images []ec2types.Image }
	var types struct{ InstanceTypes []ec2types.InstanceTypeInfo }
	for path, v := range map[string]any{
		"catalog/upstream/first-wave-images.json":         &images,
		"catalog/upstream/first-wave-instance-types.json": &types,
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		decodeUpstream(t, path, data, v)
	}
	return images.Images, types.InstanceTypes
}

// newFirstWave is a Backend loaded with the first-wave catalog.
func newFirstWave(t testing.TB, opts Options) *Backend {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return testNow }
	}
	b := New(opts)
	if err := b.Load(firstWaveCatalog(t)); err != nil {
		t.Fatalf("loading the first-wave catalog: %v", err)
	}
	return b
}
