package userdata

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ec2select/ec2select/internal/quantity"
	"github.com/ec2select/ec2select/internal/validation"
	"github.com/ec2select/ec2select/userdata/internal/kubelet"
)

// KubeletConfig is the kubelet configuration [Render] writes, mirroring
// Karpenter's EC2NodeClass spec.kubelet field for field (v1.14), so that a
// fork converts one to the other by copying fields. The zero value sets
// nothing: every family's defaults apply. A nil and an empty map mean the
// same, "not set"; a nil pointer means "not set".
//
// [Render] validates it with the kubelet's own rules and Karpenter's CRD
// rules (see [KubeletConfig.Validate]) and writes each field where the
// family's boot agent reads it:
//
//	field                        AL2 and Windows (kubelet flag)   AL2023 (kubelet.config)        Bottlerocket (settings.kubernetes)
//	ClusterDNS                   --dns-cluster-ip / -DNSClusterIP  clusterDNS                     cluster-dns-ip
//	MaxPods                      --max-pods                        maxPods                        max-pods
//	PodsPerCore                  --pods-per-core                   podsPerCore                    (none: Render refuses it)
//	SystemReserved               --system-reserved                 systemReserved                 system-reserved
//	KubeReserved                 --kube-reserved                   kubeReserved                   kube-reserved
//	EvictionHard                 --eviction-hard                   evictionHard                   eviction-hard
//	EvictionSoft                 --eviction-soft                   evictionSoft                   eviction-soft
//	EvictionSoftGracePeriod      --eviction-soft-grace-period      evictionSoftGracePeriod        eviction-soft-grace-period
//	EvictionMaxPodGracePeriod    --eviction-max-pod-grace-period   evictionMaxPodGracePeriod      eviction-max-pod-grace-period
//	ImageGCHighThresholdPercent  --image-gc-high-threshold         imageGCHighThresholdPercent    image-gc-high-threshold-percent
//	ImageGCLowThresholdPercent   --image-gc-low-threshold          imageGCLowThresholdPercent     image-gc-low-threshold-percent
//	CPUCFSQuota                  --cpu-cfs-quota                   cpuCFSQuota                    cpu-cfs-quota-enforced
type KubeletConfig struct {
	// ClusterDNS is the cluster DNS service IPs, all of one IP family, in
	// canonical form. AL2 and Windows pass only the first to their boot
	// script, so Render refuses more than one for them.
	ClusterDNS []string
	// MaxPods is the most pods the node runs; at least 0.
	MaxPods *int32
	// PodsPerCore caps pods per core; at least 0 (0 means no cap).
	PodsPerCore *int32
	// SystemReserved and KubeReserved reserve resources for the OS and for
	// Kubernetes: keys cpu, memory, ephemeral-storage and pid, values
	// non-negative quantities ("100m", "1Gi").
	SystemReserved, KubeReserved map[string]string
	// EvictionHard and EvictionSoft are eviction thresholds: keys are
	// signals (memory.available, nodefs.available, nodefs.inodesFree,
	// imagefs.available, imagefs.inodesFree, pid.available), values a
	// positive quantity ("500Mi") or a percentage from 0% to 100% ("10%").
	// Every soft threshold needs a grace period.
	EvictionHard, EvictionSoft map[string]string
	// EvictionSoftGracePeriod is how long each soft threshold must hold
	// before the kubelet evicts; keys are signals, durations at least 0.
	EvictionSoftGracePeriod map[string]time.Duration
	// EvictionMaxPodGracePeriod is the longest termination grace period,
	// in seconds, the kubelet grants a pod it evicts for a soft threshold.
	EvictionMaxPodGracePeriod *int32
	// ImageGCHighThresholdPercent and ImageGCLowThresholdPercent bound
	// image garbage collection: 0 ≤ low < high ≤ 100. A bound left unset
	// takes the kubelet's default (high 85, low 80), and the pair must
	// still be ordered, or the kubelet exits.
	ImageGCHighThresholdPercent, ImageGCLowThresholdPercent *int32
	// CPUCFSQuota enforces CPU limits with CFS quota.
	CPUCFSQuota *bool
}

