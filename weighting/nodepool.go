package weighting

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/validation"
	"sigs.k8s.io/yaml"
)

// The NodePool resource this package reads and writes, and the node class
// a NodePool refers to by default.
const (
	APIVersion = "karpenter.sh/v1"
	Kind       = "NodePool"

	DefaultNodeClassGroup = "karpenter.k8s.aws"
	DefaultNodeClassKind  = "EC2NodeClass"
)

// Karpenter's limits on a NodePool (karpenter.sh/v1 CRD).
const (
	maxRequirements = 100 // spec.template.spec.requirements
	maxLabels       = 100 // spec.template.metadata.labels
	maxKeyLength    = 316 // a requirement's key
	maxMinValues    = 50  // a requirement's minValues
)

// NodePool is the part of a Karpenter karpenter.sh/v1 NodePool that weighted
// tiers need: a plain value, with no Kubernetes dependency. Fields map to the
// resource as follows:
//
//	Name          metadata.name
//	Weight        spec.weight (0: none, which Karpenter treats as 0)
//	Requirements  spec.template.spec.requirements
//	MinValues     spec.template.spec.requirements[].minValues, by key
//	NodeClassRef  spec.template.spec.nodeClassRef
//	Taints        spec.template.spec.taints
//	StartupTaints spec.template.spec.startupTaints
//	Labels        spec.template.metadata.labels
//
// Other fields of the resource (limits, disruption, expireAfter, status)
// are not represented; decoding a NodePool that sets them fails rather than
// dropping them. NodePool encodes to JSON and YAML through
// [NodePool.MarshalJSON] and [NodePool.MarshalYAML], which validate it first
// (see [NodePool.Validate]).
type NodePool struct {
	Name         string
	Weight       int32
	Requirements []compat.Requirement
	// MinValues is Karpenter's alpha minValues: for a key, the number of
	// distinct values of that key a launch must be able to choose from. It
	// is written on the first requirement with the key.
	MinValues     map[string]int
	NodeClassRef  NodeClassRef
	Taints        []Taint
	StartupTaints []Taint
	Labels        map[string]string
}

// NodeClassRef refers to the node class, an EC2NodeClass for the AWS
// provider, that a NodePool's nodes are launched with.
type NodeClassRef struct {
	Group, Kind, Name string
}

// Taint is a node taint, mirroring corev1.Taint without its timestamp.
type Taint struct {
	Key    string
	Value  string
	Effect TaintEffect
}

// TaintEffect is what a taint does to pods that do not tolerate it.
type TaintEffect string

// The taint effects Kubernetes defines.
const (
	TaintEffectNoSchedule       TaintEffect = "NoSchedule"
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	TaintEffectNoExecute        TaintEffect = "NoExecute"
)

// Validate checks np against what the karpenter.sh/v1 CRD and Karpenter's
// own validation accept, and reports the first problem with the fix:
//
//   - the name is a DNS-1123 subdomain of at most 63 characters (Karpenter
//     writes it into the karpenter.sh/nodepool label of every node);
//   - the weight is 0 (none) or 1–100;
//   - at most 100 requirements that compile with [compat.NewRequirements]
//     (so every In and NotIn value is a valid label value: "*" is not), with
//     keys of at most 316 characters outside the domains Karpenter
//     restricts (kubernetes.io and k8s.io except the well-known node labels,
//     karpenter.sh except capacity-type, karpenter.sh/nodepool and
//     kubernetes.io/hostname); keys under karpenter.k8s.aws are left to the
//     provider, whose list depends on its version. Gte and Lte need
//     Karpenter v1.9.0 or later;
//   - each MinValues key has a requirement, a value of 1–50, and, on an In
//     requirement, at least that many values;
//   - the node class reference has a group without '/', a kind and a name;
//   - taints have a qualified-name key, a label-value value and one of the
//     three effects;
//   - at most 100 labels, with qualified-name keys outside the restricted
//     domains and label-value values.
func (np NodePool) Validate() error {
	if err := np.validate(); err != nil {
		name := np.Name
		if name == "" {
			name = "(unnamed)"
		}
		return fmt.Errorf("weighting: NodePool %s: %v", name, err)
	}
	return nil
}

