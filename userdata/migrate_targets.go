package userdata

import (
	"maps"
	"slices"

	"github.com/pelletier/go-toml/v2"
	"sigs.k8s.io/yaml"

	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
)

// al2023Custom writes what the AL2 userData keeps on AL2023 as custom
// userData for Render: its kept parts, then a NodeConfig with the kubelet
// flags and config keys no Config field holds (nodeadm appends
// spec.kubelet.flags to the kubelet's arguments and merges
// spec.kubelet.config into its config file; Render's own NodeConfig comes
// after it and wins on the fields it sets). nil when nothing is kept.
func al2023Custom(n *al2Node) ([]byte, error) {
	parts := slices.Clone(n.parts)
	if len(n.flags) > 0 || len(n.config) > 0 {
		kubeletSpec := map[string]any{}
		if len(n.flags) > 0 {
			kubeletSpec["flags"] = n.flags
		}
		if len(n.config) > 0 {
			kubeletSpec["config"] = maps.Clone(n.config)
		}
		doc, err := yaml.Marshal(map[string]any{"apiVersion": nodeadm.APIVersion, "kind": "NodeConfig", "spec": map[string]any{"kubelet": kubeletSpec}})
		if err != nil {
			return nil, err
		}
		parts = append(parts, append([]byte("Content-Type: "+nodeadm.MediaType+"\n\n"), doc...))
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return mimedoc.Write(parts)
}

// bottlerocketCustom writes what the AL2 userData keeps on Bottlerocket
// as custom settings for Render: the kubelet settings no Config field
// holds there, and kernel parameters. nil when there are none.
func bottlerocketCustom(n *al2Node) ([]byte, error) {
	settings := map[string]any{}
	if len(n.config) > 0 {
		settings["kubernetes"] = maps.Clone(n.config)
	}
	if len(n.sysctls) > 0 {
		settings["kernel"] = map[string]any{"sysctl": maps.Clone(n.sysctls)}
	}
	if len(settings) == 0 {
		return nil, nil
	}
	return toml.Marshal(map[string]any{"settings": settings})
}