// The kubelet's image GC defaults, which apply to a bound left unset
// (kubernetes pkg/kubelet/apis/config/v1beta1/defaults.go:
// ImageGCHighThresholdPercent 85, ImageGCLowThresholdPercent 80).
const (
	defaultImageGCHigh = 85
	defaultImageGCLow  = 80
)

// reservedResources are the keys systemReserved and kubeReserved take:
// Karpenter's CRD rule ("valid keys for systemReserved are
// ['cpu','memory','ephemeral-storage','pid']"), which is also the set the
// kubelet reserves (pkg/kubelet/apis/config/validation).
var reservedResources = []string{"cpu", "ephemeral-storage", "memory", "pid"}

// evictionSignals are the signals Karpenter's CRD accepts for evictionHard,
// evictionSoft and evictionSoftGracePeriod, all of which the kubelet knows.
var evictionSignals = []string{
	"imagefs.available", "imagefs.inodesFree", "memory.available",
	"nodefs.available", "nodefs.inodesFree", "pid.available",
}

// IsZero reports whether k sets nothing.
func (k KubeletConfig) IsZero() bool {
	return len(k.ClusterDNS) == 0 && k.MaxPods == nil && k.PodsPerCore == nil &&
		len(k.SystemReserved) == 0 && len(k.KubeReserved) == 0 &&
		len(k.EvictionHard) == 0 && len(k.EvictionSoft) == 0 && len(k.EvictionSoftGracePeriod) == 0 &&
		k.EvictionMaxPodGracePeriod == nil && k.ImageGCHighThresholdPercent == nil &&
		k.ImageGCLowThresholdPercent == nil && k.CPUCFSQuota == nil
}

// Validate checks k against the kubelet's and Karpenter's rules. The error
// names the field (as Config.Kubelet.Field), the bad value and the fix.
func (k KubeletConfig) Validate() error {
	_, err := k.dnsAddrs()
	if err != nil {
		return err
	}
	for _, check := range []func() error{k.checkCounts, k.checkReserved, k.checkEviction, k.checkImageGC} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// dnsAddrs parses ClusterDNS.
func (k KubeletConfig) dnsAddrs() ([]netip.Addr, error) {
	var addrs []netip.Addr
	for i, s := range k.ClusterDNS {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" || a.Is4In6() || a.IsUnspecified() {
			return nil, fmt.Errorf("userdata: Config.Kubelet.ClusterDNS[%d] %q is not a plain IP address; write it like 10.100.0.10 or fd00::a", i, s)
		}
		if a.String() != s {
			return nil, fmt.Errorf("userdata: Config.Kubelet.ClusterDNS[%d] %q is not in canonical form; write %q", i, s, a.String())
		}
		if i > 0 && a.Is6() != addrs[0].Is6() {
			return nil, fmt.Errorf("userdata: Config.Kubelet.ClusterDNS mixes IPv4 and IPv6 (%q and %q); a cluster has one IP family, so list only its DNS service IPs", k.ClusterDNS[0], s)
		}
		addrs = append(addrs, a)
	}
	return addrs, nil
}

func (k KubeletConfig) checkCounts() error {
	for _, f := range []struct {
		name string
		v    *int32
	}{{"MaxPods", k.MaxPods}, {"PodsPerCore", k.PodsPerCore}, {"EvictionMaxPodGracePeriod", k.EvictionMaxPodGracePeriod}} {
		if f.v != nil && *f.v < 0 {
			return fmt.Errorf("userdata: Config.Kubelet.%s is %d; it must be at least 0 (leave it nil for the default)", f.name, *f.v)
		}
	}
	return nil
}

