// Package kubeletrules holds the rules the kubelet applies to its
// configuration when it starts ([Refuse]), for nodeclass.Kubelet's
// Validate and for userdata's Render and Lint, which apply them per
// kubelet release. It works on [Fields], nodeclass.Kubelet's fields in its
// order, so that one converts to the other without a copy. Sources are
// kubernetes v1.35.3, cited at each rule.
package kubeletrules

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ec2select/ec2select/internal/quantity"
)

// Fields are nodeclass.Kubelet's fields, in its order and of its types:
// nodeclass.Kubelet documents them.
type Fields struct {
	ClusterDNS                                              []string
	MaxPods                                                 *int32
	PodsPerCore                                             *int32
	SystemReserved, KubeReserved                            map[string]string
	EvictionHard, EvictionSoft                              map[string]string
	EvictionSoftGracePeriod                                 map[string]time.Duration
	EvictionMaxPodGracePeriod                               *int32
	ImageGCHighThresholdPercent, ImageGCLowThresholdPercent *int32
	CPUCFSQuota                                             *bool
}

// The kubelet's image GC defaults, which apply to a bound left unset
// (kubernetes pkg/kubelet/apis/config/v1beta1/defaults.go@v1.35.3
// L156-162, the same from v1.24: ImageGCHighThresholdPercent 85,
// ImageGCLowThresholdPercent 80).
const (
	DefaultImageGCHigh = 85
	DefaultImageGCLow  = 80
)

// ReservedResources are the keys systemReserved and kubeReserved take:
// the kubelet reserves nothing else (cmd/kubelet/app/server.go@v1.35.3
// parseResourceList L1326-1348: "cannot reserve"), and Karpenter's CRD
// allows the same four.
var ReservedResources = []string{"cpu", "ephemeral-storage", "memory", "pid"}

// EvictionSignals are the signals Karpenter's CRD and Bottlerocket's
// settings model (bottlerocket-os/bottlerocket-settings-sdk@25e4241f
// bottlerocket-settings-models/modeled-types/src/kubernetes.rs
// EvictionSignal) accept for evictionHard, evictionSoft and
// evictionSoftGracePeriod, all of which every kubelet release knows.
// [Validate] keeps to them; userdata's Lint applies the kubelet's own
// list for its release.
var EvictionSignals = []string{
	"imagefs.available", "imagefs.inodesFree", "memory.available",
	"nodefs.available", "nodefs.inodesFree", "pid.available",
}

// all is the one release set Validate needs: every release.
type all uint32

func (all) String() string { return "every release" }

// Validate applies the rules every kubelet release from 1.24 on enforces,
// with the eviction signals Karpenter's CRD and Bottlerocket accept, and
// refuses an empty ClusterDNS entry; nil when k passes.
func Validate(k Fields) *Refusal[all] {
	for i, s := range k.ClusterDNS {
		if strings.TrimSpace(s) == "" {
			return &Refusal[all]{Field: fmt.Sprintf("ClusterDNS[%d]", i), Why: "is empty", Fix: "remove it, or write the cluster DNS service IP like 10.100.0.10"}
		}
	}
	crd := func(signal string) all {
		if slices.Contains(EvictionSignals, signal) {
			return 1
		}
		return 0
	}
	r := Refuse(k, all(1), crd)
	if r != nil && r.Signal {
		r.Fix = "use one of " + strings.Join(EvictionSignals, ", ")
	}
	return r
}

// Refusal is a rule of the kubelet's own that a configuration breaks,
// so that the kubelet exits. R is the caller's set of kubelet releases.
type Refusal[R Set] struct {
	Field, Key string // the field and map key at fault
	Why        string // follows the field's name: "is -1, and the kubelet ..."
	Fix        string
	Rule       string // the upstream file and lines, at v1.35.3
	Signal     bool   // an eviction signal the kubelet does not know
	// Defaulted: the refusal rests on the kubelet's default for a bound
	// left unset, which another configuration merged in may set.
	Defaulted bool
	// Only, when not 0, are the releases that refuse it: whether the
	// kubelet starts depends on its release.
	Only R
}

// Set is a set of kubelet releases, a bit per release.
type Set interface {
	~uint32
	String() string
}

// Subject is the field, with its key when the refusal is about one.
func (r *Refusal[R]) Subject() string {
	if r.Key == "" {
		return r.Field
	}
	return fmt.Sprintf("%s[%q]", r.Field, r.Key)
}

// ConfigError is the refusal as an error about userdata's Config.Kubelet,
// the wording nodeclass.Kubelet.Validate and userdata.Render share.
func (r *Refusal[R]) ConfigError() error {
	return fmt.Errorf("userdata: Config.Kubelet.%s %s; %s", r.Subject(), r.Why, r.Fix)
}

