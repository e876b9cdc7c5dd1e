package userdata

import (
	"fmt"
	"strings"

	"github.com/ec2select/ec2select/internal/validation"
)

// Effect is what a taint does to pods that do not tolerate it. Node taints
// must have one of the three effects below; the kubelet rejects anything
// else, including an empty effect.
type Effect string

// The three taint effects Kubernetes accepts on a node.
const (
	NoSchedule       Effect = "NoSchedule"
	PreferNoSchedule Effect = "PreferNoSchedule"
	NoExecute        Effect = "NoExecute"
)

func (e Effect) valid() bool {
	return e == NoSchedule || e == PreferNoSchedule || e == NoExecute
}

// UnregisteredTaintKey is the key of the taint Karpenter v1 requires on every
// node it launches until the node has registered.
const UnregisteredTaintKey = "karpenter.sh/unregistered"

// UnregisteredTaint returns karpenter.sh/unregistered:NoExecute, the taint
// Karpenter v1 requires on every node it launches. It is the required taint
// whenever [Config.RequiredTaints] is empty and [Config.NoRequiredTaints] is
// false. It is a function, not a variable, so that no caller can change the
// default for everyone else.
func UnregisteredTaint() Taint {
	return Taint{Key: UnregisteredTaintKey, Effect: NoExecute}
}

// Taint is a node taint as the kubelet registers it. The zero value is not a
// valid taint: a node taint needs a key and an effect.
//
// Taints are compared the way Kubernetes compares them: two taints with the
// same key and effect are the same taint (see [Taint.Matches]), whatever
// their values.
type Taint struct {
	Key    string
	Value  string
	Effect Effect
}

// String formats t in the kubelet's --register-with-taints syntax:
// key=value:Effect, or key:Effect when the value is empty.
func (t Taint) String() string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// Matches reports whether t and o have the same key and effect. That is how
// Kubernetes defines taint identity (corev1 Taint.MatchTaint) and how
// Karpenter checks for its required taint: the value is ignored.
func (t Taint) Matches(o Taint) bool {
	return t.Key == o.Key && t.Effect == o.Effect
}

// Validate checks t against Kubernetes' rules for node taints: the key is a
// qualified name (an optional DNS subdomain prefix and '/', then at most 63
// letters, digits, '-', '_' and '.'), the value is empty or a valid label
// value (no '/'), and the effect is NoSchedule, PreferNoSchedule or
// NoExecute.
func (t Taint) Validate() error {
	if err := t.check(); err != nil {
		return fmt.Errorf("userdata: %s", err)
	}
	return nil
}

// check is Validate without the package prefix, for callers that add a
// field name first.
func (t Taint) check() error {
	if err := validation.QualifiedName(t.Key); err != nil {
		return fmt.Errorf("taint %q: key %q: %v", t.String(), t.Key, err)
	}
	if err := validation.LabelValue(t.Value); err != nil {
		return fmt.Errorf("taint %q: value %q: %v (taint values follow the label-value rules, so no '/')", t.String(), t.Value, err)
	}
	if t.Effect == "" {
		return fmt.Errorf("taint %q: the effect is missing; node taints need one of NoSchedule, PreferNoSchedule or NoExecute", t.String())
	}
	if !t.Effect.valid() {
		return fmt.Errorf("taint %q: effect %q is not one of NoSchedule, PreferNoSchedule or NoExecute (effects are case-sensitive)", t.String(), string(t.Effect))
	}
	return nil
}

// ParseTaint parses one taint in the kubelet's syntax, key=value:Effect or
// key:Effect, with the kubelet's own rules: exactly one ':', at most one '='
// before it, a valid key, value and effect. A bare key (no effect) and a
// removal spec ending in '-' are errors, because the kubelet cannot add them.
func ParseTaint(s string) (Taint, error) {
	if strings.HasSuffix(s, "-") {
		return Taint{}, fmt.Errorf("userdata: taint %q ends in '-', which is kubectl's syntax for removing a taint; the kubelet silently drops it from --register-with-taints, so remove the '-'", s)
	}
	body, effect, found := strings.Cut(s, ":")
	if !found {
		return Taint{}, fmt.Errorf("userdata: taint %q has no effect; write key=value:Effect or key:Effect, e.g. %q", s, s+":NoSchedule")
	}
	if strings.Contains(effect, ":") {
		return Taint{}, fmt.Errorf("userdata: taint %q has more than one ':'; write key=value:Effect or key:Effect", s)
	}
	key, value, _ := strings.Cut(body, "=")
	if strings.Contains(value, "=") {
		return Taint{}, fmt.Errorf("userdata: taint %q has more than one '='; write key=value:Effect or key:Effect", s)
	}
	t := Taint{Key: key, Value: value, Effect: Effect(effect)}
	if strings.ContainsAny(s, " \t\r\n") {
		return Taint{}, fmt.Errorf("userdata: taint %q contains whitespace; remove it (the kubelet does not trim taints)", s)
	}
	if err := t.Validate(); err != nil {
		return Taint{}, err
	}
	return t, nil
}

