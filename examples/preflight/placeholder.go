package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/ec2nodeclass"
	"github.com/ec2select/ec2select/internal/manifest"
	"github.com/ec2select/ec2select/weighting"
)

// Published examples leave values for the reader to fill in, written
// <<LIKE_THIS>> (karpenter-blueprints) or ${LIKE_THIS} for envsubst
// (eks-workshop-v2). As written, a placeholder where the CRD wants an AMI
// ID or a label value is refused; filled in, the manifest may still be
// refused for something else, which is what preflight must say. So a
// manifest refused for its placeholders is checked again as if each were
// filled with a value valid where it stands, until no refusal is about a
// placeholder: what remains is reported, and the checks that follow
// (pairs, userData, order) run on the filled manifest, leaving alone what
// only the real values decide.

// placeholderToken is one value left to fill in.
var placeholderToken = regexp.MustCompile(`<<[A-Za-z0-9_.-]+>>|\$\{[A-Za-z_][A-Za-z0-9_]*\}`)

// problem is one reason a manifest is refused: the field and the text,
// which quotes the value it refuses.
type problem struct{ path, text string }

// filled is what filling a manifest's placeholders did.
type filled struct {
	// asWritten are the refusals the placeholders cause as written; tokens
	// the placeholders filled, in order.
	asWritten, tokens []string
	// paths are the fields filled, values the values they were given.
	paths  []string
	values map[string]bool
}

// has reports whether v is a value a placeholder was filled with.
func (f filled) has(v string) bool { return f.values[v] }

// maxFillRounds bounds the rounds of filling: a round can reveal refusals
// that refusals of a placeholder kept the API server from checking (its
// rules wait for the schema's types), and each fills at least one more
// field.
const maxFillRounds = 8

// decodeFilled decodes data with decode and, while the refusal quotes a
// placeholder, fills the placeholders it quotes and decodes again. rest
// are the refusals left that are not about a placeholder; err is
// decode's last error (nil once the filled manifest decodes). A refusal
// that does not list problems is returned as it is, with no rest.
func decodeFilled[T any](data []byte, decode func([]byte) (T, error), problems func(error) ([]problem, bool)) (v T, f filled, rest []problem, err error) {
	v, err = decode(data)
	probs, ok := problems(err)
	if err == nil || !ok {
		return v, f, nil, err
	}
	doc, ok := jsonDocument(data)
	if !ok {
		return v, f, probs, err
	}
	f.values = map[string]bool{}
	for round := 0; round < maxFillRounds && err != nil; round++ {
		if !f.fill(doc, probs) {
			break
		}
		j, jerr := json.Marshal(doc)
		if jerr != nil {
			break
		}
		v, err = decode(j)
		if probs, ok = problems(err); err != nil && !ok {
			return v, f, nil, err
		}
	}
	if err == nil {
		return v, f, nil, nil
	}
	for _, p := range probs {
		if !f.covers(p) {
			rest = append(rest, p)
		}
	}
	return v, f, rest, err
}

// jsonDocument reads a manifest as kubectl does, into JSON values.
func jsonDocument(data []byte) (map[string]any, bool) {
	j, err := manifest.ToJSON(data)
	if err != nil {
		return nil, false
	}
	v, err := manifest.Decode(j)
	if err != nil {
		return nil, false
	}
	doc, ok := v.(map[string]any)
	return doc, ok
}

// fill fills, in doc, every placeholder a refusal quotes, at the refused
// field, and reports whether it filled any.
func (f *filled) fill(doc map[string]any, probs []problem) bool {
	more := false
	for _, p := range probs {
		if !placeholderToken.MatchString(p.text) {
			continue
		}
		if f.fillAt(doc, p) {
			f.asWritten = append(f.asWritten, p.text)
			f.paths = append(f.paths, p.path)
			more = true
		}
	}
	return more
}

// fillAt replaces, under the field p names, each string that holds a
// placeholder and that p quotes. A field the path does not reach is left.
func (f *filled) fillAt(doc map[string]any, p problem) bool {
	parent, key, ok := walkPath(doc, p.path)
	if !ok {
		return false
	}
	done := false
	var visit func(v any, set func(any), field string)
	visit = func(v any, set func(any), field string) {
		switch v := v.(type) {
		case string:
			if placeholderToken.MatchString(v) && strings.Contains(p.text, strconv.Quote(v)) {
				set(f.value(v, p, field))
				done = true
			}
		case map[string]any:
			for k, e := range v {
				visit(e, func(n any) { v[k] = n }, k)
			}
		case []any:
			for i, e := range v {
				visit(e, func(n any) { v[i] = n }, field)
			}
		}
	}
	get, set := child(parent, key)
	visit(get, set, lastField(p.path))
	return done
}

// value is what fills the placeholders of s, refused for p: the first
// value of an enum the refusal lists, an ID of the form EC2 issues where
// the CRD asks for one (every placeholder of such a field stands for the
// whole value), else each placeholder's name as a label value (lower case
// letters, digits and dashes), valid as a name, a tag and a label.
func (f *filled) value(s string, p problem, field string) string {
	for _, t := range placeholderToken.FindAllString(s, -1) {
		if !slices.Contains(f.tokens, t) {
			f.tokens = append(f.tokens, t)
		}
	}
	v, ok := enumValue(p.text)
	if !ok {
		v, ok = idValue(p.path, field)
	}
	if !ok {
		v = placeholderToken.ReplaceAllStringFunc(s, labelValue)
	}
	f.values[v] = true
	return v
}

// enumValue is the first value a refusal for a value outside an enum
// lists (internal/schema writes `"x" is not one of "A", "B"`).
func enumValue(text string) (string, bool) {
	_, rest, ok := strings.Cut(text, " is not one of ")
	if !ok {
		return "", false
	}
	v, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", false
	}
	v, err = strconv.Unquote(v)
	return v, err == nil
}

