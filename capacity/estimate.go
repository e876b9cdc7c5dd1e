package capacity

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/nodeclass"
)

// Launch is how nodes launch: everything besides the instance type that
// decides what a node has. Family is required; every other field's zero
// value means the family's and the kubelet's defaults.
type Launch struct {
	// Family is the AMI family the nodes boot.
	Family compat.AMIFamily
	// AMIID is the image the nodes run. With [EstimateOptions.Learned],
	// the memory learned for (instance type, AMIID) replaces the model.
	AMIID string
	// Kubelet is the kubelet configuration userdata.Render writes
	// (EC2NodeClass spec.kubelet). Each family passes it to the kubelet
	// its own way, which decides what it replaces: see [Estimator].
	Kubelet nodeclass.Kubelet
	// Network is how the VPC CNI addresses pods.
	Network Network
	// MaxPodsExpression is the spec.kubelet.maxPodsExpression of an AL2023
	// NodeConfig in your custom userData (userdata.Report's
	// MaxPodsExpression reads it): CEL that nodeadm evaluates per type
	// ([ParseMaxPodsExpression]); [MaxPodsFormula] writes the documented
	// forms. Only AL2023 reads one.
	MaxPodsExpression string
	// MaxPodsCalculator, when set, sets each type's maxPods to what AL2's
	// max-pods-calculator.sh prints for it, with Network's prefix
	// delegation and custom networking ([MaxPodsCalculator]). It cannot be
	// combined with Kubelet.MaxPods.
	MaxPodsCalculator *MaxPodsCalculator
	// NodeClassCEL follows Karpenter's alpha NodeClassCEL feature gate
	// (karpenter-provider-aws #9326, after v1.14.1): a Kubelet.KubeReserved
	// or Kubelet.SystemReserved value that is not a quantity is a CEL
	// expression Karpenter evaluates per instance type
	// ([ParseKarpenterExpression]) and writes into the userData as a
	// quantity. Without it such a value is refused, as the kubelet would
	// refuse it.
	NodeClassCEL bool
	// RootVolumeBytes is the size of the volume the kubelet's filesystem
	// is on (EC2NodeClass blockDeviceMappings: the root volume, or
	// Bottlerocket's data volume /dev/xvdb). Zero means the family's
	// default: 20 GiB, 50 GiB for Windows.
	RootVolumeBytes int64
	// InstanceStorePolicy RAID0 puts ephemeral storage on a RAID0 of the
	// instance-store volumes, on types that have them.
	InstanceStorePolicy nodeclass.InstanceStorePolicy
}

// EstimateOptions tunes an [Estimator]. The zero value means the defaults.
type EstimateOptions struct {
	// Learned is where the memory nodes reported comes from, typically a
	// [*Cache]. Nil means nothing is learned.
	Learned MemoryLookup
	// Memory is the memory model used when nothing is learned; zero is
	// [MeasuredOverhead].
	Memory MemoryModel
	// BottlerocketMaxPods is the eni-max-pods file of the Bottlerocket
	// release the nodes run; an empty table means the embedded copy
	// ([BottlerocketMaxPodsTable]).
	BottlerocketMaxPods MaxPodsTable
	// FallbackMaxPods, when above 0, stands in for a type's max pods that
	// cannot be known (an [Unknown] pods capacity): the pods capacity
	// takes it, and so does the family's kube-reserved memory where the
	// family computes it from its max pods (nodeadm does the same with
	// 110 when it cannot describe the type). The term's Source is
	// [SourceFallback] and the estimate's Assumptions say so. Zero means
	// no fallback.
	FallbackMaxPods int64
}

// Estimator computes what nodes of each instance type have under one
// [Launch]: capacity, the reservations the family and the kubelet
// configuration take, and allocatable, each term explained. The kubelet
// configuration is read once, in [NewEstimator]; an Estimator is immutable
// and safe for concurrent use (its [MemoryLookup] must be too, as a Cache
// is).
//
// How each family passes the kubelet configuration decides what a set
// field replaces (nodeclass.Kubelet documents where each goes):
//
//   - AL2 and Windows take kubelet flags, and a map flag replaces the whole
//     map of the config file (k8s.io/component-base cli/flag
//     MapStringString.Set): --kube-reserved=cpu=1 leaves bootstrap.sh's
//     memory and ephemeral-storage reservations out, and --eviction-hard
//     its other thresholds.
//   - AL2023 writes the configuration as a drop-in that the kubelet merges
//     key by key (kubernetes cmd/kubelet/app/server.go:355, JSON merge
//     patch): each set key replaces nodeadm's, the rest stay.
//   - Bottlerocket's kubelet config template takes kube-reserved cpu,
//     memory and ephemeral-storage one by one, and eviction-hard whole.
//
// AL2 and AL2023 compute kube-reserved memory from their own max pods
// whatever the user's maxPods; Bottlerocket from the max-pods setting.
type Estimator struct {
	launch      Launch
	opts        EstimateOptions
	maxPodsExpr Expression
	user        userKubelet
	reserve     reservePlan
	brTable     MaxPodsTable
	brTableName string
}

