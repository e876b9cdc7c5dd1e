package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/nodeclass"
)

// Citations of the reservation rules.
const (
	citeAL2Reserved     = "awslabs/amazon-eks-ami 0ab84280 templates/al2/runtime/bootstrap.sh:274-277 (11 × max pods + 255 Mi), :290-302 (cpu), :522-528 (kubeReserved from MAX_PODS, ephemeral-storage 1Gi)"
	citeAL2Eviction     = "awslabs/amazon-eks-ami 0ab84280 templates/al2/runtime/bootstrap.sh:526 (evictionHard memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%)"
	citeNodeadmReserved = "awslabs/amazon-eks-ami 81fec2e8 nodeadm/internal/kubelet/config.go:274-288 (kubeReserved from nodeadm's maxPods), :410-444 (cpu, 11 × max pods + 255 Mi)"
	citeNodeadmEviction = "awslabs/amazon-eks-ami 81fec2e8 nodeadm/internal/kubelet/config.go:110-114 (evictionHard memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%)"
	citeBRReserved      = "bottlerocket-os/bottlerocket-core-kit a10182f9 packages/kubernetes-1.31/kubelet-config:84-93 (218c5bf1 kubernetes-1.35 the same), sources/api/schnauzer/src/helpers/mod.rs:748-813 (kube_reserve_memory), :1486-1503 (kube_cpu_helper)"
	citeBREviction      = "bottlerocket-os/bottlerocket-core-kit a10182f9 packages/kubernetes-1.31/kubelet-config:42-47 (evictionHard only from settings.kubernetes.eviction-hard)"
	citeBRSystem        = "bottlerocket-os/bottlerocket-core-kit a10182f9 packages/kubernetes-1.31/kubelet-config:97-105"
	citeKubeletEviction = "kubernetes v1.35.3 cmd/kubelet/app/server.go:449-460 (evictionHard unset in the config file: the OS's defaults), pkg/kubelet/eviction/defaults_linux.go (memory.available 100Mi, nodefs.available 10%)"
	citeKubeletEvictWin = "kubernetes v1.35.3 cmd/kubelet/app/server.go:449-460, pkg/kubelet/eviction/defaults_windows.go (memory.available 500Mi, nodefs.available 10%)"
	citeMapFlag         = "kubernetes v1.35.3 cmd/kubelet/app/options/options.go:488,500-501; k8s.io/component-base v0.35.3 cli/flag/map_string_string.go and langle_separated_map_string_string.go Set (a map flag replaces the config file's map)"
	citeDropIn          = "awslabs/amazon-eks-ami 81fec2e8 nodeadm/internal/kubelet/config.go:352-376 (the user's kubelet config as a drop-in); kubernetes v1.35.3 cmd/kubelet/app/server.go:355 (drop-ins merged key by key)"
	citeThreshold       = "kubernetes v1.35.3 pkg/kubelet/cm/helpers.go:43-64 (memory.available and nodefs.available reserve), pkg/kubelet/eviction/helpers.go:386-433 (\"0%\" and \"100%\" ignored; a percentage of capacity), pkg/kubelet/eviction/api/types.go:111-117"
)

// userKubelet is the user's kubelet configuration, read once.
type userKubelet struct {
	maxPods        *int64
	podsPerCore    int64
	kubeReserved   reservation
	systemReserved reservation
	evictionHard   eviction
}

// reservation is a kubeReserved or systemReserved map: whether it is set
// at all, and the amount of each resource it names.
type reservation struct {
	set     bool
	amounts [ResourcePods]*int64 // cpu, memory, ephemeral-storage; nil when absent
	text    [ResourcePods]string
	// exprs are Karpenter NodeClassCEL expressions (alpha), evaluated per
	// instance type; nil where the value is a quantity or absent.
	exprs [ResourcePods]*Expression
}

// eviction is an evictionHard map's two signals that reserve capacity.
type eviction struct {
	set             bool
	memory, storage *threshold
}

// threshold is one hard eviction threshold.
type threshold struct {
	text    string
	ignored bool    // "0%" or "100%", which the kubelet ignores
	percent bool    // a percentage of capacity
	frac    float32 // the percentage / 100, as the kubelet keeps it
	pct     float64 // the percentage as Karpenter reads it
	amount  int64   // a quantity, in bytes
}

