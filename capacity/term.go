package capacity

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Term is one figure of an estimate: an amount of a resource the node has
// or sets aside, where it comes from, how it follows, and the source text
// that says so.
type Term struct {
	Resource Resource
	Kind     Kind
	// Amount is in the resource's unit (see [Quantities]).
	Amount int64
	Source Source
	// Rule says how the amount follows, with its inputs: "11 × 29 + 255
	// MiB, from max pods 29".
	Rule string
	// Citation names the text that decides it: repository, commit, file
	// and lines, or a document.
	Citation string
	// Unset marks a term that explains why nothing is set: a reservation
	// a kubelet flag replaced, a threshold the kubelet ignores. Its Amount
	// is 0, and [Estimate.Amount] does not count it as set.
	Unset bool `json:",omitempty"`
}

// String returns "memory kube-reserved 574Mi: 11 × 29 + 255 MiB … [family
// rule; awslabs/amazon-eks-ami …]".
func (t Term) String() string {
	var b strings.Builder
	b.WriteString(t.Resource.String())
	b.WriteByte(' ')
	b.WriteString(t.Kind.String())
	b.WriteByte(' ')
	b.WriteString(FormatQuantity(t.Resource, t.Amount))
	if t.Rule != "" {
		b.WriteString(": ")
		b.WriteString(t.Rule)
	}
	b.WriteString(" [")
	b.WriteString(t.Source.String())
	if t.Citation != "" {
		b.WriteString("; ")
		b.WriteString(t.Citation)
	}
	b.WriteByte(']')
	return b.String()
}

// Kind is what a term is to the node: its capacity, or one of the amounts
// the kubelet takes from capacity to get allocatable.
type Kind uint8

// The kinds of term. Allocatable = Capacity − KubeReserved −
// SystemReserved − EvictionHard − Limit, per resource, and never below 0
// (kubernetes pkg/kubelet/nodestatus/setters.go, MachineInfo).
const (
	KindCapacity       Kind = iota // what the node reports
	KindKubeReserved               // kubeReserved
	KindSystemReserved             // systemReserved
	KindEvictionHard               // the hard eviction threshold, resolved against capacity
	// Limit is a cap the scheduler applies beside the kubelet's figure:
	// on Windows, one vpc.amazonaws.com/PrivateIPv4Address per pod.
	KindLimit
)

var kindNames = [...]string{
	KindCapacity:       "capacity",
	KindKubeReserved:   "kube-reserved",
	KindSystemReserved: "system-reserved",
	KindEvictionHard:   "eviction-hard",
	KindLimit:          "limit",
}

// String returns the kind's name as the kubelet configuration spells it.
func (k Kind) String() string { return enumString(kindNames[:], int(k), "Kind") }

// MarshalText returns the kind's name.
func (k Kind) MarshalText() ([]byte, error) { return enumText(kindNames[:], int(k), "Kind") }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(text []byte) error {
	i, err := enumParse(kindNames[:], text, "Kind")
	*k = Kind(i)
	return err
}

// Source is where a term's amount comes from.
type Source uint8

// The sources of a term.
const (
	// Published is a figure EC2 publishes for the instance type
	// (DescribeInstanceTypes), or AWS's snapshot of it.
	SourcePublished Source = iota
	// Learned is what nodes of the type under the AMI reported, from a
	// [Cache].
	SourceLearned
	// Launch is a launch setting the caller gave ([Launch]): the root
	// volume size or the instance-store policy.
	SourceLaunch
	// FamilyRule is what the AMI family's boot software writes when the
	// kubelet configuration leaves the field unset.
	SourceFamily
	// UserConfig is the user's kubelet configuration ([Launch.Kubelet]).
	SourceUser
	// KubeletDefault is the kubelet's own default, which applies when
	// neither the family nor the user sets the field.
	SourceKubeletDefault
	// Heuristic is a model, not a rule any software applies: the memory
	// the kernel and hypervisor keep before the first node reports it.
	SourceHeuristic
	// Karpenter is karpenter-provider-aws's prediction ([Estimator.Karpenter]).
	SourceKarpenter
	// Fallback is [EstimateOptions.FallbackMaxPods], standing in for a
	// figure the estimate cannot know.
	SourceFallback
	// Given is a capacity the caller gave ([Estimator.EstimateGiven]).
	SourceGiven
)

var sourceNames = [...]string{
	SourcePublished:      "published",
	SourceLearned:        "learned",
	SourceLaunch:         "launch",
	SourceFamily:         "family rule",
	SourceUser:           "user kubelet config",
	SourceKubeletDefault: "kubelet default",
	SourceHeuristic:      "heuristic",
	SourceKarpenter:      "karpenter",
	SourceFallback:       "fallback",
	SourceGiven:          "given",
}

// String returns the source's name.
func (s Source) String() string { return enumString(sourceNames[:], int(s), "Source") }

// MarshalText returns the source's name.
func (s Source) MarshalText() ([]byte, error) { return enumText(sourceNames[:], int(s), "Source") }

// UnmarshalText reads a source's name.
func (s *Source) UnmarshalText(text []byte) error {
	i, err := enumParse(sourceNames[:], text, "Source")
	*s = Source(i)
	return err
}

// enumString, enumText and enumParse read an enum's names from its table.
func enumString(names []string, i int, typ string) string {
	if i < len(names) && names[i] != "" {
		return names[i]
	}
	return typ + "(" + strconv.Itoa(i) + ")"
}

func enumText(names []string, i int, typ string) ([]byte, error) {
	if i < len(names) && names[i] != "" {
		return []byte(names[i]), nil
	}
	return nil, fmt.Errorf("capacity: %s(%d) has no name", typ, i)
}

func enumParse(names []string, text []byte, typ string) (int, error) {
	if i := slices.Index(names, string(text)); i >= 0 && len(text) > 0 {
		return i, nil
	}
	return 0, fmt.Errorf("capacity: %q is not a %s; use one of %s", text, typ, strings.Join(slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == "" }), ", "))
}