// NewEstimator reads l and o. It fails, naming the field and the fix, when
// the family is not one of compat's, the kubelet configuration is invalid
// (nodeclass.Kubelet.Validate) or holds a value no estimate can use,
// or a setting does not apply to the family.
func NewEstimator(l Launch, o EstimateOptions) (*Estimator, error) {
	if err := l.validate(o); err != nil {
		return nil, err
	}
	kubelet, exprs, err := splitExpressions(l)
	if err != nil {
		return nil, err
	}
	if err := kubelet.Validate(); err != nil {
		if l.NodeClassCEL {
			return nil, &InputError{Field: "Launch.Kubelet", Err: err}
		}
		return nil, &InputError{Field: "Launch.Kubelet", Err: err, Fix: "a Karpenter NodeClassCEL expression needs Launch.NodeClassCEL"}
	}
	x, err := ParseMaxPodsExpression(l.MaxPodsExpression)
	if err != nil {
		return nil, err
	}
	user, err := readKubelet(kubelet)
	if err != nil {
		return nil, err
	}
	user.expressions(exprs)
	e := &Estimator{launch: l, opts: o, maxPodsExpr: x, user: user, brTable: o.BottlerocketMaxPods, brTableName: "the given eni-max-pods"}
	if o.BottlerocketMaxPods.Len() == 0 {
		e.brTable, e.brTableName = BottlerocketMaxPodsTable(), "/usr/share/eks/eni-max-pods (core-kit 96d45ad5)"
	}
	e.reserve = e.plan()
	return e, nil
}

// validate checks the settings that need no parsing.
func (l Launch) validate(o EstimateOptions) error {
	switch {
	case !l.Family.Valid():
		return &InputError{Field: "Launch.Family", Reason: strconv.Quote(string(l.Family)) + " is not an AMI family", Fix: "use one of compat.AMIFamilies()"}
	case l.Family == compat.Bottlerocket && l.Kubelet.PodsPerCore != nil:
		return &InputError{Field: "Launch.Kubelet.PodsPerCore", Reason: "is set, but Bottlerocket has no pods-per-core setting (userdata.Render refuses it)", Fix: "leave it nil or cap pods with MaxPods"}
	case l.MaxPodsExpression != "" && l.Family != compat.AL2023:
		return &InputError{Field: "Launch.MaxPodsExpression", Reason: "is set for " + l.Family.String() + ", but only AL2023's nodeadm reads a maxPodsExpression", Fix: "set Launch.Kubelet.MaxPods instead"}
	case l.MaxPodsCalculator != nil && l.Kubelet.MaxPods != nil:
		return &InputError{Field: "Launch.MaxPodsCalculator", Reason: "and Launch.Kubelet.MaxPods both set maxPods", Fix: "keep one"}
	case l.RootVolumeBytes < 0:
		return &InputError{Field: "Launch.RootVolumeBytes", Reason: fmt.Sprintf("is %d", l.RootVolumeBytes), Fix: "give the volume's size in bytes, or 0 for the family's default"}
	case l.InstanceStorePolicy != "" && l.InstanceStorePolicy != nodeclass.RAID0:
		return &InputError{Field: "Launch.InstanceStorePolicy", Reason: strconv.Quote(string(l.InstanceStorePolicy)) + " is not a policy", Fix: "use nodeclass.RAID0 or leave it empty"}
	case o.Memory > KarpenterOverhead:
		return &InputError{Field: "EstimateOptions.Memory", Reason: fmt.Sprintf("%v is not a model", o.Memory), Fix: "use MeasuredOverhead or KarpenterOverhead"}
	case o.FallbackMaxPods < 0:
		return &InputError{Field: "EstimateOptions.FallbackMaxPods", Reason: fmt.Sprintf("is %d", o.FallbackMaxPods), Fix: "give a max pods above 0, or 0 for no fallback"}
	}
	if l.MaxPodsCalculator != nil {
		if err := l.MaxPodsCalculator.validate(l.Network); err != nil {
			return err
		}
	}
	return l.Network.validate()
}

