package schema

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"
	"unicode/utf8"
)

// Validate checks v, already pruned and defaulted, against s: first what
// OpenAPI says (types, enums, patterns, lengths, bounds, required fields,
// sets), and then the rules, unless one of those errors is of a kind that
// leaves the object without the shape the rules were written for: a wrong
// type, a missing required field, a value outside an enum, a string too
// long, a list or map too large. The API server leaves the rules
// unchecked on exactly those (apiextensions-apiserver v0.35.3,
// pkg/registry/customresource/strategy.go, hasBlockingErr: NotSupported,
// Required, TooLong, TooMany, TypeInvalid), and checks them beside a
// pattern, a bound, a too-short string or list, or a duplicate. Errors
// come in the order of the fields, sorted by name.
func Validate(v any, s *Schema, path string) []Error {
	var st state
	structure(v, s, path, &st)
	if st.blocking {
		return st.errs
	}
	rules(v, s, path, &st.errs)
	return st.errs
}

// state is what checking the structure found: the errors, and whether one
// of them keeps the rules from being checked.
type state struct {
	errs     []Error
	blocking bool
}

// add records an error; blocking says whether it keeps the rules from
// being checked (see Validate).
func (st *state) add(e Error, blocking bool) {
	st.errs = append(st.errs, e)
	st.blocking = st.blocking || blocking
}

// maxJSONInteger is the largest integer a JSON number holds exactly, which
// the OpenAPI validator takes as the bound of an integer written with a
// fraction or an exponent ("2.0", "1e3").
const maxJSONInteger = 1 << 53

// AsInteger returns v as an integer when the API server takes it as one: an
// int64, or a float64 with no fraction within ±2^53. The validator
// (go-openapi/swag IsFloat64AJSONInteger) also takes floats within a
// relative 1e-9 of an integer; those are refused here.
func AsInteger(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) <= maxJSONInteger {
			return int64(n), true
		}
	}
	return 0, false
}

func typeOK(t Type, v any) bool {
	switch t {
	case Object:
		_, ok := v.(map[string]any)
		return ok
	case Array:
		_, ok := v.([]any)
		return ok
	case String:
		_, ok := v.(string)
		return ok
	case Boolean:
		_, ok := v.(bool)
		return ok
	case Integer:
		_, ok := AsInteger(v)
		return ok
	case IntOrString:
		if _, ok := v.(string); ok {
			return true
		}
		_, ok := AsInteger(v)
		return ok
	}
	return true
}

func structure(v any, s *Schema, path string, errs *state) {
	if !typeOK(s.Type, v) {
		errs.add(Error{path, s.fix(fmt.Sprintf("%s is %s, and the field takes %s", quote(v), describe(v), s.Type)) + yamlHint(s.Type, v)}, true)
		return
	}
	switch v := v.(type) {
	case map[string]any:
		object(v, s, path, errs)
	case []any:
		list(v, s, path, errs)
	case string:
		str(v, s, path, errs)
	default:
		if n, ok := AsInteger(v); ok {
			integer(n, s, path, errs)
		}
	}
}

func object(m map[string]any, s *Schema, path string, errs *state) {
	for _, r := range s.Required {
		if _, ok := m[r]; !ok {
			errs.add(Error{Field(path, r), "is required and not set" + requiredFix(s.Properties[r])}, true)
		}
	}
	if s.MaxProperties > 0 && len(m) > s.MaxProperties {
		errs.add(Error{path, s.fix(fmt.Sprintf("has %d entries; the CRD allows at most %d", len(m), s.MaxProperties))}, true)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if p, ok := s.Properties[k]; ok {
			structure(m[k], p, Field(path, k), errs)
		} else if s.Additional != nil {
			structure(m[k], s.Additional, Key(path, k), errs)
		}
	}
}

func requiredFix(s *Schema) string {
	if s == nil || s.Fix == "" {
		return ""
	}
	return "; " + s.Fix
}

