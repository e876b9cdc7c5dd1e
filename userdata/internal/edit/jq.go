package edit

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// EditOp is what a jq edit does at its path.
type EditOp uint8

// The edits of the followed jq subset.
const (
	Set    EditOp = iota + 1 // PATH = VALUE
	Add                      // PATH += VALUE (jq's addition of the old value and VALUE)
	Delete                   // del(PATH)
)

// Edit is one change a jq filter makes to a JSON object.
type Edit struct {
	Path  []string // object keys from the top
	Op    EditOp
	Value any // decoded as encoding/json decodes into any
}

// ParseJQ reads a jq filter as the list of edits it makes, in order. args
// are jq's --arg NAME VALUE and --argjson NAME JSON options, as triples.
// An error says what is not followed.
func ParseJQ(filter string, args []string) ([]Edit, error) {
	if len(args)%3 != 0 {
		return nil, fmt.Errorf("jq options %q are not NAME VALUE pairs", args)
	}
	vars := map[string]any{}
	for i := 0; i+2 < len(args); i += 3 {
		switch args[i] {
		case "--arg":
			vars[args[i+1]] = args[i+2]
		case "--argjson":
			var v any
			if err := json.Unmarshal([]byte(args[i+2]), &v); err != nil {
				return nil, fmt.Errorf("--argjson %s: %v", args[i+1], err)
			}
			vars[args[i+1]] = v
		default:
			return nil, fmt.Errorf("jq option %s is not followed", args[i])
		}
	}
	p := &jqParser{s: filter, vars: vars}
	var edits []Edit
	for {
		e, err := p.term()
		if err != nil {
			return nil, err
		}
		edits = append(edits, e...)
		p.space()
		if p.eof() {
			return edits, nil
		}
		if !p.take("|") {
			return nil, fmt.Errorf("jq: %q is not followed (only assignments joined by |)", p.s[p.i:])
		}
	}
}

type jqParser struct {
	s    string
	i    int
	vars map[string]any
}

func (p *jqParser) eof() bool { return p.i >= len(p.s) }

func (p *jqParser) space() {
	for p.i < len(p.s) && unicode.IsSpace(rune(p.s[p.i])) {
		p.i++
	}
}

