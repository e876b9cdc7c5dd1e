// Package schema checks a decoded Kubernetes object against a custom
// resource's structural schema the way the API server's create path does
// (k8s.io/apiextensions-apiserver v0.35.3), so that ec2select refuses what
// `kubectl apply` would be refused and accepts what it would be allowed:
//
//   - [Prune] removes and names the fields the schema does not have, which
//     `kubectl apply --validate=strict` (kubectl's default) turns into an
//     error (pkg/apiserver/schema/pruning/algorithm.go);
//   - [PruneNulls] removes null values of fields that are not nullable and
//     have no default, as if they were not written
//     (pkg/apiserver/schema/defaulting/prunenulls.go);
//   - [Default] fills absent fields with their defaults
//     (pkg/apiserver/schema/defaulting/algorithm.go);
//   - [Validate] checks types, enums, patterns, lengths, bounds, required
//     fields and list sets (k8s.io/kube-openapi's validator and
//     pkg/apiserver/schema/listtype), and then, when those hold, the CRD's
//     x-kubernetes-validations rules, each written in Go as a [Rule] by
//     the package that declares the schema.
//
// Values are what internal/manifest decodes a JSON document into, as
// apimachinery's unstructured decoding does: map[string]any, []any,
// string, bool, nil, int64 for integers that fit and float64 for other
// numbers.
//
// A [Schema] is built once, as a package-level literal, and only read
// afterwards, so it is safe for concurrent use. The functions modify only
// the value they are given.
package schema
