package schema_test

import (
	"fmt"

	"github.com/ec2select/ec2select/internal/schema"
)

// A field the schema does not have is pruned and reported; a null is as
// if not written; defaults fill what is absent; then the schema and its
// rules are checked.
func Example() {
	s := &schema.Schema{Type: schema.Object, Properties: map[string]*schema.Schema{
		"weight": {Type: schema.Integer, Minimum: schema.Int(1), Maximum: schema.Int(100)},
		"mode":   {Type: schema.String, Enum: []string{"a", "b"}, Default: "a"},
		"name":   {Type: schema.String},
	}}
	doc := map[string]any{"weight": int64(500), "name": nil, "Mode": "b"}
	for _, e := range schema.Prune(doc, s) {
		fmt.Println(e.Path)
	}
	schema.PruneNulls(doc, s)
	schema.Default(doc, s)
	for _, e := range schema.Validate(doc, s, "") {
		fmt.Println(e)
	}
	fmt.Println(doc)
	// Output:
	// Mode
	// weight: 500 is above the CRD's maximum of 100
	// map[mode:a weight:500]
}
