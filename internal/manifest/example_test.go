package manifest_test

import (
	"fmt"

	"github.com/ec2select/ec2select/internal/manifest"
)

// kubectl reads plain YAML 1.1 scalars as booleans, numbers and null, and
// keeps the last of a key written twice.
func ExampleToJSON() {
	j, err := manifest.ToJSON([]byte("labels: {enabled: yes, zone: 08}\nweight: 1\nweight: 2\n"))
	fmt.Println(string(j), err)
	// Output:
	// {"labels":{"enabled":true,"zone":8},"weight":2} <nil>
}

func ExampleMetadata() {
	m, errs := manifest.Metadata(map[string]any{"name": "default", "resourceVersion": "42"}, "metadata")
	errs = append(errs, m.ValidateCreate("metadata")...)
	for _, e := range errs {
		fmt.Println(e.Path)
	}
	// Output:
	// metadata.resourceVersion
}
