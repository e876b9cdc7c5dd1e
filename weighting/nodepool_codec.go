package weighting

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/manifest"
	"github.com/ec2select/ec2select/internal/schema"
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

// mappedMetadata are the metadata fields NodePool has fields for; the
// others go to Unknown.
var mappedMetadata = map[string]bool{"name": true, "labels": true, "annotations": true}

// document is np as the generic JSON value the API server decodes: its
// wire form with Unknown's fields added. Unknown's keys must name
// metadata fields NodePool does not map, and its values be JSON.
func (np *NodePool) document() (map[string]any, error) {
	b, err := json.Marshal(np.toWire())
	if err != nil {
		return nil, err
	}
	v, err := manifest.Decode(b)
	if err != nil {
		return nil, err
	}
	doc := v.(map[string]any)
	if len(np.Unknown) == 0 {
		return doc, nil
	}
	meta, _ := doc["metadata"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(np.Unknown)) {
		field, ok := strings.CutPrefix(k, "/metadata/")
		switch {
		case !ok || strings.Contains(field, "/") || field == "":
			//lint:ignore ST1005 the message starts with the field it is about, Unknown, as written in Go
			return nil, fmt.Errorf("Unknown[%s]: Karpenter v1.14's NodePool has no field there; Unknown keeps only metadata fields, keyed /metadata/<field>, such as /metadata/uid", k)
		case mappedMetadata[field]:
			//lint:ignore ST1005 the message starts with the field it is about, Unknown, as written in Go
			return nil, fmt.Errorf("Unknown[%s]: metadata.%s is a field NodePool maps; set it through its NodePool field", k, field)
		}
		val, err := jsonValue(np.Unknown[k])
		if err != nil {
			//lint:ignore ST1005 the message starts with the field it is about, Unknown, as written in Go
			return nil, fmt.Errorf("Unknown[%s]: %v; use what encoding/json decodes into an any", k, err)
		}
		meta[unescapePointer(field)] = val
	}
	return doc, nil
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// unescapePointer reads one segment of a JSON Pointer (RFC 6901).
func unescapePointer(s string) string { return pointerUnescaper.Replace(s) }

// jsonValue checks that v is what encoding/json decodes into an any, and
// returns a copy of it as manifest.Decode would have made it (int64 for
// integers).
func jsonValue(v any) (any, error) {
	switch v := v.(type) {
	case nil, bool, string:
		return v, nil
	case float64:
		if n, ok := schema.AsInteger(v); ok {
			return n, nil
		}
		return v, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			var err error
			if out[i], err = jsonValue(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			var err error
			if out[k], err = jsonValue(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("a %T is not a JSON value", v)
}

// anyValue turns a decoded JSON value into what encoding/json decodes into
// an any (float64 for every number), for Unknown.
func anyValue(v any) any {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case []any:
		for i, e := range v {
			v[i] = anyValue(e)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = anyValue(e)
		}
	}
	return v
}

// MarshalJSON encodes np as a karpenter.sh/v1 NodePool, after checking it
// with [NodePool.Validate]; keys are sorted.
func (np NodePool) MarshalJSON() ([]byte, error) {
	doc, err := np.document()
	if err != nil {
		return nil, np.invalid([]schema.Error{{Problem: err.Error()}})
	}
	if errs := checkDocument(doc, false); len(errs) > 0 {
		return nil, np.invalid(errs)
	}
	if err := np.invalid(np.validateRuntime()); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
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
// JSON, as `kubectl apply` would send it and the API server create it,
// and checks it as [NodePool.Validate] does. The document is read as
// kubectl reads it: YAML 1.1 plain scalars, so that yes, on, 08 and ~ are
// a boolean, a number and null, and so an error in a string field (quote
// them); a key written twice keeps its last value. Then as the create path
// does, with strict field validation (kubectl's default): a field the CRD
// does not have is an error, a null is as if not written, defaults apply
// for validation (not to the NodePool returned, whose empty fields leave
// Karpenter's defaults); and metadata.resourceVersion, and the other
// metadata only the server writes, are refused. status is dropped. Other
// metadata fields go to [NodePool.Unknown].
func DecodeNodePool(data []byte) (NodePool, error) {
	j, err := manifest.ToJSON(data)
	if err != nil {
		return NodePool{}, decodeError(err)
	}
	return decodeJSON(j, true)
}

// UnmarshalJSON decodes a karpenter.sh/v1 NodePool as the API server
// holds it, or as Karpenter's Go type marshals it: as [DecodeNodePool]
// does, from JSON only, except that the metadata the server writes
// (resourceVersion, managedFields...) is kept in Unknown. np is changed
// only on success. As with encoding/json, a key repeated in one object
// keeps its last value.
func (np *NodePool) UnmarshalJSON(data []byte) error {
	out, err := decodeJSON(data, false)
	if err != nil {
		return err
	}
	*np = out
	return nil
}

func decodeError(err error) error {
	return fmt.Errorf("weighting: decoding a NodePool: %v", err)
}

func decodeJSON(j []byte, create bool) (NodePool, error) {
	v, err := manifest.Decode(j)
	if err != nil {
		return NodePool{}, decodeError(err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return NodePool{}, decodeError(errors.New("the document is not an object; write a NodePool resource"))
	}
	apiVersion, _ := doc["apiVersion"].(string)
	kind, _ := doc["kind"].(string)
	if apiVersion != APIVersion || kind != Kind {
		return NodePool{}, decodeError(fmt.Errorf("apiVersion %q, kind %q; want apiVersion %s, kind %s", apiVersion, kind, APIVersion, Kind))
	}
	return fromDocument(doc, create)
}

// fromDocument checks a decoded NodePool document and converts it.
func fromDocument(doc map[string]any, create bool) (NodePool, error) {
	var named NodePool
	if m, ok := doc["metadata"].(map[string]any); ok {
		named.Name, _ = m["name"].(string)
	}
	errs := checkDocument(doc, create)
	errs = append(errs, timeAdded(doc)...)
	if len(errs) > 0 {
		return NodePool{}, named.invalid(errs)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return NodePool{}, decodeError(err)
	}
	var w wireNodePool
	if err := json.Unmarshal(b, &w); err != nil { // the schema has checked every type
		return NodePool{}, decodeError(err)
	}
	np := NodePool{
		Name:              w.Metadata.Name,
		ObjectLabels:      nonEmpty(w.Metadata.Labels),
		ObjectAnnotations: nonEmpty(w.Metadata.Annotations),
		Replicas:          w.Spec.Replicas,
		Disruption:        w.Spec.Disruption.fromWire(),
	}
	if w.Spec.Weight != nil {
		np.Weight = *w.Spec.Weight
	}
	for k, q := range w.Spec.Limits {
		if np.Limits == nil {
			np.Limits = make(map[string]string, len(w.Spec.Limits))
		}
		np.Limits[k] = string(q)
	}
	if m := w.Spec.Template.Metadata; m != nil {
		np.Labels, np.Annotations = nonEmpty(m.Labels), nonEmpty(m.Annotations)
	}
	np.templateSpecFromWire(w.Spec.Template.Spec)
	meta, _ := doc["metadata"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		if mappedMetadata[k] {
			continue
		}
		if np.Unknown == nil {
			np.Unknown = make(map[string]any)
		}
		np.Unknown["/metadata/"+pointerEscaper.Replace(k)] = anyValue(meta[k])
	}
	if err := np.invalid(np.validateRuntime()); err != nil {
		return NodePool{}, err
	}
	return np, nil
}

// timeAdded refuses a taint's timeAdded, which the CRD allows and
// NodePool cannot hold (see NodePool.Validate).
func timeAdded(doc map[string]any) []schema.Error {
	spec, _ := doc["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	ts, _ := tmpl["spec"].(map[string]any)
	var errs []schema.Error
	for _, list := range []string{"taints", "startupTaints"} {
		items, _ := ts[list].([]any)
		for i, t := range items {
			if m, _ := t.(map[string]any); m != nil {
				if _, ok := m["timeAdded"]; ok {
					errs = append(errs, schema.Error{Path: fmt.Sprintf("spec.template.spec.%s[%d].timeAdded", list, i),
						Problem: "the node lifecycle controller stamps timeAdded on a Node's taints, and ec2select does not keep it in a NodePool's; remove it"})
				}
			}
		}
	}
	return errs
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

func (np *NodePool) templateSpecFromWire(ts wireTemplateSpec) {
	np.NodeClassRef = NodeClassRef(ts.NodeClassRef)
	np.ExpireAfter = ts.ExpireAfter
	np.TerminationGracePeriod = ts.TerminationGracePeriod
	for _, wr := range ts.Requirements {
		r := compat.Requirement{Key: wr.Key, Operator: compat.Operator(wr.Operator)}
		if len(wr.Values) > 0 {
			r.Values = wr.Values
		}
		if wr.MinValues != nil { // the CRD has refused 0
			r.MinValues = *wr.MinValues
		}
		np.Requirements = append(np.Requirements, r)
	}
	np.Taints = taintsFromWire(ts.Taints)
	np.StartupTaints = taintsFromWire(ts.StartupTaints)
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
