package weighting

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
	"sigs.k8s.io/yaml"
)

// The wire form of a NodePool: the fields this package interprets. Field
// order does not matter: output sorts keys.
type (
	wireNodePool struct {
		APIVersion string       `json:"apiVersion"`
		Kind       string       `json:"kind"`
		Metadata   wireMetadata `json:"metadata"`
		Spec       wireSpec     `json:"spec"`
	}
	wireMetadata struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
	}
	wireSpec struct {
		Template   wireTemplate        `json:"template"`
		Disruption *wireDisruption     `json:"disruption,omitempty"`
		Limits     map[string]quantity `json:"limits,omitempty"`
		Weight     *int32              `json:"weight,omitempty"`
		Replicas   *int64              `json:"replicas,omitempty"`
	}
	wireDisruption struct {
		ConsolidateAfter    string `json:"consolidateAfter,omitempty"`
		ConsolidationPolicy string `json:"consolidationPolicy,omitempty"`
		// Budgets is a pointer so that an empty list, which means no budget
		// at all, is written rather than left to Karpenter's default.
		Budgets *[]wireBudget `json:"budgets,omitempty"`
	}
	wireBudget struct {
		Nodes    string   `json:"nodes,omitempty"`
		Schedule string   `json:"schedule,omitempty"`
		Duration string   `json:"duration,omitempty"`
		Reasons  []string `json:"reasons,omitempty"`
	}
	wireTemplate struct {
		Metadata *wireTemplateMetadata `json:"metadata,omitempty"`
		Spec     wireTemplateSpec      `json:"spec"`
	}
	wireTemplateMetadata struct {
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
	}
	wireTemplateSpec struct {
		NodeClassRef           wireNodeClassRef  `json:"nodeClassRef"`
		Requirements           []wireRequirement `json:"requirements"` // required, even when empty
		StartupTaints          []wireTaint       `json:"startupTaints,omitempty"`
		Taints                 []wireTaint       `json:"taints,omitempty"`
		ExpireAfter            string            `json:"expireAfter,omitempty"`
		TerminationGracePeriod string            `json:"terminationGracePeriod,omitempty"`
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

// quantity is a limit: the CRD takes an integer or a string, so a number
// keeps the text it was written with. It is always written as a string,
// as Kubernetes writes quantities.
type quantity string

func (q *quantity) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] != '"' {
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("a limit is a quantity, a number or a string: %v", err)
		}
		*q = quantity(n)
		return nil
	}
	return json.Unmarshal(b, (*string)(q))
}

// shape describes one object of the resource: its known fields, each with
// the shape of its value when that is an object or a list of objects, and
// nil for a scalar or a map with free keys, such as labels. Unknown fields
// of an object are kept in NodePool.Unknown; those of a list item (item
// true) are refused, since no NodePool field could carry them.
type shape struct {
	fields map[string]*shape
	item   bool
}

func fieldsOf(names ...string) *shape {
	s := &shape{fields: make(map[string]*shape, len(names))}
	for _, n := range names {
		s.fields[n] = nil
	}
	return s
}

func (s *shape) with(name string, sub *shape) *shape {
	s.fields[name] = sub
	return s
}

func itemsOf(names ...string) *shape {
	s := fieldsOf(names...)
	s.item = true
	return s
}

// resource is the shape of a karpenter.sh/v1 NodePool, status aside.
var resource = func() *shape {
	taint := itemsOf("key", "value", "effect")
	templateSpec := fieldsOf("expireAfter", "terminationGracePeriod").
		with("nodeClassRef", fieldsOf("group", "kind", "name")).
		with("requirements", itemsOf("key", "operator", "values", "minValues")).
		with("taints", taint).
		with("startupTaints", taint)
	disruption := fieldsOf("consolidateAfter", "consolidationPolicy").
		with("budgets", itemsOf("nodes", "schedule", "duration", "reasons"))
	spec := fieldsOf("weight", "replicas", "limits").
		with("disruption", disruption).
		with("template", fieldsOf().with("metadata", fieldsOf("labels", "annotations")).with("spec", templateSpec))
	return fieldsOf("apiVersion", "kind").with("metadata", fieldsOf("name", "labels", "annotations")).with("spec", spec)
}()

