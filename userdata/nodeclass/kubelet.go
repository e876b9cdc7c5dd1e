package nodeclass

import (
	"time"

	"github.com/ec2select/ec2select/internal/kubeletrules"
)

// Kubelet is the kubelet configuration of an EC2NodeClass, mirroring
// Karpenter's spec.kubelet field for field (v1.14), so that a fork
// converts one to the other by copying fields: what userdata.Render
// writes into each AMI family's userData (userdata.KubeletConfig is this
// type) and what capacity.Estimator reads. The zero value sets nothing:
// every family's defaults apply. A nil and an empty map mean the same,
// "not set"; a nil pointer means "not set".
//
// userdata.Render validates it with the kubelet's own rules and
// Karpenter's CRD rules (see [Kubelet.Validate]) and writes each field
// where the family's boot agent reads it:
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
type Kubelet struct {
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

// IsZero reports whether k sets nothing.
func (k Kubelet) IsZero() bool {
	return len(k.ClusterDNS) == 0 && k.MaxPods == nil && k.PodsPerCore == nil &&
		len(k.SystemReserved) == 0 && len(k.KubeReserved) == 0 &&
		len(k.EvictionHard) == 0 && len(k.EvictionSoft) == 0 && len(k.EvictionSoftGracePeriod) == 0 &&
		k.EvictionMaxPodGracePeriod == nil && k.ImageGCHighThresholdPercent == nil &&
		k.ImageGCLowThresholdPercent == nil && k.CPUCFSQuota == nil
}

// Validate checks k against the rules the kubelet enforces when it
// starts, in every release from 1.24 on, and refuses nothing else: what
// the kubelet accepts is accepted even where Karpenter's CRD is stricter
// (a negative EvictionMaxPodGracePeriod, a reservation of "-0"), and a
// ClusterDNS entry that is not an IP address is accepted, because the
// kubelet starts with it and skips it (pkg/kubelet/kubelet.go@v1.35.3
// L576-584 logs "Invalid clusterDNS IP" and goes on). Eviction signals are
// the six every release and Bottlerocket know. userdata.Render adds each
// family's own limits, and refuses such a ClusterDNS entry in every
// family: the node would join with pods that cannot resolve services. The
// error names the field (as userdata's Config.Kubelet.Field), the bad
// value and the fix.
func (k Kubelet) Validate() error {
	if r := kubeletrules.Validate(kubeletrules.Fields(k)); r != nil {
		return r.ConfigError()
	}
	return nil
}
