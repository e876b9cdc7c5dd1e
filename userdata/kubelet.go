package userdata

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ec2select/ec2select/internal/kubeletrules"
	"github.com/ec2select/ec2select/internal/validation"
	"github.com/ec2select/ec2select/userdata/internal/kubelet"
	"github.com/ec2select/ec2select/userdata/nodeclass"
)

// KubeletConfig is the kubelet configuration [Render] writes: an
// EC2NodeClass's spec.kubelet. It is nodeclass.Kubelet, which documents
// its fields, where each family writes them and what
// [KubeletConfig.Validate] refuses; capacity reads the same type without
// linking this package.
type KubeletConfig = nodeclass.Kubelet

// The keys the kubelet reserves and the eviction signals Validate
// accepts, as kubeletrules lists them.
var (
	reservedResources = kubeletrules.ReservedResources
	evictionSignals   = kubeletrules.EvictionSignals
)

// validateKubelet is [KubeletConfig.Validate]'s refusal, for Render, which
// also reads when it rests on a default.
func validateKubelet(k KubeletConfig) (defaulted bool, err error) {
	if r := kubeletrules.Validate(kubeletrules.Fields(k)); r != nil {
		return r.Defaulted, r.ConfigError()
	}
	return false, nil
}

// dnsAddrs parses the ClusterDNS entries the kubelet reads as IP
// addresses ([kubeletIP]); it skips the others.
func dnsAddrs(k KubeletConfig) []netip.Addr {
	var addrs []netip.Addr
	for _, s := range k.ClusterDNS {
		if a, ok := kubeletIP(s); ok {
			addrs = append(addrs, a)
		}
	}
	return addrs
}

// kubeletIP parses a clusterDNS entry as the kubelet does
// (k8s.io/utils/net ParseIPSloppy: Go's net.ParseIP before 1.17, so no
// zone, and an IPv4 address's parts may have leading zeros, read as
// decimal).
func kubeletIP(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a, a.Zone() == ""
	}
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return netip.Addr{}, false
	}
	var b [4]byte
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 8)
		if err != nil || len(p) > 3 || strings.HasPrefix(p, "+") {
			return netip.Addr{}, false
		}
		b[i] = byte(n)
	}
	return netip.AddrFrom4(b), true
}