// resolve is the threshold's reservation against capacity: a percentage
// truncated as GetThresholdQuantity truncates it.
func (t threshold) resolve(capacity int64) int64 {
	switch {
	case t.ignored:
		return 0
	case t.percent:
		return int64(float64(capacity) * float64(t.frac))
	}
	return t.amount
}

// readKubelet reads k, which Validate accepted, into amounts.
func readKubelet(k nodeclass.Kubelet) (userKubelet, error) {
	var u userKubelet
	if k.MaxPods != nil {
		v := int64(*k.MaxPods)
		u.maxPods = &v
	}
	if k.PodsPerCore != nil {
		u.podsPerCore = int64(*k.PodsPerCore)
	}
	var err error
	if u.kubeReserved, err = readReservation("KubeReserved", k.KubeReserved); err != nil {
		return u, err
	}
	if u.systemReserved, err = readReservation("SystemReserved", k.SystemReserved); err != nil {
		return u, err
	}
	u.evictionHard.set = len(k.EvictionHard) > 0
	for signal, text := range k.EvictionHard {
		var dst **threshold
		var r Resource
		switch signal {
		case "memory.available":
			dst, r = &u.evictionHard.memory, ResourceMemory
		case "nodefs.available":
			dst, r = &u.evictionHard.storage, ResourceEphemeralStorage
		default:
			continue // the other signals reserve nothing
		}
		t, err := readThreshold(r, text)
		if err != nil {
			return u, &InputError{Field: fmt.Sprintf("Launch.Kubelet.EvictionHard[%q]", signal), Err: err}
		}
		*dst = &t
	}
	return u, nil
}

func readReservation(field string, m map[string]string) (reservation, error) {
	res := reservation{set: len(m) > 0}
	for _, r := range []Resource{ResourceCPU, ResourceMemory, ResourceEphemeralStorage} {
		text, ok := m[r.String()]
		if !ok {
			continue
		}
		a, err := parseAmount(r, text)
		if err != nil {
			return res, &InputError{Field: fmt.Sprintf("Launch.Kubelet.%s[%q]", field, r.String()), Err: err}
		}
		v := a.floor
		res.amounts[r], res.text[r] = &v, text
	}
	return res, nil
}

func readThreshold(r Resource, text string) (threshold, error) {
	t := threshold{text: text}
	if strings.HasSuffix(text, "%") {
		if text == "0%" || text == "100%" {
			t.ignored = true
			t.pct, _ = strconv.ParseFloat(strings.TrimSuffix(text, "%"), 64)
			return t, nil
		}
		p, err := strconv.ParseFloat(strings.TrimRight(text, "%"), 32)
		if err != nil || p < 0 || p > 100 {
			return t, fmt.Errorf("%q is not a percentage from 0%% to 100%%", text)
		}
		t.percent, t.frac = true, float32(p)/100
		t.pct, _ = strconv.ParseFloat(strings.Trim(text, "%"), 64)
		return t, nil
	}
	a, err := parseAmount(r, text)
	if err != nil {
		return t, err
	}
	t.amount = a.floor
	return t, nil
}

// al2CPUReserve is get_cpu_millicores_to_reserve (bootstrap.sh) and
// nodeadm's getCPUMillicoresToReserve: 6% of the first core, 1% of the
// second, 0.5% of the third and fourth, 0.25% of the rest, each range
// rounded down.
func al2CPUReserve(vcpus int) int64 {
	total := int64(vcpus) * 1000
	bounds := [...]int64{0, 1000, 2000, 4000, total}
	perTenThousand := [...]int64{600, 100, 50, 25}
	var sum int64
	for i, p := range perTenThousand {
		start, end := bounds[i], bounds[i+1]
		if total <= start {
			continue
		}
		sum += (min(total, end) - start) * p / 10000
	}
	return sum
}

// bottlerocketCPUReserve is schnauzer's kube_cpu_helper, in its float32
// arithmetic: 60, 70, 75, 80 m for one to four cores, then 80 + 2.5 per
// core beyond four, rounded down.
func bottlerocketCPUReserve(cores int) int64 {
	switch {
	case cores <= 0:
		return 0
	case cores <= 4:
		return [...]int64{60, 70, 75, 80}[cores-1]
	}
	return int64(math.Floor(float64(float32(80) + (float32(cores)-4)*2.5)))
}

