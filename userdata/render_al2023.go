package userdata

import (
	"fmt"

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
	config := p.cfg.Kubelet.configFields()
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
	parts = append(parts, append([]byte("Content-Type: "+nodeadm.MediaType+"\n\n"), doc...))
	return mimedoc.Write(parts)
}
