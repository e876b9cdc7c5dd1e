package capacity

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/ec2select/ec2select/compat"
)

// Citations of the max-pods rules, read at these commits.
const (
	citeAL2Table      = "awslabs/amazon-eks-ami 0ab84280 templates/al2/runtime/bootstrap.sh:510-520 (awk on /etc/eks/eni-max-pods.txt, else max-pods-calculator.sh --cni-version 1.10.0 --show-max-allowed), :530-532 (maxPods unless --use-max-pods false)"
	citeAL2Calculator = "awslabs/amazon-eks-ami 0ab84280 templates/al2/runtime/max-pods-calculator.sh:103-107,121-146 (default card's interfaces × (IPv4 per interface − 1) + 2)"
	citeNodeadm       = "awslabs/amazon-eks-ami 81fec2e8 nodeadm/internal/kubelet/eni_max_pods.go:33-52 (instance-info.jsonl, else DescribeInstanceTypes), :61-77 (CalcMaxPods), config.go:278-282"
	citeNodeadmExpr   = "awslabs/amazon-eks-ami 81fec2e8 nodeadm/internal/kubelet/eni_max_pods.go:79-113 (maxPodsExpression; a result ≤ 0 falls back to the standard value), nodeadm/doc/examples.md \"Defining a Max Pods Expression\""
	citePluto         = "bottlerocket-os/bottlerocket-core-kit a10182f9 sources/api/pluto/src/main.rs:140-181 (max-pods from /usr/share/eks/eni-max-pods, left unset for a type it lacks; 6cbbfafe reads eni-max-pods-override first), packages/kubernetes-1.31/kubelet-config:151 (maxPods: default 110)"
	citeKubeletMax    = "kubernetes v1.35.3 pkg/kubelet/apis/config/v1beta1/defaults.go:194-196 (maxPods 0 or unset is 110)"
	citePodsPerCore   = "kubernetes v1.35.3 pkg/kubelet/nodestatus/setters.go:235-241 (pods = min(podsPerCore × cores, maxPods))"
	citeMaxPodsFlag   = "kubernetes v1.35.3 cmd/kubelet/app/options/options.go:459 (--max-pods, applied over the config file)"
	citeWindowsMax    = "Start-EKSBootstrap.ps1 is not published; Karpenter v1.14.1 pkg/providers/amifamily/windows.go:101-108 (SupportsENILimitedPodDensity false) and aws/containers-roadmap#1245 (no max-pods or reservations) say it leaves the kubelet's defaults"
	citeWindowsIPs    = "EKS User Guide, windows-support.html (Windows pods per node = IPv4 addresses per interface − 1); Karpenter v1.14.1 pkg/providers/instancetype/types.go:155-157,507-514 (vpc.amazonaws.com/PrivateIPv4Address)"
	citeAddresses     = "awslabs/amazon-eks-ami 0ab84280 templates/al2/runtime/max-pods-calculator.sh:97-146 (addresses per interface, 16 per prefix on Nitro; custom networking takes one interface); Karpenter v1.14.1 pkg/providers/instancetype/types.go:485-505 (efa-only interfaces carry none)"
)

// Network is how the Amazon VPC CNI gives pods addresses: the settings that
// change how many pods a node can address, what max-pods-calculator.sh
// recommends and what Karpenter predicts. The zero value is the CNI's
// default: one IPv4 address per pod, on every interface of the default
// network card.
//
// No AMI family's boot software reads these: with prefix delegation or
// custom networking, the node's max pods stay the family's ENI figure
// unless the kubelet configuration sets maxPods (or, on AL2023, a
// [MaxPodsExpression] computes it). The estimate says when the kubelet
// would admit more pods than the CNI can address.
type Network struct {
	// PrefixDelegation is ENABLE_PREFIX_DELEGATION: each address slot
	// holds a /28 prefix of 16 addresses, on Nitro types only.
	PrefixDelegation bool
	// ReservedENIs is the number of default-card interfaces that carry no
	// pod addresses: 1 with custom networking, whose pods use other
	// subnets than the node's primary interface (Karpenter's
	// RESERVED_ENIS).
	ReservedENIs int
	// EFAOnlyInterfaces is the number of efa-only interfaces on the
	// default card (EC2NodeClass networkInterfaces), which take an
	// interface slot and give no addresses.
	EFAOnlyInterfaces int
	// IPv6 is an IPv6 cluster: pods take addresses from each interface's
	// /80 prefix, so addresses do not limit them.
	IPv6 bool
}

