package capacity

import (
	"fmt"
	"strings"
)

// Unknown is one figure an estimate cannot know: which figure, why (a
// [Reason]), the input it is about, and how to make it known. An
// estimate computes every other figure as usual and counts an unknown
// amount as 0; [Estimate.Err] is the one test of whether it has any.
type Unknown struct {
	// Resource and Kind say which figure: the pods capacity, or the
	// kube-reserved memory the family computes from its max pods.
	Resource Resource
	Kind     Kind
	Reason   Reason
	// Input is what it is about: an instance type's name, or a Launch
	// field (`Launch.Kubelet.KubeReserved["memory"]`).
	Input string
	// Detail says what could not be known, with the rule that needs it.
	Detail string
	// Fix says what would make it known.
	Fix string
}

// Error returns "capacity: m9z.large pods capacity unknown (no-interface-facts): …; fix: …".
func (u Unknown) Error() string {
	return fmt.Sprintf("capacity: %s %s %s unknown (%s): %s; fix: %s", u.Input, u.Resource, u.Kind, u.Reason, u.Detail, u.Fix)
}

// Reason is why a figure is unknown. It marshals as its text.
type Reason uint8

// The reasons a figure can be unknown.
const (
	// ReasonNoInterfaceFacts: the type's network interfaces and addresses
	// per interface are known neither from the type
	// ([compat.InstanceType].Network) nor from nodeadm's snapshot of
	// DescribeInstanceTypes, and the rule needs them.
	ReasonNoInterfaceFacts Reason = iota + 1
	// ReasonAmbiguousTable: AL2's bootstrap.sh matches the type's name,
	// as a pattern, against several lines of its max-pods table and fails.
	ReasonAmbiguousTable
	// ReasonExpression: a Karpenter NodeClassCEL expression fails, or
	// gives a negative or oversized amount, for the type.
	ReasonExpression
)

var reasonNames = [...]string{
	ReasonNoInterfaceFacts: "no-interface-facts",
	ReasonAmbiguousTable:   "ambiguous-table",
	ReasonExpression:       "expression",
}

// String returns the reason's name: "no-interface-facts",
// "ambiguous-table" or "expression".
func (r Reason) String() string { return enumString(reasonNames[:], int(r), "Reason") }

// MarshalText returns the reason's name.
func (r Reason) MarshalText() ([]byte, error) { return enumText(reasonNames[:], int(r), "Reason") }

// UnmarshalText reads a reason's name.
func (r *Reason) UnmarshalText(text []byte) error {
	i, err := enumParse(reasonNames[:], text, "Reason")
	*r = Reason(i)
	return err
}

// UnknownError is an estimate's unknown figures as one error, for
// callers that treat any unknown as a failure ([Estimate.Err]).
type UnknownError struct {
	InstanceType string
	Unknowns     []Unknown
}

func (e *UnknownError) Error() string {
	parts := make([]string, len(e.Unknowns))
	for i, u := range e.Unknowns {
		parts[i] = strings.TrimPrefix(u.Error(), "capacity: ")
	}
	return "capacity: cannot estimate " + e.InstanceType + ": " + strings.Join(parts, "; ")
}

// Unwrap returns each unknown, so that errors.As finds an [Unknown].
func (e *UnknownError) Unwrap() []error {
	out := make([]error, len(e.Unknowns))
	for i, u := range e.Unknowns {
		out[i] = u
	}
	return out
}

// InputError is a setting [NewEstimator] or [Estimator.EstimateGiven]
// refuses: the field, what is wrong with it, and the fix; or, when Err is
// set, the error the field's own validation gave (nodeclass.Kubelet's, a
// quantity's, a NodeClassCEL expression's), which errors.As also finds.
type InputError struct {
	// Field is the setting, as a Go selector: "Launch.Kubelet.MaxPods",
	// `Launch.Kubelet.KubeReserved["memory"]`, "Given.CPU".
	Field  string
	Reason string
	Fix    string
	Err    error
}

func (e *InputError) Error() string {
	if e.Err != nil {
		msg := "capacity: " + e.Field + ": " + e.Err.Error()
		if e.Fix != "" {
			msg += " (" + e.Fix + ")"
		}
		return msg
	}
	return "capacity: " + e.Field + " " + e.Reason + "; " + e.Fix
}

// Unwrap returns the field's own validation error, if any.
func (e *InputError) Unwrap() error { return e.Err }
