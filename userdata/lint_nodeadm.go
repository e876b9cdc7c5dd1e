package userdata

import (
	"bytes"
	"fmt"
	"mime"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/systemd"
)

const (
	nodeConfigMediaType = "application/node.eks.aws"
	nodeConfigGroup     = "node.eks.aws/"
)

// nodeConfigDoc is one NodeConfig as nodeadm reads it.
type nodeConfigDoc struct {
	apiVersion, kind string
	cluster          map[string]any
	config           map[string]any
	flags            []string
	body             []byte
	line             int
}

// decodeNodeConfig decodes a NodeConfig written as YAML or JSON. ok is
// false when the text is not a YAML/JSON object; the result is nil when it
// is an object but not a NodeConfig.
func decodeNodeConfig(text []byte) (*nodeConfigDoc, bool) {
	var m map[string]any
	if err := yaml.Unmarshal(text, &m); err != nil || m == nil {
		return nil, false
	}
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	if !strings.HasPrefix(apiVersion, nodeConfigGroup) || kind != "NodeConfig" {
		return nil, true
	}
	d := &nodeConfigDoc{apiVersion: apiVersion, kind: kind, body: text}
	spec, _ := m["spec"].(map[string]any)
	d.cluster, _ = spec["cluster"].(map[string]any)
	kubelet, _ := spec["kubelet"].(map[string]any)
	d.config, _ = kubelet["config"].(map[string]any)
	if flags, ok := kubelet["flags"].([]any); ok {
		for _, f := range flags {
			s, ok := f.(string)
			if !ok {
				s = fmt.Sprint(f)
			}
			d.flags = append(d.flags, s)
		}
	}
	return d, true
}

// isMultipartForNodeadm applies nodeadm's rule: the userData is multipart
// when its header block parses and its Content-Type is multipart/*.
func isMultipartForNodeadm(text []byte) bool {
	h, _, _, err := mimedoc.SplitHeader(text, 1)
	if err != nil {
		return false
	}
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && strings.HasPrefix(mt, "multipart/")
}

// lintNodeadm follows nodeadm: it collects the NodeConfig parts, merges
// them in order (flags appended, kubelet config maps deep-merged with
// later non-empty values winning, so lists such as registerWithTaints are
// replaced), and follows the kubelet flags through the environment file
// and systemd to the kubelet, where a --register-with-taints flag
// overrides the config.
func (l *linter) lintNodeadm(text []byte) boot {
	var docs []*nodeConfigDoc
	if isMultipartForNodeadm(text) {
		parts, err := mimedoc.Parse(text, 1)
		if err != nil {
			l.add(CodeSyntax, 0, "fix the MIME structure", "nodeadm cannot read the MIME userData: %v", err)
			return boot{}
		}
		for _, p := range parts {
			if p.MediaType != nodeConfigMediaType {
				l.scriptPart(p.MediaType, p.Body, p.Line)
				continue
			}
			body := p.Body
			if decoded, ok := decodeBase64Text(body); ok {
				body = decoded
			}
			d, ok := l.nodeConfigPart(body, p.Line)
			if !ok {
				return boot{}
			}
			docs = append(docs, d)
		}
		if len(docs) == 0 {
			l.add(CodeNoBootstrap, 0, "add a part with Content-Type: application/node.eks.aws holding a NodeConfig",
				"no MIME part is a NodeConfig (application/node.eks.aws), so nodeadm fails with \"could not find NodeConfig within UserData\"")
			return boot{}
		}
	} else {
		d, ok := l.nodeConfigPart(text, 1)
		if !ok {
			return boot{}
		}
		docs = append(docs, d)
	}
	return l.nodeadm(docs)
}