// Estimate is what a node of one instance type has under a [Launch].
type Estimate struct {
	InstanceType string
	Family       compat.AMIFamily
	// Capacity is what the node reports; Capacity.Pods is its max pods.
	// KubeReserved, SystemReserved and EvictionHard are what the kubelet
	// takes from it, EvictionHard resolved against capacity; Limits is
	// what the scheduler caps beside them (Windows' pod addresses).
	// Allocatable is Capacity less all of them, never below 0. An amount
	// nothing sets is 0 here: [Estimate.Amount] tells it from a 0 that is
	// set. An unknown amount ([Estimate.Unknown]) is 0 too.
	Capacity, KubeReserved, SystemReserved, EvictionHard, Limits, Allocatable Quantities
	// MaxPods is how the pods capacity was decided.
	MaxPods MaxPods
	// Terms explains every figure: one capacity term per resource, then
	// the reservations, in resource order.
	Terms []Term
	// Unknown lists the figures the estimate cannot know, each with its
	// reason, the input it is about and the fix; [Estimate.Err] is the
	// one test of whether there are any.
	Unknown []Unknown
	// Assumptions are what the estimate takes for granted that no rule it
	// follows says: how Windows' unpublished bootstrap and a Custom AMI
	// configure the kubelet, a fallback max pods. They do not make it
	// unknown.
	Assumptions []string
	// Warnings are facts about the node a scheduler does not see: pods
	// the kubelet admits that the CNI cannot address, a maxPodsExpression
	// nodeadm gives up on.
	Warnings []string
	// Unresolved lists the unknowns and then the assumptions, as
	// sentences.
	//
	// Deprecated: use Unknown and Err (what cannot be known) and
	// Assumptions; Unresolved mixed the two, so a non-empty list did not
	// mean the estimate lacked an answer.
	Unresolved []string
}

// Err is the one test of whether the estimate knows every figure: nil
// when it does, else an [*UnknownError] listing [Estimate.Unknown] (each
// an [Unknown], which errors.As finds).
func (est Estimate) Err() error {
	if len(est.Unknown) == 0 {
		return nil
	}
	return &UnknownError{InstanceType: est.InstanceType, Unknowns: est.Unknown}
}

// Amount returns the amount of r of kind k, and whether it is set: false
// when nothing sets it (no reservation of r: the family and the kubelet
// configuration leave it out, or a kubelet flag replaced the map that had
// it; a threshold the kubelet ignores) and when it is unknown. A set
// amount may be 0.
func (est Estimate) Amount(k Kind, r Resource) (int64, bool) {
	for _, u := range est.Unknown {
		if u.Resource == r && u.Kind == k {
			return 0, false
		}
	}
	var sum int64
	set := false
	for _, t := range est.Terms {
		if t.Resource == r && t.Kind == k && !t.Unset {
			sum, set = sum+t.Amount, true
		}
	}
	return sum, set
}

// Given is capacity the caller knows better than the estimate, as
// cluster-autoscaler does from a node group's tags: each field set
// replaces the estimate's capacity of that resource (Source
// [SourceGiven]), and the family's reservations and eviction thresholds
// apply to it: its cpu reservation to the given cores, percentages to the
// given amounts. A nil field keeps the estimate's own. CPU is in
// millicores, memory and ephemeral storage in bytes.
type Given struct {
	CPU, Memory, EphemeralStorage, Pods *int64
}

func (g Given) get(r Resource) *int64 {
	return [...]*int64{g.CPU, g.Memory, g.EphemeralStorage, g.Pods}[r]
}

// Estimate returns what a node of it has. It never fails: what it cannot
// know it lists in Unknown.
func (e *Estimator) Estimate(it compat.InstanceType) Estimate {
	est, _ := e.EstimateGiven(it, Given{})
	return est
}

