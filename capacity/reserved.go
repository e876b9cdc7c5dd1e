package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
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
func readKubelet(k userdata.KubeletConfig) (userKubelet, error) {
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
			return u, fmt.Errorf("capacity: Launch.Kubelet.EvictionHard[%q]: %w", signal, err)
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
			return res, fmt.Errorf("capacity: Launch.Kubelet.%s[%q]: %w", field, r.String(), err)
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

// defaultKubeReserved is what the family writes into kubeReserved, per
// resource; ok false when it writes nothing for it. unknown says why the
// memory figure cannot be known.
func (e *Estimator) defaultKubeReserved(r Resource, it compat.InstanceType, mp MaxPods) (t Term, ok bool, unknown string) {
	t = Term{Resource: r, Kind: KindKubeReserved, Source: SourceFamily}
	switch e.launch.Family {
	case compat.AL2, compat.AL2023:
		t.Citation = citeAL2Reserved
		who := "bootstrap.sh"
		if e.launch.Family == compat.AL2023 {
			t.Citation, who = citeNodeadmReserved, "nodeadm"
		}
		switch r {
		case ResourceCPU:
			t.Amount, t.Rule = al2CPUReserve(it.VCPU), fmt.Sprintf("%s: 6%% of the first core, 1%% of the second, 0.5%% of the next two, 0.25%% of the rest of %d vCPUs", who, it.VCPU)
		case ResourceMemory:
			if mp.reservationUnknown != "" {
				return t, false, mp.reservationUnknown
			}
			t.Amount = reservationBytes(mp.ReservationPods)
			t.Rule = fmt.Sprintf("%s: 11 × %d + 255 MiB, from its own max pods %d", who, mp.ReservationPods, mp.ReservationPods)
		case ResourceEphemeralStorage:
			t.Amount, t.Rule = gib, who+": 1Gi"
		}
		return t, true, ""
	case compat.Bottlerocket:
		t.Citation = citeBRReserved
		switch r {
		case ResourceCPU:
			t.Amount, t.Rule = bottlerocketCPUReserve(it.VCPU), fmt.Sprintf("kube_reserve_cpu: 60/70/75/80m for 1-4 cores, then 2.5m per core, for %d vCPUs", it.VCPU)
		case ResourceMemory:
			if mp.ReservationPods == 0 {
				return t, false, ""
			}
			t.Amount = reservationBytes(mp.ReservationPods)
			t.Rule = fmt.Sprintf("kube_reserve_memory: 11 × %d + 255 MiB, from max-pods %d", mp.ReservationPods, mp.ReservationPods)
		case ResourceEphemeralStorage:
			t.Amount, t.Rule = gib, "the template's default 1Gi"
		}
		return t, true, ""
	}
	return t, false, ""
}

// kubeReservedTerms appends the kube-reserved terms: the family's, merged
// with the user's as the family passes them.
func (e *Estimator) kubeReservedTerms(terms []Term, it compat.InstanceType, mp MaxPods, est *Estimate) []Term {
	user := e.user.kubeReserved
	replaces := user.set && e.mapsReplace()
	for _, r := range []Resource{ResourceCPU, ResourceMemory, ResourceEphemeralStorage} {
		def, hasDef, unknown := e.defaultKubeReserved(r, it, mp)
		switch {
		case user.amounts[r] != nil:
			t := Term{Resource: r, Kind: KindKubeReserved, Amount: *user.amounts[r], Source: SourceUser,
				Rule: fmt.Sprintf("kubeReserved %s %s", r, user.text[r]), Citation: e.userCitation()}
			if hasDef || unknown != "" {
				t.Rule += " (replaces the family's)"
			}
			terms = append(terms, t)
		case replaces && (hasDef || unknown != ""):
			terms = append(terms, Term{Resource: r, Kind: KindKubeReserved, Source: SourceUser, Citation: citeMapFlag,
				Rule: fmt.Sprintf("none: --kube-reserved replaces the family's whole kubeReserved and names no %s", r)})
		case unknown != "":
			est.Unresolved = append(est.Unresolved, fmt.Sprintf("kube-reserved %s: %s", r, unknown))
		case hasDef:
			if r == ResourceMemory && e.user.maxPods != nil && e.launch.Family != compat.Bottlerocket {
				def.Rule += fmt.Sprintf(", not the maxPods %d the user set", *e.user.maxPods)
			}
			terms = append(terms, def)
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

// systemReservedTerms appends the user's systemReserved: no family sets
// one.
func (e *Estimator) systemReservedTerms(terms []Term) []Term {
	user := e.user.systemReserved
	cite := e.userCitation()
	if e.launch.Family == compat.Bottlerocket {
		cite = citeBRSystem
	}
	for _, r := range []Resource{ResourceCPU, ResourceMemory, ResourceEphemeralStorage} {
		if a := user.amounts[r]; a != nil {
			terms = append(terms, Term{Resource: r, Kind: KindSystemReserved, Amount: *a, Source: SourceUser,
				Rule: fmt.Sprintf("systemReserved %s %s", r, user.text[r]), Citation: cite})
		}
	}
	return terms
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
	user := e.user.evictionHard
	// Every family but AL2023 replaces the whole map: flags, or
	// Bottlerocket's template writing the setting alone.
	replaces := user.set && e.launch.Family != compat.AL2023
	signals := [...]struct {
		r      Resource
		signal string
		user   *threshold
	}{{ResourceMemory, "memory.available", user.memory}, {ResourceEphemeralStorage, "nodefs.available", user.storage}}
	for _, s := range signals {
		c := capacity.Get(s.r)
		switch {
		case s.user != nil:
			terms = append(terms, Term{Resource: s.r, Kind: KindEvictionHard, Amount: s.user.resolve(c), Source: SourceUser,
				Rule: thresholdRule(s.signal, *s.user, c), Citation: joinNonEmpty("; ", e.evictionUserCitation(), citeThreshold)})
		case replaces:
			terms = append(terms, Term{Resource: s.r, Kind: KindEvictionHard, Source: SourceUser, Citation: e.evictionUserCitation(),
				Rule: fmt.Sprintf("none: the user's evictionHard replaces the defaults and names no %s", s.signal)})
		default:
			t, src, who, cite := e.defaultEviction(s.r)
			terms = append(terms, Term{Resource: s.r, Kind: KindEvictionHard, Amount: t.resolve(c), Source: src,
				Rule: who + ": " + thresholdRule(s.signal, t, c), Citation: cite + "; " + citeThreshold})
		}
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

func thresholdRule(signal string, t threshold, capacity int64) string {
	switch {
	case t.ignored:
		return fmt.Sprintf("%s %s, which the kubelet ignores", signal, t.text)
	case t.percent:
		return fmt.Sprintf("%s %s of %s", signal, t.text, FormatQuantity(ResourceMemory, capacity))
	}
	return signal + " " + t.text
}

// limitTerms appends Windows' pod address cap: each Windows pod takes one
// vpc.amazonaws.com/PrivateIPv4Address, of which the VPC resource
// controller offers IPv4 addresses per interface − 1.
func (e *Estimator) limitTerms(terms []Term, it compat.InstanceType, mp MaxPods) []Term {
	if !e.launch.Family.IsWindows() || mp.Addresses <= 0 || mp.Pods <= mp.Addresses {
		return terms
	}
	return append(terms, Term{Resource: ResourcePods, Kind: KindLimit, Amount: mp.Pods - mp.Addresses, Source: SourceFamily,
		Rule:     fmt.Sprintf("vpc.amazonaws.com/PrivateIPv4Address: %s takes %d addresses per interface, so %d pods", it.Name, mp.Addresses+1, mp.Addresses),
		Citation: citeWindowsIPs})
}