func (n Network) validate() error {
	if n.ReservedENIs < 0 || n.EFAOnlyInterfaces < 0 {
		return &InputError{Field: "Launch.Network", Reason: fmt.Sprintf("has ReservedENIs %d and EFAOnlyInterfaces %d", n.ReservedENIs, n.EFAOnlyInterfaces), Fix: "give interface counts of 0 or more"}
	}
	return nil
}

// MaxPodsFormula writes the kubelet.maxPodsExpression forms nodeadm's
// documentation gives (nodeadm/doc/examples.md "Defining a Max Pods
// Expression") as CEL text: reserve interfaces, count 16 addresses per
// slot as max-pods-calculator.sh does with prefix delegation, add pods,
// cap the result. [MaxPodsFormula.String] is the text to put in a
// NodeConfig and in [Launch.MaxPodsExpression]; any other CEL nodeadm
// accepts can go there as well. The zero value is no expression.
type MaxPodsFormula struct {
	// ReservedENIs leaves interfaces out:
	// ((default_enis - R) * (ips_per_eni - 1)) + 2. Custom networking
	// reserves 1.
	ReservedENIs int
	// PrefixDelegation counts 16 addresses per slot:
	// ((default_enis - R) * ((ips_per_eni - 1) * 16)) + 2.
	PrefixDelegation bool
	// Add adds pods to the result: max_pods + N.
	Add int
	// Cap caps the result: max_pods < C ? max_pods : C. Zero means no cap.
	Cap int
}

// MaxPodsExpression is the four-knob form of a maxPodsExpression.
//
// Deprecated: use MaxPodsFormula, whose String gives the CEL text for
// Launch.MaxPodsExpression; capacity now evaluates any CEL nodeadm does.
type MaxPodsExpression = MaxPodsFormula

// IsZero reports whether x is no expression.
func (x MaxPodsFormula) IsZero() bool { return x == MaxPodsFormula{} }

// String returns the expression as CEL for kubelet.maxPodsExpression, with
// nodeadm's variables default_enis, ips_per_eni and max_pods; "" for the
// zero value.
func (x MaxPodsFormula) String() string {
	if x.IsZero() {
		return ""
	}
	var e string
	switch {
	case x.ReservedENIs == 0 && !x.PrefixDelegation:
		e = "max_pods"
	case !x.PrefixDelegation:
		e = fmt.Sprintf("((default_enis - %d) * (ips_per_eni - 1)) + 2", x.ReservedENIs)
	case x.ReservedENIs == 0:
		e = "(default_enis * ((ips_per_eni - 1) * 16)) + 2"
	default:
		e = fmt.Sprintf("((default_enis - %d) * ((ips_per_eni - 1) * 16)) + 2", x.ReservedENIs)
	}
	if x.Add != 0 {
		if x.Add > 0 {
			e = fmt.Sprintf("%s + %d", e, x.Add)
		} else {
			e = fmt.Sprintf("%s - %d", e, -x.Add)
		}
	}
	if x.Cap > 0 {
		e = fmt.Sprintf("(%s) < %d ? (%s) : %d", e, x.Cap, e, x.Cap)
	}
	return e
}

// MaxPods is how an estimate's pods capacity was decided: the rule, the
// figure the family reserves memory by, and the pods the VPC CNI can
// address. The figure itself is [Estimate].Capacity.Pods.
type MaxPods struct {
	// Pods is the node's pods capacity.
	//
	// Deprecated: use Estimate.Capacity.Pods, the one place an estimate
	// holds it (0 here, as there, when it is unknown).
	Pods int64
	// ReservationPods is the max pods the family computes its default
	// kube-reserved memory from (11 × ReservationPods + 255 MiB): on AL2
	// and AL2023 the family's own figure, whatever the user sets; on
	// Bottlerocket the max-pods setting, the user's or pluto's. Zero when
	// the family reserves no memory by pods (Windows, Custom, and
	// Bottlerocket for a type its table lacks) or the figure is unknown.
	ReservationPods int64
	// Addresses is how many pods the VPC CNI can give an address (pods on
	// the host network need none), under [Launch.Network]: -1 when
	// addresses do not limit pods (IPv6), 0 when the type's interface
	// facts are unknown.
	Addresses int64
	// Term is the pods capacity term, with its rule and citation.
	Term Term
	// Unresolved says why the pods capacity cannot be known.
	//
	// Deprecated: use Estimate.Unknown, or Estimate.Err for the one test.
	Unresolved string

	unknown, reservationUnknown *Unknown
	// assumption and warning go to the estimate's Assumptions and Warnings.
	assumption, warning string
}

