package karpenter

import (
	"fmt"

	"github.com/ec2select/ec2select/compat"
	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// RequirementsFromKarpenter compiles a NodePool's or NodeClaim's
// requirements, minValues included. A requirement compat rejects (an
// unknown operator, Gt with two values, minValues outside 1..50) is an
// error naming its index in the list.
func RequirementsFromKarpenter(rs []karpv1.NodeSelectorRequirementWithMinValues) (compat.Requirements, error) {
	out := make([]compat.Requirement, 0, len(rs))
	for i, r := range rs {
		req := compat.Requirement{Key: r.Key, Operator: compat.Operator(r.Operator), Values: r.Values}
		if r.MinValues != nil {
			if *r.MinValues < 1 || *r.MinValues > 50 {
				return compat.Requirements{}, fmt.Errorf("karpenter: requirement %d (%s): minValues %d is outside 1..50; set it between 1 and 50 or drop it", i, r.Key, *r.MinValues)
			}
			req.MinValues = *r.MinValues
		}
		out = append(out, req)
	}
	return compile(out)
}

// RequirementsFromNodeSelector compiles plain Kubernetes node-selector
// requirements (a pod's node affinity term, for instance).
func RequirementsFromNodeSelector(rs []corev1.NodeSelectorRequirement) (compat.Requirements, error) {
	out := make([]compat.Requirement, 0, len(rs))
	for _, r := range rs {
		out = append(out, compat.Requirement{Key: r.Key, Operator: compat.Operator(r.Operator), Values: r.Values})
	}
	return compile(out)
}

func compile(rs []compat.Requirement) (compat.Requirements, error) {
	reqs, err := compat.NewRequirements(rs...)
	if err != nil {
		return compat.Requirements{}, fmt.Errorf("karpenter: requirements: %w", err)
	}
	return reqs, nil
}

// RequirementsToKarpenter lists a compiled set in Karpenter's form, one
// requirement per key (compat keeps one constraint per key, so an input with
// a key twice comes back intersected). Keys are sorted; MinValues zero
// becomes a nil minValues.
func RequirementsToKarpenter(reqs compat.Requirements) []karpv1.NodeSelectorRequirementWithMinValues {
	list := reqs.List()
	out := make([]karpv1.NodeSelectorRequirementWithMinValues, 0, len(list))
	for _, r := range list {
		k := karpv1.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: corev1.NodeSelectorOperator(r.Operator), Values: r.Values}
		if r.MinValues > 0 {
			k.MinValues = &r.MinValues
		}
		out = append(out, k)
	}
	return out
}
