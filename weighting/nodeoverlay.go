package weighting

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/schema"
	"github.com/ec2select/ec2select/internal/validation"
	"github.com/ec2select/ec2select/offerings"
)

// NodeOverlay is a karpenter.sh/v1alpha1 NodeOverlay as a plain value: the
// fields a price overlay sets. Karpenter v1.14.1 applies one to every
// offering of every instance type its requirements select (alone or with a
// NodePool's labels), setting the offering's price to Price, or adjusting
// it by PriceAdjustment ("+0.5", "-0.1", "+10%", "-15%"); of several that
// select an offering, the highest weight wins, and two of one weight that
// both select it are a conflict, which fails the later one
// (kubernetes-sigs/karpenter v1.14.1 pkg/controllers/nodeoverlay/
// controller.go:183-245, store.go:238-286; cloudprovider/types.go:493-525).
// The feature is behind Karpenter's NodeOverlay gate, off by default.
type NodeOverlay struct {
	Name         string
	Requirements []compat.Requirement
	// Exactly one of Price and PriceAdjustment.
	Price           string
	PriceAdjustment string
	// Weight is 1 to 10,000; 0 means unset (Karpenter reads it as 0).
	Weight int32
}

// nodeOverlayDoc is the resource as the API server holds it.
type nodeOverlayDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec nodeOverlaySpec `json:"spec"`
}

type nodeOverlaySpec struct {
	Requirements    []overlayRequirement `json:"requirements,omitempty"`
	Price           string               `json:"price,omitempty"`
	PriceAdjustment string               `json:"priceAdjustment,omitempty"`
	Weight          int32                `json:"weight,omitempty"`
}

type overlayRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// MarshalJSON writes the whole resource (apiVersion karpenter.sh/v1alpha1,
// kind NodeOverlay).
func (o NodeOverlay) MarshalJSON() ([]byte, error) {
	d := nodeOverlayDoc{APIVersion: "karpenter.sh/v1alpha1", Kind: "NodeOverlay"}
	d.Metadata.Name = o.Name
	d.Spec = nodeOverlaySpec{Requirements: make([]overlayRequirement, len(o.Requirements)), Price: o.Price, PriceAdjustment: o.PriceAdjustment, Weight: o.Weight}
	for i, r := range o.Requirements {
		d.Spec.Requirements[i] = overlayRequirement{Key: r.Key, Operator: string(r.Operator), Values: r.Values}
	}
	return json.Marshal(d)
}

// EncodeYAML validates o and writes it as a YAML document.
func (o NodeOverlay) EncodeYAML() ([]byte, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	j, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(j)
}

// Validate checks o as the API server does with the NodeOverlay CRD that
// karpenter-provider-aws v1.14.1 installs (pkg/apis/crds/
// karpenter.sh_nodeoverlays.yaml: kubernetes-sigs/karpenter's with the
// karpenter.k8s.aws rule added), and then as Karpenter's RuntimeValidate
// does (pkg/apis/v1alpha1/nodeoverlay_validation.go:170-187): the name, the
// requirements (at least one, at most 100), price and priceAdjustment
// against the CRD's patterns and never both, the weight. Its error is a
// *ValidationError listing every problem by path.
func (o NodeOverlay) Validate() error {
	var doc map[string]any
	b, err := json.Marshal(o)
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil {
		return err
	}
	errs := schema.Validate(doc, nodeOverlayCRD, "")
	if err := validation.DNS1123Subdomain(o.Name); err != nil {
		errs = append(errs, schema.Error{Path: "metadata.name", Problem: fmt.Sprintf("%q is not a DNS subdomain (%v)", o.Name, err)})
	}
	for i, r := range o.Requirements {
		for _, p := range overlayRequirementRuntime(r) {
			errs = append(errs, schema.Error{Path: fmt.Sprintf("spec.requirements[%d]", i), Problem: p})
		}
	}
	if len(errs) == 0 {
		return nil
	}
	e := &NodeOverlayError{Name: o.Name, Problems: make([]Problem, len(errs))}
	for i, p := range errs {
		e.Problems[i] = Problem{Path: p.Path, Message: p.Problem}
	}
	return e
}