// ParseTaints parses the value of the kubelet's --register-with-taints flag:
// taints separated by commas, each as [ParseTaint] reads it. The empty string
// is an empty list, as it is for the kubelet. Two taints with the same key
// and effect are an error: the kubelet refuses to start with them.
func ParseTaints(s string) ([]Taint, error) {
	if s == "" {
		return nil, nil
	}
	specs := strings.Split(s, ",")
	taints := make([]Taint, 0, len(specs))
	for i, spec := range specs {
		if spec == "" {
			return nil, fmt.Errorf("userdata: taint list %q has an empty entry at position %d; remove the extra ','", s, i+1)
		}
		t, err := ParseTaint(spec)
		if err != nil {
			return nil, err
		}
		for _, prev := range taints {
			if prev.Matches(t) {
				return nil, fmt.Errorf("userdata: taint list %q has %q and %q, which share key and effect; the kubelet refuses to start with both, so keep one", s, prev.String(), t.String())
			}
		}
		taints = append(taints, t)
	}
	return taints, nil
}

// FormatTaints formats taints as a --register-with-taints value: each in
// [Taint.String] form, in the given order, separated by commas. It does not
// validate; [ParseTaints] reads back what it writes for valid, unique taints.
func FormatTaints(taints []Taint) string {
	n := 0
	for _, t := range taints {
		n += len(t.Key) + len(t.Value) + len(t.Effect) + 3
	}
	var b strings.Builder
	b.Grow(n)
	for i, t := range taints {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(t.Key)
		if t.Value != "" {
			b.WriteByte('=')
			b.WriteString(t.Value)
		}
		b.WriteByte(':')
		b.WriteString(string(t.Effect))
	}
	return b.String()
}

// validateTaintList validates every taint of a list and rejects two taints
// with the same key and effect. field names the list in errors.
func validateTaintList(field string, taints []Taint) error {
	for i, t := range taints {
		if err := t.check(); err != nil {
			return fmt.Errorf("userdata: %s[%d]: %v", field, i, err)
		}
		for _, prev := range taints[:i] {
			if prev.Matches(t) {
				return fmt.Errorf("userdata: %s has %q and %q, which share key and effect; the kubelet refuses duplicates, so keep one", field, prev.String(), t.String())
			}
		}
	}
	return nil
}

// effectiveTaints is the list the kubelet must register: taints, then
// startup taints, then every required taint that no earlier taint matches
// (same key and effect, value ignored, as Karpenter's MatchTaint). An exact
// repeat is dropped; the same key and effect with another value is an error.
func effectiveTaints(taints, startup, required []Taint) ([]Taint, error) {
	if err := validateTaintList("Config.RequiredTaints", required); err != nil {
		return nil, err
	}
	out := make([]Taint, 0, len(taints)+len(startup)+len(required))
	add := func(field string, list []Taint) error {
		for i, t := range list {
			if err := t.check(); err != nil {
				return fmt.Errorf("userdata: %s[%d]: %v", field, i, err)
			}
			dup := false
			for _, prev := range out {
				if !prev.Matches(t) {
					continue
				}
				if prev.Value != t.Value {
					return fmt.Errorf("userdata: %s[%d] %q conflicts with %q: same key and effect, different value; the kubelet refuses both, so keep one", field, i, t.String(), prev.String())
				}
				dup = true
				break
			}
			if !dup {
				out = append(out, t)
			}
		}
		return nil
	}
	if err := add("Config.Taints", taints); err != nil {
		return nil, err
	}
	if err := add("Config.StartupTaints", startup); err != nil {
		return nil, err
	}
	for _, r := range required {
		if !containsMatch(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

func containsMatch(list []Taint, t Taint) bool {
	for _, x := range list {
		if x.Matches(t) {
			return true
		}
	}
	return false
}

// compareTaints orders taints by key, then effect, then value.
func compareTaints(a, b Taint) int {
	if c := strings.Compare(a.Key, b.Key); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Effect), string(b.Effect)); c != 0 {
		return c
	}
	return strings.Compare(a.Value, b.Value)
}