func (k KubeletConfig) checkReserved() error {
	for _, f := range []struct {
		name string
		m    map[string]string
	}{{"SystemReserved", k.SystemReserved}, {"KubeReserved", k.KubeReserved}} {
		for _, key := range slices.Sorted(maps.Keys(f.m)) {
			v := f.m[key]
			if !slices.Contains(reservedResources, key) {
				return fmt.Errorf("userdata: Config.Kubelet.%s has key %q; the kubelet reserves only %s", f.name, key, strings.Join(reservedResources, ", "))
			}
			q, err := quantity.Parse(v)
			if err != nil {
				return fmt.Errorf("userdata: Config.Kubelet.%s[%q] %q is not a quantity (%v); write it like \"100m\" or \"1Gi\"", f.name, key, v, err)
			}
			if q.Sign() < 0 || strings.HasPrefix(v, "-") {
				return fmt.Errorf("userdata: Config.Kubelet.%s[%q] %q is negative; reserve 0 or more", f.name, key, v)
			}
		}
	}
	return nil
}

func (k KubeletConfig) checkEviction() error {
	for _, f := range []struct {
		name string
		m    map[string]string
	}{{"EvictionHard", k.EvictionHard}, {"EvictionSoft", k.EvictionSoft}} {
		for _, signal := range slices.Sorted(maps.Keys(f.m)) {
			if err := checkSignal(f.name, signal); err != nil {
				return err
			}
			if err := checkThreshold(f.name, signal, f.m[signal]); err != nil {
				return err
			}
		}
	}
	for _, signal := range slices.Sorted(maps.Keys(k.EvictionSoftGracePeriod)) {
		if err := checkSignal("EvictionSoftGracePeriod", signal); err != nil {
			return err
		}
		if d := k.EvictionSoftGracePeriod[signal]; d < 0 {
			return fmt.Errorf("userdata: Config.Kubelet.EvictionSoftGracePeriod[%q] is %v; a grace period must be 0 or more", signal, d)
		}
	}
	// kubernetes pkg/kubelet/eviction/helpers.go ParseThresholdConfig: "grace
	// period must be specified for the soft eviction threshold".
	for _, signal := range slices.Sorted(maps.Keys(k.EvictionSoft)) {
		if _, ok := k.EvictionSoftGracePeriod[signal]; !ok {
			return fmt.Errorf("userdata: Config.Kubelet.EvictionSoft[%q] has no grace period; the kubelet refuses a soft threshold without one, so set Config.Kubelet.EvictionSoftGracePeriod[%q]", signal, signal)
		}
	}
	return nil
}

func checkSignal(field, signal string) error {
	if !slices.Contains(evictionSignals, signal) {
		return fmt.Errorf("userdata: Config.Kubelet.%s has signal %q; use one of %s", field, signal, strings.Join(evictionSignals, ", "))
	}
	return nil
}

// checkThreshold applies the kubelet's parseThresholdStatement
// (pkg/kubelet/eviction/helpers.go): a percentage in [0%, 100%], or a
// positive quantity.
func checkThreshold(field, signal, v string) error {
	if strings.HasSuffix(v, "%") {
		p, err := strconv.ParseFloat(strings.TrimRight(v, "%"), 32)
		if err != nil || p < 0 || p > 100 {
			return fmt.Errorf("userdata: Config.Kubelet.%s[%q] %q is not a percentage from 0%% to 100%%; write it like \"10%%\"", field, signal, v)
		}
		return nil
	}
	q, err := quantity.Parse(v)
	if err != nil {
		return fmt.Errorf("userdata: Config.Kubelet.%s[%q] %q is neither a percentage nor a quantity (%v); write it like \"10%%\" or \"500Mi\"", field, signal, v, err)
	}
	if q.Sign() <= 0 {
		return fmt.Errorf("userdata: Config.Kubelet.%s[%q] %q is not positive; the kubelet needs a threshold above 0", field, signal, v)
	}
	return nil
}