// maxPodsBase is a family's own figure for a type, before the user's
// kubelet configuration.
type maxPodsBase struct {
	pods     int64
	reserve  bool // the family computes kube-reserved memory from pods
	source   Source
	rule     string
	citation string
	unknown  *Unknown // why the figure cannot be known
	warning  string   // a maxPodsExpression nodeadm gives up on
}

// eniFacts returns the default card's interfaces and the IPv4 addresses
// per interface: from the type's own DescribeInstanceTypes facts when
// nodeadmFirst is false and it has them, from nodeadm's snapshot of
// DescribeInstanceTypes otherwise, and ok false when neither has them.
func eniFacts(it compat.InstanceType, nodeadmFirst bool) (enis, ipv4 int64, from string, ok bool) {
	own := func() bool {
		enis, ipv4 = int64(it.Network.DefaultCardInterfaces()), int64(it.Network.IPv4PerInterface)
		from = "DescribeInstanceTypes"
		return enis > 0 && ipv4 > 0
	}
	snapshot := func() bool {
		f, ok := embeddedTables().nodeadm[it.Name]
		enis, ipv4, from = f.enis, f.ipv4, "nodeadm's instance-info.jsonl"
		return ok
	}
	if nodeadmFirst {
		if snapshot() || own() {
			return enis, ipv4, from, true
		}
		return 0, 0, "", false
	}
	if own() || snapshot() {
		return enis, ipv4, from, true
	}
	return 0, 0, "", false
}

// eniFormula is maxPods = interfaces × (IPv4 per interface − 1) + 2.
func eniFormula(enis, ipv4 int64) int64 { return enis*(ipv4-1) + 2 }

func noFacts(it compat.InstanceType) string {
	return fmt.Sprintf("%s has no interface facts (compat.InstanceType.Network from DescribeInstanceTypes) and nodeadm's instance-info.jsonl does not list it", it.Name)
}

// fixFactsOnly and fixFacts are how to make a type's interface facts,
// or the figure that needs them, known.
const fixFactsOnly = "load the type from DescribeInstanceTypes (compat.InstanceTypeFromEC2, or compat.InstanceTypeByName from the embedded catalog)"

const fixFacts = "load the type from DescribeInstanceTypes (compat.InstanceTypeFromEC2, or compat.InstanceTypeByName from the embedded catalog), set Launch.Kubelet.MaxPods, or give EstimateOptions.FallbackMaxPods"

// unknownPods is the pods capacity of it unknown for want of interface
// facts, detail saying which rule needs them.
func unknownPods(it compat.InstanceType, detail string) *Unknown {
	return &Unknown{Resource: ResourcePods, Kind: KindCapacity, Reason: ReasonNoInterfaceFacts, Input: it.Name, Detail: detail, Fix: fixFacts}
}

// al2Base is what bootstrap.sh computes: the table's line, else
// max-pods-calculator.sh's uncapped ENI figure.
func al2Base(it compat.InstanceType) maxPodsBase {
	pods, matches := embeddedTables().al2.lookupAWK(it.Name)
	switch {
	case matches == 1:
		return maxPodsBase{pods: pods, reserve: true, source: SourceFamily, citation: citeAL2Table,
			rule: "/etc/eks/eni-max-pods.txt lists " + it.Name + " with " + strconv.FormatInt(pods, 10)}
	case matches > 1:
		return maxPodsBase{reserve: true, source: SourceFamily, citation: citeAL2Table, unknown: &Unknown{Resource: ResourcePods, Kind: KindCapacity, Reason: ReasonAmbiguousTable, Input: it.Name,
			Detail: fmt.Sprintf("bootstrap.sh's awk pattern /^%s/ matches %d lines of /etc/eks/eni-max-pods.txt, so MAX_PODS is several numbers and its arithmetic fails", it.Name, matches),
			Fix:    "set Launch.Kubelet.MaxPods (bootstrap.sh --use-max-pods false with --max-pods), or give EstimateOptions.FallbackMaxPods"}}
	}
	enis, ipv4, from, ok := eniFacts(it, false)
	if !ok {
		return maxPodsBase{reserve: true, source: SourceFamily, citation: citeAL2Table + "; " + citeAL2Calculator, unknown: unknownPods(it, "eni-max-pods.txt does not list "+it.Name+", so bootstrap.sh asks DescribeInstanceTypes, and "+noFacts(it))}
	}
	return maxPodsBase{pods: eniFormula(enis, ipv4), reserve: true, source: SourceFamily, citation: citeAL2Table + "; " + citeAL2Calculator,
		rule: fmt.Sprintf("eni-max-pods.txt does not list %s, so max-pods-calculator.sh computes %d × (%d − 1) + 2 from %s", it.Name, enis, ipv4, from)}
}

