package karpenter

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ec2select/ec2select/weighting"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// NodePoolFromKarpenter converts a NodePool through its JSON form, which
// is the karpenter.sh/v1 document weighting decodes: every spec field is
// kept (the ones weighting does not interpret in Unknown) and status is
// dropped. apiVersion and kind are filled in when the Go value leaves
// them empty, as values built in code (not read from the API server)
// usually do. A NodePool weighting refuses (see weighting.NodePool.Validate)
// is an error naming it.
func NodePoolFromKarpenter(np *karpv1.NodePool) (weighting.NodePool, error) {
	c := np.DeepCopy()
	if c.APIVersion == "" {
		c.APIVersion = weighting.APIVersion
	}
	if c.Kind == "" {
		c.Kind = weighting.Kind
	}
	data, err := json.Marshal(c)
	if err != nil {
		return weighting.NodePool{}, fmt.Errorf("karpenter: NodePool %s: %w", np.Name, err)
	}
	// A NodePool as the API server holds it (resourceVersion and uid
	// kept), not a manifest to apply, which DecodeNodePool reads.
	var out weighting.NodePool
	if err := json.Unmarshal(data, &out); err != nil {
		return weighting.NodePool{}, fmt.Errorf("karpenter: NodePool %s: %w", np.Name, err)
	}
	return out, nil
}

// NodePoolToKarpenter converts back, through the same JSON form. It fails
// only when np does not validate, or when it holds an Unknown field
// Karpenter's Go type has no place for (a newer Karpenter's field).
func NodePoolToKarpenter(np weighting.NodePool) (*karpv1.NodePool, error) {
	data, err := json.Marshal(np)
	if err != nil {
		return nil, fmt.Errorf("karpenter: NodePool %s: %w", np.Name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	out := &karpv1.NodePool{}
	if err := dec.Decode(out); err != nil {
		return nil, fmt.Errorf("karpenter: NodePool %s: Karpenter v1.14's NodePool cannot hold it: %w", np.Name, err)
	}
	return out, nil
}