// collectUnknown walks a generically decoded NodePool against shape s and
// returns its unknown fields by JSON Pointer. path is the field path for
// errors ("spec.template"), ptr the JSON Pointer of v. Values of the wrong
// type are left for the typed decoding to report.
func collectUnknown(v any, s *shape, path, ptr string, unknown map[string]any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	for _, k := range sortedKeys(m) {
		sub, known := s.fields[k]
		switch {
		case known && sub == nil:
		case known:
			if err := collectChild(m[k], sub, join(path, k), ptr+"/"+escapePointer(k), unknown); err != nil {
				return err
			}
		case ptr == "" && k == "status": // Karpenter's to write
		default:
			if err := s.refuse(path, k); err != nil {
				return err
			}
			unknown[ptr+"/"+escapePointer(k)] = m[k]
		}
	}
	return nil
}

func collectChild(v any, s *shape, path, ptr string, unknown map[string]any) error {
	if !s.item {
		return collectUnknown(v, s, path, ptr, unknown)
	}
	list, _ := v.([]any)
	for i, e := range list {
		if err := collectUnknown(e, s, fmt.Sprintf("%s[%d]", path, i), ptr+"/"+strconv.Itoa(i), unknown); err != nil {
			return err
		}
	}
	return nil
}

// refuse returns why field name of object s at path cannot be kept as an
// unknown field, or nil.
func (s *shape) refuse(path, name string) error {
	field := join(path, name)
	for known := range s.fields {
		if strings.EqualFold(known, name) {
			return fmt.Errorf("unknown field %q; field names are case-sensitive, so write %s", field, join(path, known))
		}
	}
	if !s.item {
		return nil
	}
	if name == "timeAdded" {
		return fmt.Errorf("field %q: the node lifecycle controller stamps it on a Node's taints; a NodePool's taint has none, so remove it", field)
	}
	return fmt.Errorf("unknown field %q: a list item has only the fields %s, and no NodePool field could keep another; remove it", field, strings.Join(sortedKeys(s.fields), ", "))
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func escapePointer(s string) string { return pointerEscaper.Replace(s) }

// splitPointer splits a JSON Pointer into its unescaped segments.
func splitPointer(p string) ([]string, error) {
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("%q is not a JSON Pointer; start it with '/', as in /metadata/uid", p)
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(s, "~0", ""), "~1", ""), "~") {
			return nil, fmt.Errorf("JSON Pointer %q has a '~' that is neither ~0 nor ~1", p)
		}
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs, nil
}

// validateUnknown checks that each key of Unknown names a field this type
// does not map, of an object it does, and that each value is JSON.
func (np *NodePool) validateUnknown() error {
	for _, k := range sortedKeys(np.Unknown) {
		segs, err := splitPointer(k)
		if err != nil {
			return fmt.Errorf("Unknown: %v", err)
		}
		s, path := resource, ""
		for _, seg := range segs[:len(segs)-1] {
			sub, known := s.fields[seg]
			if sub == nil || !known || sub.item {
				return fmt.Errorf("Unknown[%s]: %s is not an object this type maps; key the whole field of the nearest one instead", k, join(path, seg))
			}
			s, path = sub, join(path, seg)
		}
		last := segs[len(segs)-1]
		if _, known := s.fields[last]; known || (path == "" && last == "status") {
			return fmt.Errorf("Unknown[%s]: %s is a field this type maps; set it through its NodePool field", k, join(path, last))
		}
		if err := s.refuse(path, last); err != nil {
			return fmt.Errorf("Unknown[%s]: %v", k, err)
		}
		if err := jsonValue(np.Unknown[k]); err != nil {
			return fmt.Errorf("Unknown[%s]: %v; use what encoding/json decodes into an any", k, err)
		}
	}
	return nil
}