// reservationBytes is 11 × max pods + 255 MiB, in bytes.
func reservationBytes(pods int64) int64 { return (11*pods + 255) * mib }

// The reservation plan: what NewEstimator resolves once, so that an
// estimate fills in amounts and little else.
type (
	reservePlan struct {
		kube   [ResourcePods]kubeSlot
		system [ResourcePods]kubeSlot // the user's systemReserved: no family sets one
		evict  [2]evictSlot
	}
	// kubeSlot is one resource's kube-reserved: a fixed term (the user's,
	// or none because a flag replaced the family's), the family's default
	// computed per type, or nothing.
	kubeSlot struct {
		how  slotHow
		term Term        // the fixed term, or the family's with its amount to fill
		expr *Expression // slotExpression's (alpha NodeClassCEL)
	}
	// evictSlot is one signal's hard eviction threshold, resolved
	// against each type's capacity.
	evictSlot struct {
		r    Resource
		term Term
		t    threshold
	}
	slotHow uint8
)

const (
	slotAbsent slotHow = iota
	slotFixed
	slotFamily
	slotExpression
)

// plan resolves the reservations of e's family and kubelet configuration.
func (e *Estimator) plan() reservePlan {
	var p reservePlan
	user := e.user.kubeReserved
	replaces := user.set && e.mapsReplace()
	for _, r := range []Resource{ResourceCPU, ResourceMemory, ResourceEphemeralStorage} {
		def, hasDef := e.familyKubeReserved(r)
		switch {
		case user.exprs[r] != nil:
			p.kube[r] = kubeSlot{how: slotExpression, expr: user.exprs[r]}
		case user.amounts[r] != nil:
			t := Term{Resource: r, Kind: KindKubeReserved, Amount: *user.amounts[r], Source: SourceUser,
				Rule: "kubeReserved " + r.String() + " " + user.text[r], Citation: e.userCitation()}
			if hasDef {
				t.Rule += " (replaces the family's)"
			}
			p.kube[r] = kubeSlot{how: slotFixed, term: t}
		case replaces && hasDef:
			p.kube[r] = kubeSlot{how: slotFixed, term: Term{Resource: r, Kind: KindKubeReserved, Source: SourceUser, Citation: citeMapFlag, Unset: true,
				Rule: "none: --kube-reserved replaces the family's whole kubeReserved and names no " + r.String()}}
		case hasDef:
			p.kube[r] = kubeSlot{how: slotFamily, term: def}
		}
	}
	cite := e.userCitation()
	if e.launch.Family == compat.Bottlerocket {
		cite = citeBRSystem
	}
	for _, r := range []Resource{ResourceCPU, ResourceMemory, ResourceEphemeralStorage} {
		switch sys := e.user.systemReserved; {
		case sys.exprs[r] != nil:
			p.system[r] = kubeSlot{how: slotExpression, expr: sys.exprs[r]}
		case sys.amounts[r] != nil:
			p.system[r] = kubeSlot{how: slotFixed, term: Term{Resource: r, Kind: KindSystemReserved, Amount: *sys.amounts[r], Source: SourceUser,
				Rule: "systemReserved " + r.String() + " " + sys.text[r], Citation: cite}}
		}
	}
	p.evict[0] = e.evictSlot(ResourceMemory, "memory.available", e.user.evictionHard.memory)
	p.evict[1] = e.evictSlot(ResourceEphemeralStorage, "nodefs.available", e.user.evictionHard.storage)
	return p
}