func list(l []any, s *Schema, path string, errs *state) {
	if s.MinItems > 0 && len(l) < s.MinItems {
		errs.add(Error{path, s.fix(fmt.Sprintf("has %d items; the CRD needs at least %d", len(l), s.MinItems))}, false)
	}
	if s.MaxItems > 0 && len(l) > s.MaxItems {
		errs.add(Error{path, s.fix(fmt.Sprintf("has %d items; the CRD allows at most %d", len(l), s.MaxItems))}, true)
	}
	for i, e := range l {
		if s.Set && slices.ContainsFunc(l[:i], func(o any) bool { return Equal(o, e) }) {
			errs.add(Error{Index(path, i), fmt.Sprintf("%s is listed twice; the list is a set, so keep one", quote(e))}, false)
		}
		if s.Items != nil {
			structure(e, s.Items, Index(path, i), errs)
		}
	}
}

func str(v string, s *Schema, path string, errs *state) {
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, v) {
		errs.add(Error{path, s.fix(fmt.Sprintf("%s is not one of %s", quote(v), joinQuoted(s.Enum)))}, true)
		return
	}
	// One problem per string: a length error makes the pattern's moot.
	n := utf8.RuneCountInString(v)
	switch {
	case s.MinLength > 0 && n < s.MinLength:
		errs.add(Error{path, s.fix(fmt.Sprintf("%s is shorter than the CRD's minimum of %d characters", quote(v), s.MinLength))}, false)
	case s.MaxLength > 0 && n > s.MaxLength:
		errs.add(Error{path, s.fix(fmt.Sprintf("%s is %d characters; the CRD allows at most %d", quote(v), n, s.MaxLength))}, true)
	case s.Pattern != nil && !s.Pattern.MatchString(v):
		errs.add(Error{path, s.fix(fmt.Sprintf("%s does not match the CRD's pattern %s", quote(v), s.Pattern))}, false)
	}
	if s.Format == "date-time" {
		if _, err := time.Parse(time.RFC3339, v); err != nil {
			errs.add(Error{path, fmt.Sprintf("%s is not an RFC 3339 date-time such as 2025-01-02T15:04:05Z", quote(v))}, false)
		}
	}
}

// integer checks bounds. An int32 that overflows is refused by Karpenter,
// not the API server, whose rules still run: it does not block them.
func integer(n int64, s *Schema, path string, errs *state) {
	if s.Minimum != nil && n < *s.Minimum {
		errs.add(Error{path, s.fix(fmt.Sprintf("%d is below the CRD's minimum of %d", n, *s.Minimum))}, false)
	}
	if s.Maximum != nil && n > *s.Maximum {
		errs.add(Error{path, s.fix(fmt.Sprintf("%d is above the CRD's maximum of %d", n, *s.Maximum))}, false)
	}
	if s.Format == "int32" && (n < math.MinInt32 || n > math.MaxInt32) {
		errs.add(Error{path, s.fix(fmt.Sprintf("%d does not fit the 32-bit integer Karpenter's Go type holds it in, so Karpenter could not read the object", n))}, false)
	}
}

// rules checks every rule of s and of the schemas below it, depth first.
func rules(v any, s *Schema, path string, errs *[]Error) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if p, ok := s.Properties[k]; ok {
				rules(v[k], p, Field(path, k), errs)
			} else if s.Additional != nil {
				rules(v[k], s.Additional, Key(path, k), errs)
			}
		}
	case []any:
		if s.Items != nil {
			for i, e := range v {
				rules(e, s.Items, Index(path, i), errs)
			}
		}
	}
	for _, r := range s.Rules {
		if !r.Holds(v) {
			msg := fmt.Sprintf("%s (rule %s)", r.Message, r.CEL)
			if r.Fix != "" {
				msg += "; " + r.Fix
			}
			*errs = append(*errs, Error{path, msg})
		}
	}
}

// Equal reports whether two JSON values are equal, numbers by value.
func Equal(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, e := range a {
			f, ok := bm[k]
			if !ok || !Equal(e, f) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !Equal(a[i], bl[i]) {
				return false
			}
		}
		return true
	case int64:
		if f, ok := b.(float64); ok {
			return float64(a) == f
		}
	case float64:
		if n, ok := b.(int64); ok {
			return a == float64(n)
		}
	}
	return a == b
}
