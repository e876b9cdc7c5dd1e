package userdata

import (
	"fmt"
	"slices"
)

// Verdict is Lint's conclusion about whether the node joins the cluster.
// The zero value is [Unresolved]: an analysis that did not finish must not
// read as a certainty.
type Verdict uint8

// The three verdicts.
const (
	// Unresolved: something the analysis cannot follow (a construct only
	// known at boot, behaviour that differs between versions of the boot
	// software) decides whether and how the node joins. [Report.Reason],
	// [Report.Line] and [Report.Part] name it.
	Unresolved Verdict = iota
	// Joins: certain that the kubelet starts and registers the node, with
	// exactly [Report.Taints].
	Joins
	// NeverJoins: certain that the node never registers (nothing calls the
	// join, the boot script or the kubelet exits, or the API server refuses
	// the Node). [Report.Reason], [Report.Line] and [Report.Part] say why.
	NeverJoins
)

func (v Verdict) String() string {
	switch v {
	case Unresolved:
		return "unresolved"
	case Joins:
		return "joins"
	case NeverJoins:
		return "never-joins"
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

// TaintSource says where a registered taint comes from.
type TaintSource uint8

// The sources of a registered taint.
const (
	// SourceUser: written in the userData.
	SourceUser TaintSource = iota + 1
	// SourceRequired: written in the userData and matching (key and
	// effect) one of the taints required by the caller of [Lint].
	SourceRequired
	// SourceKubelet: added by the kubelet itself. With
	// --cloud-provider=external (set by bootstrap.sh, nodeadm and
	// Bottlerocket's aws-k8s variants) the kubelet registers
	// [CloudProviderTaint] until the cloud controller initializes the node
	// (kubernetes pkg/kubelet/kubelet_node_status.go, initialNode).
	SourceKubelet
)

func (s TaintSource) String() string {
	switch s {
	case SourceUser:
		return "user"
	case SourceRequired:
		return "required"
	case SourceKubelet:
		return "kubelet"
	}
	return fmt.Sprintf("TaintSource(%d)", uint8(s))
}

// RegisteredTaint is a taint the kubelet registers, with its source.
type RegisteredTaint struct {
	Taint
	Source TaintSource
}

// CloudProviderTaint returns
// node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule, the
// taint the kubelet adds itself when it runs with --cloud-provider=external
// (kubernetes pkg/kubelet/kubelet_node_status.go, initialNode; the key is
// k8s.io/cloud-provider api.TaintExternalCloudProvider). A user taint with
// the same key and effect duplicates it, and the API server refuses the
// Node (pkg/apis/core/validation, ValidateNode: taints unique by key and
// effect).
func CloudProviderTaint() Taint {
	return Taint{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: NoSchedule}
}

// registered lists what the kubelet registers: the configured taints,
// each marked user or required, then the kubelet's own, sorted by key,
// effect and value.
func registered(configured, kubelet, required []Taint) []RegisteredTaint {
	out := make([]RegisteredTaint, 0, len(configured)+len(kubelet))
	for _, t := range configured {
		src := SourceUser
		if containsMatch(required, t) {
			src = SourceRequired
		}
		out = append(out, RegisteredTaint{Taint: t, Source: src})
	}
	for _, t := range kubelet {
		out = append(out, RegisteredTaint{Taint: t, Source: SourceKubelet})
	}
	sortRegistered(out)
	return out
}

func sortRegistered(ts []RegisteredTaint) {
	slices.SortFunc(ts, func(a, b RegisteredTaint) int { return compareTaints(a.Taint, b.Taint) })
}
