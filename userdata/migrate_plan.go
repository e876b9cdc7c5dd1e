package userdata

import (
	"fmt"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/internal/bottlerocket"
)

// MigrateOptions says what [Migrate] needs beyond the AL2 userData. Its
// zero value migrates a launch template's whole userData, requiring no
// taint.
type MigrateOptions struct {
	// Merged, when set, says the userData is an EC2NodeClass's
	// spec.userData: custom userData that the controller (Karpenter)
	// merges into the userData it renders from *Merged, whose
	// CustomUserData is ignored. The migrated userData is then the
	// target's spec.userData, for the same merge; the join and what the
	// controller passes it stay the controller's.
	Merged *Config
	// APIServerEndpoint, CABundle and ClusterCIDR supply what a whole AL2
	// userData may leave to bootstrap.sh, which asks EKS
	// (describe-cluster) for a missing endpoint or CA and derives the
	// cluster DNS address from the VPC: nodeadm needs all three in its
	// NodeConfig, Bottlerocket the first two. The userData's own values
	// win.
	APIServerEndpoint, CABundle, ClusterCIDR string
	// Required are the taints the controller requires, as [Lint] takes
	// them: the migrated node must register them, or Migrate refuses.
	// With Merged set they default to Merged.Required().
	Required []Taint
	// KubernetesVersion is the cluster's Kubernetes minor version
	// ("1.32"), for the kubelet release both sides are judged for; ""
	// judges every release each family ships.
	KubernetesVersion string
}

// A Move is one setting [Migrate] carried from the AL2 userData to the
// target: the AL2 construct (a bootstrap.sh option, a kubelet flag, an
// edit of bootstrap.sh or of the kubelet's files) and the target field
// that now holds it.
type Move struct {
	From string
	// Line and Part locate From in the AL2 userData (0 and "" when it is
	// not in it).
	Line int
	Part string
	To   string
}

// Unmoved is a construct of the AL2 userData that [Migrate] did not
// carry over: dropped, because it has no effect on the target (or its
// effect moved with another construct), or refused, because it cannot
// move.
type Unmoved struct {
	What string
	Line int
	Part string
	// Reason says why it is dropped or refused; Suggestion, for a refused
	// construct, what to do instead.
	Reason, Suggestion string
}

func (u Unmoved) String() string {
	s := location(u.Part, u.Line) + u.What + ": " + u.Reason
	if u.Suggestion != "" {
		s += "; " + u.Suggestion
	}
	return s
}

// Migration is what [Migrate] did.
type Migration struct {
	Target compat.AMIFamily
	// UserData is the target's userData (raw, not base64); nil when the
	// migration is refused.
	UserData []byte
	Moved    []Move
	Dropped  []Unmoved
	Refused  []Unmoved
	// Before is Lint's report on the AL2 userData, After on the migrated
	// userData (as the controller merges it, with MigrateOptions.Merged);
	// After is zero when Migrate refused before writing anything.
	Before, After Report
	// Differences says where After registers other taints, labels, max
	// pods or kubelet configuration than Before; a migration with any is
	// refused.
	Differences []string
}

// MigrateError is the error [Migrate] returns when it refuses: the
// Migration names every construct that cannot move, and every
// difference. Use [errors.As] to get it.
type MigrateError struct {
	Migration Migration
}

func (e *MigrateError) Error() string {
	var why []string
	for _, u := range e.Migration.Refused {
		why = append(why, u.String())
	}
	why = append(why, e.Migration.Differences...)
	return fmt.Sprintf("userdata: cannot migrate the AL2 userData to %v:\n  %s", e.Migration.Target, strings.Join(why, "\n  "))
}

// al2Node is what the AL2 userData does to a node, read for a target:
// the Config that renders it there, the kubelet settings Config cannot
// hold (flags, config keys), the parts to keep, and the account of what
// moved, what was dropped and what cannot move.
type al2Node struct {
	cfg Config
	// flags are kubelet flags with no Config field; config are kubelet
	// config keys (KubeletConfiguration JSON names) with no Config field.
	flags  []string
	config map[string]any
	// sysctls are kernel parameters set with sysctl -w.
	sysctls map[string]string
	// parts are the MIME parts to keep, each headers, blank line, body.
	parts   [][]byte
	moves   []Move
	dropped []Unmoved
	refused []Unmoved
}

func (n *al2Node) move(from string, line int, part, to string) {
	n.moves = append(n.moves, Move{From: from, Line: line, Part: part, To: to})
}

func (n *al2Node) drop(what string, line int, part, why string) {
	n.dropped = append(n.dropped, Unmoved{What: what, Line: line, Part: part, Reason: why})
}

func (n *al2Node) refuse(what string, line int, part, why, fix string) {
	n.refused = append(n.refused, Unmoved{What: what, Line: line, Part: part, Reason: why, Suggestion: fix})
}

// targetField names where a setting lives on each target.
type targetField struct{ al2023, bottlerocket string }

func (f targetField) on(t compat.AMIFamily) string {
	if t == compat.Bottlerocket {
		return f.bottlerocket
	}
	return f.al2023
}

// The targets' fields for the settings every migration moves.
var (
	fieldClusterName = targetField{"spec.cluster.name", "settings.kubernetes.cluster-name"}
	fieldEndpoint    = targetField{"spec.cluster.apiServerEndpoint", "settings.kubernetes.api-server"}
	fieldCA          = targetField{"spec.cluster.certificateAuthority", "settings.kubernetes.cluster-certificate"}
	fieldCIDR        = targetField{"spec.cluster.cidr", ""}
	fieldClusterDNS  = targetField{"spec.kubelet.config.clusterDNS", "settings.kubernetes.cluster-dns-ip"}
	fieldLabels      = targetField{"spec.kubelet.flags --node-labels", "settings.kubernetes.node-labels"}
	fieldTaints      = targetField{"spec.kubelet.config.registerWithTaints", "settings.kubernetes.node-taints"}
	fieldRAID0       = targetField{"spec.instance.localStorage.strategy RAID0", "settings.bootstrap-commands." + bottlerocket.RAID0CommandName}
	fieldFlags       = targetField{"spec.kubelet.flags", ""}
	fieldSysctl      = targetField{"", "settings.kernel.sysctl"}
)