// checkImageGC applies the kubelet's config validation
// (pkg/kubelet/apis/config/validation/validation.go: each in [0, 100], low
// below high) with the kubelet's default for an unset bound.
func (k KubeletConfig) checkImageGC() error {
	high, low := int32(defaultImageGCHigh), int32(defaultImageGCLow)
	for _, f := range []struct {
		name string
		v    *int32
		dst  *int32
	}{{"ImageGCHighThresholdPercent", k.ImageGCHighThresholdPercent, &high}, {"ImageGCLowThresholdPercent", k.ImageGCLowThresholdPercent, &low}} {
		if f.v == nil {
			continue
		}
		if *f.v < 0 || *f.v > 100 {
			return fmt.Errorf("userdata: Config.Kubelet.%s is %d; use a percentage from 0 to 100", f.name, *f.v)
		}
		*f.dst = *f.v
	}
	if low >= high {
		return fmt.Errorf("userdata: Config.Kubelet.ImageGCLowThresholdPercent (%d) must be below ImageGCHighThresholdPercent (%d)%s; lower the low bound or raise the high one",
			low, high, unsetNote(k.ImageGCHighThresholdPercent == nil, k.ImageGCLowThresholdPercent == nil))
	}
	return nil
}

func unsetNote(highUnset, lowUnset bool) string {
	switch {
	case highUnset:
		return " (the high bound is the kubelet's default)"
	case lowUnset:
		return " (the low bound is the kubelet's default)"
	}
	return ""
}

// flags returns the kubelet flags for k in the order Karpenter's AL2 and
// Windows bootstrap writes them (karpenter-provider-aws v1.14.1
// pkg/providers/amifamily/bootstrap/bootstrap.go, kubeletExtraArgs), which
// is the order of [kubeletFields], with map entries sorted by key.
// ClusterDNS is not a flag: the boot scripts take it as an option of their
// own.
func (k *KubeletConfig) flags() []string {
	var fs []string
	for _, f := range kubeletFields {
		if v, ok := f.encode(k, false); ok {
			fs = append(fs, "--"+f.flag+"="+flagText(v, f.sep))
		}
	}
	return fs
}

// flagText writes an encoded field as the kubelet's flag types read it;
// map entries "k<sep>v" sorted by key and joined by ','.
func flagText(v any, sep string) string {
	switch v := v.(type) {
	case int32:
		return strconv.Itoa(int(v))
	case bool:
		return strconv.FormatBool(v)
	case map[string]string:
		var b strings.Builder
		for i, key := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(key)
			b.WriteString(sep)
			b.WriteString(v[key])
		}
		return b.String()
	}
	return fmt.Sprint(v)
}

// configFields returns k as the fields of a KubeletConfiguration
// (kubelet.config.k8s.io/v1beta1, JSON names), which nodeadm merges into
// the kubelet's config file: what Karpenter's nodeadm bootstrap marshals
// from spec.kubelet (nodeadm.go, generateInlineKubeletConfiguration).
func (k *KubeletConfig) configFields() map[string]any {
	m := map[string]any{}
	if len(k.ClusterDNS) > 0 {
		m["clusterDNS"] = slices.Clone(k.ClusterDNS)
	}
	for _, f := range kubeletFields {
		if v, ok := f.encode(k, false); ok {
			m[f.config] = v
		}
	}
	return m
}

// bottlerocketSettings returns k as settings.kubernetes entries, spelled as
// Karpenter's Bottlerocket bootstrap writes them (bottlerocket.go and
// bottlerocketsettings.go: the image GC percentages are strings there).
// PodsPerCore has no Bottlerocket setting; Render refuses it before this.
func (k *KubeletConfig) bottlerocketSettings() map[string]any {
	m := map[string]any{}
	switch len(k.ClusterDNS) {
	case 0:
	case 1:
		m["cluster-dns-ip"] = k.ClusterDNS[0]
	default:
		m["cluster-dns-ip"] = slices.Clone(k.ClusterDNS)
	}
	for _, f := range kubeletFields {
		if v, ok := f.encode(k, true); ok && f.bottlerocket != "" {
			m[f.bottlerocket] = v
		}
	}
	return m
}