// NodeOverlayError is the error [NodeOverlay.Validate] returns: every
// problem, each naming its field.
type NodeOverlayError struct {
	Name     string
	Problems []Problem
}

func (e *NodeOverlayError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.String()
	}
	return fmt.Sprintf("weighting: NodeOverlay %q: %s", e.Name, strings.Join(msgs, "; "))
}

// overlayRequirementRuntime is ValidateRequirement for an overlay, which
// (unlike a NodePool) may select karpenter.sh/nodepool.
func overlayRequirementRuntime(r compat.Requirement) []string {
	if r.Key == compat.LabelNodePool {
		r.Key = "example.com/nodepool" // checked as any other free key
	}
	return requirementRuntime(r)
}

// The NodeOverlay CRD's patterns, as written there.
var (
	overlayPricePattern      = regexp.MustCompile(`^\d+(\.\d+)?$`)
	overlayAdjustmentPattern = regexp.MustCompile(`^(([+-]{1}(\d*\.?\d+))|(\+{1}\d*\.?\d+%)|(^(-\d{1,2}(\.\d+)?%)$)|(-100%))$`)
)

// overlayAWSKeys are the karpenter.k8s.aws keys the AWS NodeOverlay CRD
// admits in requirement keys (a shorter list than the NodePool CRD's: no
// tenancy, capacity reservation or placement group keys).
var overlayAWSKeys = []string{
	"karpenter.k8s.aws/ec2nodeclass", "karpenter.k8s.aws/instance-encryption-in-transit-supported",
	"karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-hypervisor",
	"karpenter.k8s.aws/instance-family", "karpenter.k8s.aws/instance-generation",
	"karpenter.k8s.aws/instance-local-nvme", "karpenter.k8s.aws/instance-size",
	"karpenter.k8s.aws/instance-cpu", "karpenter.k8s.aws/instance-cpu-manufacturer",
	"karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz", "karpenter.k8s.aws/instance-memory",
	"karpenter.k8s.aws/instance-ebs-bandwidth", "karpenter.k8s.aws/instance-network-bandwidth",
	"karpenter.k8s.aws/instance-gpu-name", "karpenter.k8s.aws/instance-gpu-manufacturer",
	"karpenter.k8s.aws/instance-gpu-count", "karpenter.k8s.aws/instance-gpu-memory",
	"karpenter.k8s.aws/instance-accelerator-name", "karpenter.k8s.aws/instance-accelerator-manufacturer",
	"karpenter.k8s.aws/instance-accelerator-count", "karpenter.k8s.aws/instance-capability-flex",
}

// nodeOverlayCRD is the CRD's openAPIV3Schema (path spec.versions[0].
// schema.openAPIV3Schema), with its x-kubernetes-validations rules in Go.
var nodeOverlayCRD = &schema.Schema{
	Type: schema.Object, Required: []string{"spec"},
	Properties: map[string]*schema.Schema{
		"apiVersion": {Type: schema.String}, "kind": {Type: schema.String}, "metadata": {Type: schema.Object},
		"spec": {
			Type: schema.Object, Required: []string{"requirements"},
			Properties: map[string]*schema.Schema{
				"price":           {Type: schema.String, Pattern: overlayPricePattern, Fix: "write a price per hour such as 0.096"},
				"priceAdjustment": {Type: schema.String, Pattern: overlayAdjustmentPattern, Fix: "write +N, -N, +N% or -N% (down to -100%)"},
				"weight":          {Type: schema.Integer, Minimum: schema.Int(1), Maximum: schema.Int(10000), Fix: "use 1–10000"},
				"requirements": {
					Type: schema.Array, MaxItems: 100,
					Items: &schema.Schema{
						Type: schema.Object, Required: []string{"key", "operator"},
						Properties: map[string]*schema.Schema{
							"key":      {Type: schema.String, MaxLength: 316, Pattern: qualifiedPattern, Rules: overlayKeyRules()},
							"operator": {Type: schema.String, Enum: []string{"Gte", "Lte", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}},
							// maxLength and pattern sit on the list in the CRD, where
							// the API server checks neither (as on the NodePool CRD).
							"values": {Type: schema.Array, Items: &schema.Schema{Type: schema.String}},
						},
					},
					Rules: []schema.Rule{
						{CEL: `self.all(x, x.operator == 'NotIn' ? x.values.size() != 0 : true)`, Message: `requirements with operator 'NotIn' must have a value defined`,
							Holds: everyRequirement(func(op string, values []any, has bool, _ any) bool { return op != "NotIn" || has && len(values) != 0 })},
						requirementsSchema.Rules[0],
						requirementsSchema.Rules[1],
					},
				},
			},
			Rules: []schema.Rule{{CEL: `!has(self.price) || !has(self.priceAdjustment)`, Message: `cannot set both 'price' and 'priceAdjustment'`,
				Fix: "keep one", Holds: func(v any) bool {
					m, _ := v.(map[string]any)
					_, p := m["price"]
					_, a := m["priceAdjustment"]
					return !p || !a
				}}},
		},
	},
}

