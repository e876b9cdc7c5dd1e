package bottlerocket

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/internal/editdistance"
)

// Kind is what a [Finding] says about one setting.
type Kind uint8

const (
	// Unknown: the model denies unknown fields at that level and has no
	// such key, so the settings API refuses the whole user data.
	Unknown Kind = iota + 1
	// BadName: a name (of a host container, a bootstrap command, …) that
	// is not an Identifier: ASCII letters, digits and '-', at most 76
	// bytes. The settings API refuses it.
	BadName
	// WrongShape: a value where the model has a table or a list, or the
	// reverse. The settings API refuses it.
	WrongShape
	// Unsettled: a key at a level whose keys could not be established
	// from published sources, or a namespace no published aws-k8s settings
	// plugin is known to include. It may exist.
	Unsettled
	// Variant: a namespace only some variants have (Finding.Detail names
	// them); the others refuse it.
	Variant
	// Since: a key only releases from Finding.Detail on have; older ones
	// refuse it.
	Since
)

func (k Kind) String() string {
	switch k {
	case Unknown:
		return "unknown"
	case BadName:
		return "bad-name"
	case WrongShape:
		return "wrong-shape"
	case Unsettled:
		return "unsettled"
	case Variant:
		return "variant"
	case Since:
		return "since"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Refused reports whether the settings API refuses every release and
// variant's user data with this finding.
func (k Kind) Refused() bool { return k == Unknown || k == BadName || k == WrongShape }

// Finding is one setting the model does not simply accept.
type Finding struct {
	// Path is the setting's path from settings, e.g. ["settings",
	// "kubernetes", "node-taint"].
	Path []string
	Kind Kind
	// Detail is the variants (Variant), the first release (Since), the
	// shape the model has (WrongShape), or the settings extension's struct
	// (Unknown, Unsettled; where its keys come from is in model.go).
	Detail string
	// Near is a key of the same level one or two edits away, for Unknown.
	Near string
}

// Key is the path as a dotted name, with a segment quoted when it holds
// anything but letters, digits, '-' and '_': settings.kubernetes.node-taint.
func (f Finding) Key() string { return JoinKey(f.Path) }

// JoinKey writes a path as a dotted name, quoting segments as TOML does.
func JoinKey(path []string) string {
	var b strings.Builder
	for i, s := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(quote(s))
	}
	return b.String()
}

// quote returns a segment as it is when it is a bare TOML key, else in
// double quotes with '"' and '\\' escaped.
func quote(s string) string {
	if bare(s) {
		return s
	}
	return string(appendQuoted(nil, []byte(s)))
}

func appendQuoted(b, s []byte) []byte {
	if bare(string(s)) {
		return append(b, s...)
	}
	b = append(b, '"')
	for _, c := range s {
		if c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, c)
	}
	return append(b, '"')
}

func bare(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// pluginSource is where the namespaces come from.
const pluginSource = "the aws-k8s settings plugins"

// Check reads settings (the table under [settings], decoded by go-toml/v2)
// against the model and returns every finding, in key order.
func Check(settings map[string]any) []Finding {
	var c checker
	for _, name := range slices.Sorted(maps.Keys(settings)) {
		ns, ok := namespaces[name]
		path := []string{"settings", name}
		switch {
		case !ok:
			c.add(Finding{Path: path, Kind: Unknown, Detail: pluginSource, Near: nearest(name, namespaceNames)})
			continue
		case !ns.settled:
			c.add(Finding{Path: path, Kind: Unsettled, Detail: ns.model + ", which no published aws-k8s plugin is known to include"})
		case ns.variants != "":
			c.add(Finding{Path: path, Kind: Variant, Detail: ns.variants})
		}
		c.walk(ns.node, settings[name], path, ns.model)
	}
	return c.found
}

var namespaceNames = slices.Sorted(maps.Keys(namespaces))

type checker struct{ found []Finding }

func (c *checker) add(f Finding) { c.found = append(c.found, f) }

// walk checks v against n. model is the namespace's struct, for findings.
func (c *checker) walk(n *node, v any, path []string, model string) {
	if n.since != "" {
		c.add(Finding{Path: slices.Clone(path), Kind: Since, Detail: n.since})
	}
	switch n.level {
	case leaf:
	case strict, lax, unsettled:
		t, ok := v.(map[string]any)
		if !ok {
			c.add(Finding{Path: slices.Clone(path), Kind: WrongShape, Detail: "a table"})
			return
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			child, ok := n.fields[k]
			p := append(path[:len(path):len(path)], k)
			switch {
			case ok:
				c.walk(child, t[k], p, model)
			case n.level == strict:
				c.add(Finding{Path: p, Kind: Unknown, Detail: model, Near: nearest(k, slices.Sorted(maps.Keys(n.fields)))})
			case n.level == unsettled:
				c.add(Finding{Path: p, Kind: Unsettled, Detail: model + ", whose keys are not all published"})
			}
		}
	case mapOf:
		t, ok := v.(map[string]any)
		if !ok {
			c.add(Finding{Path: slices.Clone(path), Kind: WrongShape, Detail: "a table"})
			return
		}
		if !n.ident && n.elem.level == leaf && n.elem.since == "" {
			return // any key, any value: nothing to find
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			p := append(path[:len(path):len(path)], k)
			if n.ident && !IsIdentifier(k) {
				c.add(Finding{Path: p, Kind: BadName})
				continue
			}
			c.walk(n.elem, t[k], p, model)
		}
	case listOf:
		list, ok := v.([]any)
		if !ok {
			c.add(Finding{Path: slices.Clone(path), Kind: WrongShape, Detail: "a list"})
			return
		}
		for _, e := range list {
			c.walk(n.elem, e, path, model)
		}
	}
}

// IsIdentifier reports whether s is a Bottlerocket Identifier: ASCII
// letters, digits and '-', at most 76 bytes
// (bottlerocket-settings-sdk@5ba2c487
// bottlerocket-settings-models/modeled-types/src/shared.rs L393-L408). An
// empty name passes there too.
func IsIdentifier(s string) bool {
	if len(s) > 76 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !isAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// nearest returns the name in names at most two edits from s (the
// closest, the first in order on a tie), or "".
func nearest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := distance(s, n, bestD); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, or limit when it
// is at least limit.
func distance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	return min(editdistance.Levenshtein(a, b), limit)
}