// KubeletSource says where one field of [Report.Kubelet] comes from.
type KubeletSource struct {
	// Field is the [KubeletConfig] field, e.g. "MaxPods".
	Field string
	// From names the place as the boot agent reads it: a kubelet flag
	// ("--max-pods"), a bootstrap option ("bootstrap.sh --dns-cluster-ip"),
	// a NodeConfig key ("spec.kubelet.config.maxPods") or a Bottlerocket
	// setting ("settings.kubernetes.max-pods").
	From string
	// Line is the 1-based line in the userData, 0 if unknown.
	Line int
}

// kubeletValues is a kubelet configuration as Lint reads it, with where
// each field came from.
type kubeletValues struct {
	cfg     KubeletConfig
	sources map[string]KubeletSource
}

// set records that field came from, replacing an earlier source.
func (v *kubeletValues) set(field, from string, line int) {
	if v.sources == nil {
		v.sources = map[string]KubeletSource{}
	}
	v.sources[field] = KubeletSource{Field: field, From: from, Line: line}
}

// overlay returns v with every field top sets replaced by top's: kubelet
// flags override the config file, later NodeConfigs earlier ones.
func (v kubeletValues) overlay(top kubeletValues) kubeletValues {
	out := kubeletValues{cfg: v.cfg, sources: maps.Clone(v.sources)}
	for _, field := range slices.Sorted(maps.Keys(top.sources)) {
		copyField(&out.cfg, top.cfg, field)
		out.set(field, top.sources[field].From, top.sources[field].Line)
	}
	return out
}

// list returns the sources sorted by field.
func (v kubeletValues) list() []KubeletSource {
	var out []KubeletSource
	for _, f := range slices.Sorted(maps.Keys(v.sources)) {
		out = append(out, v.sources[f])
	}
	return out
}

func copyField(dst *KubeletConfig, src KubeletConfig, field string) {
	if field == "ClusterDNS" {
		dst.ClusterDNS = src.ClusterDNS
		return
	}
	if i := slices.IndexFunc(kubeletFields, func(f kubeletField) bool { return f.field == field }); i >= 0 {
		kubeletFields[i].copy(dst, &src)
	}
}

// kubeletField maps the kubelet's flag names, its config file's JSON
// names and Bottlerocket's settings to [KubeletConfig] fields.
type kubeletField struct {
	field, flag, config, bottlerocket string
	kind                              valueKind
	sep                               string // map entries' key-value separator in the flag
	// at returns the field in c: a **int32, **bool, *map[string]string or
	// *map[string]time.Duration, as kind says. TestKubeletFieldsAt checks
	// that it is the field named field.
	at func(c *KubeletConfig) any
}

func (f kubeletField) setInt(c *KubeletConfig, n int32) { *f.at(c).(**int32) = &n }

func (f kubeletField) setBool(c *KubeletConfig, b bool) { *f.at(c).(**bool) = &b }

// setMap sets a map field; merge adds m's entries to those already there.
func (f kubeletField) setMap(c *KubeletConfig, m map[string]string, merge bool) {
	mergeInto(f.at(c).(*map[string]string), m, merge)
}

func (f kubeletField) setDurations(c *KubeletConfig, d map[string]time.Duration, merge bool) {
	mergeInto(f.at(c).(*map[string]time.Duration), d, merge)
}

func mergeInto[V any](dst *map[string]V, m map[string]V, merge bool) {
	if merge && *dst != nil {
		maps.Copy(*dst, m)
		return
	}
	*dst = m
}

// copy sets the field in dst to its value in src.
func (f kubeletField) copy(dst, src *KubeletConfig) {
	switch d := f.at(dst).(type) {
	case **int32:
		*d = *f.at(src).(**int32)
	case **bool:
		*d = *f.at(src).(**bool)
	case *map[string]string:
		*d = *f.at(src).(*map[string]string)
	case *map[string]time.Duration:
		*d = *f.at(src).(*map[string]time.Duration)
	}
}

