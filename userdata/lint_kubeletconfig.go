package userdata

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

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
func kubeletFromFlags(flags []parsedFlag, line int) (kubeletValues, error) {
	var v kubeletValues
	for _, pf := range flags {
		name := strings.ReplaceAll(pf.name, "_", "-")
		if name == "cluster-dns" {
			v.cfg.ClusterDNS = append(v.cfg.ClusterDNS, splitNonEmpty(pf.value)...)
			v.set("ClusterDNS", "--cluster-dns", line)
			continue
		}
		i := slices.IndexFunc(kubeletFields, func(f kubeletField) bool { return f.flag == name })
		if i < 0 {
			continue
		}
		f := kubeletFields[i]
		if err := setFromText(&v.cfg, f, pf.value, true); err != nil {
			return v, fmt.Errorf("--%s=%s: %v", name, pf.value, err)
		}
		v.set(f.field, "--"+name, line)
	}
	return v, nil
}

func splitNonEmpty(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
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
		m, err := parseFlagMap(text, f.sep)
		if err != nil {
			return err
		}
		f.setMap(cfg, m, merge)
	case kindDurations:
		m, err := parseFlagMap(text, f.sep)
		if err != nil {
			return err
		}
		d, err := durations(m)
		if err != nil {
			return err
		}
		f.setDurations(cfg, d, merge)
	}
	return nil
}

// parseFlagMap reads "k<sep>v,k2<sep>v2".
func parseFlagMap(text, sep string) (map[string]string, error) {
	m := map[string]string{}
	for _, entry := range strings.Split(text, ",") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		k, v, ok := strings.Cut(entry, sep)
		if !ok {
			return nil, fmt.Errorf("entry %q is not key%svalue", entry, sep)
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return m, nil
}

func durations(m map[string]string) (map[string]time.Duration, error) {
	out := make(map[string]time.Duration, len(m))
	for k, s := range m {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("%s=%s is not a duration", k, s)
		}
		out[k] = d
	}
	return out, nil
}

// kubeletFromConfig reads a KubeletConfiguration's fields (nodeadm's
// merged spec.kubelet.config), matching names without regard to case as
// the kubelet's config decoding does. where prefixes the sources.
func kubeletFromConfig(config map[string]any, where string, lineOf func(string) int) (kubeletValues, error) {
	var v kubeletValues
	if dns := foldGet(config, "clusterDNS"); dns != nil {
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
		raw := foldGet(config, f.config)
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
		n, ok := wholeNumber(raw)
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
		m, ok := stringMap(raw)
		if !ok {
			return fmt.Errorf("is not a map of strings")
		}
		if f.kind == kindMap {
			f.setMap(cfg, m, false)
			return nil
		}
		d, err := durations(m)
		if err != nil {
			return err
		}
		f.setDurations(cfg, d, false)
	}
	return nil
}

// wholeNumber accepts the number types the decoders produce, and for
// Bottlerocket's percentages a string of digits.
func wholeNumber(raw any) (int32, bool) {
	var n int64
	switch x := raw.(type) {
	case int64:
		n = x
	case float64:
		if x != float64(int64(x)) {
			return 0, false
		}
		n = int64(x)
	case string:
		v, err := strconv.ParseInt(x, 10, 32)
		if err != nil {
			return 0, false
		}
		n = v
	default:
		return 0, false
	}
	if n < -1<<31 || n > 1<<31-1 {
		return 0, false
	}
	return int32(n), true
}

func stringMap(raw any) (map[string]string, bool) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		out[k] = s
	}
	return out, true
}