// validate is Validate without the prefix that names the NodePool.
func (np NodePool) validate() error {
	if err := poolName(np.Name); err != nil {
		return err
	}
	if np.Weight < 0 || np.Weight > MaxWeight {
		return fmt.Errorf("weight %d is outside 1–100; use 1–100, or 0 for no weight", np.Weight)
	}
	if len(np.Requirements) > maxRequirements {
		return fmt.Errorf("%d requirements; Karpenter allows at most %d, so merge some", len(np.Requirements), maxRequirements)
	}
	for _, r := range np.Requirements {
		if len(r.Key) > maxKeyLength {
			return fmt.Errorf("requirement key %.40q... is %d characters; Karpenter allows at most %d", r.Key, len(r.Key), maxKeyLength)
		}
		if why := restrictedKey(r.Key); why != "" {
			return fmt.Errorf("requirement %s: %s", r, why)
		}
		for _, v := range r.Values {
			if strings.ContainsAny(v, "*?") {
				return fmt.Errorf("requirement %s: value %q is not a valid label value, and Karpenter has no wildcards; list the values, or write the preference as a Policy tier and let Policy.NodePools list them", r, v)
			}
		}
	}
	if _, err := compat.NewRequirements(np.Requirements...); err != nil {
		return fmt.Errorf("requirements: %v", err)
	}
	for _, key := range slices.Sorted(maps.Keys(np.MinValues)) {
		n := np.MinValues[key]
		i := slices.IndexFunc(np.Requirements, func(r compat.Requirement) bool { return r.Key == key })
		switch {
		case i < 0:
			return fmt.Errorf("minValues is set for %s, which no requirement constrains; add a requirement on it or drop the minValues", key)
		case n < 1 || n > maxMinValues:
			return fmt.Errorf("minValues %d for %s is outside 1–%d", n, key, maxMinValues)
		case np.Requirements[i].Operator == compat.In && len(np.Requirements[i].Values) < n:
			return fmt.Errorf("minValues %d for %s exceeds the %d values its In requirement allows; list more values or lower minValues", n, key, len(np.Requirements[i].Values))
		}
	}
	ref := np.NodeClassRef
	switch {
	case ref.Group == "" || ref.Kind == "" || ref.Name == "":
		return fmt.Errorf("nodeClassRef needs a group, a kind and a name, such as {%s %s default}", DefaultNodeClassGroup, DefaultNodeClassKind)
	case strings.Contains(ref.Group, "/"):
		return fmt.Errorf("nodeClassRef group %q has a '/'; give the API group alone, such as %s", ref.Group, DefaultNodeClassGroup)
	}
	for _, taints := range [][]Taint{np.Taints, np.StartupTaints} {
		for _, t := range taints {
			if err := t.validate(); err != nil {
				return err
			}
		}
	}
	if len(np.Labels) > maxLabels {
		return fmt.Errorf("%d labels; Karpenter allows at most %d", len(np.Labels), maxLabels)
	}
	for _, k := range slices.Sorted(maps.Keys(np.Labels)) {
		if err := validation.QualifiedName(k); err != nil {
			return fmt.Errorf("label key %q: %v", k, err)
		}
		if why := restrictedKey(k); why != "" {
			return fmt.Errorf("label %s: %s", k, why)
		}
		if err := validation.LabelValue(np.Labels[k]); err != nil {
			return fmt.Errorf("label %s value %q: %v", k, np.Labels[k], err)
		}
	}
	return nil
}

// poolName checks a NodePool's name: a Kubernetes object name that is also
// a label value, since it becomes the karpenter.sh/nodepool label.
func poolName(s string) error {
	if s == "" {
		return errors.New("the name is empty; name it, for example \"default\"")
	}
	if err := validation.DNS1123Subdomain(s); err != nil {
		return fmt.Errorf("name %q is not a DNS-1123 subdomain (%v); use lower-case letters, digits, '-' and '.'", s, err)
	}
	if len(s) > validation.MaxNameLength {
		return fmt.Errorf("name %q is %d characters; Karpenter writes it into the karpenter.sh/nodepool label, which allows at most %d", s, len(s), validation.MaxNameLength)
	}
	return nil
}

