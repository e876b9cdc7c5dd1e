package karpenter

import (
	"fmt"

	"github.com/ec2select/ec2select/userdata"
	corev1 "k8s.io/api/core/v1"
)

// TaintsFromKarpenter converts a NodePool's taints or startupTaints. A
// taint the kubelet would refuse (no key, an unknown effect) is an error
// naming its index; TimeAdded, which only the API server sets on pod
// evictions, is dropped.
func TaintsFromKarpenter(taints []corev1.Taint) ([]userdata.Taint, error) {
	if taints == nil {
		return nil, nil
	}
	out := make([]userdata.Taint, 0, len(taints))
	for i, t := range taints {
		u := userdata.Taint{Key: t.Key, Value: t.Value, Effect: userdata.Effect(t.Effect)}
		if err := u.Validate(); err != nil {
			return nil, fmt.Errorf("karpenter: taint %d (%s): %w", i, t.ToString(), err)
		}
		out = append(out, u)
	}
	return out, nil
}
