package userdata

import (
	"fmt"
	"mime"
	"slices"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
)

// renderAL2023 writes a MIME multipart document: the custom parts, then a
// NodeConfig with the taints in kubelet.config.registerWithTaints and the
// labels as the only kubelet flag.
func (p *plan) renderAL2023() ([]byte, error) {
	nc := nodeadm.New(nodeadm.Cluster{
		Name:                 p.cfg.ClusterName,
		APIServerEndpoint:    p.cfg.APIServerEndpoint,
		CertificateAuthority: p.cfg.CABundle,
		CIDR:                 p.cfg.ClusterCIDR,
	})
	if p.cfg.InstanceStorePolicy == RAID0 {
		nc.Spec.Instance = &nodeadm.Instance{}
		nc.Spec.Instance.LocalStorage.Strategy = string(RAID0)
	}
	// registerWithTaints is written even when empty: nodeadm merges a
	// later document's explicit empty list over an earlier one, so this
	// replaces whatever a custom NodeConfig lists.
	taints := make([]nodeadm.Taint, len(p.taints))
	for i, t := range p.taints {
		taints[i] = nodeadm.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)}
	}
	config := kubeletConfigFields(&p.cfg.Kubelet)
	config["registerWithTaints"] = taints
	if len(config) > 0 {
		nc.Spec.Kubelet.Config = config
	}
	if len(p.labelKeys) > 0 {
		nc.Spec.Kubelet.Flags = []string{"--node-labels=" + p.nodeLabels()}
	}
	doc, err := nc.Encode()
	if err != nil {
		return nil, fmt.Errorf("userdata: encoding the NodeConfig: %v", err)
	}
	parts, err := p.cloudInitCustomParts(compat.AL2023)
	if err != nil {
		return nil, err
	}
	custom := len(parts)
	parts = append(parts, append([]byte("Content-Type: "+nodeadm.MediaType+"\n\n"), doc...))
	out, err := mimedoc.Write(parts)
	if err != nil {
		return nil, err
	}
	if err := p.checkMergedNodeConfig(parts[:custom], out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkMergedNodeConfig checks what the kubelet gets when a custom part
// is a NodeConfig, which nodeadm merges with Render's: the merge can hand
// the kubelet a configuration it refuses (a custom
// imageGCHighThresholdPercent of 80 with the low bound left at the
// kubelet's default 80) or a feature gate its release does not have
// ([plan.checkMergedKubelet]). Without one, Config.Kubelet is all the
// kubelet gets, and must pass on its own the check checkKubelet deferred.
func (p *plan) checkMergedNodeConfig(custom [][]byte, out []byte) error {
	if !slices.ContainsFunc(custom, isNodeConfigPart) {
		_, err := validateKubelet(p.cfg.Kubelet)
		return err
	}
	_, err := p.checkMergedKubelet(compat.AL2023, out)
	return err
}

// isNodeConfigPart reports whether a MIME part is a NodeConfig part.
func isNodeConfigPart(part []byte) bool {
	h, _, _, err := mimedoc.SplitHeader(part, 1)
	if err != nil {
		return false
	}
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == nodeadm.MediaType
}