func (t Taint) validate() error {
	if err := validation.QualifiedName(t.Key); err != nil {
		return fmt.Errorf("taint key %q: %v", t.Key, err)
	}
	if err := validation.LabelValue(t.Value); err != nil {
		return fmt.Errorf("taint %s value %q: %v", t.Key, t.Value, err)
	}
	switch t.Effect {
	case TaintEffectNoSchedule, TaintEffectPreferNoSchedule, TaintEffectNoExecute:
		return nil
	}
	return fmt.Errorf("taint %s effect %q is not one of NoSchedule, PreferNoSchedule, NoExecute", t.Key, t.Effect)
}

// k8sAllowed are the keys in the kubernetes.io domain that Karpenter lets a
// NodePool use.
var k8sAllowed = []string{
	"beta.kubernetes.io/arch",
	"beta.kubernetes.io/instance-type",
	"beta.kubernetes.io/os",
	"failure-domain.beta.kubernetes.io/region",
	"failure-domain.beta.kubernetes.io/zone",
	"kubernetes.io/arch",
	"kubernetes.io/os",
	"node.kubernetes.io/instance-type",
	"node.kubernetes.io/windows-build",
	"topology.kubernetes.io/region",
	"topology.kubernetes.io/zone",
}

// restrictedKey returns why Karpenter rejects key in a NodePool's
// requirements or labels, or "". The rules are the CRD's: a domain is the
// part of the key before the first '/', matched by suffix.
func restrictedKey(key string) string {
	domain, _, _ := strings.Cut(key, "/")
	switch {
	case key == compat.LabelNodePool:
		return "Karpenter sets karpenter.sh/nodepool itself; drop it"
	case key == compat.LabelHostname:
		return "kubernetes.io/hostname is restricted; drop it"
	case strings.HasSuffix(domain, "kubernetes.io") && !strings.HasSuffix(domain, "node.kubernetes.io") &&
		!strings.HasSuffix(domain, "node-restriction.kubernetes.io"):
		if _, ok := slices.BinarySearch(k8sAllowed, key); !ok {
			return fmt.Sprintf("the domain %s is restricted; use a well-known key such as %s, or a domain of your own", domain, compat.LabelArch)
		}
	case strings.HasSuffix(domain, "k8s.io") && !strings.HasSuffix(domain, "kops.k8s.io"):
		return fmt.Sprintf("the domain %s is restricted; use a domain of your own", domain)
	case strings.HasSuffix(domain, "karpenter.sh") && key != compat.LabelCapacityType:
		return fmt.Sprintf("the domain %s is restricted except for %s; use a domain of your own", domain, compat.LabelCapacityType)
	}
	return ""
}

// The wire form of a NodePool. Field order does not matter: YAML output
// sorts keys.
type (
	wireNodePool struct {
		APIVersion string       `json:"apiVersion"`
		Kind       string       `json:"kind"`
		Metadata   wireMetadata `json:"metadata"`
		Spec       wireSpec     `json:"spec"`
	}
	wireMetadata struct {
		Name string `json:"name"`
	}
	wireSpec struct {
		Template wireTemplate `json:"template"`
		Weight   *int32       `json:"weight,omitempty"`
	}
	wireTemplate struct {
		Metadata *wireTemplateMetadata `json:"metadata,omitempty"`
		Spec     wireTemplateSpec      `json:"spec"`
	}
	wireTemplateMetadata struct {
		Labels map[string]string `json:"labels,omitempty"`
	}
	wireTemplateSpec struct {
		NodeClassRef  wireNodeClassRef  `json:"nodeClassRef"`
		Requirements  []wireRequirement `json:"requirements"` // required, even when empty
		StartupTaints []wireTaint       `json:"startupTaints,omitempty"`
		Taints        []wireTaint       `json:"taints,omitempty"`
	}
	wireNodeClassRef struct {
		Group string `json:"group"`
		Kind  string `json:"kind"`
		Name  string `json:"name"`
	}
	wireRequirement struct {
		Key       string   `json:"key"`
		Operator  string   `json:"operator"`
		Values    []string `json:"values,omitempty"`
		MinValues *int     `json:"minValues,omitempty"`
	}
	wireTaint struct {
		Key    string `json:"key"`
		Value  string `json:"value,omitempty"`
		Effect string `json:"effect"`
	}
)

