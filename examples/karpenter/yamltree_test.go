package karpenter_test

import (
	"strconv"
	"strings"
)

// The differential tests build manifests as trees and write them as YAML
// text themselves, so that a test can write what a person would: plain
// scalars that YAML 1.1 reads as another type, keys written twice.
type (
	// mapping is a YAML mapping, keys in order, a key possibly twice. A
	// key is a string (written quoted) or a plain.
	mapping struct {
		keys []any
		vals []any
	}
	// seq is a YAML sequence.
	seq struct{ items []any }
	// plain is a scalar written as it is: yes, 08, ~, 1.5.
	plain string
)

// m builds a mapping from key, value pairs.
func m(kv ...any) *mapping {
	out := &mapping{}
	for i := 0; i+1 < len(kv); i += 2 {
		out.add(kv[i], kv[i+1])
	}
	return out
}

func s(items ...any) *seq { return &seq{items: items} }

func keyString(k any) string {
	switch k := k.(type) {
	case plain:
		return string(k)
	case string:
		return k
	}
	return ""
}

func (mp *mapping) index(k string) int {
	for i, key := range mp.keys {
		if keyString(key) == k {
			return i
		}
	}
	return -1
}

func (mp *mapping) get(k string) any {
	if i := mp.index(k); i >= 0 {
		return mp.vals[i]
	}
	return nil
}

// set replaces the value of k, or adds k.
func (mp *mapping) set(k string, v any) {
	if i := mp.index(k); i >= 0 {
		mp.vals[i] = v
		return
	}
	mp.add(k, v)
}

// add appends k, even if the mapping has it already.
func (mp *mapping) add(k, v any) {
	mp.keys = append(mp.keys, k)
	mp.vals = append(mp.vals, v)
}

func (mp *mapping) del(k string) {
	if i := mp.index(k); i >= 0 {
		mp.keys = append(mp.keys[:i:i], mp.keys[i+1:]...)
		mp.vals = append(mp.vals[:i:i], mp.vals[i+1:]...)
	}
}

// path follows mapping keys from mp and returns the mapping there, made on
// the way when create is true.
func (mp *mapping) path(create bool, keys ...string) *mapping {
	cur := mp
	for _, k := range keys {
		next, ok := cur.get(k).(*mapping)
		if !ok {
			if !create {
				return nil
			}
			next = m()
			cur.set(k, next)
		}
		cur = next
	}
	return cur
}

// yamlText writes a tree as a block-style YAML document.
func yamlText(v any) string {
	var b strings.Builder
	writeValue(&b, v, 0)
	return b.String()
}

func scalar(v any) (string, bool) {
	switch v := v.(type) {
	case plain:
		return string(v), true
	case string:
		return strconv.Quote(v), true
	case nil:
		return "null", true
	case int:
		return strconv.Itoa(v), true
	case bool:
		return strconv.FormatBool(v), true
	case *mapping:
		if len(v.keys) == 0 {
			return "{}", true
		}
	case *seq:
		if len(v.items) == 0 {
			return "[]", true
		}
	}
	return "", false
}

func writeValue(b *strings.Builder, v any, indent int) {
	pad := strings.Repeat(" ", indent)
	switch v := v.(type) {
	case *mapping:
		for i, k := range v.keys {
			key, _ := scalar(k)
			b.WriteString(pad + key + ":")
			if s, ok := scalar(v.vals[i]); ok {
				b.WriteString(" " + s + "\n")
				continue
			}
			b.WriteString("\n")
			if _, isSeq := v.vals[i].(*seq); isSeq {
				writeValue(b, v.vals[i], indent)
			} else {
				writeValue(b, v.vals[i], indent+2)
			}
		}
	case *seq:
		for _, item := range v.items {
			if s, ok := scalar(item); ok {
				b.WriteString(pad + "- " + s + "\n")
				continue
			}
			var inner strings.Builder
			writeValue(&inner, item, indent+2)
			b.WriteString(pad + "- " + inner.String()[indent+2:])
		}
	default:
		s, _ := scalar(v)
		b.WriteString(pad + s + "\n")
	}
}
