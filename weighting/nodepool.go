package weighting

import (
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// The NodePool resource this package reads and writes, and the node class
// a NodePool refers to by default.
const (
	APIVersion = "karpenter.sh/v1"
	Kind       = "NodePool"

	DefaultNodeClassGroup = "karpenter.k8s.aws"
	DefaultNodeClassKind  = "EC2NodeClass"
)

// NodePool is a Karpenter karpenter.sh/v1 NodePool as a plain value, with no
// Kubernetes dependency. Every field of the resource's spec and the
// metadata a user writes has a field here:
//
//	Name                    metadata.name
//	ObjectLabels            metadata.labels (the NodePool's own)
//	ObjectAnnotations       metadata.annotations (the NodePool's own)
//	Weight                  spec.weight (0: none, which Karpenter treats as 0)
//	Replicas                spec.replicas (alpha: a static NodePool)
//	Limits                  spec.limits
//	Disruption              spec.disruption
//	Labels                  spec.template.metadata.labels (its nodes')
//	Annotations             spec.template.metadata.annotations (its NodeClaims')
//	Requirements            spec.template.spec.requirements, minValues included
//	NodeClassRef            spec.template.spec.nodeClassRef
//	Taints                  spec.template.spec.taints
//	StartupTaints           spec.template.spec.startupTaints
//	ExpireAfter             spec.template.spec.expireAfter
//	TerminationGracePeriod  spec.template.spec.terminationGracePeriod
//	Unknown                 the other metadata fields (uid, finalizers...)
//
// An empty string, nil map or nil pointer means the field is not set, so
// Karpenter's default applies; encoding leaves it out. status is dropped on
// decoding: it is Karpenter's to write.
//
// NodePool implements [encoding/json.Marshaler] and
// [encoding/json.Unmarshaler], so it encodes as a whole karpenter.sh/v1
// resource, apiVersion and kind included, wherever it is embedded, also
// through sigs.k8s.io/yaml; and it implements the Marshaler and the
// function-taking Unmarshaler of go.yaml.in/yaml (v2 and v3) without
// depending on them. [NodePool.EncodeYAML] and [DecodeNodePool] work on
// whole documents. All of them validate (see [NodePool.Validate]).
type NodePool struct {
	Name              string
	ObjectLabels      map[string]string
	ObjectAnnotations map[string]string

	Weight int32
	// Replicas makes the NodePool static (alpha in Karpenter): it keeps
	// this many nodes, and may then set no weight and no limit but nodes.
	Replicas *int64
	// Limits caps what the NodePool may launch, by resource name ("cpu",
	// "memory", "nodes", "nvidia.com/gpu"), as Kubernetes quantities
	// ("1000", "1000Gi"). Limits apply to each NodePool on its own.
	Limits     map[string]string
	Disruption Disruption

	Labels      map[string]string
	Annotations map[string]string
	// Requirements carry Karpenter's minValues where the resource does, on
	// each requirement (the MinValues of [compat.Requirement], 0 for none);
	// two requirements on one key may set different ones, and Karpenter
	// then asks for the larger.
	Requirements  []compat.Requirement
	NodeClassRef  NodeClassRef
	Taints        []userdata.Taint
	StartupTaints []userdata.Taint
	// ExpireAfter is how long a node lives ("720h", "Never"); "" leaves
	// Karpenter's default, 720h.
	ExpireAfter string
	// TerminationGracePeriod bounds how long draining a node may take
	// ("48h"); "" means no bound.
	TerminationGracePeriod string

	// Unknown holds the metadata fields this type does not map, so that
	// decoding and encoding keep them: what the API server writes (uid,
	// resourceVersion, creationTimestamp, managedFields...) and finalizers,
	// ownerReferences, generateName. Keys are JSON Pointers to them
	// ("/metadata/uid"); values are what encoding/json decodes into an any
	// (nil, bool, float64, string, []any, map[string]any). Karpenter
	// v1.14.1's CRD has no other field: one elsewhere is an error, as it is
	// to kubectl apply.
	Unknown map[string]any
}

// NodeClassRef refers to the node class, an EC2NodeClass for the AWS
// provider, that a NodePool's nodes are launched with.
type NodeClassRef struct {
	Group, Kind, Name string
}

// Disruption is a NodePool's spec.disruption: when Karpenter may
// consolidate its nodes, and how many it may disrupt at once. The zero
// value leaves the field out, and Karpenter defaults it to consolidateAfter
// 0s; once any field is set, ConsolidateAfter is required, as in the CRD.
type Disruption struct {
	// ConsolidationPolicy is WhenEmpty, WhenEmptyOrUnderutilized or
	// Balanced; "" leaves Karpenter's default, WhenEmptyOrUnderutilized.
	ConsolidationPolicy ConsolidationPolicy
	// ConsolidateAfter is how long a node must be consolidatable before
	// Karpenter acts ("30s", "5m", "Never").
	ConsolidateAfter string
	// Budgets limit disruption; nil leaves Karpenter's default, one budget
	// of 10% of the nodes, and an empty list means no budget: no limit.
	Budgets []Budget
}

// ConsolidationPolicy says which nodes consolidation may disrupt.
type ConsolidationPolicy string

// The consolidation policies of Karpenter v1.14.
const (
	WhenEmpty                ConsolidationPolicy = "WhenEmpty"
	WhenEmptyOrUnderutilized ConsolidationPolicy = "WhenEmptyOrUnderutilized"
	Balanced                 ConsolidationPolicy = "Balanced"
)

// Budget is one disruption budget: at most Nodes nodes ("10%", "5", "0")
// disrupted at once, while the budget is active, for Reasons (all reasons
// when nil). A budget with a Schedule (cron syntax, UTC) is active for
// Duration ("8h", "1h30m") after each time the schedule fires; one without
// either is always active.
type Budget struct {
	// Nodes is a count or a percentage; "" leaves Karpenter's default, 10%.
	Nodes    string
	Schedule string
	Duration string
	Reasons  []DisruptionReason
}

// DisruptionReason is a kind of disruption a budget applies to.
type DisruptionReason string

// The disruption reasons a budget can name.
const (
	Underutilized DisruptionReason = "Underutilized"
	Empty         DisruptionReason = "Empty"
	Drifted       DisruptionReason = "Drifted"
)
