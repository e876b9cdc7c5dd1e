package weighting

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/internal/schema"
)

// nodePoolCRD is the openAPIV3Schema of the karpenter.sh/v1 NodePool CRD
// that karpenter-provider-aws v1.14.1 installs (pkg/apis/crds/
// karpenter.sh_nodepools.yaml at bde00654, the copy of
// kubernetes-sigs/karpenter's with the karpenter.k8s.aws label rules
// added), field for field, with its x-kubernetes-validations rules in Go.
// Each rule's comment gives its path in the CRD. The rules that compare
// with the stored object (oldSelf: nodeClassRef's group and kind are
// immutable, replicas cannot be added or removed) do not apply on create
// and are left out.
//
// Two quirks of the CRD are kept as they are: requirements[].values
// carries maxLength 63 and a label-value pattern on the list, not on its
// items, so the API server checks neither (Karpenter's runtime validation
// does, see validateRuntime); and the CRD's karpenter.k8s.aws list admits
// karpenter.k8s.aws/ec2nodeclass, which Karpenter's runtime validation
// refuses.
var nodePoolCRD = &schema.Schema{
	Type:     schema.Object,
	Required: []string{"spec"},
	Properties: map[string]*schema.Schema{
		"apiVersion": {Type: schema.String},
		"kind":       {Type: schema.String},
		"metadata":   {Type: schema.Object},
		"spec":       nodePoolSpec,
		"status":     nodePoolStatus,
	},
}

// Patterns of the CRD, as written there. The API server matches them with
// Go's regexp (k8s.io/kube-openapi pkg/validation/validate), so they mean
// the same here.
var (
	nillableDuration   = regexp.MustCompile(`^(([0-9]+(s|m|h))+|Never)$`)
	gracePeriodPattern = regexp.MustCompile(`^([0-9]+(s|m|h))+$`)
	budgetNodes        = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)
	budgetDuration     = regexp.MustCompile(`^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`)
	budgetSchedule     = regexp.MustCompile(`^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$`)
	labelValuePattern  = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	qualifiedPattern   = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	noSlash            = regexp.MustCompile(`^[^/]*$`)
	// labelDomain is the CRD rules' x.find("^([^/]+)"): the key up to its
	// first '/', or the whole key.
	labelDomain = regexp.MustCompile(`^([^/]+)`)
)

// awsLabelKeys are the karpenter.k8s.aws keys the AWS CRD admits in
// template labels and requirement keys (one list in both rules; the labels
// rule repeats capacity-reservation-interruptible).
var awsLabelKeys = []string{
	"karpenter.k8s.aws/instance-tenancy", "karpenter.k8s.aws/capacity-reservation-type",
	"karpenter.k8s.aws/capacity-reservation-id", "karpenter.k8s.aws/capacity-reservation-interruptible",
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
	"karpenter.k8s.aws/placement-group-id", "karpenter.k8s.aws/placement-group-partition",
}

// keyRules are the CRD's rules on a label key, each as a function of the
// key: the same four on spec.template.metadata.labels (over every key)
// and on spec.template.spec.requirements[].key.
var keyRules = []struct {
	cel, message, fix string
	holds             func(key string) bool
}{
	{`x in ["karpenter.sh/capacity-type", "karpenter.sh/nodepool"] || !x.find("^([^/]+)").endsWith("karpenter.sh")`,
		`label domain "karpenter.sh" is restricted`, "use a domain of your own; of karpenter.sh, only karpenter.sh/capacity-type is yours to set",
		func(k string) bool {
			return k == "karpenter.sh/capacity-type" || k == "karpenter.sh/nodepool" || !strings.HasSuffix(labelDomain.FindString(k), "karpenter.sh")
		}},
	{`x != "karpenter.sh/nodepool"`, `label "karpenter.sh/nodepool" is restricted`, "Karpenter sets it itself; drop it",
		func(k string) bool { return k != "karpenter.sh/nodepool" }},
	{`x != "kubernetes.io/hostname"`, `label "kubernetes.io/hostname" is restricted`, "drop it",
		func(k string) bool { return k != "kubernetes.io/hostname" }},
	{`x in [the karpenter.k8s.aws keys] || !x.find("^([^/]+)").endsWith("karpenter.k8s.aws")`,
		`label domain "karpenter.k8s.aws" is restricted`, "use one of the provider's instance labels (karpenter.k8s.aws/instance-family, instance-category, ...) or a domain of your own",
		func(k string) bool {
			return slices.Contains(awsLabelKeys, k) || !strings.HasSuffix(labelDomain.FindString(k), "karpenter.k8s.aws")
		}},
}

