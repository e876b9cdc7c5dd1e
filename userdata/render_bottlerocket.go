package userdata

import (
	"bytes"
	"fmt"

	"github.com/ec2select/ec2select/userdata/internal/bottlerocket"
	"github.com/pelletier/go-toml/v2"
)

// renderBottlerocket writes TOML settings: the custom settings with the
// cluster fields set, node-labels merged (Render's win), and node-taints
// replaced by the effective taints.
func (p *plan) renderBottlerocket() ([]byte, error) {
	doc := map[string]any{}
	if len(bytes.TrimSpace(p.custom)) > 0 {
		if err := toml.Unmarshal(p.custom, &doc); err != nil {
			return nil, fmt.Errorf("userdata: Config.CustomUserData is not valid TOML: %v; Bottlerocket user data is TOML settings", err)
		}
	}
	settings, err := subTable(doc, "settings")
	if err != nil {
		return nil, err
	}
	kube, err := subTable(settings, "kubernetes")
	if err != nil {
		return nil, err
	}
	if key := bottlerocket.UnknownSetting(settings, kube); key != "" {
		return nil, unknownSettingError(key)
	}
	if step := bottlerocket.BootSteps(settings); step != "" {
		return nil, fmt.Errorf("userdata: Config.CustomUserData sets %s, which runs before the kubelet and may change its settings (apiclient set); Render cannot tell that it leaves the taints alone, so remove it or set its mode to \"off\"", step)
	}
	kube["cluster-name"] = p.cfg.ClusterName
	kube["api-server"] = p.cfg.APIServerEndpoint
	kube["cluster-certificate"] = p.cfg.CABundle
	for k, v := range p.cfg.Kubelet.bottlerocketSettings() {
		kube[k] = v
	}
	if p.cfg.InstanceStorePolicy == RAID0 {
		if err := p.bottlerocketRAID0(settings); err != nil {
			return nil, err
		}
	}
	if err := p.mergeBottlerocketLabels(kube); err != nil {
		return nil, err
	}
	delete(kube, "node-taints")
	if len(p.taints) > 0 {
		taints := map[string]any{}
		for _, t := range p.taints {
			list, _ := taints[t.Key].([]string)
			taints[t.Key] = append(list, bottlerocket.TaintEntry(t.Value, string(t.Effect)))
		}
		kube["node-taints"] = taints
	}
	out, err := toml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("userdata: encoding the Bottlerocket settings: %v", err)
	}
	return out, nil
}

// bottlerocketRAID0 adds the bootstrap command that Karpenter v1.14.1 adds
// for RAID0 ([bottlerocket.RAID0Command]).
func (p *plan) bottlerocketRAID0(settings map[string]any) error {
	cmds, err := subTable(settings, "bootstrap-commands")
	if err != nil {
		return err
	}
	cmds[bottlerocket.RAID0CommandName] = bottlerocket.RAID0Command(p.cfg.AMIRelease)
	return nil
}

// mergeBottlerocketLabels merges the custom node-labels with Render's, Render's
// winning, after checking each custom label as the kubelet would.
func (p *plan) mergeBottlerocketLabels(kube map[string]any) error {
	labels := map[string]any{}
	if raw, ok := kube["node-labels"]; ok {
		custom, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("userdata: Config.CustomUserData: settings.kubernetes.node-labels is not a table; write [settings.kubernetes.node-labels] with 'key' = 'value'")
		}
		for _, k := range sortedKeys(custom) {
			v, ok := custom[k].(string)
			if !ok {
				return fmt.Errorf("userdata: Config.CustomUserData: node-labels %q is not a string; quote it", k)
			}
			if err := checkLabel(k, v); err != nil {
				return fmt.Errorf("userdata: Config.CustomUserData: node-labels: %v", err)
			}
			labels[k] = v
		}
	}
	for k, v := range p.cfg.Labels {
		labels[k] = v
	}
	delete(kube, "node-labels")
	if len(labels) > 0 {
		kube["node-labels"] = labels
	}
	return nil
}

func unknownSettingError(key string) error {
	return fmt.Errorf("userdata: Config.CustomUserData sets %s, which the Bottlerocket aws-k8s settings model does not have; its settings API refuses unknown keys (the model denies unknown fields), so remove it or check its spelling", key)
}

// subTable returns parent[key] as a table, creating it when absent.
func subTable(parent map[string]any, key string) (map[string]any, error) {
	raw, ok := parent[key]
	if !ok {
		t := map[string]any{}
		parent[key] = t
		return t, nil
	}
	t, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("userdata: Config.CustomUserData: %q is not a table; Bottlerocket settings live under [settings.kubernetes] and similar tables", key)
	}
	return t, nil
}