// kubeletRefusal applies the rules the kubelet enforces on k's fields
// when it starts, for the releases rs; signals says which releases know
// an eviction signal. It returns nil when no release in rs refuses k; the
// checks run in field order, map keys sorted, so the result is
// deterministic. The kubelet exits on each: its command returns the
// validation error (cmd/kubelet/app/server.go@v1.35.3 L251-253), the
// reservation parse error (L800-807) or NewMainKubelet's eviction parse
// error (pkg/kubelet/kubelet.go@v1.35.3 L522-525).
func Refuse[R Set](k Fields, rs R, signals func(string) R) *Refusal[R] {
	for _, check := range []func() *Refusal[R]{
		func() *Refusal[R] { return countRefusal[R](k) },
		func() *Refusal[R] { return reservedRefusal[R]("SystemReserved", k.SystemReserved) },
		func() *Refusal[R] { return reservedRefusal[R]("KubeReserved", k.KubeReserved) },
		func() *Refusal[R] { return evictionRefusal(k, rs, signals) },
		func() *Refusal[R] { return imageGCRefusal[R](k) },
	} {
		if r := check(); r != nil {
			return r
		}
	}
	return nil
}

// countRefusal: pkg/kubelet/apis/config/validation/validation.go@v1.35.3
// L123-125 (maxPods) and L129-131 (podsPerCore), "must not be a negative
// number".
func countRefusal[R Set](k Fields) *Refusal[R] {
	for _, f := range []struct {
		name string
		v    *int32
		rule string
	}{{"MaxPods", k.MaxPods, "L123-125"}, {"PodsPerCore", k.PodsPerCore, "L129-131"}} {
		if f.v != nil && *f.v < 0 {
			return &Refusal[R]{Field: f.name, Why: fmt.Sprintf("is %d; it must be at least 0", *f.v),
				Fix: "use 0 or more (leave it unset for the default)", Rule: "pkg/kubelet/apis/config/validation/validation.go " + f.rule}
		}
	}
	return nil
}

// reservedRefusal: cmd/kubelet/app/server.go@v1.35.3 parseResourceList
// L1326-1348: cpu, memory, ephemeral-storage and pid only, each a quantity
// that is not negative.
func reservedRefusal[R Set](field string, m map[string]string) *Refusal[R] {
	const rule = "cmd/kubelet/app/server.go parseResourceList L1326-1348"
	for _, key := range slices.Sorted(maps.Keys(m)) {
		v := m[key]
		r := &Refusal[R]{Field: field, Key: key, Rule: rule}
		if !slices.Contains(ReservedResources, key) {
			r.Why, r.Fix = "is a resource the kubelet cannot reserve; it reserves only "+strings.Join(ReservedResources, ", "), "remove the key"
			return r
		}
		q, err := quantity.Parse(v)
		switch {
		case err != nil:
			r.Why, r.Fix = fmt.Sprintf("%q is not a quantity (%v)", v, err), `write it like "100m" or "1Gi"`
			return r
		case q.Sign() < 0:
			r.Why, r.Fix = fmt.Sprintf("%q is negative", v), "reserve 0 or more"
			return r
		}
	}
	return nil
}

// evictionRefusal: pkg/kubelet/eviction/helpers.go@v1.35.3
// ParseThresholdConfig L128-168 (every soft threshold needs a grace
// period), parseThresholdStatement L381-425 and parseGracePeriods
// L436-457, each refusing a signal the release does not know (validSignal
// L111-114).
func evictionRefusal[R Set](k Fields, rs R, signals func(string) R) *Refusal[R] {
	const rule = "pkg/kubelet/eviction/helpers.go ParseThresholdConfig L128-168"
	signalRefusal := func(field, signal string) *Refusal[R] {
		known := signals(signal) & rs
		if known == rs {
			return nil
		}
		r := &Refusal[R]{Field: field, Key: signal, Why: "is a signal the kubelet does not know", Fix: "use one of the kubelet's eviction signals", Rule: rule, Signal: true}
		if known != 0 {
			r.Only = rs &^ known
			r.Why = "is a signal only some kubelet releases know (" + known.String() + ")"
		}
		return r
	}
	for _, f := range []struct {
		name string
		m    map[string]string
	}{{"EvictionHard", k.EvictionHard}, {"EvictionSoft", k.EvictionSoft}} {
		for _, signal := range slices.Sorted(maps.Keys(f.m)) {
			if r := signalRefusal(f.name, signal); r != nil {
				return r
			}
			if why, fix := thresholdRefusal(f.m[signal]); why != "" {
				return &Refusal[R]{Field: f.name, Key: signal, Why: why, Fix: fix, Rule: "pkg/kubelet/eviction/helpers.go parseThresholdStatement L381-425"}
			}
		}
	}
	for _, signal := range slices.Sorted(maps.Keys(k.EvictionSoftGracePeriod)) {
		if r := signalRefusal("EvictionSoftGracePeriod", signal); r != nil {
			return r
		}
		if d := k.EvictionSoftGracePeriod[signal]; d < 0 {
			return &Refusal[R]{Field: "EvictionSoftGracePeriod", Key: signal, Why: fmt.Sprintf("is %v; a grace period must be 0 or more", d),
				Fix: "use a duration of 0 or more", Rule: "pkg/kubelet/eviction/helpers.go parseGracePeriods L436-457"}
		}
	}
	for _, signal := range slices.Sorted(maps.Keys(k.EvictionSoft)) {
		if _, ok := k.EvictionSoftGracePeriod[signal]; !ok {
			return &Refusal[R]{Field: "EvictionSoft", Key: signal, Why: "has no grace period, and the kubelet refuses a soft threshold without one",
				Fix: fmt.Sprintf("set EvictionSoftGracePeriod[%q]", signal), Rule: "pkg/kubelet/eviction/helpers.go ParseThresholdConfig L147-152"}
		}
	}
	return nil
}