func (l *linter) nodeConfigPart(body []byte, line int) (*nodeConfigDoc, bool) {
	d, ok := decodeNodeConfig(body)
	if !ok {
		l.add(CodeSyntax, line, "write the NodeConfig as YAML or JSON", "nodeadm cannot decode this NodeConfig: it is not a YAML or JSON object")
		return nil, false
	}
	if d == nil {
		l.add(CodeSyntax, line, "start the document with apiVersion: node.eks.aws/v1alpha1 and kind: NodeConfig",
			"this part is not a NodeConfig (apiVersion %s…, kind NodeConfig), so nodeadm refuses it", nodeConfigGroup)
		return nil, false
	}
	d.line = line
	return d, true
}

func (l *linter) nodeadm(docs []*nodeConfigDoc) boot {
	cluster := map[string]any{}
	var config map[string]any
	var flags []string
	var flagDocs []*nodeConfigDoc
	var taintDoc *nodeConfigDoc
	for _, d := range docs {
		cluster = mergeConfig(cluster, d.cluster)
		if _, has := d.config["registerWithTaints"]; has && !isEmptyValue(d.config["registerWithTaints"]) {
			taintDoc = d
		}
		if config == nil {
			config = d.config
		} else if len(d.config) > 0 {
			config = mergeConfig(config, d.config)
		}
		flags = append(flags, d.flags...)
		for _, f := range d.flags {
			if strings.Contains(strings.ReplaceAll(f, "_", "-"), "register-with-taints") {
				flagDocs = append(flagDocs, d)
				break
			}
		}
	}
	var missing []string
	for _, f := range []string{"name", "apiServerEndpoint", "certificateAuthority", "cidr"} {
		if isEmptyValue(cluster[f]) {
			missing = append(missing, "spec.cluster."+f)
		}
	}
	if len(missing) > 0 {
		l.add(CodeIncompleteConfig, docs[len(docs)-1].line, "set "+strings.Join(missing, ", "),
			"the merged NodeConfig lacks %s, so nodeadm refuses it and the node never joins", strings.Join(missing, ", "))
		return boot{}
	}

	flagLine := docs[len(docs)-1].line
	if len(flagDocs) > 0 {
		flagLine = lineOf(flagDocs[len(flagDocs)-1], "register-with-taints")
	}
	args, resolved := l.envFileArgs(flags, flagLine)
	if !resolved {
		return boot{registers: true, unresolved: true}
	}
	k := l.kubeletArgs(args, flagLine)
	if !k.starts {
		return boot{}
	}
	if k.unresolved != "" {
		return l.unresolved(flagLine, "use only flags every supported kubelet release has", "%s", k.unresolved)
	}
	if k.cloudProvider != nil {
		return l.unresolved(flagLine, "remove --cloud-provider from spec.kubelet.flags; nodeadm sets it",
			"the kubelet flag --cloud-provider=%s overrides nodeadm's external (nodeadm/internal/kubelet/config.go withCloudProvider); whether the kubelet then starts, and whether it adds %s, depends on its version", *k.cloudProvider, CloudProviderTaint())
	}

	configTaints, ok := l.registerWithTaints(config["registerWithTaints"], taintDoc)
	if !ok {
		return boot{}
	}
	b := boot{registers: true, labels: k.labels}
	if k.taintFlag {
		if taintDoc != nil {
			l.add(CodeFlagOverridesConfig, flagLine,
				"remove --register-with-taints from spec.kubelet.flags and list its taints in spec.kubelet.config.registerWithTaints",
				"the kubelet flag --register-with-taints in spec.kubelet.flags overrides spec.kubelet.config.registerWithTaints (line %d: %s), so those taints are not registered (aws/karpenter-provider-aws#7486)",
				lineOf(taintDoc, "registerWithTaints"), FormatTaints(configTaints))
		}
		b.taints, b.line = k.taints, flagLine
		taints := k.taints
		b.fix = func(t Taint) string {
			return "use --register-with-taints=" + taintListWith(taints, t) + ", or better remove the flag and use spec.kubelet.config.registerWithTaints"
		}
		return l.withCloudProviderTaint(b)
	}
	b.taints = configTaints
	b.line = docs[len(docs)-1].line
	if taintDoc != nil {
		b.line = lineOf(taintDoc, "registerWithTaints")
	}
	b.fix = func(t Taint) string {
		entry := fmt.Sprintf("{key: %s, effect: %s}", t.Key, t.Effect)
		if t.Value != "" {
			entry = fmt.Sprintf("{key: %s, value: %s, effect: %s}", t.Key, t.Value, t.Effect)
		}
		return "add " + entry + " to spec.kubelet.config.registerWithTaints of the last NodeConfig that sets it"
	}
	return l.withCloudProviderTaint(b)
}