// EstimateGiven is [Estimator.Estimate] against the capacity the caller
// gives. It fails only for a negative amount.
func (e *Estimator) EstimateGiven(it compat.InstanceType, g Given) (Estimate, error) {
	for r := range numResources {
		if v := g.get(r); v != nil && *v < 0 {
			return Estimate{}, &InputError{Field: "Given." + givenFields[r], Reason: fmt.Sprintf("is %d", *v), Fix: "give an amount of 0 or more, or nil to estimate it"}
		}
	}
	est := Estimate{InstanceType: it.Name, Family: e.launch.Family}
	mp := e.maxPods(it)
	terms := make([]Term, 0, 12)
	terms = append(terms,
		Term{Resource: ResourceCPU, Kind: KindCapacity, Amount: int64(it.VCPU) * 1000, Source: SourcePublished,
			Rule: "the type's vCPUs", Citation: "EC2 DescribeInstanceTypes VCpuInfo.DefaultVCpus"},
		e.memoryTerm(it),
		e.storageTerm(it),
		mp.Term)
	for r := range numResources {
		if v := g.get(r); v != nil {
			terms[r] = Term{Resource: r, Kind: KindCapacity, Amount: *v, Source: SourceGiven, Rule: "given (Given." + givenFields[r] + ")"}
		}
	}
	if g.Pods == nil && mp.unknown != nil {
		est.Unknown = append(est.Unknown, *mp.unknown)
	}
	var capacity Quantities
	for _, t := range terms {
		capacity = capacity.With(t.Resource, t.Amount)
	}
	terms = e.kubeReservedTerms(terms, it, int(capacity.CPU/1000), mp, &est)
	terms = e.systemReservedTerms(terms, it, &est)
	terms = e.evictionTerms(terms, capacity)
	terms = e.limitTerms(terms, it, capacity.Pods, mp, &est)
	if w := e.addressWarning(it, mp); w != "" {
		est.Warnings = append(est.Warnings, w)
	}
	if mp.warning != "" {
		est.Warnings = append(est.Warnings, mp.warning)
	}
	if mp.assumption != "" {
		est.Assumptions = append(est.Assumptions, it.Name+": max pods: "+mp.assumption)
	}
	est.Assumptions = append(est.Assumptions, e.familyAssumptions()...)
	est.MaxPods, est.Terms, est.Capacity = mp, terms, capacity
	est.MaxPods.Pods = capacity.Pods
	est.total()
	est.Unresolved = unresolved(est.Unknown, est.Assumptions)
	return est, nil
}

var givenFields = [...]string{"CPU", "Memory", "EphemeralStorage", "Pods"}

// total sums the terms into the amounts of each kind, and allocatable.
func (est *Estimate) total() {
	for _, t := range est.Terms {
		switch t.Kind {
		case KindKubeReserved:
			est.KubeReserved = est.KubeReserved.With(t.Resource, est.KubeReserved.Get(t.Resource)+t.Amount)
		case KindSystemReserved:
			est.SystemReserved = est.SystemReserved.With(t.Resource, est.SystemReserved.Get(t.Resource)+t.Amount)
		case KindEvictionHard:
			est.EvictionHard = est.EvictionHard.With(t.Resource, est.EvictionHard.Get(t.Resource)+t.Amount)
		case KindLimit:
			est.Limits = est.Limits.With(t.Resource, est.Limits.Get(t.Resource)+t.Amount)
		}
	}
	taken := est.KubeReserved.Add(est.SystemReserved).Add(est.EvictionHard).Add(est.Limits)
	for r := range numResources {
		est.Allocatable = est.Allocatable.With(r, max(est.Capacity.Get(r)-taken.Get(r), 0))
	}
}

// unresolved is the deprecated Unresolved list: each unknown as
// "max pods: …" or "kube-reserved memory: …", then the assumptions.
func unresolved(unknown []Unknown, assumptions []string) []string {
	var out []string
	for _, u := range unknown {
		what := "max pods"
		if u.Kind != KindCapacity {
			what = u.Kind.String() + " " + u.Resource.String()
		}
		out = append(out, what+": "+u.Detail)
	}
	return append(out, assumptions...)
}

// Term returns the estimate's first term of kind k for r, and whether it
// has one: Term(ResourceMemory, KindCapacity) says where the memory
// capacity came from.
func (est Estimate) Term(r Resource, k Kind) (Term, bool) {
	for _, t := range est.Terms {
		if t.Resource == r && t.Kind == k {
			return t, true
		}
	}
	return Term{}, false
}

// EstimateAll returns the estimate of each type, in order.
func (e *Estimator) EstimateAll(types []compat.InstanceType) []Estimate {
	out := make([]Estimate, len(types))
	for i := range types {
		out[i] = e.Estimate(types[i])
	}
	return out
}

// familyAssumptions is what the estimate assumes about the family's boot,
// whatever the type.
func (e *Estimator) familyAssumptions() []string {
	switch {
	case e.launch.Family == compat.Custom:
		return []string{"a Custom AMI boots its own way: this assumes its kubelet runs with Launch.Kubelet and the kubelet's defaults otherwise"}
	case e.launch.Family.IsWindows():
		return []string{"Start-EKSBootstrap.ps1 is not published: this assumes it sets no maxPods, kubeReserved or evictionHard, as aws/containers-roadmap#1245 says"}
	}
	return nil
}

