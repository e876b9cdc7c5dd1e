package manifest

import (
	"strings"
	"testing"

	"github.com/ec2select/ec2select/internal/schema"
)

func problems(errs []schema.Error) string {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// Metadata and ValidateCreate refuse what the API server's create path
// refuses in an ObjectMeta (apiextensions-apiserver v0.35.3
// objectmeta/coerce.go GetObjectMetaWithOptions; apimachinery v0.35.3
// pkg/api/validation/objectmeta.go; apiserver etcd3/store.go L287-289),
// and the server-written fields ec2select refuses besides.
func TestMetadata(t *testing.T) {
	tests := []struct {
		name string
		meta any
		want string // "" for valid
	}{
		{"name", map[string]any{"name": "a"}, ""},
		{"no name", map[string]any{}, "metadata.name: is required"},
		{"bad name", map[string]any{"name": "A"}, "is not a DNS-1123 subdomain"},
		{"name not a string", map[string]any{"name": true}, "metadata.name: is a boolean"},
		{"unknown field", map[string]any{"name": "a", "colour": "x"}, "metadata.colour: is not a field of metadata"},
		{"field in the wrong case", map[string]any{"Name": "a"}, "metadata.Name: is not a field of metadata"},
		{"null label is empty", map[string]any{"name": "a", "labels": map[string]any{"a": nil}}, ""},
		{"bad label", map[string]any{"name": "a", "labels": map[string]any{"a": "-x"}}, `metadata.labels[a]: value "-x"`},
		{"label not a string", map[string]any{"name": "a", "labels": map[string]any{"a": int64(1)}}, "metadata.labels[a]: is a number"},
		{"annotation key", map[string]any{"name": "a", "annotations": map[string]any{"Example.com/X": "v"}}, ""},
		{"bad annotation key", map[string]any{"name": "a", "annotations": map[string]any{"a b": "v"}}, `metadata.annotations: key "a b"`},
		{"annotations too large", map[string]any{"name": "a", "annotations": map[string]any{"a": strings.Repeat("x", TotalAnnotationBytes)}}, "262145 bytes"},
		{"finalizer", map[string]any{"name": "a", "finalizers": []any{"foo", "example.com/x"}}, ""},
		{"bad finalizer", map[string]any{"name": "a", "finalizers": []any{"a b"}}, `metadata.finalizers[0]: "a b" is not a qualified name`},
		{"null finalizer", map[string]any{"name": "a", "finalizers": []any{nil}}, `metadata.finalizers[0]: "" is not a qualified name`},
		{"both deletion finalizers", map[string]any{"name": "a", "finalizers": []any{"orphan", "foregroundDeletion"}}, "cannot both be set"},
		{"namespace is cleared", map[string]any{"name": "a", "namespace": "default"}, ""},
		{"generateName", map[string]any{"name": "a", "generateName": "pool-"}, ""},
		{"bad generateName", map[string]any{"name": "a", "generateName": "Pool-"}, "metadata.generateName"},
		{"creationTimestamp", map[string]any{"name": "a", "creationTimestamp": "2026-03-02T10:15:00Z", "uid": "u", "generation": int64(-1)}, ""},
		{"bad creationTimestamp", map[string]any{"name": "a", "creationTimestamp": "yesterday"}, "is not an RFC 3339 time"},
		{"resourceVersion", map[string]any{"name": "a", "resourceVersion": "42"}, "metadata.resourceVersion: is set"},
		{"managedFields", map[string]any{"name": "a", "managedFields": []any{map[string]any{"manager": "kubectl"}}}, "metadata.managedFields: is written by the API server"},
		{"owner", map[string]any{"name": "a", "ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u"}}}, ""},
		{"owner without version", map[string]any{"name": "a", "ownerReferences": []any{map[string]any{"apiVersion": "a/b/c", "kind": "ConfigMap", "name": "c", "uid": "u"}}}, "has no version"},
		{"owner without uid", map[string]any{"name": "a", "ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "c"}}}, "needs a kind, a name and a uid"},
		{"event owner", map[string]any{"name": "a", "ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "Event", "name": "c", "uid": "u"}}}, "a v1 Event cannot be an owner"},
		{"not an object", "x", "metadata: is a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, errs := Metadata(tt.meta, "metadata")
			errs = append(errs, m.ValidateCreate("metadata")...)
			got := problems(errs)
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("problems %q; want %q", got, tt.want)
			}
		})
	}
	// A stored object carries what the server wrote; only the generation
	// must then be at least 0 (the create path sets it to 1).
	m, _ := Metadata(map[string]any{"name": "a", "resourceVersion": "42", "generation": int64(-1)}, "metadata")
	if got := problems(m.Validate("metadata")); got != "metadata.generation: -1 is negative" {
		t.Errorf("Validate of a stored object = %q", got)
	}
}