// overlayKeyRules are the CRD's rules on a requirement key
// (...requirements.items.properties.key.x-kubernetes-validations).
func overlayKeyRules() []schema.Rule {
	return []schema.Rule{
		{CEL: `self in ["karpenter.sh/capacity-type", "karpenter.sh/nodepool"] || !self.find("^([^/]+)").endsWith("karpenter.sh")`, Message: `label domain "karpenter.sh" is restricted`,
			Holds: func(v any) bool {
				k, _ := v.(string)
				return k == compat.LabelCapacityType || k == compat.LabelNodePool || !strings.HasSuffix(labelDomain.FindString(k), "karpenter.sh")
			}},
		{CEL: `self != "kubernetes.io/hostname"`, Message: `label "kubernetes.io/hostname" is restricted`,
			Holds: func(v any) bool { return v != compat.LabelHostname }},
		{CEL: `self in [the karpenter.k8s.aws keys] || !self.find("^([^/]+)").endsWith("karpenter.k8s.aws")`, Message: `label domain "karpenter.k8s.aws" is restricted`,
			Holds: func(v any) bool {
				k, _ := v.(string)
				return slices.Contains(overlayAWSKeys, k) || !strings.HasSuffix(labelDomain.FindString(k), "karpenter.k8s.aws")
			}},
	}
}

// OverlayMode is how [NodeOverlays] writes a price.
type OverlayMode uint8

const (
	// OverlayPrice sets each offering's price outright (spec.price): what
	// Karpenter ranks by is then ec2select's effective price, whatever
	// Karpenter's own price data says.
	OverlayPrice OverlayMode = iota
	// OverlayAdjustment writes the discount as a percentage of the base
	// price (spec.priceAdjustment "-15%"), so it follows Karpenter's own
	// list and spot prices as they update. The adjustment is exact only
	// where Karpenter's base price equals the book's.
	OverlayAdjustment
)

var overlayModeText = [...]string{OverlayPrice: "price", OverlayAdjustment: "adjustment"}

// String returns "price" or "adjustment".
func (m OverlayMode) String() string {
	if int(m) < len(overlayModeText) {
		return overlayModeText[m]
	}
	return "OverlayMode(" + strconv.Itoa(int(m)) + ")"
}