// al2023Base is nodeadm's CalcMaxPods, with the expression if any: its
// value, or the standard one when nodeadm gives up on it.
func al2023Base(it compat.InstanceType, x Expression) maxPodsBase {
	enis, ipv4, from, ok := eniFacts(it, true)
	if !ok {
		return maxPodsBase{reserve: true, source: SourceFamily, citation: citeNodeadm, unknown: unknownPods(it, noFacts(it))}
	}
	std := eniFormula(enis, ipv4)
	b := maxPodsBase{pods: std, reserve: true, source: SourceFamily, citation: citeNodeadm,
		rule: "nodeadm: " + strconv.FormatInt(enis, 10) + " × (" + strconv.FormatInt(ipv4, 10) + " − 1) + 2, from " + from}
	if x.IsZero() {
		return b
	}
	b.citation += "; " + citeNodeadmCEL
	v, err := x.Eval(Variables{DefaultENIs: enis, IPsPerENI: ipv4, MaxPods: std})
	if err != nil {
		var xe *ExpressionError
		errors.As(err, &xe)
		b.rule += fmt.Sprintf("; maxPodsExpression %q fails at %d:%d (%s), so nodeadm keeps the standard value", x.String(), xe.Line, xe.Column, xe.Reason)
		b.warning = fmt.Sprintf("%s: nodeadm logs \"Failed to evaluate custom expression, using standard max pods value\" (%d): %v", it.Name, std, err)
		return b
	}
	// Concatenated, not formatted: this runs once per type per estimate.
	b.pods = v
	b.rule = "nodeadm: maxPodsExpression " + x.quoted + " with default_enis " + strconv.FormatInt(enis, 10) + ", ips_per_eni " + strconv.FormatInt(ipv4, 10) +
		", max_pods " + strconv.FormatInt(std, 10) + " (from " + from + ")"
	return b
}

// bottlerocketBase is pluto's lookup, or the template's default of 110.
func bottlerocketBase(it compat.InstanceType, table MaxPodsTable, tableName string) maxPodsBase {
	if pods, ok := table.Lookup(it.Name); ok {
		return maxPodsBase{pods: pods, reserve: true, source: SourceFamily, citation: citePluto,
			rule: "pluto: " + tableName + " lists " + it.Name + " with " + strconv.FormatInt(pods, 10)}
	}
	return maxPodsBase{pods: 110, source: SourceFamily, citation: citePluto,
		rule: fmt.Sprintf("pluto: %s does not list %s, so settings.kubernetes.max-pods stays unset and the kubelet config template writes 110", tableName, it.Name)}
}

// MaxPods returns how many pods a node of it runs under the estimator's
// family, kubelet configuration and network, and why.
//
// Deprecated: use Estimate, whose Capacity.Pods is the figure and whose
// MaxPods field is this explanation.
func (e *Estimator) MaxPods(it compat.InstanceType) MaxPods { return e.maxPods(it) }