// familyKubeReserved is the family's own kubeReserved entry for r, with
// its amount left to fill in per type; ok false when it writes none.
func (e *Estimator) familyKubeReserved(r Resource) (Term, bool) {
	t := Term{Resource: r, Kind: KindKubeReserved, Source: SourceFamily}
	switch e.launch.Family {
	case compat.AL2, compat.AL2023:
		t.Citation, t.Rule = citeAL2Reserved, "bootstrap.sh: "
		if e.launch.Family == compat.AL2023 {
			t.Citation, t.Rule = citeNodeadmReserved, "nodeadm: "
		}
		switch r {
		case ResourceCPU:
			t.Rule += "6% of the first core, 1% of the second, 0.5% of the next two, 0.25% of the rest"
		case ResourceEphemeralStorage:
			t.Amount, t.Rule = gib, t.Rule+"1Gi"
		}
		return t, true
	case compat.Bottlerocket:
		t.Citation = citeBRReserved
		switch r {
		case ResourceCPU:
			t.Rule = "kube_reserve_cpu: 60, 70, 75, 80m for 1-4 cores, then 2.5m per core"
		case ResourceMemory:
			t.Rule = "kube_reserve_memory: "
		case ResourceEphemeralStorage:
			t.Amount, t.Rule = gib, "the template's default 1Gi"
		}
		return t, true
	}
	return t, false
}

// kubeReservedTerms appends the kube-reserved terms for it.
// vcpus is the node's cores, from which the family computes its cpu
// reservation.
func (e *Estimator) kubeReservedTerms(terms []Term, it compat.InstanceType, vcpus int, mp MaxPods, est *Estimate) []Term {
	for _, r := range []Resource{ResourceCPU, ResourceMemory, ResourceEphemeralStorage} {
		s := e.reserve.kube[r]
		switch {
		case s.how == slotFixed:
			terms = append(terms, s.term)
		case s.how == slotExpression:
			terms = e.appendExpression(terms, it, KindKubeReserved, r, s.expr, est)
		case s.how != slotFamily:
		case r == ResourceCPU:
			t := s.term
			if e.launch.Family == compat.Bottlerocket {
				t.Amount = bottlerocketCPUReserve(vcpus)
			} else {
				t.Amount = al2CPUReserve(vcpus)
			}
			terms = append(terms, t)
		case r == ResourceMemory:
			if mp.reservationUnknown != nil {
				est.Unknown = append(est.Unknown, *mp.reservationUnknown)
				continue
			}
			if mp.ReservationPods == 0 {
				continue // Bottlerocket without max-pods
			}
			t := s.term
			t.Amount = reservationBytes(mp.ReservationPods)
			t.Rule += "11 × " + strconv.FormatInt(mp.ReservationPods, 10) + " max pods + 255 MiB"
			if e.user.maxPods != nil && e.launch.Family != compat.Bottlerocket {
				t.Rule += " (its own figure, not the user's maxPods)"
			}
			terms = append(terms, t)
		default:
			terms = append(terms, s.term)
		}
	}
	return terms
}

// mapsReplace reports whether the family passes the user's maps as
// kubelet flags, which replace the config file's maps whole.
func (e *Estimator) mapsReplace() bool {
	f := e.launch.Family
	return f == compat.AL2 || f == compat.Custom || f.IsWindows()
}

// userCitation is where the family puts the user's kubelet configuration.
func (e *Estimator) userCitation() string {
	switch e.launch.Family {
	case compat.AL2023:
		return citeDropIn
	case compat.Bottlerocket:
		return citeBRReserved
	}
	return citeMapFlag
}

// systemReservedTerms appends the user's systemReserved.
func (e *Estimator) systemReservedTerms(terms []Term, it compat.InstanceType, est *Estimate) []Term {
	for r, s := range e.reserve.system {
		switch s.how {
		case slotFixed:
			terms = append(terms, s.term)
		case slotExpression:
			terms = e.appendExpression(terms, it, KindSystemReserved, Resource(r), s.expr, est)
		}
	}
	return terms
}

// appendExpression appends the term an expression gives it, or records
// why it cannot be known.
func (e *Estimator) appendExpression(terms []Term, it compat.InstanceType, k Kind, r Resource, x *Expression, est *Estimate) []Term {
	t, u := e.expressionTerm(it, k, r, x)
	if u != nil {
		est.Unknown = append(est.Unknown, *u)
		return terms
	}
	return append(terms, t)
}

