package userdata

import (
	"bytes"
	"errors"
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/bottlerocket"
	"github.com/pelletier/go-toml/v2"
)

// lintBottlerocket reads Bottlerocket's TOML settings:
// settings.kubernetes.node-taints maps a key to a list of "value:Effect"
// strings (one string is accepted too), node-labels maps keys to values.
func (l *linter) lintBottlerocket(text []byte) boot {
	var doc map[string]any
	if err := toml.Unmarshal(text, &doc); err != nil {
		line := 0
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ = de.Position()
		}
		l.add(CodeSyntax, line, "fix the TOML", "Bottlerocket cannot parse the settings TOML (%v), so the node never joins", err)
		return boot{}
	}
	settings, _ := doc["settings"].(map[string]any)
	kube, _ := settings["kubernetes"].(map[string]any)
	if step := bottlerocket.BootSteps(settings); step != "" {
		return l.unresolved(tomlLine(text, step[strings.LastIndexByte(step, '.')+1:]), "move the step's work elsewhere, or set its mode to \"off\"",
			"%s runs before the kubelet and may change its settings (apiclient set), so the linter cannot tell what the kubelet registers", step)
	}
	if key := bottlerocket.UnknownSetting(settings, kube); key != "" {
		return l.unresolved(tomlLine(text, key[strings.LastIndexByte(key, '.')+1:]), "remove "+key+" or check its spelling",
			"%s is not a setting of the Bottlerocket aws-k8s model this linter knows; the settings API refuses unknown keys, so unless the AMI's release has it the settings are refused", key)
	}
	var missing []string
	for _, k := range []string{"cluster-name", "api-server"} {
		if s, _ := kube[k].(string); s == "" {
			missing = append(missing, "settings.kubernetes."+k)
		}
	}
	if len(missing) > 0 {
		l.add(CodeIncompleteConfig, 0, "set "+strings.Join(missing, " and "),
			"the settings lack %s, so the kubelet never starts", strings.Join(missing, " and "))
		return boot{}
	}
	taintLine := tomlLine(text, "node-taints")
	taints, ok := l.bottlerocketTaints(kube, taintLine)
	if !ok {
		return boot{}
	}
	labels, ok := l.bottlerocketLabels(kube, text)
	if !ok {
		return boot{}
	}
	if !l.checkLabels(labels, tomlLine(text, "node-labels")) {
		return boot{}
	}
	vals, err := kubeletFromBottlerocket(kube, func(key string) int { return tomlLine(text, key) })
	if err != nil {
		return l.unresolved(0, "write the setting as the Bottlerocket settings model types it", "%v, so the linter cannot tell what the kubelet gets", err)
	}
	b := boot{registers: true, taints: taints, labels: labels, line: taintLine, kubeletVals: vals}
	b.fix = func(t Taint) string {
		return "add '" + t.Key + "' = ['" + t.Value + ":" + string(t.Effect) + "'] to [settings.kubernetes.node-taints]"
	}
	// The aws-k8s variants default settings.kubernetes.cloud-provider to
	// "external" (bottlerocket sources/settings-defaults/aws-k8s-1.31/
	// defaults.d/54-kubernetes-aws-external-cloud-provider.toml).
	if cp, set := kube["cloud-provider"]; set && cp != "external" {
		return l.unresolved(tomlLine(text, "cloud-provider"), "remove settings.kubernetes.cloud-provider; the aws-k8s variants set it to external",
			"settings.kubernetes.cloud-provider = %v replaces the variant's \"external\"; whether the kubelet then starts, and whether it adds %s, depends on the Kubernetes version", cp, CloudProviderTaint())
	}
	return l.withCloudProviderTaint(b)
}

// tomlLine finds the first line mentioning s; 0 if none.
func tomlLine(text []byte, s string) int {
	i := bytes.Index(text, []byte(s))
	if i < 0 {
		return 0
	}
	return lineAt(text, i)
}

// bottlerocketTaints reads settings.kubernetes.node-taints: a table from
// key to a list of "value:Effect" strings (one string is accepted too).
func (l *linter) bottlerocketTaints(kube map[string]any, taintLine int) ([]Taint, bool) {
	var taints []Taint
	if raw, ok := kube["node-taints"]; ok {
		table, ok := raw.(map[string]any)
		if !ok {
			l.add(CodeInvalidTaint, taintLine, "write [settings.kubernetes.node-taints] with 'key' = ['value:Effect']",
				"settings.kubernetes.node-taints is not a table, so Bottlerocket rejects the settings")
			return nil, false
		}
		for _, key := range sortedKeys(table) {
			var entries []string
			switch v := table[key].(type) {
			case string:
				entries = []string{v}
			case []any:
				for _, e := range v {
					s, ok := e.(string)
					if !ok {
						l.add(CodeInvalidTaint, taintLine, "write each taint as a 'value:Effect' string",
							"node-taints.%q has an entry that is not a string, so Bottlerocket rejects the settings", key)
						return nil, false
					}
					entries = append(entries, s)
				}
			default:
				l.add(CodeInvalidTaint, taintLine, "write the taints as ['value:Effect']",
					"node-taints.%q is neither a string nor a list, so Bottlerocket rejects the settings", key)
				return nil, false
			}
			for _, e := range entries {
				value, effect, ok := bottlerocket.ParseTaintEntry(e)
				if !ok {
					l.add(CodeInvalidTaint, taintLine, "write it as 'value:Effect' (':Effect' when there is no value)",
						"node-taints.%q entry %q is not value:Effect, so Bottlerocket rejects the settings", key, e)
					return nil, false
				}
				taints = append(taints, Taint{Key: key, Value: value, Effect: Effect(effect)})
			}
		}
	}
	if !l.configTaints(taints, taintLine, "settings.kubernetes.node-taints") {
		return nil, false
	}
	return taints, true
}

// bottlerocketLabels reads settings.kubernetes.node-labels, a table of
// strings.
func (l *linter) bottlerocketLabels(kube map[string]any, text []byte) (map[string]string, bool) {
	labels := map[string]string{}
	if raw, ok := kube["node-labels"]; ok {
		table, ok := raw.(map[string]any)
		if !ok {
			l.add(CodeInvalidLabel, tomlLine(text, "node-labels"), "write [settings.kubernetes.node-labels] with 'key' = 'value'",
				"settings.kubernetes.node-labels is not a table, so Bottlerocket rejects the settings")
			return nil, false
		}
		for k, v := range table {
			s, ok := v.(string)
			if !ok {
				l.add(CodeInvalidLabel, tomlLine(text, "node-labels"), "quote the label value",
					"node-labels.%q is not a string, so Bottlerocket rejects the settings", k)
				return nil, false
			}
			labels[k] = s
		}
	}
	return labels, true
}