// thresholdRefusal applies parseThresholdStatement to a value: "0%" and
// "100%" switch the threshold off; another percentage must parse as a
// float32 from 0% to 100% (the kubelet compares the float32 fraction);
// otherwise a positive quantity.
func thresholdRefusal(v string) (why, fix string) {
	if strings.HasSuffix(v, "%") {
		if v == "0%" || v == "100%" {
			return "", ""
		}
		p, err := strconv.ParseFloat(strings.TrimRight(v, "%"), 32)
		if err != nil || p < 0 || float32(p)/100 > 1 {
			return fmt.Sprintf("%q is not a percentage from 0%% to 100%%", v), `write it like "10%"`
		}
		return "", ""
	}
	q, err := quantity.Parse(v)
	switch {
	case err != nil:
		return fmt.Sprintf("%q is neither a percentage nor a quantity (%v)", v, err), `write it like "10%" or "500Mi"`
	case q.Sign() <= 0:
		return fmt.Sprintf("%q is not positive; the kubelet needs a threshold above 0", v), `use a positive quantity like "500Mi", or "0%" to switch it off`
	}
	return "", ""
}

// imageGCRefusal: pkg/kubelet/apis/config/validation/validation.go@v1.35.3
// L87-92 (each bound from 0 to 100) and L93-95 (low below high), with the
// kubelet's default for an unset bound.
func imageGCRefusal[R Set](k Fields) *Refusal[R] {
	const rule = "pkg/kubelet/apis/config/validation/validation.go L87-95"
	for _, f := range []struct {
		name string
		v    *int32
	}{{"ImageGCHighThresholdPercent", k.ImageGCHighThresholdPercent}, {"ImageGCLowThresholdPercent", k.ImageGCLowThresholdPercent}} {
		if f.v != nil && (*f.v < 0 || *f.v > 100) {
			return &Refusal[R]{Field: f.name, Why: fmt.Sprintf("is %d; it must be a percentage from 0 to 100", *f.v), Fix: "use a percentage from 0 to 100", Rule: rule}
		}
	}
	high, low := gcBound(k.ImageGCHighThresholdPercent, DefaultImageGCHigh), gcBound(k.ImageGCLowThresholdPercent, DefaultImageGCLow)
	if low < high {
		return nil
	}
	r := &Refusal[R]{Field: "ImageGCLowThresholdPercent", Rule: rule, Fix: "lower the low bound or raise the high one",
		Defaulted: k.ImageGCLowThresholdPercent == nil || k.ImageGCHighThresholdPercent == nil}
	switch {
	case k.ImageGCLowThresholdPercent == nil:
		r.Field = "ImageGCHighThresholdPercent"
		r.Why = fmt.Sprintf("(%d) is not above ImageGCLowThresholdPercent (%d), the kubelet's default when it is unset", high, low)
		r.Fix = fmt.Sprintf("set ImageGCLowThresholdPercent below %d too, or raise the high bound above %d", high, low)
	case k.ImageGCHighThresholdPercent == nil:
		r.Why = fmt.Sprintf("(%d) is not below ImageGCHighThresholdPercent (%d), the kubelet's default when it is unset", low, high)
		r.Fix = fmt.Sprintf("set ImageGCHighThresholdPercent above %d too, or lower the low bound below %d", low, high)
	default:
		r.Why = fmt.Sprintf("(%d) is not below ImageGCHighThresholdPercent (%d)", low, high)
	}
	return r
}

func gcBound(v *int32, def int32) int32 {
	if v == nil {
		return def
	}
	return *v
}