// kubeletFlags returns the kubelet flags for k in the order Karpenter's AL2 and
// Windows bootstrap writes them (karpenter-provider-aws v1.14.1
// pkg/providers/amifamily/bootstrap/bootstrap.go, kubeletExtraArgs), which
// is the order of [kubeletFields], with map entries sorted by key.
// ClusterDNS is not a flag: the boot scripts take it as an option of their
// own.
func kubeletFlags(k *KubeletConfig) []string {
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

// kubeletConfigFields returns k as the fields of a KubeletConfiguration
// (kubelet.config.k8s.io/v1beta1, JSON names), which nodeadm merges into
// the kubelet's config file: what Karpenter's nodeadm bootstrap marshals
// from spec.kubelet (nodeadm.go, generateInlineKubeletConfiguration).
func kubeletConfigFields(k *KubeletConfig) map[string]any {
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

// bottlerocketKubeletSettings returns k as settings.kubernetes entries, spelled as
// Karpenter's Bottlerocket bootstrap writes them (bottlerocket.go and
// bottlerocketsettings.go: the image GC percentages are strings there).
// PodsPerCore has no Bottlerocket setting; Render refuses it before this.
func bottlerocketKubeletSettings(k *KubeletConfig) map[string]any {
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

// KubeletSource says where one field of [Report.Kubelet] comes from, or,
// for a map field whose entries come from several places (nodeadm merges
// its own kubeReserved and evictionHard with spec.kubelet.config's), where
// some of its entries do.
type KubeletSource struct {
	// Field is the [KubeletConfig] field, e.g. "MaxPods".
	Field string
	// Keys are the map entries this source supplies, sorted; nil when it
	// supplies the whole field.
	Keys []string
	// From names the place as the boot agent reads it: a kubelet flag
	// ("--max-pods"), a bootstrap option ("bootstrap.sh --dns-cluster-ip"),
	// a NodeConfig key ("spec.kubelet.config.maxPods"), a Bottlerocket
	// setting ("settings.kubernetes.max-pods"), or the boot agent itself
	// ("nodeadm's config.json"). A source whose From ends in "computed at
	// boot" supplies a value that depends on the instance, which
	// [Report.Kubelet] leaves out (nodeadm's maxPods, kubeReserved cpu and
	// memory).
	From string
	// Line is the 1-based line in the userData of the key, flag or option,
	// 0 if it is not in the userData.
	Line int
}

// computedAtBoot ends the From of a source whose value the boot agent
// computes from the instance.
const computedAtBoot = ", computed at boot"

// The boot agents' own kubelet configuration, as sources name it: what
// they write whatever the userData says.
const (
	al2ConfigJSON          = "bootstrap.sh's kubelet-config.json"
	nodeadmConfigJSON      = "nodeadm's config.json"
	bottlerocketKubeletCfg = "Bottlerocket's kubelet config template"
)

// agentSource reports whether a source's From is a boot agent's own
// configuration.
func agentSource(from string) bool {
	for _, a := range []string{al2ConfigJSON, nodeadmConfigJSON, bottlerocketKubeletCfg} {
		if strings.HasPrefix(from, a) {
			return true
		}
	}
	return false
}

// userPart returns the fields and map entries of cfg whose sources are not
// a boot agent's own ([agentSource]).
func userPart(cfg KubeletConfig, sources []KubeletSource) KubeletConfig {
	var out KubeletConfig
	byField := map[string][]KubeletSource{}
	for _, s := range sources {
		if !agentSource(s.From) {
			byField[s.Field] = append(byField[s.Field], s)
		}
	}
	for _, field := range slices.Sorted(maps.Keys(byField)) {
		copyField(&out, cfg, field)
		var keys []string
		for _, s := range byField[field] {
			if s.Keys == nil {
				keys = nil
				break
			}
			keys = append(keys, s.Keys...)
		}
		if keys == nil {
			continue
		}
		if i := slices.IndexFunc(kubeletFields, func(f kubeletField) bool { return f.field == field }); i >= 0 {
			switch m := kubeletFields[i].at(&out).(type) {
			case *map[string]string:
				*m = keepKeys(*m, keys)
			case *map[string]time.Duration:
				*m = keepKeys(*m, keys)
			}
		}
	}
	return out
}

func keepKeys[V any](m map[string]V, keys []string) map[string]V {
	out := map[string]V{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// kubeletValues is a kubelet configuration as Lint reads it, with where
// each field came from, and the feature gates it sets.
type kubeletValues struct {
	cfg KubeletConfig
	// sources are by field, in the order they were applied.
	sources map[string][]KubeletSource
	gates   map[string]bool
	// gateSources say where each gate is set.
	gateSources map[string]KubeletSource
}

// set records that field came from, replacing earlier sources.
func (v *kubeletValues) set(field, from string, line int) {
	if v.sources == nil {
		v.sources = map[string][]KubeletSource{}
	}
	v.sources[field] = []KubeletSource{{Field: field, From: from, Line: line}}
}

// setGate records a feature gate.
func (v *kubeletValues) setGate(name string, on bool, from string, line int) {
	if v.gates == nil {
		v.gates, v.gateSources = map[string]bool{}, map[string]KubeletSource{}
	}
	v.gates[name] = on
	v.gateSources[name] = KubeletSource{Field: "FeatureGates", Keys: []string{name}, From: from, Line: line}
}

// overlay returns v with every field top sets replaced by top's, as the
// kubelet applies its flags over its config file (a map flag replaces the
// whole map: k8s.io/component-base cli/flag MapStringString.Set clears it
// on its first call), and later NodeConfigs earlier ones. Feature gates
// are merged, top's winning: the kubelet adds back the config file's gates
// the flags do not set (cmd/kubelet/app/server.go@v1.35.3 L425-430).
func (v kubeletValues) overlay(top kubeletValues) kubeletValues {
	out := v.clone()
	for _, field := range slices.Sorted(maps.Keys(top.sources)) {
		copyField(&out.cfg, top.cfg, field)
		out.sources[field] = top.sources[field]
	}
	out.mergeGates(top)
	return out
}

// patch returns v with top merged over it as a JSON merge patch (RFC
// 7386) merges a kubelet config drop-in over the base config
// (cmd/kubelet/app/server.go@v1.35.3 L334-372): a map field's entries are
// merged, top's winning; any other field top sets, or a map it clears,
// replaces v's.
func (v kubeletValues) patch(top kubeletValues) kubeletValues {
	out := v.clone()
	for _, field := range slices.Sorted(maps.Keys(top.sources)) {
		i := slices.IndexFunc(kubeletFields, func(f kubeletField) bool { return f.field == field })
		if i < 0 || (kubeletFields[i].kind != kindMap && kubeletFields[i].kind != kindDurations) || !kubeletFields[i].isSet(&top.cfg) {
			copyField(&out.cfg, top.cfg, field)
			out.sources[field] = top.sources[field]
			continue
		}
		f := kubeletFields[i]
		keys := f.mergeMap(&out.cfg, &top.cfg)
		var kept []KubeletSource
		for _, s := range out.sources[field] {
			if s.Keys == nil {
				s.Keys = f.keysIn(&v.cfg)
			}
			s.Keys = slices.DeleteFunc(slices.Clone(s.Keys), func(k string) bool { return slices.Contains(keys, k) })
			if len(s.Keys) > 0 {
				kept = append(kept, s)
			}
		}
		for _, s := range top.sources[field] {
			if s.Keys == nil {
				s.Keys = keys
			}
			kept = append(kept, s)
		}
		out.sources[field] = kept
	}
	out.mergeGates(top)
	return out
}

// relabel names from as the source of every field and gate.
func (v kubeletValues) relabel(from string) kubeletValues {
	out := v.clone()
	for field, list := range out.sources {
		list = slices.Clone(list)
		for i := range list {
			list[i].From, list[i].Line = from, 0
		}
		out.sources[field] = list
	}
	for name, s := range out.gateSources {
		s.From, s.Line = from, 0
		out.gateSources[name] = s
	}
	return out
}

// computed records that the boot agent computes field (or, for a map
// field, its entry key) at boot: the value is not known before.
func (v kubeletValues) computed(field, key, from string) kubeletValues {
	out := v.clone()
	s := KubeletSource{Field: field, From: from}
	if key == "" {
		out.sources[field] = []KubeletSource{s}
		return out
	}
	list := slices.Clone(out.sources[field])
	for i := range list {
		if list[i].Keys == nil {
			if j := slices.IndexFunc(kubeletFields, func(f kubeletField) bool { return f.field == field }); j >= 0 {
				list[i].Keys = kubeletFields[j].keysIn(&out.cfg)
			}
		}
	}
	for i := range list {
		if list[i].From == from {
			list[i].Keys = append(slices.Clone(list[i].Keys), key)
			slices.Sort(list[i].Keys)
			out.sources[field] = list
			return out
		}
	}
	s.Keys = []string{key}
	out.sources[field] = append(list, s)
	return out
}

func (v kubeletValues) clone() kubeletValues {
	out := kubeletValues{cfg: v.cfg, sources: maps.Clone(v.sources), gates: maps.Clone(v.gates), gateSources: maps.Clone(v.gateSources)}
	if out.sources == nil {
		out.sources = map[string][]KubeletSource{}
	}
	return out
}

func (v *kubeletValues) mergeGates(top kubeletValues) {
	for _, name := range slices.Sorted(maps.Keys(top.gates)) {
		s := top.gateSources[name]
		v.setGate(name, top.gates[name], s.From, s.Line)
	}
}

// source returns where field, or its entry key, comes from.
func (v kubeletValues) source(field, key string) KubeletSource {
	list := v.sources[field]
	for i := len(list) - 1; i >= 0; i-- {
		if key == "" || list[i].Keys == nil || slices.Contains(list[i].Keys, key) {
			return list[i]
		}
	}
	return KubeletSource{Field: field}
}

// list returns the sources sorted by field, each field's in the order they
// were applied.
func (v kubeletValues) list() []KubeletSource {
	var out []KubeletSource
	for _, f := range slices.Sorted(maps.Keys(v.sources)) {
		out = append(out, v.sources[f]...)
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

// isSet reports whether the field is set in c.
func (f kubeletField) isSet(c *KubeletConfig) bool {
	_, ok := f.encode(c, false)
	return ok
}

// keysIn returns the keys of a map field of c, sorted.
func (f kubeletField) keysIn(c *KubeletConfig) []string {
	switch m := f.at(c).(type) {
	case *map[string]string:
		return slices.Sorted(maps.Keys(*m))
	case *map[string]time.Duration:
		return slices.Sorted(maps.Keys(*m))
	}
	return nil
}

// mergeMap sets the map field of dst to a new map of dst's entries and
// src's, src's winning, and returns src's keys, sorted.
func (f kubeletField) mergeMap(dst, src *KubeletConfig) []string {
	switch d := f.at(dst).(type) {
	case *map[string]string:
		*d = mergedMap(*d, *f.at(src).(*map[string]string))
	case *map[string]time.Duration:
		*d = mergedMap(*d, *f.at(src).(*map[string]time.Duration))
	}
	return f.keysIn(src)
}

func mergedMap[V any](base, top map[string]V) map[string]V {
	out := make(map[string]V, len(base)+len(top))
	maps.Copy(out, base)
	maps.Copy(out, top)
	return out
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
		switch name {
		case "cluster-dns":
			v.cfg.ClusterDNS = append(v.cfg.ClusterDNS, kubelet.SplitList(pf.Value)...)
			v.set("ClusterDNS", "--cluster-dns", line)
			continue
		case "feature-gates":
			gates, err := kubelet.ParseGates(pf.Value)
			if err != nil {
				return v, fmt.Errorf("--%s=%s: %v", name, pf.Value, err)
			}
			for _, g := range slices.Sorted(maps.Keys(gates)) {
				v.setGate(g, gates[g], "--feature-gates", line)
			}
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
		// pflag's int32 flag: strconv.ParseInt(s, 0, 32), so "0x10" is 16.
		n, err := strconv.ParseInt(text, 0, 32)
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
// merged spec.kubelet.config, or its base config), matching names without
// regard to case as the kubelet's config decoding does. where prefixes the
// sources; lineOf gives the line of a key. A field set to null is recorded
// as cleared: a JSON merge patch deletes it from the config below.
func kubeletFromConfig(config map[string]any, where string, lineOf func(string) int) (kubeletValues, error) {
	var v kubeletValues
	if dns, found := kubelet.LookupKey(config, "clusterDNS"); found {
		list, ok := dns.([]any)
		if !ok && dns != nil {
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
		raw, found := kubelet.LookupKey(config, f.config)
		if !found {
			continue
		}
		if raw != nil {
			if err := setFromValue(&v.cfg, f, raw); err != nil {
				return v, fmt.Errorf("%s.%s: %v", where, f.config, err)
			}
		}
		v.set(f.field, where+"."+f.config, lineOf(f.config))
	}
	if raw, found := kubelet.LookupKey(config, "featureGates"); found && raw != nil {
		gates, ok := raw.(map[string]any)
		if !ok {
			return v, fmt.Errorf("%s.featureGates is not a map of gate names to true or false", where)
		}
		line := lineOf("featureGates")
		for _, g := range slices.Sorted(maps.Keys(gates)) {
			on, ok := gates[g].(bool)
			if !ok {
				return v, fmt.Errorf("%s.featureGates.%s is %v, not true or false", where, g, gates[g])
			}
			v.setGate(g, on, where+".featureGates", line)
		}
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
	return bottlerocketKubeletBase().patch(v), nil
}

// bottlerocketKubeletBase is what Bottlerocket's kubelet config template
// writes whatever the settings say, for the fields the kubelet model
// reads (bottlerocket-os/bottlerocket-core-kit@a10182f9
// packages/kubernetes-1.31/kubelet-config): kubeReserved's cpu (computed
// unless set), memory (computed from max-pods unless set) and
// ephemeral-storage ("1Gi" unless set), L84-93, the settings' other
// kube-reserved entries merged over them; maxPods, the max-pods setting
// that pluto computes at boot when the userData leaves it unset (L151;
// bottlerocket-os/bottlerocket@91632ff5 sources/api/pluto/src/main.rs).
func bottlerocketKubeletBase() kubeletValues {
	const from = bottlerocketKubeletCfg
	var v kubeletValues
	v.cfg.KubeReserved = map[string]string{"ephemeral-storage": "1Gi"}
	v.set("KubeReserved", from, 0)
	v = v.computed("KubeReserved", "cpu", from+computedAtBoot)
	v = v.computed("KubeReserved", "memory", from+computedAtBoot)
	return v.computed("MaxPods", "", from+computedAtBoot)
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