// jsonValue checks that v is what encoding/json decodes into an any.
func jsonValue(v any) error {
	switch v := v.(type) {
	case nil, bool, float64, string:
	case []any:
		for _, e := range v {
			if err := jsonValue(e); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, e := range v {
			if err := jsonValue(e); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("a %T is not a JSON value", v)
	}
	return nil
}

// MarshalJSON encodes np as a karpenter.sh/v1 NodePool, after checking it
// with [NodePool.Validate].
func (np NodePool) MarshalJSON() ([]byte, error) {
	if err := np.Validate(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(np.toWire())
	if err != nil || len(np.Unknown) == 0 {
		return b, err
	}
	return np.withUnknown(b)
}

func (np NodePool) toWire() wireNodePool {
	w := wireNodePool{APIVersion: APIVersion, Kind: Kind, Metadata: wireMetadata{
		Name: np.Name, Labels: np.ObjectLabels, Annotations: np.ObjectAnnotations,
	}}
	if np.Weight != 0 {
		w.Spec.Weight = &np.Weight
	}
	w.Spec.Replicas = np.Replicas
	if len(np.Limits) > 0 {
		w.Spec.Limits = make(map[string]quantity, len(np.Limits))
		for k, v := range np.Limits {
			w.Spec.Limits[k] = quantity(v)
		}
	}
	w.Spec.Disruption = np.Disruption.toWire()
	if len(np.Labels) > 0 || len(np.Annotations) > 0 {
		w.Spec.Template.Metadata = &wireTemplateMetadata{Labels: np.Labels, Annotations: np.Annotations}
	}
	ts := &w.Spec.Template.Spec
	ts.NodeClassRef = wireNodeClassRef(np.NodeClassRef)
	ts.Requirements = make([]wireRequirement, len(np.Requirements))
	for i, r := range np.Requirements {
		wr := wireRequirement{Key: r.Key, Operator: string(r.Operator), Values: r.Values}
		if r.MinValues != 0 {
			wr.MinValues = &np.Requirements[i].MinValues
		}
		ts.Requirements[i] = wr
	}
	ts.Taints = wireTaints(np.Taints)
	ts.StartupTaints = wireTaints(np.StartupTaints)
	ts.ExpireAfter = np.ExpireAfter
	ts.TerminationGracePeriod = np.TerminationGracePeriod
	return w
}

func (d Disruption) toWire() *wireDisruption {
	if d.zero() {
		return nil
	}
	w := &wireDisruption{ConsolidateAfter: d.ConsolidateAfter, ConsolidationPolicy: string(d.ConsolidationPolicy)}
	if d.Budgets == nil {
		return w
	}
	budgets := make([]wireBudget, len(d.Budgets))
	for i, b := range d.Budgets {
		budgets[i] = wireBudget{Nodes: b.Nodes, Schedule: b.Schedule, Duration: b.Duration}
		for _, r := range b.Reasons {
			budgets[i].Reasons = append(budgets[i].Reasons, string(r))
		}
	}
	w.Budgets = &budgets
	return w
}

func wireTaints(ts []userdata.Taint) []wireTaint {
	if len(ts) == 0 {
		return nil
	}
	out := make([]wireTaint, len(ts))
	for i, t := range ts {
		out[i] = wireTaint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)}
	}
	return out
}

// withUnknown adds np.Unknown to b, the JSON of np's known fields, making
// the objects on the way that the known fields left out.
func (np NodePool) withUnknown(b []byte) ([]byte, error) {
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // replicas may not fit a float64
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(np.Unknown) {
		segs, _ := splitPointer(k) // Validate has checked it
		obj := root
		for _, seg := range segs[:len(segs)-1] {
			next, ok := obj[seg].(map[string]any)
			if !ok {
				next = make(map[string]any)
				obj[seg] = next
			}
			obj = next
		}
		obj[segs[len(segs)-1]] = np.Unknown[k]
	}
	return json.Marshal(root)
}

// EncodeYAML encodes np as a karpenter.sh/v1 NodePool document, with keys
// sorted, after checking it with [NodePool.Validate]. The same NodePool
// always gives the same bytes, and [DecodeNodePool] decodes them back to an
// equal NodePool (nil and empty slices and maps aside, which decode as nil).
func (np NodePool) EncodeYAML() ([]byte, error) {
	j, err := np.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(j)
}

// MarshalYAML implements the Marshaler of go.yaml.in/yaml (v2 and v3) and
// gopkg.in/yaml: a NodePool inside a value those packages encode is written
// as the resource [NodePool.MarshalJSON] writes.
func (np NodePool) MarshalYAML() (any, error) {
	j, err := np.MarshalJSON()
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return yamlNumbers(v), nil
}

// yamlNumbers replaces each json.Number in v, which YAML encoders would
// write as a string, with an int64 or a float64.
func yamlNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = yamlNumbers(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = yamlNumbers(v[k])
		}
	}
	return v
}

