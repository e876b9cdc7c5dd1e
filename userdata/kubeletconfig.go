package userdata

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/internal/quantity"
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
			if q.Sign < 0 || strings.HasPrefix(v, "-") {
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
	if q.Sign <= 0 {
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
// pkg/providers/amifamily/bootstrap/bootstrap.go, kubeletExtraArgs), with
// map entries sorted by key. ClusterDNS is not a flag: the boot scripts
// take it as an option of their own.
func (k KubeletConfig) flags() []string {
	var fs []string
	if k.MaxPods != nil {
		fs = append(fs, "--max-pods="+strconv.Itoa(int(*k.MaxPods)))
	}
	if k.PodsPerCore != nil {
		fs = append(fs, "--pods-per-core="+strconv.Itoa(int(*k.PodsPerCore)))
	}
	fs = appendMapFlag(fs, "--system-reserved", k.SystemReserved, "=")
	fs = appendMapFlag(fs, "--kube-reserved", k.KubeReserved, "=")
	fs = appendMapFlag(fs, "--eviction-hard", k.EvictionHard, "<")
	fs = appendMapFlag(fs, "--eviction-soft", k.EvictionSoft, "<")
	fs = appendMapFlag(fs, "--eviction-soft-grace-period", durationStrings(k.EvictionSoftGracePeriod), "=")
	if k.EvictionMaxPodGracePeriod != nil {
		fs = append(fs, "--eviction-max-pod-grace-period="+strconv.Itoa(int(*k.EvictionMaxPodGracePeriod)))
	}
	if k.ImageGCHighThresholdPercent != nil {
		fs = append(fs, "--image-gc-high-threshold="+strconv.Itoa(int(*k.ImageGCHighThresholdPercent)))
	}
	if k.ImageGCLowThresholdPercent != nil {
		fs = append(fs, "--image-gc-low-threshold="+strconv.Itoa(int(*k.ImageGCLowThresholdPercent)))
	}
	if k.CPUCFSQuota != nil {
		fs = append(fs, "--cpu-cfs-quota="+strconv.FormatBool(*k.CPUCFSQuota))
	}
	return fs
}

func appendMapFlag(fs []string, name string, m map[string]string, sep string) []string {
	if len(m) == 0 {
		return fs
	}
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('=')
	for i, key := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(key)
		b.WriteString(sep)
		b.WriteString(m[key])
	}
	return append(fs, b.String())
}

// durationStrings formats grace periods as Go durations ("1m30s"), the
// form metav1.Duration marshals to and the kubelet's time.ParseDuration
// reads.
func durationStrings(m map[string]time.Duration) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, d := range m {
		out[k] = d.String()
	}
	return out
}

// configFields returns k as the fields of a KubeletConfiguration
// (kubelet.config.k8s.io/v1beta1, JSON names), which nodeadm merges into
// the kubelet's config file: what Karpenter's nodeadm bootstrap marshals
// from spec.kubelet (nodeadm.go, generateInlineKubeletConfiguration).
func (k KubeletConfig) configFields() map[string]any {
	m := map[string]any{}
	if len(k.ClusterDNS) > 0 {
		m["clusterDNS"] = slices.Clone(k.ClusterDNS)
	}
	putInt(m, "maxPods", k.MaxPods)
	putInt(m, "podsPerCore", k.PodsPerCore)
	putMap(m, "systemReserved", k.SystemReserved)
	putMap(m, "kubeReserved", k.KubeReserved)
	putMap(m, "evictionHard", k.EvictionHard)
	putMap(m, "evictionSoft", k.EvictionSoft)
	putMap(m, "evictionSoftGracePeriod", durationStrings(k.EvictionSoftGracePeriod))
	putInt(m, "evictionMaxPodGracePeriod", k.EvictionMaxPodGracePeriod)
	putInt(m, "imageGCHighThresholdPercent", k.ImageGCHighThresholdPercent)
	putInt(m, "imageGCLowThresholdPercent", k.ImageGCLowThresholdPercent)
	if k.CPUCFSQuota != nil {
		m["cpuCFSQuota"] = *k.CPUCFSQuota
	}
	return m
}