// MarshalText implements encoding.TextMarshaler.
func (m OverlayMode) MarshalText() ([]byte, error) {
	if int(m) >= len(overlayModeText) {
		return nil, fmt.Errorf("weighting: cannot marshal %s", m)
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *OverlayMode) UnmarshalText(b []byte) error {
	for v, s := range overlayModeText {
		if s == string(b) {
			*m = OverlayMode(v)
			return nil
		}
	}
	return fmt.Errorf("weighting: overlay mode %q: want price or adjustment", b)
}

// OverlayOptions tunes [NodeOverlays]. The zero value writes prices,
// weight 1, for every NodePool, named ec2select-price-N.
type OverlayOptions struct {
	// Name prefixes each overlay's name; default "ec2select-price".
	Name string
	// Weight of every overlay: 1 to 10,000, default 1. They never overlap,
	// so one weight serves all; raise it above overlays of your own that
	// should lose.
	Weight int32
	// NodePools, when set, limits the overlays to those NodePools
	// (karpenter.sh/nodepool In [...]).
	NodePools []string
	Mode      OverlayMode
}

// OverlayPlan is what [NodeOverlays] makes: the overlays; the offerings
// with no known price, for which Karpenter keeps its own (which in a
// region its tables lack is us-east-1's); and the offerings no overlay can
// price alone: reserved offerings of one type and zone differ only in
// their reservation ID, which the NodeOverlay CRD does not let a
// requirement name (karpenter.k8s.aws/capacity-reservation-id is not among
// its karpenter.k8s.aws keys), so when they are priced differently, or
// one is unknown, none gets an overlay.
type OverlayPlan struct {
	Overlays     []NodeOverlay
	Unpriced     []offerings.Price
	Unselectable []offerings.Price
}

// NodeOverlays writes the prices as NodeOverlays: for each capacity type,
// one overlay per distinct price (or adjustment) and set of zones, whose
// requirements (instance types In, capacity type In, zones In when the
// price holds in only some of a type's zones) select, among the priced
// offerings, exactly those it was computed for. Overlays are disjoint, so
// they never conflict, and sorted by name. Every overlay is validated.
func NodeOverlays(prices []offerings.Price, opts OverlayOptions) (OverlayPlan, error) {
	if opts.Weight == 0 {
		opts.Weight = 1
	}
	if opts.Name == "" {
		opts.Name = "ec2select-price"
	}
	var plan OverlayPlan
	groups := map[overlayGroupKey][]string{} // -> instance types
	zonesOf := map[typeCapacity][]string{}   // every zone the offerings list, per type and capacity type
	valueZones := map[typeCapacityValue][]string{}
	cells, err := overlayCells(prices, opts.Mode)
	if err != nil {
		return OverlayPlan{}, err
	}
	for _, c := range cells {
		tc := typeCapacity{c.prices[0].Offering.InstanceType, c.prices[0].Offering.CapacityType}
		zone := c.prices[0].Offering.Zone
		zonesOf[tc] = appendUnique(zonesOf[tc], zone)
		switch {
		case c.value == "" && len(c.prices) > 1 && slices.ContainsFunc(c.prices, func(p offerings.Price) bool { return p.Known }):
			for _, p := range c.prices {
				if p.Known {
					plan.Unselectable = append(plan.Unselectable, p)
				} else {
					plan.Unpriced = append(plan.Unpriced, p)
				}
			}
		case c.value == "":
			plan.Unpriced = append(plan.Unpriced, c.prices...)
		default:
			k := typeCapacityValue{tc, c.value}
			valueZones[k] = appendUnique(valueZones[k], zone)
		}
	}
	// A value priced in only some of a type's zones must name them.
	for k, zones := range valueZones {
		slices.Sort(zones)
		all := zonesOf[k.typeCapacity]
		key := overlayGroupKey{capacity: k.capacity, value: k.value}
		if len(zones) != len(all) {
			key.zones = strings.Join(zones, ",")
		}
		groups[key] = append(groups[key], k.instanceType)
	}
	for _, key := range slices.SortedFunc(maps.Keys(groups), compareGroupKeys) {
		o := buildOverlay(key, groups[key], opts)
		plan.Overlays = append(plan.Overlays, o)
	}
	for i := range plan.Overlays {
		plan.Overlays[i].Name = fmt.Sprintf("%s-%d", opts.Name, i+1)
		if err := plan.Overlays[i].Validate(); err != nil {
			return OverlayPlan{}, err
		}
	}
	slices.SortFunc(plan.Unpriced, offerings.ComparePrices)
	slices.SortFunc(plan.Unselectable, offerings.ComparePrices)
	return plan, nil
}

// overlayCell is what an overlay can select at the finest: an instance
// type's offerings of one capacity type in one zone (several only for
// reservations), with their common overlay value, or "" when they have
// none (unknown, or priced differently).
type overlayCell struct {
	prices []offerings.Price
	value  string
}

func overlayCells(prices []offerings.Price, mode OverlayMode) ([]overlayCell, error) {
	type cellKey struct {
		typeCapacity
		zone string
	}
	index := map[cellKey]int{}
	var cells []overlayCell
	seen := map[offerings.Key]bool{}
	for _, p := range prices {
		if seen[p.Offering.Key()] {
			return nil, fmt.Errorf("weighting: NodeOverlays: offering %s is priced twice", p.Offering)
		}
		seen[p.Offering.Key()] = true
		value := ""
		if p.Known {
			value = overlayValue(p, mode)
		}
		k := cellKey{typeCapacity{p.Offering.InstanceType, p.Offering.CapacityType}, p.Offering.Zone}
		i, ok := index[k]
		if !ok {
			index[k] = len(cells)
			cells = append(cells, overlayCell{prices: []offerings.Price{p}, value: value})
			continue
		}
		cells[i].prices = append(cells[i].prices, p)
		if cells[i].value != value {
			cells[i].value = ""
		}
	}
	return cells, nil
}

type typeCapacity struct {
	instanceType string
	capacity     offerings.CapacityType
}

type typeCapacityValue struct {
	typeCapacity
	value string
}

type overlayGroupKey struct {
	capacity offerings.CapacityType
	value    string
	zones    string // "" when every zone of the group's types
}

func compareGroupKeys(a, b overlayGroupKey) int {
	if a.capacity != b.capacity {
		return int(a.capacity) - int(b.capacity)
	}
	if c := strings.Compare(a.value, b.value); c != 0 {
		return c
	}
	return strings.Compare(a.zones, b.zones)
}

func buildOverlay(key overlayGroupKey, types []string, opts OverlayOptions) NodeOverlay {
	slices.Sort(types)
	reqs := []compat.Requirement{
		{Key: compat.LabelInstanceType, Operator: compat.In, Values: types},
		{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{key.capacity.String()}},
	}
	if key.zones != "" {
		reqs = append(reqs, compat.Requirement{Key: compat.LabelZone, Operator: compat.In, Values: strings.Split(key.zones, ",")})
	}
	if len(opts.NodePools) > 0 {
		reqs = append(reqs, compat.Requirement{Key: compat.LabelNodePool, Operator: compat.In, Values: slices.Sorted(slices.Values(opts.NodePools))})
	}
	o := NodeOverlay{Requirements: reqs, Weight: opts.Weight}
	if opts.Mode == OverlayAdjustment {
		o.PriceAdjustment = key.value
	} else {
		o.Price = key.value
	}
	return o
}

// overlayValue writes p's effective price as the overlay field holds it:
// a decimal for spec.price, or the effective price's change from the
// base (first) term as a percentage for spec.priceAdjustment.
func overlayValue(p offerings.Price, mode OverlayMode) string {
	if mode != OverlayAdjustment {
		return strconv.FormatFloat(roundPrice(p.Effective), 'f', -1, 64)
	}
	base := 0.0
	if len(p.Terms) > 0 {
		base = p.Terms[0].Price
	}
	if base <= 0 {
		return "+0" // a price of 0 (a reservation) has nothing to adjust
	}
	pct := roundPrice((p.Effective/base - 1) * 100)
	switch {
	case pct <= -100:
		return "-100%"
	case pct < 0:
		return strconv.FormatFloat(pct, 'f', -1, 64) + "%"
	case pct == 0:
		return "+0"
	}
	return "+" + strconv.FormatFloat(pct, 'f', -1, 64) + "%"
}

// roundPrice keeps ten decimals, the Price List's precision, so that a
// price's text does not carry float noise.
func roundPrice(v float64) float64 { return math.Round(v*1e10) / 1e10 }

func appendUnique(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