// UnmarshalYAML implements the function-taking Unmarshaler of
// go.yaml.in/yaml v2 (which v3 also honours): a NodePool inside a value
// those packages decode is read as [NodePool.UnmarshalJSON] reads it. Those
// packages resolve plain scalars themselves: YAML 1.1's yes is a boolean
// to v2, and so not a string label value; [DecodeNodePool] reads it as the
// string the field needs.
func (np *NodePool) UnmarshalYAML(unmarshal func(any) error) error {
	var v any
	if err := unmarshal(&v); err != nil {
		return decodeError(err)
	}
	j, err := json.Marshal(jsonKeys(v))
	if err != nil {
		return decodeError(err)
	}
	return np.UnmarshalJSON(j)
}

// jsonKeys turns the map[any]any that YAML v2 decodes into
// map[string]any, with keys spelled as YAML would write them.
func jsonKeys(v any) any {
	switch v := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = jsonKeys(e)
		}
		return m
	case map[string]any:
		for k, e := range v {
			v[k] = jsonKeys(e)
		}
	case []any:
		for i, e := range v {
			v[i] = jsonKeys(e)
		}
	}
	return v
}

// DecodeNodePool decodes one karpenter.sh/v1 NodePool document, YAML or
// JSON: strictly, so that a duplicate field, a field name in the wrong
// case, an unknown field inside a list item, another apiVersion or kind,
// and a NodePool that [NodePool.Validate] rejects are errors. Other
// unknown fields go to [NodePool.Unknown]; status is dropped. A plain YAML
// scalar that YAML 1.1 reads as a boolean or number, such as yes or 08,
// is taken as the string it spells where the field is a string.
func DecodeNodePool(data []byte) (NodePool, error) {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return NodePool{}, decodeError(err)
	}
	var generic any
	if err := json.Unmarshal(j, &generic); err != nil {
		return NodePool{}, decodeError(err)
	}
	var w wireNodePool
	if err := yaml.Unmarshal(data, &w); err != nil {
		return NodePool{}, decodeError(err)
	}
	return fromWire(w, generic)
}

// UnmarshalJSON decodes a karpenter.sh/v1 NodePool as [DecodeNodePool]
// does, from JSON only; np is changed only on success. As with
// encoding/json, a key repeated in one object keeps its last value.
func (np *NodePool) UnmarshalJSON(data []byte) error {
	var generic any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&generic); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("weighting: decoding a NodePool: data follows the object; pass one NodePool at a time")
	}
	var w wireNodePool
	if err := json.Unmarshal(data, &w); err != nil {
		return decodeError(err)
	}
	out, err := fromWire(w, generic)
	if err != nil {
		return err
	}
	*np = out
	return nil
}

func decodeError(err error) error {
	return fmt.Errorf("weighting: decoding a NodePool: %v", err)
}