// bottlerocketSettings returns k as settings.kubernetes entries, spelled as
// Karpenter's Bottlerocket bootstrap writes them (bottlerocket.go and
// bottlerocketsettings.go: the image GC percentages are strings there).
// PodsPerCore has no Bottlerocket setting; Render refuses it before this.
func (k KubeletConfig) bottlerocketSettings() map[string]any {
	m := map[string]any{}
	switch len(k.ClusterDNS) {
	case 0:
	case 1:
		m["cluster-dns-ip"] = k.ClusterDNS[0]
	default:
		m["cluster-dns-ip"] = slices.Clone(k.ClusterDNS)
	}
	if k.MaxPods != nil {
		m["max-pods"] = int64(*k.MaxPods)
	}
	putMap(m, "system-reserved", k.SystemReserved)
	putMap(m, "kube-reserved", k.KubeReserved)
	putMap(m, "eviction-hard", k.EvictionHard)
	putMap(m, "eviction-soft", k.EvictionSoft)
	putMap(m, "eviction-soft-grace-period", durationStrings(k.EvictionSoftGracePeriod))
	if k.EvictionMaxPodGracePeriod != nil {
		m["eviction-max-pod-grace-period"] = int64(*k.EvictionMaxPodGracePeriod)
	}
	if k.ImageGCHighThresholdPercent != nil {
		m["image-gc-high-threshold-percent"] = strconv.Itoa(int(*k.ImageGCHighThresholdPercent))
	}
	if k.ImageGCLowThresholdPercent != nil {
		m["image-gc-low-threshold-percent"] = strconv.Itoa(int(*k.ImageGCLowThresholdPercent))
	}
	if k.CPUCFSQuota != nil {
		m["cpu-cfs-quota-enforced"] = *k.CPUCFSQuota
	}
	return m
}

func putInt(m map[string]any, key string, v *int32) {
	if v != nil {
		m[key] = *v
	}
}

func putMap(m map[string]any, key string, v map[string]string) {
	if len(v) > 0 {
		m[key] = maps.Clone(v)
	}
}

// InstanceStorePolicy is what to do with a node's instance-store (NVMe)
// disks, EC2NodeClass spec.instanceStorePolicy. The zero value leaves them
// alone.
type InstanceStorePolicy string

// RAID0 makes one RAID-0 array of every instance-store disk and puts the
// kubelet's and containerd's state on it.
const RAID0 InstanceStorePolicy = "RAID0"

// checkKubelet validates cfg.Kubelet and the instance-store policy for
// family f, and records the parsed DNS addresses.
func (p *plan) checkKubelet(f compat.AMIFamily) error {
	k := p.cfg.Kubelet
	if err := k.Validate(); err != nil {
		return err
	}
	p.dns, _ = k.dnsAddrs()
	if len(p.dns) > 0 && p.cidr.IsValid() && p.dns[0].Is6() != p.cidr.Addr().Is6() {
		return fmt.Errorf("userdata: Config.Kubelet.ClusterDNS %q and Config.ClusterCIDR %q are of different IP families; use the DNS IP from the service CIDR", k.ClusterDNS[0], p.cfg.ClusterCIDR)
	}
	p.ipv6 = (len(p.dns) > 0 && p.dns[0].Is6()) || (p.cidr.IsValid() && p.cidr.Addr().Is6())
	switch {
	case len(p.dns) > 1 && f == compat.AL2:
		// templates/al2/runtime/bootstrap.sh writes --dns-cluster-ip as the one
		// entry of clusterDNS.
		return fmt.Errorf("userdata: Config.Kubelet.ClusterDNS has %d addresses; bootstrap.sh takes one --dns-cluster-ip, so keep only the first", len(p.dns))
	case len(p.dns) > 1 && f.IsWindows():
		return fmt.Errorf("userdata: Config.Kubelet.ClusterDNS has %d addresses; Start-EKSBootstrap.ps1 takes one -DNSClusterIP, so keep only the first", len(p.dns))
	case k.PodsPerCore != nil && f == compat.Bottlerocket:
		return fmt.Errorf("userdata: Config.Kubelet.PodsPerCore is set, but Bottlerocket has no pods-per-core setting (Karpenter drops it silently); leave it nil for Bottlerocket or cap pods with MaxPods")
	}
	switch p.cfg.InstanceStorePolicy {
	case "":
	case RAID0:
		if f.IsWindows() {
			return fmt.Errorf("userdata: Config.InstanceStorePolicy RAID0 is not available on Windows: Start-EKSBootstrap.ps1 has no instance-store option; leave it empty for %v", f)
		}
	default:
		return fmt.Errorf("userdata: Config.InstanceStorePolicy %q is not a policy; use RAID0 or leave it empty", p.cfg.InstanceStorePolicy)
	}
	return nil
}