// labelRules applies keyRules to every key of a labels map (CRD path
// spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.
// template.properties.metadata.properties.labels.x-kubernetes-validations).
func labelRules() []schema.Rule {
	rules := make([]schema.Rule, len(keyRules))
	for i, r := range keyRules {
		rules[i] = schema.Rule{CEL: "self.all(x, " + r.cel + ")", Message: r.message, Fix: r.fix, Holds: func(v any) bool {
			m, _ := v.(map[string]any)
			for k := range m {
				if !r.holds(k) {
					return false
				}
			}
			return true
		}}
	}
	return rules
}

// requirementKeyRules applies keyRules to one requirement's key (CRD path
// ...template.properties.spec.properties.requirements.items.properties.
// key.x-kubernetes-validations).
func requirementKeyRules() []schema.Rule {
	rules := make([]schema.Rule, len(keyRules))
	for i, r := range keyRules {
		rules[i] = schema.Rule{CEL: strings.ReplaceAll(r.cel, "x", "self"), Message: r.message, Fix: r.fix, Holds: func(v any) bool {
			k, _ := v.(string)
			return r.holds(k)
		}}
	}
	return rules
}

var nodePoolSpec = &schema.Schema{
	Type:     schema.Object,
	Required: []string{"template"},
	Properties: map[string]*schema.Schema{
		"disruption": disruptionSchema,
		"limits": {Type: schema.Object, Additional: &schema.Schema{
			Type: schema.IntOrString, Pattern: schema.QuantityPattern,
			Fix: "write a Kubernetes quantity: a whole number or a string such as 1000, 500m or 1000Gi",
		}},
		// The CRD says int64 and minimum 0; the maximum is the scale
		// subresource's (specReplicasPath .spec.replicas), which the API
		// server checks on create (apiextensions-apiserver v0.35.3,
		// pkg/registry/customresource/validator.go L131-150).
		"replicas": {Type: schema.Integer, Format: "int64", Minimum: schema.Int(0), Maximum: schema.Int(math.MaxInt32), Fix: "use 0 to 2147483647"},
		"template": templateSchema,
		"weight": {Type: schema.Integer, Format: "int32", Minimum: schema.Int(1), Maximum: schema.Int(MaxWeight),
			Fix: "use 1–100, or leave spec.weight out for no weight"},
	},
	// spec.x-kubernetes-validations
	Rules: []schema.Rule{
		{CEL: `!has(self.replicas) || (!has(self.limits) || size(self.limits) == 0 || (size(self.limits) == 1 && 'nodes' in self.limits))`,
			Message: `only 'limits.nodes' is supported on static NodePools`,
			Fix:     "a static NodePool (spec.replicas set) may limit only nodes; drop the other limits",
			Holds: func(v any) bool {
				m := v.(map[string]any)
				if _, ok := m["replicas"]; !ok {
					return true
				}
				limits, _ := m["limits"].(map[string]any)
				_, nodes := limits["nodes"]
				return len(limits) == 0 || len(limits) == 1 && nodes
			}},
		{CEL: `!has(self.replicas) || !has(self.weight)`, Message: `'weight' is not supported on static NodePools`,
			Fix: "a static NodePool (spec.replicas set) cannot have a weight; drop one of them",
			Holds: func(v any) bool {
				m := v.(map[string]any)
				_, replicas := m["replicas"]
				_, weight := m["weight"]
				return !replicas || !weight
			}},
	},
}