// MarshalJSON encodes np as a karpenter.sh/v1 NodePool, after checking it
// with [NodePool.Validate].
func (np NodePool) MarshalJSON() ([]byte, error) {
	if err := np.Validate(); err != nil {
		return nil, err
	}
	w := wireNodePool{APIVersion: APIVersion, Kind: Kind, Metadata: wireMetadata{Name: np.Name}}
	if np.Weight != 0 {
		w.Spec.Weight = &np.Weight
	}
	if len(np.Labels) > 0 {
		w.Spec.Template.Metadata = &wireTemplateMetadata{Labels: np.Labels}
	}
	ts := &w.Spec.Template.Spec
	ts.NodeClassRef = wireNodeClassRef(np.NodeClassRef)
	ts.Requirements = make([]wireRequirement, len(np.Requirements))
	written := make(map[string]bool, len(np.MinValues))
	for i, r := range np.Requirements {
		wr := wireRequirement{Key: r.Key, Operator: string(r.Operator), Values: r.Values}
		if n, ok := np.MinValues[r.Key]; ok && !written[r.Key] {
			wr.MinValues = &n
			written[r.Key] = true
		}
		ts.Requirements[i] = wr
	}
	ts.Taints = wireTaints(np.Taints)
	ts.StartupTaints = wireTaints(np.StartupTaints)
	return json.Marshal(w)
}

func wireTaints(ts []Taint) []wireTaint {
	if len(ts) == 0 {
		return nil
	}
	out := make([]wireTaint, len(ts))
	for i, t := range ts {
		out[i] = wireTaint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)}
	}
	return out
}

// MarshalYAML encodes np as a karpenter.sh/v1 NodePool in YAML, with keys
// sorted, after checking it with [NodePool.Validate]. The same NodePool
// always gives the same bytes, and [NodePool.UnmarshalYAML] decodes them
// back to an equal NodePool (nil and empty slices and maps aside, which
// decode as nil).
func (np NodePool) MarshalYAML() ([]byte, error) {
	j, err := np.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(j)
}

// UnmarshalJSON decodes a karpenter.sh/v1 NodePool. It fails on another
// apiVersion or kind, on fields this mirror does not represent (see
// [NodePool]) or a field name in the wrong case, and on a NodePool that
// [NodePool.Validate] rejects; np is changed only on success. As with
// encoding/json, a key repeated in one object keeps its last value.
func (np *NodePool) UnmarshalJSON(data []byte) error {
	var generic any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("weighting: decoding a NodePool: data follows the object; pass one NodePool at a time")
	}
	if err := checkFields(generic, nodePoolFields, ""); err != nil {
		return err
	}
	var w wireNodePool
	if err := json.Unmarshal(data, &w); err != nil {
		return decodeError(err)
	}
	return np.fromWire(w)
}

// UnmarshalYAML decodes one karpenter.sh/v1 NodePool from YAML, strictly:
// duplicate and unknown fields are errors, and field names must match in
// case. A plain scalar that YAML 1.1 reads as a boolean or number, such as
// yes or 08, is taken as the string it spells where the field is a string.
// See [NodePool.UnmarshalJSON].
func (np *NodePool) UnmarshalYAML(data []byte) error {
	var generic any
	if err := yaml.UnmarshalStrict(data, &generic); err != nil {
		return decodeError(err)
	}
	if err := checkFields(generic, nodePoolFields, ""); err != nil {
		return err
	}
	var w wireNodePool
	if err := yaml.UnmarshalStrict(data, &w); err != nil {
		return decodeError(err)
	}
	return np.fromWire(w)
}

