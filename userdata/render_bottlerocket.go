package userdata

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

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
	if err := p.checkBottlerocketSettings(settings, kube); err != nil {
		return nil, err
	}
	kube["cluster-name"] = p.cfg.ClusterName
	kube["api-server"] = p.cfg.APIServerEndpoint
	kube["cluster-certificate"] = p.cfg.CABundle
	for k, v := range bottlerocketKubeletSettings(&p.cfg.Kubelet) {
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
		for _, k := range slices.Sorted(maps.Keys(custom)) {
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

// checkBottlerocketSettings refuses custom settings that Bottlerocket's
// settings API refuses, that the AMI's release lacks, or that can change
// what the kubelet registers; it accepts every other setting of the model,
// and those it cannot establish ([bottlerocket.Unsettled]) or only some
// variants have.
func (p *plan) checkBottlerocketSettings(settings, kube map[string]any) error {
	for _, f := range bottlerocket.Check(settings) {
		if err := p.settingError(f); err != nil {
			return err
		}
	}
	for _, s := range bottlerocket.Steps(settings) {
		return stepError(s)
	}
	if on, _ := kube["standalone-mode"].(bool); on {
		return fmt.Errorf("userdata: Config.CustomUserData sets settings.kubernetes.standalone-mode = true, so the kubelet runs without the API server and the node never registers; remove it")
	}
	if _, ok := kube["kubelet-extra-config"]; ok {
		return fmt.Errorf("userdata: Config.CustomUserData sets settings.kubernetes.kubelet-extra-config, a kubelet configuration merged over the one Bottlerocket writes; how it merges with node-taints is not published, so Render cannot tell that the taints survive; use the typed settings.kubernetes settings instead")
	}
	return nil
}

// settingError is the error for one finding of the model, or nil when the
// setting is accepted.
func (p *plan) settingError(f bottlerocket.Finding) error {
	key := f.Key()
	switch f.Kind {
	case bottlerocket.Unknown:
		fix := "remove it or check its spelling"
		if f.Near != "" {
			fix = "did you mean " + f.Near + "? Otherwise remove it"
		}
		return fmt.Errorf("userdata: Config.CustomUserData sets %s, which Bottlerocket's settings model (%s) does not have; the settings API refuses unknown keys, so the node would never join; %s", key, f.Detail, fix)
	case bottlerocket.BadName:
		return fmt.Errorf("userdata: Config.CustomUserData names %s, but Bottlerocket names (Identifier) are ASCII letters, digits and '-', at most 76 bytes, and the settings API refuses others; rename it", key)
	case bottlerocket.WrongShape:
		return fmt.Errorf("userdata: Config.CustomUserData: %s must be %s in Bottlerocket's settings model, and the settings API refuses anything else; write it as %s", key, f.Detail, f.Detail)
	case bottlerocket.Since:
		if ok, known := bottlerocket.AtLeast(p.cfg.AMIRelease, f.Detail); known && !ok {
			return fmt.Errorf("userdata: Config.CustomUserData sets %s, which Bottlerocket has from %s on; Config.AMIRelease %s refuses it, so remove it or use a newer AMI", key, f.Detail, p.cfg.AMIRelease)
		}
	}
	return nil
}

// stepError is the error for a bootstrap command or container that the
// settings API refuses or that can change what the kubelet registers.
func stepError(s bottlerocket.Step) error {
	key := bottlerocket.JoinKey(s.Path)
	if s.Effect == bottlerocket.Refused {
		return fmt.Errorf("userdata: Config.CustomUserData: the Bottlerocket settings API refuses %s: %s, so the node would never join; bootstrap commands are apiclient commands, as lists of words, with mode off, once or always", key, s.Why)
	}
	return fmt.Errorf("userdata: Config.CustomUserData: %s runs before the kubelet and can change what it registers (%s); Render cannot tell that the taints survive, so remove it, set its mode to \"off\", or put the kubelet settings in settings.kubernetes", key, s.Why)
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