var disruptionSchema = &schema.Schema{
	Type:     schema.Object,
	Default:  map[string]any{"consolidateAfter": "0s"},
	Required: []string{"consolidateAfter"},
	Properties: map[string]*schema.Schema{
		"budgets": {
			Type: schema.Array, MaxItems: 50,
			Default: []any{map[string]any{"nodes": "10%"}},
			Items: &schema.Schema{
				Type:     schema.Object,
				Required: []string{"nodes"},
				Properties: map[string]*schema.Schema{
					"duration": {Type: schema.String, Pattern: budgetDuration, Fix: "write hours and minutes only, such as 8h, 30m or 1h30m"},
					"nodes": {Type: schema.String, Default: "10%", Pattern: budgetNodes,
						Fix: "write a count or a percentage of at most 100%, such as 5 or 10%"},
					"reasons": {Type: schema.Array, MaxItems: 50, Set: true, Items: &schema.Schema{
						Type: schema.String, Enum: []string{string(Underutilized), string(Empty), string(Drifted)},
					}},
					"schedule": {Type: schema.String, Pattern: budgetSchedule,
						Fix: "write five cron fields (\"0 9 * * mon-fri\") or a macro such as @daily"},
				},
			},
			// ...disruption.properties.budgets.x-kubernetes-validations
			Rules: []schema.Rule{{CEL: `self.all(x, has(x.schedule) == has(x.duration))`,
				Message: `'schedule' must be set with 'duration'`,
				Fix:     "set both (for example \"0 9 * * mon-fri\" and 8h) or neither",
				Holds: func(v any) bool {
					for _, b := range v.([]any) {
						m, _ := b.(map[string]any)
						_, s := m["schedule"]
						_, d := m["duration"]
						if s != d {
							return false
						}
					}
					return true
				}}},
		},
		"consolidateAfter": {Type: schema.String, Pattern: nillableDuration,
			Fix: "write a duration such as 0s (at once), 30s, 5m or 1h30m, or Never"},
		"consolidationPolicy": {Type: schema.String, Default: string(WhenEmptyOrUnderutilized),
			Enum: []string{string(WhenEmpty), string(WhenEmptyOrUnderutilized), string(Balanced)}},
	},
}

var templateSchema = &schema.Schema{
	Type:     schema.Object,
	Required: []string{"spec"},
	Properties: map[string]*schema.Schema{
		"metadata": {Type: schema.Object, Properties: map[string]*schema.Schema{
			"annotations": {Type: schema.Object, Additional: &schema.Schema{Type: schema.String}},
			"labels": {
				Type: schema.Object, MaxProperties: 100,
				Additional: &schema.Schema{Type: schema.String, MaxLength: 63, Pattern: labelValuePattern,
					Fix: "a label value is at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit"},
				Rules: labelRules(),
			},
		}},
		"spec": templateSpecSchema,
	},
}

// taintSchema is one item of taints and startupTaints.
var taintSchema = &schema.Schema{
	Type:     schema.Object,
	Required: []string{"effect", "key"},
	Properties: map[string]*schema.Schema{
		"effect": {Type: schema.String, Enum: []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}},
		"key": {Type: schema.String, MinLength: 1, Pattern: qualifiedPattern,
			Fix: "write a qualified name such as example.com/dedicated"},
		"timeAdded": {Type: schema.String, Format: "date-time"},
		"value": {Type: schema.String, Pattern: qualifiedPattern,
			Fix: "write a value of letters, digits, '-', '_' and '.', or leave value out for none"},
	},
}

var templateSpecSchema = &schema.Schema{
	Type:     schema.Object,
	Required: []string{"nodeClassRef", "requirements"},
	Properties: map[string]*schema.Schema{
		"expireAfter": {Type: schema.String, Default: "720h", Pattern: nillableDuration,
			Fix: "write a duration such as 720h or 30m, or Never"},
		"nodeClassRef": {
			Type:     schema.Object,
			Required: []string{"group", "kind", "name"},
			Properties: map[string]*schema.Schema{
				"group": {Type: schema.String, Pattern: noSlash, Fix: "give the API group alone, such as " + DefaultNodeClassGroup,
					Rules: []schema.Rule{notEmpty("group")}},
				"kind": {Type: schema.String, Rules: []schema.Rule{notEmpty("kind")}},
				"name": {Type: schema.String, Rules: []schema.Rule{notEmpty("name")}},
			},
		},
		"requirements":  requirementsSchema,
		"startupTaints": {Type: schema.Array, Items: taintSchema},
		"taints":        {Type: schema.Array, Items: taintSchema},
		"terminationGracePeriod": {Type: schema.String, Pattern: gracePeriodPattern,
			Fix: "write a duration such as 48h or 1h30m"},
	},
}

// notEmpty is the CRD's rule on each nodeClassRef field (...nodeClassRef.
// properties.{group,kind,name}.x-kubernetes-validations).
func notEmpty(field string) schema.Rule {
	return schema.Rule{CEL: `self != ''`, Message: field + " may not be empty",
		Fix:   "name the node class, such as {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}",
		Holds: func(v any) bool { return v != "" }}
}