func decodeError(err error) error {
	return fmt.Errorf("weighting: decoding a NodePool: %v", err)
}

// fields describes the objects of a NodePool: the names of an object's
// fields, each with what it holds. A nil fields is a value not checked
// here: a scalar, whose type the typed decoding checks, or a map with
// free keys, such as labels.
type fields map[string]fields

var (
	taintFields    = fields{"key": nil, "value": nil, "effect": nil}
	nodePoolFields = fields{
		"apiVersion": nil,
		"kind":       nil,
		"metadata":   {"name": nil},
		"spec": {
			"weight": nil,
			"template": {
				"metadata": {"labels": nil},
				"spec": {
					"nodeClassRef":  {"group": nil, "kind": nil, "name": nil},
					"requirements":  {"key": nil, "operator": nil, "values": nil, "minValues": nil},
					"taints":        taintFields,
					"startupTaints": taintFields,
				},
			},
		},
	}
)

// checkFields reports the first field of v, in sorted order, that want
// does not name exactly. encoding/json matches field names without regard
// to case and Kubernetes does not, so this runs before the typed decoding;
// it also names fields of the resource this mirror leaves out.
func checkFields(v any, want fields, path string) error {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			sub, ok := want[k]
			if !ok {
				return fmt.Errorf("weighting: decoding a NodePool: unknown field %q; this mirror of karpenter.sh/v1 has metadata.name, spec.weight, and spec.template's labels, nodeClassRef, requirements, taints and startupTaints", path+k)
			}
			if sub != nil {
				if err := checkFields(v[k], sub, path+k+"."); err != nil {
					return err
				}
			}
		}
	case []any: // a list of objects, such as requirements
		for i, e := range v {
			if err := checkFields(e, want, fmt.Sprintf("%s[%d].", strings.TrimSuffix(path, "."), i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// fromWire checks and converts a decoded NodePool, and stores it in np
// only if it is valid.
func (np *NodePool) fromWire(w wireNodePool) error {
	if w.APIVersion != APIVersion || w.Kind != Kind {
		return fmt.Errorf("weighting: decoding a NodePool: apiVersion %q, kind %q; want apiVersion %s, kind %s", w.APIVersion, w.Kind, APIVersion, Kind)
	}
	out := NodePool{Name: w.Metadata.Name}
	if w.Spec.Weight != nil {
		if *w.Spec.Weight == 0 {
			return fmt.Errorf("weighting: NodePool %s: weight 0 is below 1; omit spec.weight for no weight", w.Metadata.Name)
		}
		out.Weight = *w.Spec.Weight
	}
	if m := w.Spec.Template.Metadata; m != nil && len(m.Labels) > 0 {
		out.Labels = m.Labels
	}
	ts := w.Spec.Template.Spec
	out.NodeClassRef = NodeClassRef(ts.NodeClassRef)
	for _, wr := range ts.Requirements {
		r := compat.Requirement{Key: wr.Key, Operator: compat.Operator(wr.Operator)}
		if len(wr.Values) > 0 {
			r.Values = wr.Values
		}
		out.Requirements = append(out.Requirements, r)
		if wr.MinValues == nil {
			continue
		}
		if n, dup := out.MinValues[wr.Key]; dup && n != *wr.MinValues {
			return fmt.Errorf("weighting: NodePool %s: requirements on %s set minValues %d and %d; set it once", w.Metadata.Name, wr.Key, n, *wr.MinValues)
		}
		if out.MinValues == nil {
			out.MinValues = make(map[string]int)
		}
		out.MinValues[wr.Key] = *wr.MinValues
	}
	out.Taints = taintsFromWire(ts.Taints)
	out.StartupTaints = taintsFromWire(ts.StartupTaints)
	if err := out.Validate(); err != nil {
		return err
	}
	*np = out
	return nil
}

func taintsFromWire(ws []wireTaint) []Taint {
	if len(ws) == 0 {
		return nil
	}
	out := make([]Taint, len(ws))
	for i, w := range ws {
		out[i] = Taint{Key: w.Key, Value: w.Value, Effect: TaintEffect(w.Effect)}
	}
	return out
}
