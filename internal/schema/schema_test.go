package schema

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testSchema has one of each kind of node.
var testSchema = &Schema{
	Type:     Object,
	Required: []string{"spec"},
	Properties: map[string]*Schema{
		"apiVersion": {Type: String},
		"spec": {
			Type:     Object,
			Required: []string{"name"},
			Properties: map[string]*Schema{
				"name":   {Type: String, MinLength: 1, MaxLength: 5, Pattern: regexp.MustCompile(`^[a-z]+$`), Fix: "write lower-case letters"},
				"count":  {Type: Integer, Minimum: Int(1), Maximum: Int(10), Format: "int32"},
				"mode":   {Type: String, Enum: []string{"a", "b"}, Default: "a"},
				"limits": {Type: Object, MaxProperties: 2, Additional: &Schema{Type: IntOrString}},
				"tags":   {Type: Array, MaxItems: 3, Set: true, Items: &Schema{Type: String}},
				"on":     {Type: Boolean},
				"nested": {Type: Object, Default: map[string]any{"x": "1"}, Properties: map[string]*Schema{
					"x": {Type: String}, "y": {Type: String, Default: "2"},
				}},
			},
			Rules: []Rule{{CEL: "self.count != 7", Message: "count may not be 7", Fix: "use another",
				Holds: func(v any) bool { n, _ := AsInteger(v.(map[string]any)["count"]); return n != 7 }}},
		},
	},
}

func TestPrune(t *testing.T) {
	doc := map[string]any{
		"apiVersion": "v1", "kind": "K", "metadata": map[string]any{"whatever": true},
		"extra": 1,
		"spec":  map[string]any{"name": "a", "Name": "b", "tags": []any{map[string]any{"x": 1}}, "limits": map[string]any{"cpu": map[string]any{"z": 1}}},
	}
	var paths []string
	for _, e := range Prune(doc, testSchema) {
		paths = append(paths, e.Path)
	}
	// As apiextensions-apiserver's pruning/algorithm.go: apiVersion, kind
	// and metadata at the root are left alone; under a scalar's schema
	// every field is unknown.
	want := []string{"extra", "spec.Name", "spec.limits.cpu.z", "spec.tags[0].x"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("unknown fields (-want +got):\n%s", diff)
	}
	if _, ok := doc["extra"]; ok {
		t.Error("Prune left the unknown field in place")
	}
	if e := Prune(map[string]any{"spec": map[string]any{"Name": "a"}}, testSchema); !strings.Contains(e[0].Problem, "field names are case-sensitive, so write spec.name") {
		t.Errorf("Prune did not suggest the field: %v", e)
	}
}

// PruneNulls and Default follow apiextensions-apiserver's
// defaulting/prunenulls.go and defaulting/algorithm.go: a null without a
// default is as if not written, a null with one takes it, and defaulting
// descends into what it filled in.
func TestNullsAndDefaults(t *testing.T) {
	doc := map[string]any{"spec": map[string]any{"name": nil, "mode": nil, "tags": []any{nil}, "limits": map[string]any{"cpu": nil}}}
	PruneNulls(doc, testSchema)
	Default(doc, testSchema)
	want := map[string]any{"spec": map[string]any{"mode": "a", "tags": []any{nil}, "limits": map[string]any{}, "nested": map[string]any{"x": "1", "y": "2"}}}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		spec map[string]any
		want []string
	}{
		{"valid", map[string]any{"name": "ab", "count": int64(3), "limits": map[string]any{"cpu": "1", "mem": int64(2)}}, nil},
		{"integral float", map[string]any{"name": "ab", "count": float64(3)}, nil},
		{"missing", map[string]any{}, []string{"spec.name: is required and not set; write lower-case letters"}},
		{"wrong type", map[string]any{"name": true}, []string{`spec.name: true is a boolean, and the field takes a string; write lower-case letters; kubectl reads the plain YAML scalar as a boolean (YAML 1.1: yes, no, on, off, y, n, numbers and ~), so quote it: "..."`}},
		{"fraction", map[string]any{"name": "a", "count": 1.5}, []string{"spec.count: 1.5 is a number with a fraction, and the field takes an integer"}},
		{"too long", map[string]any{"name": "abcdef"}, []string{`spec.name: "abcdef" is 6 characters; the CRD allows at most 5; write lower-case letters`}},
		{"empty: one problem", map[string]any{"name": ""}, []string{`spec.name: "" is shorter than the CRD's minimum of 1 characters; write lower-case letters`}},
		{"pattern", map[string]any{"name": "A"}, []string{`spec.name: "A" does not match the CRD's pattern ^[a-z]+$; write lower-case letters`}},
		{"bounds", map[string]any{"name": "a", "count": int64(0)}, []string{"spec.count: 0 is below the CRD's minimum of 1"}},
		{"enum", map[string]any{"name": "a", "mode": "c"}, []string{`spec.mode: "c" is not one of "a", "b"`}},
		{"set", map[string]any{"name": "a", "tags": []any{"x", "x"}}, []string{`spec.tags[1]: "x" is listed twice; the list is a set, so keep one`}},
		{"items", map[string]any{"name": "a", "tags": []any{"a", "b", "c", "d"}}, []string{"spec.tags: has 4 items; the CRD allows at most 3"}},
		{"properties", map[string]any{"name": "a", "limits": map[string]any{"a": "1", "b": "1", "c": "1"}}, []string{"spec.limits: has 3 entries; the CRD allows at most 2"}},
		{"int or string", map[string]any{"name": "a", "limits": map[string]any{"a": true}}, []string{"spec.limits[a]: true is a boolean, and the field takes an integer or a string"}},
		{"rule", map[string]any{"name": "a", "count": int64(7)}, []string{"spec: count may not be 7 (rule self.count != 7); use another"}},
		// strategy.go hasBlockingErr: no rule runs while the object has a
		// type error (the rule would read count from a wrong type).
		{"rules wait for types", map[string]any{"name": int64(1), "count": int64(7)}, []string{"spec.name: 1 is an integer, and the field takes a string"}},
		// hasBlockingErr lists NotSupported, Required, TooLong, TooMany and
		// TypeInvalid only: a pattern (field.Invalid) or a bound lets the
		// rules run, and the API server reports both.
		{"rules beside a pattern", map[string]any{"name": "A", "count": int64(7)}, []string{`spec.name: "A" does not match the CRD's pattern ^[a-z]+$; write lower-case letters`, "spec: count may not be 7 (rule self.count != 7); use another"}},
		{"rules wait for an enum", map[string]any{"name": "a", "count": int64(7), "mode": "c"}, []string{`spec.mode: "c" is not one of "a", "b"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(map[string]any{"spec": tt.spec}, testSchema, "") {
				got = append(got, e.Error())
			}
			if len(tt.want) > 0 && len(got) > 0 { // the YAML hint is long; compare its start
				for i := range got {
					if i < len(tt.want) && strings.HasPrefix(got[i], tt.want[i]) {
						got[i] = tt.want[i]
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestEqual(t *testing.T) {
	for _, tt := range []struct {
		a, b any
		want bool
	}{
		{int64(1), 1.0, true}, {1.0, int64(1), true}, {"a", "a", true}, {"a", int64(1), false},
		{[]any{"a"}, []any{"a"}, true}, {[]any{"a"}, []any{"b"}, false},
		{map[string]any{"a": int64(1)}, map[string]any{"a": 1.0}, true}, {map[string]any{"a": 1.0}, map[string]any{"b": 1.0}, false},
		{map[string]any{}, []any{}, false},
	} {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%v, %v) = %v", tt.a, tt.b, got)
		}
	}
}