// encode returns the field's value in c as a config file (YAML, JSON) or,
// when bottlerocket is set, Bottlerocket's TOML settings carry it: int32
// (int64 in TOML), bool, or a non-empty map of strings (durations as Go
// durations); ok is false when the field is not set.
func (f kubeletField) encode(c *KubeletConfig, bottlerocket bool) (v any, ok bool) {
	switch p := f.at(c).(type) {
	case **int32:
		switch {
		case *p == nil:
			return nil, false
		case bottlerocket && f.kind == kindPercentString:
			return strconv.Itoa(int(**p)), true
		case bottlerocket:
			return int64(**p), true
		}
		return **p, true
	case **bool:
		if *p == nil {
			return nil, false
		}
		return **p, true
	case *map[string]string:
		return maps.Clone(*p), len(*p) > 0
	case *map[string]time.Duration:
		return kubelet.DurationStrings(*p), len(*p) > 0
	}
	return nil, false
}

type valueKind uint8

const (
	kindInt valueKind = iota
	kindBool
	kindMap
	kindDurations
	kindPercentString // Bottlerocket writes the image GC percentages as strings
)

var kubeletFields = []kubeletField{
	{"MaxPods", "max-pods", "maxPods", "max-pods", kindInt, "",
		func(c *KubeletConfig) any { return &c.MaxPods }},
	{"PodsPerCore", "pods-per-core", "podsPerCore", "", kindInt, "",
		func(c *KubeletConfig) any { return &c.PodsPerCore }},
	{"SystemReserved", "system-reserved", "systemReserved", "system-reserved", kindMap, "=",
		func(c *KubeletConfig) any { return &c.SystemReserved }},
	{"KubeReserved", "kube-reserved", "kubeReserved", "kube-reserved", kindMap, "=",
		func(c *KubeletConfig) any { return &c.KubeReserved }},
	{"EvictionHard", "eviction-hard", "evictionHard", "eviction-hard", kindMap, "<",
		func(c *KubeletConfig) any { return &c.EvictionHard }},
	{"EvictionSoft", "eviction-soft", "evictionSoft", "eviction-soft", kindMap, "<",
		func(c *KubeletConfig) any { return &c.EvictionSoft }},
	{"EvictionSoftGracePeriod", "eviction-soft-grace-period", "evictionSoftGracePeriod", "eviction-soft-grace-period", kindDurations, "=",
		func(c *KubeletConfig) any { return &c.EvictionSoftGracePeriod }},
	{"EvictionMaxPodGracePeriod", "eviction-max-pod-grace-period", "evictionMaxPodGracePeriod", "eviction-max-pod-grace-period", kindInt, "",
		func(c *KubeletConfig) any { return &c.EvictionMaxPodGracePeriod }},
	{"ImageGCHighThresholdPercent", "image-gc-high-threshold", "imageGCHighThresholdPercent", "image-gc-high-threshold-percent", kindPercentString, "",
		func(c *KubeletConfig) any { return &c.ImageGCHighThresholdPercent }},
	{"ImageGCLowThresholdPercent", "image-gc-low-threshold", "imageGCLowThresholdPercent", "image-gc-low-threshold-percent", kindPercentString, "",
		func(c *KubeletConfig) any { return &c.ImageGCLowThresholdPercent }},
	{"CPUCFSQuota", "cpu-cfs-quota", "cpuCFSQuota", "cpu-cfs-quota-enforced", kindBool, "",
		func(c *KubeletConfig) any { return &c.CPUCFSQuota }},
}

// kubeletFromFlags reads the kubelet configuration flags in argv order.
// Scalar flags keep their last value; map flags add each occurrence's
// entries to the earlier ones, as the kubelet's flag types do
// (k8s.io/component-base/cli/flag ConfigurationMap,
// LangleSeparatedMapStringString and MapStringString Set).
func kubeletFromFlags(flags []kubelet.Arg, line int) (kubeletValues, error) {
	var v kubeletValues
	for _, pf := range flags {
		name := strings.ReplaceAll(pf.Name, "_", "-")
		if name == "cluster-dns" {
			v.cfg.ClusterDNS = append(v.cfg.ClusterDNS, kubelet.SplitList(pf.Value)...)
			v.set("ClusterDNS", "--cluster-dns", line)
			continue
		}
		i := slices.IndexFunc(kubeletFields, func(f kubeletField) bool { return f.flag == name })
		if i < 0 {
			continue
		}
		f := kubeletFields[i]
		if err := setFromText(&v.cfg, f, pf.Value, true); err != nil {
			return v, fmt.Errorf("--%s=%s: %v", name, pf.Value, err)
		}
		v.set(f.field, "--"+name, line)
	}
	return v, nil
}

