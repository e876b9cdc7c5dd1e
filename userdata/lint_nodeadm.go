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
	nodeadmCommand       = "nodeadm"
	nodeConfigMediaType  = "application/node.eks.aws"
	nodeConfigGroup      = "node.eks.aws/"
	nodeConfigAPIVersion = "node.eks.aws/v1alpha1"
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
	// nodeadm's scheme registers only node.eks.aws/v1alpha1
	// (awslabs/amazon-eks-ami@81fec2e8 nodeadm/internal/api/bridge/scheme.go
	// L12-13); any other version or kind fails to decode.
	if apiVersion != nodeConfigAPIVersion || kind != "NodeConfig" {
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
		if stop := l.userScripts(text); stop != nil {
			return *stop
		}
		parts, err := topLevelParts(text)
		if err != nil {
			l.add(CodeSyntax, 0, "fix the MIME structure", "nodeadm cannot read the MIME userData: %v", err)
			return boot{}
		}
		for _, p := range parts {
			if p.MediaType != nodeConfigMediaType {
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

// nodeadmConfigDir is where nodeadm-run reads more NodeConfigs, merged
// after the user data's (awslabs/amazon-eks-ami@81fec2e8
// nodeadm-run.service: --config-source file:///etc/eks/nodeadm.d/).
const nodeadmConfigDir = "/etc/eks/nodeadm.d"

// nodeadmDropIns makes the verdict unresolved when a script that runs
// names nodeadm's config directory: what it writes there changes the
// merged NodeConfig in a way the userData does not show.
func (l *linter) nodeadmDropIns(scripts []*script) *boot {
	if stop := l.watchedPaths(scripts, []string{nodeadmConfigDir},
		"whose NodeConfigs nodeadm-run merges after the userData's, so what the kubelet gets is not in the userData"); stop != nil {
		return stop
	}
	return l.watchedPaths(scripts, []string{"/etc/kubernetes/kubelet", "/etc/systemd/system/kubelet.service"},
		"the kubelet's config or unit, which the kubelet nodeadm starts reads, so what it registers may not be what the NodeConfig says")
}

// watchedPaths makes the verdict unresolved when a script that runs names
// one of paths, which the join reads after the script may have changed
// them.
func (l *linter) watchedPaths(scripts []*script, paths []string, why string) *boot {
	for _, s := range scripts {
		for _, p := range paths {
			i := bytes.Index(s.Body, []byte(p))
			if i < 0 {
				continue
			}
			l.part = s.part
			b := l.unresolved(s.absLine(lineAt(s.Body, i)), "put the kubelet settings in the join's own arguments or config instead",
				"this script uses %s, %s", p, why)
			return &b
		}
	}
	return nil
}

// topLevelParts are the parts nodeadm reads: the top level of the
// multipart document only, each transfer-decoded; a nested multipart is
// one part that is not a NodeConfig, and is skipped whole
// (awslabs/amazon-eks-ami@81fec2e8 nodeadm/internal/configprovider/mime.go:
// one multipart.Reader over the top level, parts of other media types
// skipped).
func topLevelParts(text []byte) ([]mimedoc.Part, error) {
	raws, err := mimedoc.TopLevelParts(text)
	if err != nil {
		return nil, err
	}
	var out []mimedoc.Part
	for _, r := range raws {
		h, _, _, err := mimedoc.SplitHeader(r.Data, r.Line)
		if err != nil {
			return nil, err
		}
		if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err != nil || mt != nodeConfigMediaType {
			continue
		}
		leaves, err := mimedoc.Parse(r.Data, r.Line)
		if err != nil {
			return nil, err
		}
		out = append(out, leaves...)
	}
	return out, nil
}

// userScripts follows the scripts cloud-init runs on AL2023 beside
// nodeadm: one that runs nodeadm itself, starts the kubelet, or does
// something the linter cannot follow makes the verdict unresolved.
func (l *linter) userScripts(text []byte) *boot {
	scripts, stop := l.cloudInitScripts(text, nodeadmCommand)
	if stop != nil {
		if !stop.unresolved {
			return nil // cloud-init cannot read it; nodeadm's own reading decides
		}
		return stop
	}
	if stop := l.nodeadmDropIns(scripts); stop != nil {
		return stop
	}
	calls, stop := l.allCalls(scripts, nodeadmCommand)
	if stop != nil {
		return stop
	}
	if len(calls) > 0 {
		c := calls[0]
		l.part = c.script.part
		b := l.unresolved(c.script.absLine(c.call.Line), "remove the nodeadm call; nodeadm runs from its own systemd units",
			"this script runs nodeadm, which configures and may start the kubelet, in an order relative to nodeadm's own units the linter cannot tell")
		return &b
	}
	return nil
}

func (l *linter) nodeConfigPart(body []byte, line int) (*nodeConfigDoc, bool) {
	d, ok := decodeNodeConfig(body)
	if !ok {
		l.add(CodeSyntax, line, "write the NodeConfig as YAML or JSON", "nodeadm cannot decode this NodeConfig: it is not a YAML or JSON object")
		return nil, false
	}
	if d == nil {
		at := line
		if i := bytes.Index(body, []byte("apiVersion")); i >= 0 && line > 0 {
			at = line + lineAt(body, i) - 1
		}
		l.add(CodeSyntax, at, "start the document with apiVersion: node.eks.aws/v1alpha1 and kind: NodeConfig",
			"this part does not decode as a NodeConfig (nodeadm registers only apiVersion %s, kind NodeConfig); nodeadm then drops every NodeConfig of the user data (configprovider/mime.go returns the first decoding error) and the node never joins", nodeConfigAPIVersion)
		return nil, false
	}
	d.line = line
	return d, true
}

func (l *linter) nodeadm(docs []*nodeConfigDoc) boot {
	m := mergeNodeConfigs(docs)
	if !l.clusterComplete(m.cluster, docs[len(docs)-1].line) {
		return boot{}
	}
	flagLine := docs[len(docs)-1].line
	if len(m.flagDocs) > 0 {
		flagLine = lineOf(m.flagDocs[len(m.flagDocs)-1], "register-with-taints")
	}
	k, stop := l.nodeadmKubelet(docs, m.flags, flagLine)
	if stop != nil {
		return *stop
	}
	configTaints, ok := l.registerWithTaints(foldGet(m.config, "registerWithTaints"), m.taintDoc)
	if !ok {
		return boot{}
	}
	lastConfig := docs[len(docs)-1]
	vals, err := kubeletFromConfig(m.config, "spec.kubelet.config", func(key string) int { return lineOfFold(lastConfig, key) })
	if err != nil {
		return l.unresolved(lastConfig.line, "write spec.kubelet.config as a KubeletConfiguration types it", "%v, so the kubelet cannot load its config", err)
	}
	b := boot{registers: true, labels: k.labels, kubeletVals: vals.overlay(k.values)}
	if k.taintFlag {
		return l.withCloudProviderTaint(l.flagTaints(b, k, m.taintDoc, configTaints, flagLine))
	}
	b.taints = configTaints
	b.line = docs[len(docs)-1].line
	if m.taintDoc != nil {
		b.line = lineOfFold(m.taintDoc, "registerWithTaints")
		if containsMatch(configTaints, CloudProviderTaint()) {
			b.line = lineOf(m.taintDoc, CloudProviderTaint().Key)
		}
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

// mergedNodeConfig is nodeadm's merge of the NodeConfig documents.
type mergedNodeConfig struct {
	cluster, config map[string]any
	flags           []string
	flagDocs        []*nodeConfigDoc // documents with a --register-with-taints flag
	taintDoc        *nodeConfigDoc   // the last document that sets registerWithTaints
}

// mergeNodeConfigs merges documents in order as nodeadm does: cluster
// fields where set, kubelet.config as an InlineDocument ([mergeInline]),
// kubelet.flags appended (internal/api/merge.go mergeKubeletFlags).
func mergeNodeConfigs(docs []*nodeConfigDoc) mergedNodeConfig {
	m := mergedNodeConfig{cluster: map[string]any{}}
	for _, d := range docs {
		m.cluster = mergeConfig(m.cluster, d.cluster)
		if foldGet(d.config, "registerWithTaints") != nil || hasKey(d.config, "registerWithTaints") {
			m.taintDoc = d
		}
		if m.config == nil {
			m.config = d.config
		} else if len(d.config) > 0 {
			m.config = mergeInline(m.config, d.config)
		}
		m.flags = append(m.flags, d.flags...)
		for _, f := range d.flags {
			if strings.Contains(strings.ReplaceAll(f, "_", "-"), "register-with-taints") {
				m.flagDocs = append(m.flagDocs, d)
				break
			}
		}
	}
	return m
}

// clusterComplete reports the cluster fields nodeadm requires
// (internal/api/validation.go) and returns false when one is missing.
func (l *linter) clusterComplete(cluster map[string]any, line int) bool {
	var missing []string
	for _, f := range []string{"name", "apiServerEndpoint", "certificateAuthority", "cidr"} {
		if isEmptyValue(cluster[f]) {
			missing = append(missing, "spec.cluster."+f)
		}
	}
	if len(missing) > 0 {
		l.add(CodeIncompleteConfig, line, "set "+strings.Join(missing, ", "),
			"the merged NodeConfig lacks %s, so nodeadm refuses it and the node never joins", strings.Join(missing, ", "))
		return false
	}
	return true
}

// nodeadmKubelet follows the merged flags to the kubelet; stop is set
// when the kubelet exits or the result cannot be known.
func (l *linter) nodeadmKubelet(docs []*nodeConfigDoc, flags []string, flagLine int) (kubeletOutcome, *boot) {
	args, resolved := l.envFileArgs(flags, flagLine)
	if !resolved {
		return kubeletOutcome{}, &boot{registers: true, unresolved: true}
	}
	l.argLine = func(arg string) int {
		for _, d := range docs {
			if bytes.Contains(d.body, []byte(arg)) {
				return lineOf(d, arg)
			}
		}
		return flagLine
	}
	k := l.kubeletArgs(args, flagLine)
	l.argLine = nil
	switch {
	case !k.starts:
		return k, &boot{}
	case k.unresolved != "":
		b := l.unresolved(flagLine, "use only flags every supported kubelet release has", "%s", k.unresolved)
		return k, &b
	case k.cloudProvider != nil:
		b := l.unresolved(flagLine, "remove --cloud-provider from spec.kubelet.flags; nodeadm sets it",
			"the kubelet flag --cloud-provider=%s overrides nodeadm's external (nodeadm/internal/kubelet/config.go withCloudProvider); whether the kubelet then starts, and whether it adds %s, depends on its version", *k.cloudProvider, CloudProviderTaint())
		return k, &b
	}
	return k, nil
}

// flagTaints: a --register-with-taints flag overrides the config's list
// (aws/karpenter-provider-aws#7486).
func (l *linter) flagTaints(b boot, k kubeletOutcome, taintDoc *nodeConfigDoc, configTaints []Taint, flagLine int) boot {
	if taintDoc != nil {
		l.add(CodeFlagOverridesConfig, flagLine,
			"remove --register-with-taints from spec.kubelet.flags and list its taints in spec.kubelet.config.registerWithTaints",
			"the kubelet flag --register-with-taints in spec.kubelet.flags overrides spec.kubelet.config.registerWithTaints (line %d: %s), so those taints are not registered (aws/karpenter-provider-aws#7486)",
			lineOf(taintDoc, "registerWithTaints"), FormatTaints(configTaints))
	}
	b.taints, b.line = k.taints, flagLine
	b.fix = func(t Taint) string {
		return "use --register-with-taints=" + taintListWith(k.taints, t) + ", or better remove the flag and use spec.kubelet.config.registerWithTaints"
	}
	return b
}

// registerWithTaints reads kubelet config registerWithTaints entries.
func (l *linter) registerWithTaints(v any, d *nodeConfigDoc) ([]Taint, bool) {
	if isEmptyValue(v) {
		return nil, true
	}
	line := 0
	if d != nil {
		line = lineOfFold(d, "registerWithTaints")
	}
	list, ok := v.([]any)
	if !ok {
		l.add(CodeInvalidTaint, line, "make registerWithTaints a list of {key, value, effect}", "spec.kubelet.config.registerWithTaints is not a list, so the kubelet cannot load its config")
		return nil, false
	}
	taints := make([]Taint, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		key, kok := foldGet(m, "key").(string)
		value, vok := foldGet(m, "value").(string)
		effect, eok := foldGet(m, "effect").(string)
		if foldGet(m, "value") == nil {
			vok = true
		}
		if foldGet(m, "effect") == nil {
			eok = true
		}
		if foldGet(m, "timeAdded") != nil {
			at := line
			if d != nil {
				at = lineOfFold(d, "timeAdded")
			}
			l.add(CodeInvalidTaint, at, "remove timeAdded from the registerWithTaints entry",
				"spec.kubelet.config.registerWithTaints[%d] sets timeAdded, which the kubelet's config validation rejects (\"taint.TimeAdded is not nil\"), so it exits", i)
			return nil, false
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

// foldGet looks a key up as the kubelet decodes its merged config: with
// encoding/json, whose field matching ignores case (kubernetes
// cmd/kubelet/app/server.go, the drop-in merge); an exact match wins.
func foldGet(m map[string]any, key string) any {
	if v, ok := m[key]; ok {
		return v
	}
	for _, k := range sortedKeys(m) {
		if strings.EqualFold(k, key) {
			return m[k]
		}
	}
	return nil
}

// lineOfFold is lineOf ignoring ASCII case.
func lineOfFold(d *nodeConfigDoc, s string) int {
	i := bytes.Index(bytes.ToLower(d.body), bytes.ToLower([]byte(s)))
	if i < 0 || d.line == 0 {
		return d.line
	}
	return d.line + lineAt(d.body, i) - 1
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

// mergeInline merges src into a copy of dst the way nodeadm merges
// kubelet.config (an InlineDocument: api/merge.go mergeInlineDocument, then
// util.Merge with mergo.WithOverride over JSON maps): nested maps merge key
// by key, and any other value of src replaces dst's, even an empty list or
// null, which clears it.
func mergeInline(dst, src map[string]any) map[string]any {
	out := make(map[string]any, len(dst)+len(src))
	for k, v := range dst {
		out[k] = v
	}
	for k, sv := range src {
		sm, sIsMap := sv.(map[string]any)
		dm, dIsMap := out[k].(map[string]any)
		if sIsMap && dIsMap {
			out[k] = mergeInline(dm, sm)
			continue
		}
		out[k] = sv
	}
	return out
}

func hasKey(m map[string]any, key string) bool {
	_, ok := m[key]
	return ok
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