// evictSlot resolves one signal's threshold: the user's, none when the
// user's map replaced the defaults, or the family's or kubelet's default.
// Every family but AL2023 replaces the whole map: flags, or Bottlerocket's
// template writing the setting alone.
func (e *Estimator) evictSlot(r Resource, signal string, user *threshold) evictSlot {
	s := evictSlot{r: r, term: Term{Resource: r, Kind: KindEvictionHard}}
	switch {
	case user != nil:
		s.t = *user
		s.term.Source, s.term.Rule = SourceUser, thresholdRule(signal, *user)
		s.term.Citation = e.evictionUserCitation() + "; " + citeThreshold
	case e.user.evictionHard.set && e.launch.Family != compat.AL2023:
		s.t = threshold{ignored: true}
		s.term.Source, s.term.Citation, s.term.Unset = SourceUser, e.evictionUserCitation(), true
		s.term.Rule = "none: the user's evictionHard replaces the defaults and names no " + signal
	default:
		t, src, who, cite := e.defaultEviction(r)
		s.t = t
		s.term.Source, s.term.Rule, s.term.Citation = src, who+": "+thresholdRule(signal, t), cite+"; "+citeThreshold
	}
	return s
}

// defaultEviction is the threshold that applies to r when the user sets
// none: the family's, or the kubelet's default.
func (e *Estimator) defaultEviction(r Resource) (threshold, Source, string, string) {
	mem, storage := threshold{text: "100Mi", amount: 100 * mib}, threshold{text: "10%", percent: true, frac: float32(10) / 100}
	t := storage
	if r == ResourceMemory {
		t = mem
	}
	switch f := e.launch.Family; {
	case f == compat.AL2:
		return t, SourceFamily, "bootstrap.sh", citeAL2Eviction
	case f == compat.AL2023:
		return t, SourceFamily, "nodeadm", citeNodeadmEviction
	case f.IsWindows():
		if r == ResourceMemory {
			t = threshold{text: "500Mi", amount: 500 * mib}
		}
		return t, SourceKubeletDefault, "the kubelet's Windows default", citeKubeletEvictWin
	case f == compat.Bottlerocket:
		return t, SourceKubeletDefault, "the kubelet's default (no eviction-hard setting)", citeKubeletEviction + "; " + citeBREviction
	}
	return t, SourceKubeletDefault, "the kubelet's default", citeKubeletEviction
}

// evictionTerms appends the memory and ephemeral-storage hard eviction
// thresholds, resolved against capacity.
func (e *Estimator) evictionTerms(terms []Term, capacity Quantities) []Term {
	for _, s := range e.reserve.evict {
		t := s.term
		t.Amount = s.t.resolve(capacity.Get(s.r))
		t.Unset = t.Unset || s.t.ignored
		terms = append(terms, t)
	}
	return terms
}

func (e *Estimator) evictionUserCitation() string {
	switch e.launch.Family {
	case compat.AL2023:
		return citeDropIn
	case compat.Bottlerocket:
		return citeBREviction
	}
	return citeMapFlag
}

func thresholdRule(signal string, t threshold) string {
	switch {
	case t.ignored:
		return signal + " " + t.text + ", which the kubelet ignores"
	case t.percent:
		return signal + " " + t.text + " of capacity"
	}
	return signal + " " + t.text
}

// limitTerms appends Windows' pod address cap: each Windows pod takes one
// vpc.amazonaws.com/PrivateIPv4Address, of which the VPC resource
// controller offers IPv4 addresses per interface − 1.
//
// Without the type's interface facts the cap is unknown.
func (e *Estimator) limitTerms(terms []Term, it compat.InstanceType, pods int64, mp MaxPods, est *Estimate) []Term {
	if !e.launch.Family.IsWindows() {
		return terms
	}
	if mp.Addresses == 0 {
		est.Unknown = append(est.Unknown, Unknown{Resource: ResourcePods, Kind: KindLimit, Reason: ReasonNoInterfaceFacts, Input: it.Name,
			Detail: "the VPC resource controller offers Windows pods IPv4 addresses per interface − 1, and " + noFacts(it), Fix: fixFactsOnly})
		return terms
	}
	if pods <= mp.Addresses {
		return terms
	}
	return append(terms, Term{Resource: ResourcePods, Kind: KindLimit, Amount: pods - mp.Addresses, Source: SourceFamily,
		Rule:     fmt.Sprintf("vpc.amazonaws.com/PrivateIPv4Address: %s takes %d addresses per interface, so %d pods", it.Name, mp.Addresses+1, mp.Addresses),
		Citation: citeWindowsIPs})
}