// idPrefixes are the selector-term lists of an EC2NodeClass whose id the
// CRD patterns, and the prefix of their IDs.
var idPrefixes = map[string]string{
	"amiSelectorTerms": "ami", "subnetSelectorTerms": "subnet", "securityGroupSelectorTerms": "sg",
	"capacityReservationSelectorTerms": "cr", "placementGroupSelector": "pg",
}

func idValue(path, field string) (string, bool) {
	switch {
	case field == "ownerID":
		return "123456789012", true
	case field != "id":
		return "", false
	}
	for list, prefix := range idPrefixes {
		if strings.Contains(path, "."+list) {
			return prefix + "-0123456789abcdef0", true
		}
	}
	return "", false
}

// labelValue is a placeholder's name as a label value: "<<CLUSTER_NAME>>"
// is cluster-name.
func labelValue(token string) string {
	name := strings.Trim(token, "<>${}")
	v := strings.Trim(strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, name), "-")
	if v == "" {
		return "x"
	}
	return v[:min(len(v), 63)]
}

// covers reports whether a refusal is about a filled field (at or under
// it) or quotes a value a placeholder was filled with: the real value is
// taken to be valid there.
func (f filled) covers(p problem) bool {
	for _, path := range f.paths {
		if p.path == path || strings.HasPrefix(p.path, path+".") || strings.HasPrefix(p.path, path+"[") {
			return true
		}
	}
	for v := range f.values {
		if strings.Contains(p.text, strconv.Quote(v)) {
			return true
		}
	}
	return false
}

// walkPath follows a field path as the API server writes it
// ("spec.amiSelectorTerms[0].id", "spec.tags[team]") to the field's parent
// and its key within it (a string for an object, an int for a list).
func walkPath(doc map[string]any, path string) (parent any, key any, ok bool) {
	steps := pathSteps(path)
	if len(steps) == 0 {
		return nil, nil, false
	}
	var cur any = doc
	for _, s := range steps[:len(steps)-1] {
		if cur, ok = step(cur, s); !ok {
			return nil, nil, false
		}
	}
	last := steps[len(steps)-1]
	if _, ok := step(cur, last); !ok {
		return nil, nil, false
	}
	return cur, last, true
}

// pathSteps splits a field path into object keys (strings) and list
// indexes (ints).
func pathSteps(path string) []any {
	var steps []any
	for path != "" {
		switch {
		case path[0] == '.':
			path = path[1:]
		case path[0] == '[':
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return nil
			}
			inner := path[1:end]
			if n, err := strconv.Atoi(inner); err == nil {
				steps = append(steps, n)
			} else {
				steps = append(steps, inner)
			}
			path = path[end+1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			steps = append(steps, path[:end])
			path = path[end:]
		}
	}
	return steps
}

func step(v, s any) (any, bool) {
	switch k := s.(type) {
	case string:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		e, ok := m[k]
		return e, ok
	case int:
		l, ok := v.([]any)
		if !ok || k < 0 || k >= len(l) {
			return nil, false
		}
		return l[k], true
	}
	return nil, false
}

// child returns the value at key of parent and a function that replaces it.
func child(parent, key any) (any, func(any)) {
	if m, ok := parent.(map[string]any); ok {
		k := key.(string)
		return m[k], func(v any) { m[k] = v }
	}
	l := parent.([]any)
	i := key.(int)
	return l[i], func(v any) { l[i] = v }
}

// lastField is the last object key of a path ("id" of
// "spec.amiSelectorTerms[0].id").
func lastField(path string) string {
	steps := pathSteps(path)
	for i := len(steps) - 1; i >= 0; i-- {
		if s, ok := steps[i].(string); ok {
			return s
		}
	}
	return ""
}

// classProblems lists an EC2NodeClass's refusals.
func classProblems(err error) ([]problem, bool) {
	var e *ec2nodeclass.Error
	if !errors.As(err, &e) {
		return nil, false
	}
	out := make([]problem, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = problem{p.Path, p.Error()}
	}
	return out, true
}

// poolProblems lists a NodePool's refusals.
func poolProblems(err error) ([]problem, bool) {
	var e *weighting.ValidationError
	if !errors.As(err, &e) {
		return nil, false
	}
	out := make([]problem, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = problem{p.Path, p.String()}
	}
	return out, true
}

// placeholderFinding reports a manifest's placeholders, once: as written
// it is refused, by design until they are filled in.
func placeholderFinding(d document, subject []string, f filled, out *findings) {
	if len(f.asWritten) == 0 {
		return
	}
	out.add(Finding{Severity: SevNotice, Code: codePlaceholder, Where: d.where(), Subjects: subject,
		Message: fmt.Sprintf("the manifest holds placeholders to fill in (%s); as written it is refused: %s; preflight checks the rest as if each were filled with a valid value", strings.Join(f.tokens, ", "), strings.Join(f.asWritten, "; ")),
		Fix:     "replace each placeholder with your value before applying"})
}

// known is the NodePool without the requirements whose values are
// placeholders filled in: the instance types it allows are those the real
// values would narrow, and preflight does not guess them.
func (p *nodePool) known() weighting.NodePool {
	np := p.NodePool
	np.Requirements = slices.DeleteFunc(slices.Clone(np.Requirements), func(r compat.Requirement) bool {
		return slices.ContainsFunc(r.Values, p.filled.has)
	})
	return np
}

// familyFilled reports whether spec.amiFamily is a placeholder filled in:
// which userData Karpenter writes is then the real value's to decide.
func (nc *nodeClass) familyFilled() bool { return nc.filled.has(nc.AMIFamily) }
