package userdata

import "github.com/ec2select/ec2select/userdata/nodeclass"

// MaxSize is EC2's limit on userData: 16 KB of raw data, before the base64
// encoding the API requires.
const MaxSize = 16384

// Config is what [Render] writes into userData. Its zero value is not
// renderable: every family but [Custom] needs ClusterName, APIServerEndpoint
// and CABundle, and AL2023 also needs ClusterCIDR. Every other field's zero
// value means "not set".
//
// [Render] validates every field before writing anything; see its
// documentation for the rules.
type Config struct {
	// ClusterName is the EKS cluster name: 1 to 100 letters, digits, '-'
	// and '_', starting with a letter or digit.
	ClusterName string
	// APIServerEndpoint is the cluster's API server URL, https://host[:port].
	APIServerEndpoint string
	// CABundle is the cluster's certificate authority data as EKS returns
	// it: the standard base64 encoding, without line breaks, of PEM
	// certificates.
	CABundle string
	// ClusterCIDR is the cluster's service CIDR, e.g. 10.100.0.0/16.
	// Required for AL2023 (nodeadm refuses a NodeConfig without it); AL2
	// passes an IPv6 CIDR as --service-ipv6-cidr; the other families do not
	// use it.
	ClusterCIDR string
	// Kubelet is the kubelet configuration, EC2NodeClass spec.kubelet; its
	// zero value leaves every family's defaults.
	Kubelet KubeletConfig
	// InstanceStorePolicy is EC2NodeClass spec.instanceStorePolicy: empty
	// leaves instance-store disks alone; [RAID0] makes one array of them for
	// the kubelet and containerd. Windows has no such option.
	InstanceStorePolicy InstanceStorePolicy
	// KubernetesVersion is the cluster's Kubernetes minor version, as
	// amiselect takes it ("1.32"); "" when unknown. Render judges what a
	// custom NodeConfig hands the kubelet (its feature gates) for the
	// kubelet of that version, as [Lint] does with [KubernetesVersion].
	KubernetesVersion string
	// AMIRelease is the release of the AMI the node boots (amiselect's
	// AMI.Release, e.g. "v1.46.0" for Bottlerocket). Only Bottlerocket's
	// RAID0 uses it: from 1.46.0 its ephemeral-storage bind command knows
	// the directories to bind; before, or when the release is unknown, they
	// are named.
	AMIRelease string

	// Taints are the NodePool's taints; StartupTaints its startup taints.
	Taints, StartupTaints []Taint
	// RequiredTaints are the taints the controller requires on every new
	// node. They are matched by key and effect only, as Karpenter's
	// MatchTaint does: a required taint already present in Taints or
	// StartupTaints with the same key and effect is not added again. Empty
	// (nil or not) means [UnregisteredTaint], Karpenter v1's. Forks and
	// older controllers set e.g. karpenter.sh/uninitialized:NoExecute.
	RequiredTaints []Taint
	// NoRequiredTaints says the controller requires no taint at all; it
	// is the only way to render without one, and RequiredTaints must then
	// be empty. See [Config.Required].
	NoRequiredTaints bool
	// Labels are the node labels the kubelet registers; see
	// [ValidateLabels] for the rules.
	Labels map[string]string

	// CustomUserData is the user's own userData, merged per family (see the
	// package documentation). For [Custom] it is the whole userData.
	CustomUserData []byte
	// AllowUnresolved accepts CustomUserData (for [Custom], AL2 and
	// AL2023) whose effect [Lint] cannot follow, so that the userData
	// [Render] writes is [Unresolved]: a command substitution or eval, a
	// script in another language, an edit of the join's files Lint does
	// not model. Such userData may start the kubelet without the taints;
	// the caller takes that risk. It never accepts userData Lint is certain
	// about: a node that never joins, a taint certainly not registered, a
	// second join. Use [RenderWithReport] to get Lint's report, whose
	// Reason, Line and Part say what could not be followed, and log or
	// surface it. The zero value is the strict default: refuse.
	AllowUnresolved bool
}

// InstanceStorePolicy is what to do with a node's instance-store (NVMe)
// disks, EC2NodeClass spec.instanceStorePolicy: nodeclass.InstanceStorePolicy.
type InstanceStorePolicy = nodeclass.InstanceStorePolicy

// RAID0 makes one RAID-0 array of every instance-store disk and puts the
// kubelet's and containerd's state on it.
const RAID0 = nodeclass.RAID0

// Required returns the taints cfg requires on every new node: its
// RequiredTaints, or [UnregisteredTaint] when they are empty, or none when
// NoRequiredTaints is set. Pass it to [Lint] to check userData against the
// same requirement [Render] applies.
func (cfg Config) Required() []Taint {
	switch {
	case cfg.NoRequiredTaints:
		return nil
	case len(cfg.RequiredTaints) == 0:
		return []Taint{UnregisteredTaint()}
	}
	return cfg.RequiredTaints
}
