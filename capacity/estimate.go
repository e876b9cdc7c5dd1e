package capacity

import (
	"fmt"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
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
	Kubelet userdata.KubeletConfig
	// Network is how the VPC CNI addresses pods.
	Network Network
	// MaxPodsExpression is the kubelet.maxPodsExpression of an AL2023
	// NodeConfig in your custom userData; only AL2023 reads one.
	MaxPodsExpression MaxPodsExpression
	// RootVolumeBytes is the size of the volume the kubelet's filesystem
	// is on (EC2NodeClass blockDeviceMappings: the root volume, or
	// Bottlerocket's data volume /dev/xvdb). Zero means the family's
	// default: 20 GiB, 50 GiB for Windows.
	RootVolumeBytes int64
	// InstanceStorePolicy RAID0 puts ephemeral storage on a RAID0 of the
	// instance-store volumes, on types that have them.
	InstanceStorePolicy userdata.InstanceStorePolicy
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
}

// Estimator computes what nodes of each instance type have under one
// [Launch]: capacity, the reservations the family and the kubelet
// configuration take, and allocatable, each term explained. The kubelet
// configuration is read once, in [NewEstimator]; an Estimator is immutable
// and safe for concurrent use (its [MemoryLookup] must be too, as a Cache
// is).
//
// How each family passes the kubelet configuration decides what a set
// field replaces (userdata's KubeletConfig documents where each goes):
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
	user        userKubelet
	reserve     reservePlan
	brTable     MaxPodsTable
	brTableName string
}

// NewEstimator reads l and o. It fails, naming the field and the fix, when
// the family is not one of compat's, the kubelet configuration is invalid
// (userdata.KubeletConfig.Validate) or holds a value no estimate can use,
// or a setting does not apply to the family.
func NewEstimator(l Launch, o EstimateOptions) (*Estimator, error) {
	if !l.Family.Valid() {
		return nil, fmt.Errorf("capacity: Launch.Family %q is not an AMI family; use one of compat.AMIFamilies()", string(l.Family))
	}
	if err := l.Kubelet.Validate(); err != nil {
		return nil, fmt.Errorf("capacity: Launch.Kubelet: %w", err)
	}
	if l.Family == compat.Bottlerocket && l.Kubelet.PodsPerCore != nil {
		return nil, fmt.Errorf("capacity: Launch.Kubelet.PodsPerCore is set, but Bottlerocket has no pods-per-core setting (userdata.Render refuses it); leave it nil or cap pods with MaxPods")
	}
	if !l.MaxPodsExpression.IsZero() && l.Family != compat.AL2023 {
		return nil, fmt.Errorf("capacity: Launch.MaxPodsExpression is set for %s, but only AL2023's nodeadm reads a maxPodsExpression; set Launch.Kubelet.MaxPods instead", l.Family)
	}
	if err := l.MaxPodsExpression.validate(); err != nil {
		return nil, err
	}
	if err := l.Network.validate(); err != nil {
		return nil, err
	}
	if l.RootVolumeBytes < 0 {
		return nil, fmt.Errorf("capacity: Launch.RootVolumeBytes is %d; give the volume's size in bytes, or 0 for the family's default", l.RootVolumeBytes)
	}
	if p := l.InstanceStorePolicy; p != "" && p != userdata.RAID0 {
		return nil, fmt.Errorf("capacity: Launch.InstanceStorePolicy %q is not a policy; use userdata.RAID0 or leave it empty", string(p))
	}
	if o.Memory > KarpenterOverhead {
		return nil, fmt.Errorf("capacity: EstimateOptions.Memory %v is not a model; use MeasuredOverhead or KarpenterOverhead", o.Memory)
	}
	user, err := readKubelet(l.Kubelet)
	if err != nil {
		return nil, err
	}
	e := &Estimator{launch: l, opts: o, user: user, brTable: o.BottlerocketMaxPods, brTableName: "the given eni-max-pods"}
	if o.BottlerocketMaxPods.Len() == 0 {
		e.brTable, e.brTableName = BottlerocketMaxPodsTable(), "/usr/share/eks/eni-max-pods (core-kit 96d45ad5)"
	}
	e.reserve = e.plan()
	return e, nil
}

// Estimate is what a node of one instance type has under a [Launch].
type Estimate struct {
	InstanceType string
	Family       compat.AMIFamily
	// Capacity is what the node reports. KubeReserved, SystemReserved and
	// EvictionHard are what the kubelet takes from it, EvictionHard
	// resolved against capacity; Limits is what the scheduler caps beside
	// them (Windows' pod addresses). Allocatable is Capacity less all of
	// them, never below 0.
	Capacity, KubeReserved, SystemReserved, EvictionHard, Limits, Allocatable Quantities
	// MaxPods is how the pods capacity was decided.
	MaxPods MaxPods
	// Terms explains every figure: one capacity term per resource, then
	// the reservations, in resource order.
	Terms []Term
	// Warnings are facts about the node a scheduler does not see: pods
	// the kubelet admits that the CNI cannot address.
	Warnings []string
	// Unresolved says what the estimate could not know; a resource it
	// names is estimated as 0 capacity.
	Unresolved []string
}

// Estimate returns what a node of it has. It never fails: what it cannot
// know it says in Unresolved.
func (e *Estimator) Estimate(it compat.InstanceType) Estimate {
	est := Estimate{InstanceType: it.Name, Family: e.launch.Family}
	mp := e.MaxPods(it)
	est.MaxPods = mp
	terms := make([]Term, 0, 12)
	terms = append(terms,
		Term{Resource: ResourceCPU, Kind: KindCapacity, Amount: int64(it.VCPU) * 1000, Source: SourcePublished,
			Rule: "the type's vCPUs", Citation: "EC2 DescribeInstanceTypes VCpuInfo.DefaultVCpus"},
		e.memoryTerm(it),
		e.storageTerm(it),
		mp.Term)
	if mp.Unresolved != "" {
		est.Unresolved = append(est.Unresolved, "max pods: "+mp.Unresolved)
	}
	var capacity Quantities
	for _, t := range terms {
		capacity = capacity.With(t.Resource, t.Amount)
	}
	terms = e.kubeReservedTerms(terms, it, mp, &est)
	terms = e.systemReservedTerms(terms)
	terms = e.evictionTerms(terms, capacity)
	terms = e.limitTerms(terms, it, mp)
	if w := e.addressWarning(it, mp); w != "" {
		est.Warnings = append(est.Warnings, w)
	}
	est.Unresolved = append(est.Unresolved, e.familyUnresolved()...)
	est.Terms = terms
	est.Capacity = capacity
	for _, t := range terms {
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
		est.Allocatable = est.Allocatable.With(r, max(capacity.Get(r)-taken.Get(r), 0))
	}
	return est
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

// familyUnresolved is what the estimate cannot know about the family's
// boot, whatever the type.
func (e *Estimator) familyUnresolved() []string {
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
	if e.launch.InstanceStorePolicy == userdata.RAID0 && it.InstanceStoreGB > 0 {
		t.Amount = it.InstanceStoreGB * 1_000_000_000
		t.Rule = fmt.Sprintf("RAID0 of the instance store: %d GB", it.InstanceStoreGB)
		t.Citation = "EC2 DescribeInstanceTypes InstanceStorageInfo.TotalSizeInGB; Karpenter v1.14.1 pkg/providers/instancetype/types.go:371-375"
		return t
	}
	if v := e.launch.RootVolumeBytes; v > 0 {
		t.Amount = v
		t.Rule = "the volume Launch.RootVolumeBytes gives"
		if e.launch.InstanceStorePolicy == userdata.RAID0 {
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
