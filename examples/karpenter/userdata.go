package karpenter

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

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

// UserDataConfig is the seam of the launch template's userData: it builds
// the userdata.Render input Karpenter's launch path builds for a NodeClaim
// launching capacityType in group, as launchtemplate.CreateAMIOptions
// and amifamily.DefaultResolver assemble it (karpenter-provider-aws
// v1.14.1):
//   - kubelet: spec.kubelet ([KubeletFromKarpenter]), maxPods set to
//     group.MaxPods when spec.kubelet leaves it unset (resolver.go:278-287),
//     clusterDNS the discovered kube-dns IP when it leaves that unset
//     (resolver.go:243-258, defaultClusterDNS);
//   - taints: the NodeClaim's taints then its startup taints
//     (resolver.go:288-296); RequiredTaints stays nil, which is
//     karpenter.sh/unregistered:NoExecute, added as the resolver adds it
//     unless a taint of that key and effect is already there;
//   - labels: [LaunchLabels];
//   - instanceStorePolicy and userData from the EC2NodeClass, and the
//     group's image release (Bottlerocket's RAID0 needs it).
//
// The returned family is [Family]'s. For a Custom family whose userData
// Lint cannot prove, Render refuses; see the README's "From Karpenter".
// A Custom family without userData renders empty, as Karpenter's does.
// Build group with [ResolverGroup] where the resolver has only the image
// ID, its maxPods and types: the release comes from the image name.
func UserDataConfig(nc *v1.EC2NodeClass, claim *karpv1.NodeClaim, capacityType string, cluster Cluster, group LaunchGroup) (compat.AMIFamily, userdata.Config, error) {
	family, err := Family(nc)
	if err != nil {
		return "", userdata.Config{}, err
	}
	kubelet, err := KubeletFromKarpenter(nc.Spec.Kubelet)
	if err != nil {
		return "", userdata.Config{}, fmt.Errorf("karpenter: EC2NodeClass %s: %w", nc.Name, err)
	}
	if kubelet.MaxPods == nil && group.MaxPods > 0 {
		kubelet.MaxPods = &group.MaxPods
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
		Kubelet: kubelet, Taints: taints, StartupTaints: startup,
		Labels: LaunchLabels(family, claim.Labels, capacityType),
	}
	if len(group.AMIs) > 0 {
		cfg.AMIRelease = group.AMIs[0].Release
	}
	if p := nc.Spec.InstanceStorePolicy; p != nil {
		cfg.InstanceStorePolicy = userdata.InstanceStorePolicy(*p)
	}
	if nc.Spec.UserData != nil {
		cfg.CustomUserData = []byte(*nc.Spec.UserData)
	}
	return family, cfg, nil
}

// LaunchLabels are the node labels Karpenter writes into userData for a
// NodeClaim's labels: karpenter.sh/capacity-type set to capacityType
// (launchtemplate.go:149-152), karpenter.sh/do-not-sync-taints "true" for
// every family but Custom (launchtemplate.go:560-570,
// InjectDoNotSyncTaintsLabel), then every label in the kubernetes.io or
// k8s.io domains or their subdomains dropped, as the node-restriction
// admission plugin would refuse them (resolver.go:356-381,
// RejectForbiddenLabels). The kubelet sets its own (arch, os, instance
// type, zone) itself.
func LaunchLabels(family compat.AMIFamily, labels map[string]string, capacityType string) map[string]string {
	out := make(map[string]string, len(labels)+2)
	for k, v := range labels {
		if !restrictedLabel(k) {
			out[k] = v
		}
	}
	if capacityType != "" {
		out[karpv1.CapacityTypeLabelKey] = capacityType
	}
	if family != compat.Custom {
		out[karpv1.NodeDoNotSyncTaintsLabelKey] = "true"
	}
	return out
}

// restrictedLabel is Karpenter's isRestrictedLabel: the key's domain (the
// part before "/") is kubernetes.io or k8s.io or ends in "." and one of
// them (node-restriction.kubernetes.io included).
func restrictedLabel(key string) bool {
	domain, _, found := strings.Cut(key, "/")
	if !found {
		return false
	}
	for _, d := range []string{"kubernetes.io", "k8s.io"} {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
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

// UserData is a launch template's userData in the shape Karpenter's
// launch-template provider takes it: amifamily.LaunchTemplate.UserData is
// a bootstrap.Bootstrapper, whose Script returns the base64 userData
// (pkg/providers/amifamily/bootstrap/bootstrap.go:114-120,
// karpenter-provider-aws v1.14.1), and UserData has that method, so a
// fork puts it where the families' UserData methods put bootstrap.EKS,
// Nodeadm, Bottlerocket, Windows or Custom.
//
// launchtemplate.LaunchTemplateName names a template by a hashstructure
// hash of the LaunchTemplate, userData included, and reuses a template
// of the same name (launchtemplate.go:209-211). UserData holds the
// rendered text in an exported field, which is what that hash reads
// (hashstructure skips unexported fields): templates whose userData
// differs get different names, and templates whose userData is the same
// share one, as bootstrap.Options gives them in Karpenter (a Custom
// family's userData, for one, does not change with maxPods).
//
// Render runs when the UserData is made and a refusal is kept: Script
// returns it, when the launch-template provider asks for the userData,
// which is when Karpenter's own bootstrappers fail.
type UserData struct {
	// Text is the userData as userdata.Render wrote it. It is a string:
	// LaunchTemplateName hashes with SlicesAsSets, which would read a
	// []byte as an unordered set of bytes, and texts with the same bytes
	// in another order would share a name.
	Text string
	// Report is Render's report on Text (userdata.RenderWithReport): a
	// Custom family's Unresolved reason, for one, to log.
	Report userdata.Report `hash:"ignore"`
	err    error
}

// NewUserData renders cfg for family. A refusal, Render's or the
// caller's, is what Script returns.
func NewUserData(family compat.AMIFamily, cfg userdata.Config) UserData {
	text, report, err := userdata.RenderWithReport(family, cfg)
	if err != nil {
		return UserData{err: fmt.Errorf("karpenter: userData: %w", err)}
	}
	return UserData{Text: string(text), Report: report}
}

// Script returns the userData in standard base64, as EC2's launch
// template data takes it, or the reason it could not be made.
func (u UserData) Script(context.Context) (string, error) {
	if u.err != nil {
		return "", u.err
	}
	return base64.StdEncoding.EncodeToString([]byte(u.Text)), nil
}

// ResolverUserData is the UserData of one of the resolver's launch
// templates (DefaultResolver.resolveLaunchTemplates, resolver.go:260-300),
// from what that function has: the EC2NodeClass, the NodeClaim, the
// capacity type, the image ID, its maxPods and instance types
// ([ResolverGroup]), and the cluster the launch-template provider knows.
// It is [UserDataConfig] for that group, rendered ([NewUserData]); as
// there, an error of those functions is what Script returns, so the
// resolver keeps Karpenter's signature and timing.
func ResolverUserData(nc *v1.EC2NodeClass, claim *karpv1.NodeClaim, capacityType string, cluster Cluster, imageID string, maxPods int, types []*cloudprovider.InstanceType) UserData {
	group, err := ResolverGroup(nc, imageID, maxPods, types)
	if err != nil {
		return UserData{err: err}
	}
	family, cfg, err := UserDataConfig(nc, claim, capacityType, cluster, group)
	if err != nil {
		return UserData{err: err}
	}
	return NewUserData(family, cfg)
}