// setFromText sets field f of cfg from a flag's text. merge adds map
// entries to those already there.
func setFromText(cfg *KubeletConfig, f kubeletField, text string, merge bool) error {
	switch f.kind {
	case kindInt, kindPercentString:
		n, err := strconv.ParseInt(text, 10, 32)
		if err != nil {
			return fmt.Errorf("not a whole number")
		}
		f.setInt(cfg, int32(n))
	case kindBool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("not true or false")
		}
		f.setBool(cfg, b)
	case kindMap:
		m, err := kubelet.ParseMap(text, f.sep)
		if err != nil {
			return err
		}
		f.setMap(cfg, m, merge)
	case kindDurations:
		m, err := kubelet.ParseMap(text, f.sep)
		if err != nil {
			return err
		}
		d, err := kubelet.Durations(m)
		if err != nil {
			return err
		}
		f.setDurations(cfg, d, merge)
	}
	return nil
}

// kubeletFromConfig reads a KubeletConfiguration's fields (nodeadm's
// merged spec.kubelet.config), matching names without regard to case as
// the kubelet's config decoding does. where prefixes the sources.
func kubeletFromConfig(config map[string]any, where string, lineOf func(string) int) (kubeletValues, error) {
	var v kubeletValues
	if dns := kubelet.Lookup(config, "clusterDNS"); dns != nil {
		list, ok := dns.([]any)
		if !ok {
			return v, fmt.Errorf("%s.clusterDNS is not a list", where)
		}
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				return v, fmt.Errorf("%s.clusterDNS has an entry that is not a string", where)
			}
			v.cfg.ClusterDNS = append(v.cfg.ClusterDNS, s)
		}
		v.set("ClusterDNS", where+".clusterDNS", lineOf("clusterDNS"))
	}
	for _, f := range kubeletFields {
		raw := kubelet.Lookup(config, f.config)
		if raw == nil {
			continue
		}
		if err := setFromValue(&v.cfg, f, raw); err != nil {
			return v, fmt.Errorf("%s.%s: %v", where, f.config, err)
		}
		v.set(f.field, where+"."+f.config, lineOf(f.config))
	}
	return v, nil
}

// kubeletFromBottlerocket reads settings.kubernetes.
func kubeletFromBottlerocket(kube map[string]any, lineOf func(string) int) (kubeletValues, error) {
	var v kubeletValues
	switch dns := kube["cluster-dns-ip"].(type) {
	case nil:
	case string:
		v.cfg.ClusterDNS = []string{dns}
		v.set("ClusterDNS", "settings.kubernetes.cluster-dns-ip", lineOf("cluster-dns-ip"))
	case []any:
		for _, e := range dns {
			s, ok := e.(string)
			if !ok {
				return v, fmt.Errorf("settings.kubernetes.cluster-dns-ip has an entry that is not a string")
			}
			v.cfg.ClusterDNS = append(v.cfg.ClusterDNS, s)
		}
		v.set("ClusterDNS", "settings.kubernetes.cluster-dns-ip", lineOf("cluster-dns-ip"))
	default:
		return v, fmt.Errorf("settings.kubernetes.cluster-dns-ip is neither a string nor a list")
	}
	for _, f := range kubeletFields {
		if f.bottlerocket == "" {
			continue
		}
		raw, ok := kube[f.bottlerocket]
		if !ok {
			continue
		}
		if err := setFromValue(&v.cfg, f, raw); err != nil {
			return v, fmt.Errorf("settings.kubernetes.%s: %v", f.bottlerocket, err)
		}
		v.set(f.field, "settings.kubernetes."+f.bottlerocket, lineOf(f.bottlerocket))
	}
	return v, nil
}