// storageTerm is the ephemeral-storage capacity: the RAID0 of the
// instance store when the policy asks for it and the type has one, else
// the volume the kubelet's filesystem is on. The filesystem reports a
// little less than the volume (its own metadata); the estimate does not
// model that.
func (e *Estimator) storageTerm(it compat.InstanceType) Term {
	t := Term{Resource: ResourceEphemeralStorage, Kind: KindCapacity, Source: SourceLaunch}
	if e.launch.InstanceStorePolicy == nodeclass.RAID0 && it.InstanceStoreGB > 0 {
		t.Amount = it.InstanceStoreGB * 1_000_000_000
		t.Rule = fmt.Sprintf("RAID0 of the instance store: %d GB", it.InstanceStoreGB)
		t.Citation = "EC2 DescribeInstanceTypes InstanceStorageInfo.TotalSizeInGB; Karpenter v1.14.1 pkg/providers/instancetype/types.go:371-375"
		return t
	}
	if v := e.launch.RootVolumeBytes; v > 0 {
		t.Amount = v
		t.Rule = "the volume Launch.RootVolumeBytes gives"
		if e.launch.InstanceStorePolicy == nodeclass.RAID0 {
			t.Rule += fmt.Sprintf(" (%s has no instance store to RAID)", it.Name)
		}
		return t
	}
	t.Amount, t.Rule, t.Citation = e.defaultVolume()
	t.Source = SourceFamily
	return t
}

// defaultVolume is the family's default volume for the kubelet's
// filesystem, as Karpenter's EC2NodeClass defaults it.
func (e *Estimator) defaultVolume() (int64, string, string) {
	switch {
	case e.launch.Family.IsWindows():
		return 50 * gib, "the default 50 GiB /dev/sda1", "karpenter-provider-aws v1.14.1 pkg/providers/amifamily/windows.go:88-99"
	case e.launch.Family == compat.Bottlerocket:
		return 20 * gib, "the default 20 GiB data volume /dev/xvdb", "karpenter-provider-aws v1.14.1 pkg/providers/amifamily/bottlerocket.go:183-200"
	}
	return 20 * gib, "the default 20 GiB root volume", "karpenter-provider-aws v1.14.1 pkg/providers/amifamily/resolver.go:41-44 (DefaultEBS)"
}

// String returns the estimate as a table, one row per resource; a
// "limit" column appears when the estimate has one (Windows).
func (est Estimate) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s under %s\n", est.InstanceType, est.Family)
	cols := []Quantities{est.Capacity, est.KubeReserved, est.SystemReserved, est.EvictionHard}
	header := []string{"resource", "capacity", "kube-reserved", "system-reserved", "eviction-hard"}
	if est.Limits != (Quantities{}) {
		cols, header = append(cols, est.Limits), append(header, "limit")
	}
	cols, header = append(cols, est.Allocatable), append(header, "allocatable")
	rows := [][]string{header}
	for r := range numResources {
		row := []string{r.String()}
		for _, q := range cols {
			row = append(row, FormatQuantity(r, q.Get(r)))
		}
		rows = append(rows, row)
	}
	writeTable(&b, rows)
	return b.String()
}

// Explain returns every term on its own line, then the warnings and what
// is unresolved.
func (est Estimate) Explain() string {
	var b strings.Builder
	b.WriteString(est.String())
	for _, t := range est.Terms {
		b.WriteString("  ")
		b.WriteString(t.String())
		b.WriteByte('\n')
	}
	for _, w := range est.Warnings {
		b.WriteString("  warning: ")
		b.WriteString(w)
		b.WriteByte('\n')
	}
	for _, u := range est.Unresolved {
		b.WriteString("  unresolved: ")
		b.WriteString(u)
		b.WriteByte('\n')
	}
	return b.String()
}

// writeTable writes rows in columns separated by two spaces, the first
// left-aligned and the rest right-aligned.
func writeTable(b *strings.Builder, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, row := range rows {
		for i, c := range row {
			if i == 0 {
				b.WriteString(c)
				b.WriteString(strings.Repeat(" ", widths[i]-len(c)))
				continue
			}
			b.WriteString("  ")
			b.WriteString(strings.Repeat(" ", widths[i]-len(c)))
			b.WriteString(c)
		}
		b.WriteByte('\n')
	}
}