// maxPods is the family's own figure unless the kubelet configuration or
// the calculator sets maxPods, capped by podsPerCore; what it cannot know
// it records as an [Unknown].
func (e *Estimator) maxPods(it compat.InstanceType) MaxPods {
	base := e.maxPodsBase(it)
	if base.unknown != nil && e.opts.FallbackMaxPods > 0 {
		base = e.fallback(base)
	}
	mp := MaxPods{Addresses: e.addresses(it), warning: base.warning}
	if base.unknown != nil && base.reserve {
		u := *base.unknown
		u.Resource, u.Kind = ResourceMemory, KindKubeReserved
		mp.reservationUnknown = &u
	}
	if base.reserve && base.unknown == nil {
		mp.ReservationPods = base.pods
	}
	if base.source == SourceFallback {
		mp.assumption = base.rule
	}
	t := Term{Resource: ResourcePods, Kind: KindCapacity, Amount: base.pods, Source: base.source, Rule: base.rule, Citation: base.citation}
	unknown := base.unknown
	if p, ut, u := e.userPods(it, base); p != nil || u != nil {
		t, unknown = ut, u
		if p != nil && e.launch.Family == compat.Bottlerocket {
			// Bottlerocket's kube-reserved memory follows the setting,
			// whoever wrote it, when it is not 0: the template's
			// {{#if settings.kubernetes.max-pods}} (kubelet-config:89-90).
			mp.ReservationPods = *p
		}
	}
	if unknown != nil {
		mp.unknown, mp.Unresolved = unknown, unknown.Detail
		mp.Term = Term{Resource: ResourcePods, Kind: KindCapacity, Source: t.Source, Rule: "unknown: " + unknown.Detail, Citation: t.Citation}
		return mp
	}
	if ppc := e.user.podsPerCore; ppc > 0 {
		if limit := ppc * int64(it.VCPU); limit < t.Amount {
			t.Rule += fmt.Sprintf("; podsPerCore %d × %d vCPUs caps it at %d", ppc, it.VCPU, limit)
			t.Citation += "; " + citePodsPerCore
			t.Amount = limit
		}
	}
	mp.Pods, mp.Term = t.Amount, t
	return mp
}

// fallback is base with the caller's fallback max pods in place of the
// figure it cannot know; the family reserves memory by it as by its own.
func (e *Estimator) fallback(base maxPodsBase) maxPodsBase {
	n := e.opts.FallbackMaxPods
	base.rule = fmt.Sprintf("EstimateOptions.FallbackMaxPods %d, as %s (%s)", n, base.unknown.Reason, base.unknown.Detail)
	base.pods, base.source, base.unknown = n, SourceFallback, nil
	return base
}

// userPods is the user's maxPods: Launch.Kubelet.MaxPods, or what
// Launch.MaxPodsCalculator prints for it; nil with no unknown when the
// user sets none.
func (e *Estimator) userPods(it compat.InstanceType, base maxPodsBase) (*int64, Term, *Unknown) {
	if p := e.user.maxPods; p != nil {
		return p, e.userMaxPods(*p, base), nil
	}
	if e.launch.MaxPodsCalculator == nil {
		return nil, Term{}, nil
	}
	calc := e.launch.MaxPodsCalculator.calculator(e.launch.Network)
	v, err := calc.MaxPods(it)
	if err != nil {
		return nil, Term{Source: SourceUser, Citation: citeCalculator}, unknownPods(it, "max-pods-calculator.sh asks DescribeInstanceTypes, and "+noFacts(it))
	}
	t := e.userMaxPods(v, base)
	t.Rule = fmt.Sprintf("max-pods-calculator.sh %s prints %d, passed as %s", calc.flags(it), v, t.Rule)
	t.Citation = citeCalculator + "; " + t.Citation
	return &v, t, nil
}

// userMaxPods is the pods term when the user's kubelet configuration sets
// maxPods, as each family passes it to the kubelet.
func (e *Estimator) userMaxPods(p int64, base maxPodsBase) Term {
	t := Term{Resource: ResourcePods, Kind: KindCapacity, Amount: p, Source: SourceUser}
	replaced := ""
	if base.unknown == nil {
		replaced = fmt.Sprintf(" (the family's figure, %d, is replaced)", base.pods)
	}
	switch e.launch.Family {
	case compat.AL2023:
		t.Rule = "kubelet.config maxPods " + strconv.FormatInt(p, 10) + replaced
		t.Citation = "awslabs/amazon-eks-ami 81fec2e8 nodeadm/internal/kubelet/config.go:352-376 (the user's config is a drop-in the kubelet merges over nodeadm's)"
		if p == 0 {
			t.Amount = 110
			t.Source = SourceKubeletDefault
			t.Rule = "kubelet.config maxPods 0, which the kubelet's defaulting turns into 110"
			t.Citation += "; " + citeKubeletMax
		}
	case compat.Bottlerocket:
		t.Rule = "settings.kubernetes.max-pods " + strconv.FormatInt(p, 10) + replaced
		t.Citation = "bottlerocket-os/bottlerocket-core-kit a10182f9 sources/api/pluto/src/main.rs:144-146 (a set max-pods is kept), packages/kubernetes-1.31/kubelet-config:151"
		if p == 0 {
			// The template writes maxPods: 0, which the kubelet defaults.
			t.Amount = 110
			t.Source = SourceKubeletDefault
			t.Rule = "settings.kubernetes.max-pods 0, written as maxPods: 0, which the kubelet's defaulting turns into 110"
			t.Citation += "; " + citeKubeletMax
		}
	default:
		t.Rule = "--max-pods=" + strconv.FormatInt(p, 10) + replaced
		t.Citation = citeMaxPodsFlag
		if e.launch.Family == compat.AL2 {
			t.Citation += "; awslabs/amazon-eks-ami 0ab84280 templates/al2/runtime/bootstrap.sh:530-532 (--use-max-pods false, which Render passes, leaves maxPods out of the config)"
		}
	}
	return t
}