// registerWithTaints reads kubelet config registerWithTaints entries.
func (l *linter) registerWithTaints(v any, d *nodeConfigDoc) ([]Taint, bool) {
	if isEmptyValue(v) {
		return nil, true
	}
	line := 0
	if d != nil {
		line = lineOf(d, "registerWithTaints")
	}
	list, ok := v.([]any)
	if !ok {
		l.add(CodeInvalidTaint, line, "make registerWithTaints a list of {key, value, effect}", "spec.kubelet.config.registerWithTaints is not a list, so the kubelet cannot load its config")
		return nil, false
	}
	taints := make([]Taint, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		key, kok := m["key"].(string)
		value, vok := m["value"].(string)
		effect, eok := m["effect"].(string)
		if _, has := m["value"]; !has {
			vok = true
		}
		if _, has := m["effect"]; !has {
			eok = true
		}
		if !ok || !kok || !vok || !eok {
			l.add(CodeInvalidTaint, line, "write each entry as {key: K, value: V, effect: E} with string fields",
				"spec.kubelet.config.registerWithTaints[%d] is not a taint", i)
			return nil, false
		}
		taints = append(taints, Taint{Key: key, Value: value, Effect: Effect(effect)})
	}
	if !l.configTaints(taints, line, "spec.kubelet.config.registerWithTaints") {
		return nil, false
	}
	return taints, true
}

// envFileArgs follows kubelet flags through nodeadm's environment file
// (NODEADM_KUBELET_ARGS=<flags joined by spaces>) and the unbraced
// $NODEADM_KUBELET_ARGS in kubelet.service's ExecStart.
func (l *linter) envFileArgs(flags []string, line int) ([]string, bool) {
	joined := strings.Join(flags, " ")
	if strings.ContainsAny(joined, "\\\n") || strings.HasPrefix(joined, "'") || strings.HasPrefix(joined, "\"") {
		l.add(CodeSystemdHazard, line, "use only letters, digits and - _ . / = : , \" in kubelet flags",
			"the kubelet flags %q contain a backslash, a newline or a leading quote, which nodeadm writes unescaped into the kubelet's systemd environment file", joined)
		if strings.Contains(joined, "\n") {
			return nil, false
		}
	}
	words, _ := systemd.Split(systemd.EnvFileValue(joined), false, true)
	return words, true
}

// lineOf finds the line of the first occurrence of s in a part.
func lineOf(d *nodeConfigDoc, s string) int {
	i := bytes.Index(d.body, []byte(s))
	if i < 0 || d.line == 0 {
		return d.line
	}
	return d.line + lineAt(d.body, i) - 1
}

// mergeConfig merges src into a copy of dst the way nodeadm's mergo call
// does: maps are merged key by key, and any other src value replaces the
// dst value unless it is empty.
func mergeConfig(dst, src map[string]any) map[string]any {
	out := make(map[string]any, len(dst)+len(src))
	for k, v := range dst {
		out[k] = v
	}
	for k, sv := range src {
		dv, exists := out[k]
		sm, sIsMap := sv.(map[string]any)
		dm, dIsMap := dv.(map[string]any)
		switch {
		case exists && sIsMap && dIsMap:
			out[k] = mergeConfig(dm, sm)
		case exists && isEmptyValue(sv):
		default:
			out[k] = sv
		}
	}
	return out
}

func isEmptyValue(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case bool:
		return !v
	case float64:
		return v == 0
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}
