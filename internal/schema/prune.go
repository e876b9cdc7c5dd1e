package schema

import (
	"maps"
	"slices"
	"strings"
)

// rootMeta are the fields of a resource's root that pruning leaves alone:
// the API server reads them itself (apiextensions-apiserver v0.35.3,
// pkg/apiserver/schema/pruning/algorithm.go, metaFields).
var rootMeta = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// Prune removes from the resource obj every field s does not have, apart
// from apiVersion, kind and metadata at its root, and returns an error for
// each, sorted by path: kubectl's strict field validation refuses them. A
// field under a scalar's schema is unknown too; a value of the wrong type
// is left for [Validate] to report.
func Prune(obj map[string]any, s *Schema) []Error {
	var unknown []Error
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if rootMeta[k] {
			continue
		}
		unknown = prune(obj, k, s, "", unknown)
	}
	slices.SortFunc(unknown, func(a, b Error) int { return strings.Compare(a.Path, b.Path) })
	return unknown
}

// prune prunes field k of object m, whose schema is s.
func prune(m map[string]any, k string, s *Schema, path string, unknown []Error) []Error {
	child := s.child(k)
	p := Field(path, k)
	if child == nil {
		delete(m, k)
		problem := "is not a field of the CRD: kubectl apply refuses it (strict field validation, its default), and without that the API server drops it"
		for known := range s.Properties {
			if strings.EqualFold(known, k) {
				problem += "; field names are case-sensitive, so write " + Field(path, known)
			}
		}
		return append(unknown, Error{p, problem + "; remove it or correct its name"})
	}
	return pruneValue(m[k], child, p, unknown)
}

func pruneValue(v any, s *Schema, path string, unknown []Error) []Error {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			unknown = prune(v, k, s, path, unknown)
		}
	case []any:
		for i, e := range v {
			if s.Items == nil {
				// A list where the schema has none: its objects' fields
				// are all unknown, as the API server's pruning has them.
				unknown = pruneValue(e, &Schema{}, Index(path, i), unknown)
				continue
			}
			unknown = pruneValue(e, s.Items, Index(path, i), unknown)
		}
	}
	return unknown
}

// PruneNulls removes the null values of fields whose schema is not
// nullable (none here is) and has no default: to the API server they are
// as if not written. Nulls in lists stay, and fail validation.
func PruneNulls(v any, s *Schema) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			child := s.child(k)
			if v[k] == nil && child != nil && child.Default == nil {
				delete(v, k)
				continue
			}
			PruneNulls(v[k], child)
		}
	case []any:
		if s == nil {
			return
		}
		for _, e := range v {
			PruneNulls(e, s.Items)
		}
	}
}

// Default fills absent (or null) fields of v that have a default with a
// copy of it, and descends into what it filled in, as the API server does
// before validating.
func Default(v any, s *Schema) {
	if s == nil {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, p := range s.Properties {
			if p.Default == nil {
				continue
			}
			if cur, ok := v[k]; !ok || cur == nil {
				v[k] = Copy(p.Default)
			}
		}
		for k, e := range v {
			if s.Properties[k] == nil && s.Additional != nil && e == nil && s.Additional.Default != nil {
				v[k] = Copy(s.Additional.Default)
			}
			Default(v[k], s.child(k))
		}
	case []any:
		for i, e := range v {
			if e == nil && s.Items != nil && s.Items.Default != nil {
				v[i] = Copy(s.Items.Default)
			}
			Default(v[i], s.Items)
		}
	}
}

// Copy returns a deep copy of a JSON value.
func Copy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = Copy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = Copy(e)
		}
		return out
	}
	return v
}