// maxPodsBase returns the family's own figure for it.
func (e *Estimator) maxPodsBase(it compat.InstanceType) maxPodsBase {
	switch e.launch.Family {
	case compat.AL2:
		return al2Base(it)
	case compat.AL2023:
		return al2023Base(it, e.maxPodsExpr)
	case compat.Bottlerocket:
		return bottlerocketBase(it, e.brTable, e.brTableName)
	case compat.Custom:
		return maxPodsBase{pods: 110, source: SourceKubeletDefault, citation: citeKubeletMax,
			rule: "the kubelet's default; a Custom AMI's boot software is its own, and may set another"}
	}
	return maxPodsBase{pods: 110, source: SourceKubeletDefault, citation: citeKubeletMax + "; " + citeWindowsMax,
		rule: "the kubelet's default: Start-EKSBootstrap.ps1 sets no maxPods"}
}

// addresses is how many pods the VPC CNI can address on it: -1 when
// unlimited, 0 when unknown.
func (e *Estimator) addresses(it compat.InstanceType) int64 {
	n := e.launch.Network
	enis, ipv4, _, ok := eniFacts(it, false)
	switch {
	case e.launch.Family.IsWindows():
		if !ok {
			return 0
		}
		return ipv4 - 1
	case n.IPv6:
		return -1
	case !ok:
		return 0
	}
	usable := max(enis-int64(n.ReservedENIs)-int64(n.EFAOnlyInterfaces), 0)
	per := ipv4 - 1
	if n.PrefixDelegation && it.Hypervisor == "nitro" {
		per *= 16
	}
	return usable * per
}

// addressWarning says when the kubelet admits more pods than the CNI can
// address, or, with prefix delegation or IPv6, far fewer than it can; ""
// when neither.
func (e *Estimator) addressWarning(it compat.InstanceType, mp MaxPods) string {
	if e.launch.Family.IsWindows() || mp.unknown != nil {
		return ""
	}
	n := e.launch.Network
	how := "without prefix delegation"
	switch {
	case n.IPv6:
		how = "with IPv6"
	case n.PrefixDelegation:
		how = "with prefix delegation"
	}
	if n.ReservedENIs > 0 || n.EFAOnlyInterfaces > 0 {
		how += fmt.Sprintf(", %d interfaces reserved and %d efa-only", n.ReservedENIs, n.EFAOnlyInterfaces)
	}
	// The ENI formula's + 2 is the two host-network pods every node runs
	// (aws-node and kube-proxy), which need no address.
	if mp.Addresses > 0 && mp.Pods > mp.Addresses+2 {
		return fmt.Sprintf("%s: the kubelet admits %d pods but the VPC CNI can address %d (+ 2 on the host network) %s; pods beyond them stay ContainerCreating [%s]",
			it.Name, mp.Pods, mp.Addresses, how, citeAddresses)
	}
	if !n.PrefixDelegation && !n.IPv6 || e.user.maxPods != nil || e.launch.MaxPodsCalculator != nil || it.Hypervisor != "nitro" {
		return ""
	}
	calc := Calculator{CNIVersion: "1.9.0", PrefixDelegation: true, CustomNetworking: n.ReservedENIs > 0}
	rec, err := calc.MaxPods(it)
	if err != nil || rec <= mp.Pods {
		return ""
	}
	can := "any number of pods"
	if mp.Addresses > 0 {
		can = strconv.FormatInt(mp.Addresses, 10) + " pods"
	}
	return fmt.Sprintf("%s: the VPC CNI can address %s %s, but the kubelet admits %d: the family's max pods ignore it; max-pods-calculator.sh --cni-prefix-delegation-enabled recommends %d, which Launch.Kubelet.MaxPods sets [%s]",
		it.Name, can, how, mp.Pods, rec, citeCalculator)
}