var requirementsSchema = &schema.Schema{
	Type: schema.Array, MaxItems: 100,
	Items: &schema.Schema{
		Type:     schema.Object,
		Required: []string{"key", "operator"},
		Properties: map[string]*schema.Schema{
			"key": {Type: schema.String, MaxLength: 316, Pattern: qualifiedPattern,
				Fix: "write a label key such as karpenter.k8s.aws/instance-family", Rules: requirementKeyRules()},
			"minValues": {Type: schema.Integer, Minimum: schema.Int(1), Maximum: schema.Int(50), Fix: "use 1–50, or leave minValues out for none"},
			"operator":  {Type: schema.String, Enum: []string{"Gte", "Lte", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}},
			"values":    {Type: schema.Array, Items: &schema.Schema{Type: schema.String}},
		},
	},
	// ...requirements.x-kubernetes-validations
	Rules: []schema.Rule{
		{CEL: `self.all(x, x.operator == 'In' ? x.values.size() != 0 : true)`,
			Message: `requirements with operator 'In' must have a value defined`,
			Fix:     "list at least one value, or use Exists",
			Holds: everyRequirement(func(op string, values []any, hasValues bool, _ any) bool {
				return op != "In" || hasValues && len(values) != 0
			})},
		{CEL: `self.all(x, (x.operator == 'Gt' || x.operator == 'Lt' || x.operator == 'Gte' || x.operator == 'Lte') ? (x.values.size() == 1 && int(x.values[0]) >= 0) : true)`,
			Message: `requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value`,
			Fix:     "give exactly one value, a whole number of 0 or more, such as [\"4\"]",
			Holds: everyRequirement(func(op string, values []any, hasValues bool, _ any) bool {
				if op != "Gt" && op != "Lt" && op != "Gte" && op != "Lte" {
					return true
				}
				if !hasValues || len(values) != 1 {
					return false
				}
				// CEL's int() of a string is strconv.ParseInt(s, 10, 64),
				// so "+1" and "007" pass here.
				s, _ := values[0].(string)
				n, err := strconv.ParseInt(s, 10, 64)
				return err == nil && n >= 0
			})},
		{CEL: `self.all(x, (x.operator == 'In' && has(x.minValues)) ? x.values.size() >= x.minValues : true)`,
			Message: `requirements with 'minValues' must have at least that many values specified in the 'values' field`,
			Fix:     "list at least minValues values, or lower minValues",
			Holds: everyRequirement(func(op string, values []any, hasValues bool, minValues any) bool {
				if op != "In" || minValues == nil {
					return true
				}
				n, _ := schema.AsInteger(minValues)
				return hasValues && int64(len(values)) >= n
			})},
	},
}

// everyRequirement is CEL's self.all over the requirements, with each
// one's operator, values (and whether values is set) and minValues (nil
// when not set).
func everyRequirement(holds func(op string, values []any, hasValues bool, minValues any) bool) func(any) bool {
	return func(v any) bool {
		for _, r := range v.([]any) {
			m, _ := r.(map[string]any)
			op, _ := m["operator"].(string)
			values, hasValues := m["values"].([]any)
			if !holds(op, values, hasValues, m["minValues"]) {
				return false
			}
		}
		return true
	}
}

// nodePoolStatus is the shape of status, which Karpenter writes: only
// pruning reads it (its unknown fields are errors to strict field
// validation); the API server drops status on create before validating.
var nodePoolStatus = &schema.Schema{
	Type: schema.Object,
	Properties: map[string]*schema.Schema{
		"conditions": {Type: schema.Array, Items: &schema.Schema{Type: schema.Object, Properties: map[string]*schema.Schema{
			"lastTransitionTime": {Type: schema.String}, "message": {Type: schema.String},
			"observedGeneration": {Type: schema.Integer}, "reason": {Type: schema.String},
			"status": {Type: schema.String}, "type": {Type: schema.String},
		}}},
		"nodeClassObservedGeneration": {Type: schema.Integer},
		"nodes":                       {Type: schema.Integer, Default: int64(0)},
		"resources":                   {Type: schema.Object, Additional: &schema.Schema{Type: schema.IntOrString}},
	},
}
