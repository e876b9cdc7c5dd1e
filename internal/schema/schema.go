package schema

import (
	"fmt"
	"regexp"
	"strings"
)

// Type is a schema's type. Every node of a structural schema has one,
// except where x-kubernetes-int-or-string allows either an integer or a
// string.
type Type uint8

// The types of a structural schema.
const (
	Object Type = iota + 1
	Array
	String
	Integer
	Boolean
	IntOrString
)

// QuantityPattern is the pattern both Karpenter CRDs (karpenter.sh
// NodePool, karpenter.k8s.aws EC2NodeClass, v1.14.1) write for a resource
// quantity, as written there (the pattern controller-gen writes for every
// resource.Quantity field).
var QuantityPattern = regexp.MustCompile(`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`)

func (t Type) String() string {
	switch t {
	case Object:
		return "an object"
	case Array:
		return "a list"
	case String:
		return "a string"
	case Integer:
		return "an integer"
	case Boolean:
		return "a boolean"
	case IntOrString:
		return "an integer or a string"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Schema is one node of a structural schema: what a CRD's
// openAPIV3Schema says of a field, with its x-kubernetes-validations
// rules in Go. A zero bound means none (no CRD here bounds a length or a
// count by zero), except Minimum and Maximum, which are pointers.
type Schema struct {
	Type Type
	// Properties are an object's fields; Additional, when set, is the
	// schema of every other field (a map such as labels).
	Properties map[string]*Schema
	Additional *Schema
	Required   []string
	// MaxProperties bounds an object's field count.
	MaxProperties int

	// Items is the schema of a list's elements.
	Items              *Schema
	MinItems, MaxItems int
	// Set is x-kubernetes-list-type: set: no element twice.
	Set bool

	Enum                 []string
	Pattern              *regexp.Regexp
	MinLength, MaxLength int // in characters, as OpenAPI counts them
	// Format is date-time for strings, or int32 and int64 for integers.
	// The API server checks date-time only; int32 is checked here because
	// Karpenter's Go types hold the value in an int32, and a larger one
	// makes the object unreadable to its controllers.
	Format           string
	Minimum, Maximum *int64

	// Default is filled in when the field is absent, as JSON (a map,
	// list, string, int64 or bool).
	Default any
	// Rules are the node's x-kubernetes-validations.
	Rules []Rule
	// Fix is how to write the field, added to every error about it.
	Fix string
}

// Rule is one x-kubernetes-validations rule, translated into Go.
type Rule struct {
	// CEL is the rule as the CRD writes it, and Message the CRD's message
	// for it.
	CEL, Message string
	// Fix says how to satisfy the rule.
	Fix string
	// Holds reports whether v, a value of the rule's node, satisfies the
	// rule. A rule whose CEL expression cannot be evaluated (it reads a
	// field that is not set) does not hold: the API server refuses the
	// object then too.
	Holds func(v any) bool
}

// Int is a bound, for Minimum and Maximum literals.
func Int(n int64) *int64 { return &n }

// Error is one problem with a value, at a field path written as the API
// server writes it ("spec.template.spec.requirements[0].key",
// "spec.limits[cpu]").
type Error struct {
	Path, Problem string
}

func (e Error) Error() string {
	if e.Path == "" {
		return e.Problem
	}
	return e.Path + ": " + e.Problem
}

func (s *Schema) fix(problem string) string {
	if s.Fix == "" {
		return problem
	}
	return problem + "; " + s.Fix
}

// child returns the schema of field k of an object, or nil.
func (s *Schema) child(k string) *Schema {
	if s == nil {
		return nil
	}
	if p, ok := s.Properties[k]; ok {
		return p
	}
	return s.Additional
}

// Field appends a field name to a path.
func Field(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// Key appends a map key to a path.
func Key(path, key string) string { return path + "[" + key + "]" }

// Index appends a list index to a path.
func Index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// quote writes a value for a message: strings quoted, others as JSON.
func quote(v any) string {
	switch v := v.(type) {
	case string:
		if len(v) > 80 {
			return fmt.Sprintf("%q...", v[:80])
		}
		return fmt.Sprintf("%q", v)
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	return fmt.Sprint(v)
}

// describe names the JSON type of v.
func describe(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a number with a fraction"
	case nil:
		return "null"
	}
	return fmt.Sprintf("a %T", v)
}

// yamlHint explains a value of the wrong type that YAML 1.1 produced from a
// plain scalar: kubectl reads yes, on, 08 and ~ as a boolean, a number and
// null, so a string field needs them quoted.
func yamlHint(want Type, v any) string {
	if want != String && want != IntOrString {
		return ""
	}
	switch v.(type) {
	case bool, int64, float64, nil:
		return fmt.Sprintf(`; kubectl reads the plain YAML scalar as %s (YAML 1.1: yes, no, on, off, y, n, numbers and ~), so quote it: "..."`, describe(v))
	}
	return ""
}

func joinQuoted(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
