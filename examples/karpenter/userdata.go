package karpenter

import (
	"fmt"
	"maps"
	"time"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
)

// Cluster is what Karpenter's launch-template provider knows about the
// cluster besides the EC2NodeClass: its operator options and what it
// discovers from EKS at start.
type Cluster struct {
	Name     string // --cluster-name
	Endpoint string // the API server URL (--cluster-endpoint or discovered)
	CABundle string // base64 PEM, as EKS DescribeCluster returns it
	CIDR     string // the service CIDR (ResolveClusterCIDR); AL2023 needs it
	// DNSIP is the kube-dns service IP Karpenter discovers; it fills
	// clusterDNS when spec.kubelet leaves it empty, as Karpenter's
	// resolver does (defaultClusterDNS).
	DNSIP string
}

// UserDataConfig builds the userdata.Render input Karpenter's launch path
// builds for a NodeClaim launching capacityType with ami: the
// EC2NodeClass's spec.kubelet, instanceStorePolicy and userData, the
// NodeClaim's taints, startup taints and labels (plus karpenter.sh/capacity-type
// and, for every family but Custom, karpenter.sh/do-not-sync-taints, as
// launchtemplate.CreateAMIOptions adds them), and the cluster. The
// returned family is [Family]'s.
//
// MaxPods is left as spec.kubelet sets it: Karpenter fills an unset
// maxPods per instance type (ENI-limited or 110), so a fork sets
// cfg.Kubelet.MaxPods per launch group. RequiredTaints stays nil, meaning
// karpenter.sh/unregistered:NoExecute, which Karpenter v1 requires.
func UserDataConfig(nc *v1.EC2NodeClass, claim *karpv1.NodeClaim, capacityType string, cluster Cluster, ami amiselect.AMI) (compat.AMIFamily, userdata.Config, error) {
	family, err := Family(nc)
	if err != nil {
		return "", userdata.Config{}, err
	}
	kubelet, err := KubeletFromKarpenter(nc.Spec.Kubelet)
	if err != nil {
		return "", userdata.Config{}, fmt.Errorf("karpenter: EC2NodeClass %s: %w", nc.Name, err)
	}
	if len(kubelet.ClusterDNS) == 0 && cluster.DNSIP != "" {
		kubelet.ClusterDNS = []string{cluster.DNSIP}
	}
	taints, err := TaintsFromKarpenter(claim.Spec.Taints)
	if err != nil {
		return "", userdata.Config{}, fmt.Errorf("karpenter: NodeClaim %s: %w", claim.Name, err)
	}
	startup, err := TaintsFromKarpenter(claim.Spec.StartupTaints)
	if err != nil {
		return "", userdata.Config{}, fmt.Errorf("karpenter: NodeClaim %s: startupTaints: %w", claim.Name, err)
	}
	cfg := userdata.Config{
		ClusterName: cluster.Name, APIServerEndpoint: cluster.Endpoint,
		CABundle: cluster.CABundle, ClusterCIDR: cluster.CIDR,
		Kubelet: kubelet, AMIRelease: ami.Release,
		Taints: taints, StartupTaints: startup,
		Labels: launchLabels(family, claim.Labels, capacityType),
	}
	if p := nc.Spec.InstanceStorePolicy; p != nil {
		cfg.InstanceStorePolicy = userdata.InstanceStorePolicy(*p)
	}
	if nc.Spec.UserData != nil {
		cfg.CustomUserData = []byte(*nc.Spec.UserData)
	}
	return family, cfg, nil
}

func launchLabels(family compat.AMIFamily, labels map[string]string, capacityType string) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	if capacityType != "" {
		out[karpv1.CapacityTypeLabelKey] = capacityType
	}
	if family != compat.Custom {
		out[karpv1.NodeDoNotSyncTaintsLabelKey] = "true"
	}
	return out
}

// KubeletFromKarpenter copies spec.kubelet field for field; nil is the zero
// KubeletConfig (every family's defaults). It validates the result with
// userdata's rules, so a value Render would refuse is refused here, naming
// the field.
func KubeletFromKarpenter(k *v1.KubeletConfiguration) (userdata.KubeletConfig, error) {
	if k == nil {
		return userdata.KubeletConfig{}, nil
	}
	out := userdata.KubeletConfig{
		ClusterDNS: k.ClusterDNS, MaxPods: k.MaxPods, PodsPerCore: k.PodsPerCore,
		SystemReserved: k.SystemReserved, KubeReserved: k.KubeReserved,
		EvictionHard: k.EvictionHard, EvictionSoft: k.EvictionSoft,
		EvictionMaxPodGracePeriod:   k.EvictionMaxPodGracePeriod,
		ImageGCHighThresholdPercent: k.ImageGCHighThresholdPercent,
		ImageGCLowThresholdPercent:  k.ImageGCLowThresholdPercent,
		CPUCFSQuota:                 k.CPUCFSQuota,
	}
	if k.EvictionSoftGracePeriod != nil {
		out.EvictionSoftGracePeriod = make(map[string]time.Duration, len(k.EvictionSoftGracePeriod))
		for signal, d := range k.EvictionSoftGracePeriod {
			out.EvictionSoftGracePeriod[signal] = d.Duration
		}
	}
	if err := out.Validate(); err != nil {
		return userdata.KubeletConfig{}, fmt.Errorf("karpenter: spec.kubelet: %w", err)
	}
	return out, nil
}