func (p *jqParser) take(tok string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

// term is one assignment, del(...), or ".".
func (p *jqParser) term() ([]Edit, error) {
	if p.take("del(") {
		return p.del()
	}
	path, err := p.path()
	if err != nil {
		return nil, err
	}
	var op EditOp
	switch {
	case p.take("+="):
		op = Add
	case p.take("|="), p.take("-="), p.take("*="), p.take("/="), p.take("//="):
		return nil, fmt.Errorf("jq: update-assignment operators other than = and += are not followed")
	case p.take("="):
		op = Set
	default:
		p.space()
		if len(path) == 0 && (p.eof() || p.s[p.i] == '|') {
			return nil, nil // "." passes the input through
		}
		return nil, fmt.Errorf("jq: %q is not followed (only PATH = VALUE and PATH += VALUE)", p.s[p.i:])
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if len(path) == 0 {
		obj, ok := v.(map[string]any)
		if op != Add || !ok {
			return nil, fmt.Errorf("jq: only . += OBJECT is followed on the whole document")
		}
		// Adding objects replaces each key of the left by the right's.
		var out []Edit
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			out = append(out, Edit{Path: []string{k}, Op: Set, Value: obj[k]})
		}
		return out, nil
	}
	return []Edit{{Path: path, Op: op, Value: v}}, nil
}

func (p *jqParser) del() ([]Edit, error) {
	var out []Edit
	for {
		path, err := p.path()
		if err != nil {
			return nil, err
		}
		if len(path) == 0 {
			return nil, fmt.Errorf("jq: del(.) is not followed")
		}
		out = append(out, Edit{Path: path, Op: Delete})
		if p.take(")") {
			return out, nil
		}
		if !p.take(",") {
			return nil, fmt.Errorf("jq: del(...) with %q is not followed", p.s[p.i:])
		}
	}
}

// path reads ".", ".a", ".a.b", ."a-b", .["a"] and chains of them.
func (p *jqParser) path() ([]string, error) {
	if !p.take(".") {
		return nil, fmt.Errorf("jq: %q is not followed (a path starts with .)", p.s[p.i:])
	}
	var path []string
	for first := true; ; first = false {
		if !first {
			switch {
			case p.peek(".") && p.i+1 < len(p.s) && (isIdentStart(p.s[p.i+1]) || p.s[p.i+1] == '"'):
				p.i++
			case p.peek("["):
			default:
				return path, nil
			}
		}
		switch {
		case p.i < len(p.s) && isIdentStart(p.s[p.i]):
			start := p.i
			for p.i < len(p.s) && isIdent(p.s[p.i]) {
				p.i++
			}
			path = append(path, p.s[start:p.i])
		case p.peek("\""):
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			path = append(path, k)
		case p.peek("[\""):
			p.i++
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			if !p.take("]") {
				return nil, fmt.Errorf("jq: unterminated [\"key\"]")
			}
			path = append(path, k)
		case first:
			return nil, nil // "."
		default:
			return nil, fmt.Errorf("jq: path %q is not followed", p.s[p.i:])
		}
	}
}

func (p *jqParser) peek(tok string) bool { return strings.HasPrefix(p.s[p.i:], tok) }

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdent(c byte) bool      { return isIdentStart(c) || c >= '0' && c <= '9' }

// value reads a JSON value in jq's syntax.
func (p *jqParser) value() (any, error) {
	p.space()
	if p.eof() {
		return nil, fmt.Errorf("jq: a value is missing")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.str()
	case c == '$':
		p.i++
		start := p.i
		for p.i < len(p.s) && isIdent(p.s[p.i]) {
			p.i++
		}
		v, ok := p.vars[p.s[start:p.i]]
		if !ok {
			return nil, fmt.Errorf("jq: $%s is not defined by --arg or --argjson", p.s[start:p.i])
		}
		return v, nil
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		p.i++
		for p.i < len(p.s) && strings.IndexByte("0123456789.eE+-", p.s[p.i]) >= 0 {
			p.i++
		}
		f, err := strconv.ParseFloat(p.s[start:p.i], 64)
		if err != nil {
			return nil, fmt.Errorf("jq: number %q: %v", p.s[start:p.i], err)
		}
		return f, nil
	}
	for _, lit := range []struct {
		word string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if p.peek(lit.word) && (p.i+len(lit.word) == len(p.s) || !isIdent(p.s[p.i+len(lit.word)])) {
			p.i += len(lit.word)
			return lit.v, nil
		}
	}
	return nil, fmt.Errorf("jq: value %q is not followed (only JSON literals and $names)", p.s[p.i:])
}

func (p *jqParser) object() (any, error) {
	p.i++ // {
	out := map[string]any{}
	if p.take("}") {
		return out, nil
	}
	for {
		p.space()
		var key string
		switch {
		case p.i < len(p.s) && p.s[p.i] == '"':
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			key = k
		case p.i < len(p.s) && isIdentStart(p.s[p.i]):
			start := p.i
			for p.i < len(p.s) && isIdent(p.s[p.i]) {
				p.i++
			}
			key = p.s[start:p.i]
		default:
			return nil, fmt.Errorf("jq: object key %q is not followed", p.s[p.i:])
		}
		if !p.take(":") {
			return nil, fmt.Errorf("jq: {%s} without a value (shorthand keys are not followed)", key)
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out[key] = v
		if p.take("}") {
			return out, nil
		}
		if !p.take(",") {
			return nil, fmt.Errorf("jq: object with %q is not followed", p.s[p.i:])
		}
	}
}

func (p *jqParser) array() (any, error) {
	p.i++ // [
	out := []any{}
	if p.take("]") {
		return out, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if p.take("]") {
			return out, nil
		}
		if !p.take(",") {
			return nil, fmt.Errorf("jq: array with %q is not followed", p.s[p.i:])
		}
	}
}

// str reads a JSON string; jq's \( interpolation is not followed.
func (p *jqParser) str() (string, error) {
	start := p.i
	p.i++
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			if p.i+1 < len(p.s) && p.s[p.i+1] == '(' {
				return "", fmt.Errorf("jq: string interpolation is not followed")
			}
			p.i += 2
			continue
		case '"':
			p.i++
			var out string
			if err := json.Unmarshal([]byte(p.s[start:p.i]), &out); err != nil {
				return "", fmt.Errorf("jq: string %s: %v", p.s[start:p.i], err)
			}
			return out, nil
		}
		p.i++
	}
	return "", fmt.Errorf("jq: unterminated string")
}

// AddValues is jq's addition a + b: null is the identity; numbers add;
// strings and arrays concatenate; objects merge, b's keys winning. ok is
// false for values jq cannot add.
func AddValues(a, b any) (any, bool) {
	switch {
	case a == nil:
		return b, true
	case b == nil:
		return a, true
	}
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return x + y, ok
	case string:
		y, ok := b.(string)
		return x + y, ok
	case []any:
		y, ok := b.([]any)
		return append(append([]any{}, x...), y...), ok
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return nil, false
		}
		out := make(map[string]any, len(x)+len(y))
		for k, v := range x {
			out[k] = v
		}
		for k, v := range y {
			out[k] = v
		}
		return out, true
	}
	return nil, false
}