// setFromValue sets field f of cfg from a decoded YAML, JSON or TOML value.
func setFromValue(cfg *KubeletConfig, f kubeletField, raw any) error {
	switch f.kind {
	case kindInt, kindPercentString:
		n, ok := kubelet.WholeNumber(raw)
		if !ok {
			return fmt.Errorf("%v is not a whole number", raw)
		}
		f.setInt(cfg, n)
	case kindBool:
		b, ok := raw.(bool)
		if !ok {
			return fmt.Errorf("%v is not true or false", raw)
		}
		f.setBool(cfg, b)
	case kindMap, kindDurations:
		m, ok := kubelet.StringMap(raw)
		if !ok {
			return fmt.Errorf("is not a map of strings")
		}
		if f.kind == kindMap {
			f.setMap(cfg, m, false)
			return nil
		}
		d, err := kubelet.Durations(m)
		if err != nil {
			return err
		}
		f.setDurations(cfg, d, false)
	}
	return nil
}

// kubeletTaints applies one --register-with-taints value exactly as the
// kubelet's RegisterWithTaintsVar does: empty means none; otherwise the
// comma-separated specs are parsed, removals ("…-") are parsed and dropped,
// an addition needs an effect, and two additions may not share key and
// effect. A non-empty code means the kubelet refuses the value.
func kubeletTaints(value string) (taints []Taint, removed []string, code Code, msg string) {
	if value == "" {
		return nil, nil, "", ""
	}
	for _, spec := range strings.Split(value, ",") {
		if rest, ok := strings.CutSuffix(spec, "-"); ok {
			if _, err := kubeletParseTaint(rest); err != nil {
				return nil, nil, CodeInvalidTaint, err.Error()
			}
			removed = append(removed, spec)
			continue
		}
		t, err := kubeletParseTaint(spec)
		if err != nil {
			return nil, nil, CodeInvalidTaint, err.Error()
		}
		if t.Effect == "" {
			return nil, nil, CodeInvalidTaint, fmt.Sprintf("taint %q has no effect", spec)
		}
		for _, prev := range taints {
			if prev.Matches(t) {
				return nil, nil, CodeDuplicateTaint, fmt.Sprintf("taints %q and %q share key and effect", prev.String(), t.String())
			}
		}
		taints = append(taints, t)
	}
	return taints, removed, "", ""
}

// kubeletParseTaint is the kubelet's parseTaint: key, key:Effect or
// key=value:Effect, exactly one ':' and at most one '=' when there is an
// effect, and Kubernetes' key, value and effect rules.
func kubeletParseTaint(spec string) (Taint, error) {
	var t Taint
	parts := strings.Split(spec, ":")
	switch len(parts) {
	case 1:
		t.Key = parts[0]
	case 2:
		t.Effect = Effect(parts[1])
		if !t.Effect.valid() {
			return Taint{}, fmt.Errorf("taint %q: effect %q is not NoSchedule, PreferNoSchedule or NoExecute", spec, parts[1])
		}
		kv := strings.Split(parts[0], "=")
		if len(kv) > 2 {
			return Taint{}, fmt.Errorf("taint %q has more than one '='", spec)
		}
		t.Key = kv[0]
		if len(kv) == 2 {
			t.Value = kv[1]
			if err := validation.LabelValue(t.Value); err != nil {
				return Taint{}, fmt.Errorf("taint %q: value %q: %v", spec, t.Value, err)
			}
		}
	default:
		return Taint{}, fmt.Errorf("taint %q has more than one ':'", spec)
	}
	if err := validation.QualifiedName(t.Key); err != nil {
		return Taint{}, fmt.Errorf("taint %q: key %q: %v", spec, t.Key, err)
	}
	return t, nil
}