// fromWire checks and converts a decoded NodePool; generic is the same
// document decoded into an any, for the fields w has no place for.
func fromWire(w wireNodePool, generic any) (NodePool, error) {
	unknown := make(map[string]any)
	if err := collectUnknown(generic, resource, "", "", unknown); err != nil {
		return NodePool{}, decodeError(err)
	}
	if w.APIVersion != APIVersion || w.Kind != Kind {
		return NodePool{}, fmt.Errorf("weighting: decoding a NodePool: apiVersion %q, kind %q; want apiVersion %s, kind %s", w.APIVersion, w.Kind, APIVersion, Kind)
	}
	out := NodePool{
		Name:              w.Metadata.Name,
		ObjectLabels:      nonEmpty(w.Metadata.Labels),
		ObjectAnnotations: nonEmpty(w.Metadata.Annotations),
		Replicas:          w.Spec.Replicas,
		Disruption:        w.Spec.Disruption.fromWire(),
	}
	if len(unknown) > 0 {
		out.Unknown = unknown
	}
	if w.Spec.Weight != nil {
		if *w.Spec.Weight == 0 {
			return NodePool{}, fmt.Errorf("weighting: NodePool %s: spec.weight: 0 is below 1; omit spec.weight for no weight", w.Metadata.Name)
		}
		out.Weight = *w.Spec.Weight
	}
	for k, q := range w.Spec.Limits {
		if out.Limits == nil {
			out.Limits = make(map[string]string, len(w.Spec.Limits))
		}
		out.Limits[k] = string(q)
	}
	if m := w.Spec.Template.Metadata; m != nil {
		out.Labels, out.Annotations = nonEmpty(m.Labels), nonEmpty(m.Annotations)
	}
	if err := out.templateSpecFromWire(w.Spec.Template.Spec); err != nil {
		return NodePool{}, fmt.Errorf("weighting: NodePool %s: %v", w.Metadata.Name, err)
	}
	if err := out.Validate(); err != nil {
		return NodePool{}, err
	}
	return out, nil
}

func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

func (w *wireDisruption) fromWire() Disruption {
	if w == nil {
		return Disruption{}
	}
	d := Disruption{ConsolidationPolicy: ConsolidationPolicy(w.ConsolidationPolicy), ConsolidateAfter: w.ConsolidateAfter}
	if w.Budgets == nil {
		return d
	}
	d.Budgets = make([]Budget, len(*w.Budgets))
	for i, b := range *w.Budgets {
		d.Budgets[i] = Budget{Nodes: b.Nodes, Schedule: b.Schedule, Duration: b.Duration}
		for _, r := range b.Reasons {
			d.Budgets[i].Reasons = append(d.Budgets[i].Reasons, DisruptionReason(r))
		}
	}
	return d
}

func (np *NodePool) templateSpecFromWire(ts wireTemplateSpec) error {
	np.NodeClassRef = NodeClassRef(ts.NodeClassRef)
	np.ExpireAfter = ts.ExpireAfter
	np.TerminationGracePeriod = ts.TerminationGracePeriod
	for i, wr := range ts.Requirements {
		r := compat.Requirement{Key: wr.Key, Operator: compat.Operator(wr.Operator)}
		if len(wr.Values) > 0 {
			r.Values = wr.Values
		}
		if wr.MinValues != nil {
			// compat reads 0 as "none", so only the wire can tell a
			// written 0, which the CRD refuses (minimum 1), from none.
			if *wr.MinValues == 0 {
				return fmt.Errorf("spec.template.spec.requirements[%d].minValues: 0 for %s is below Karpenter's minimum of 1; omit minValues for none", i, wr.Key)
			}
			r.MinValues = *wr.MinValues
		}
		np.Requirements = append(np.Requirements, r)
	}
	np.Taints = taintsFromWire(ts.Taints)
	np.StartupTaints = taintsFromWire(ts.StartupTaints)
	return nil
}

func taintsFromWire(ws []wireTaint) []userdata.Taint {
	if len(ws) == 0 {
		return nil
	}
	out := make([]userdata.Taint, len(ws))
	for i, w := range ws {
		out[i] = userdata.Taint{Key: w.Key, Value: w.Value, Effect: userdata.Effect(w.Effect)}
	}
	return out
}
