package userdata

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/kubelet"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
	"github.com/ec2select/ec2select/userdata/internal/shell"
)

// lintAL2023 follows nodeadm: it collects the NodeConfig parts, merges
// them in order (flags appended, kubelet config maps deep-merged with
// later non-empty values winning, so lists such as registerWithTaints are
// replaced), and follows the kubelet flags through the environment file
// and systemd to the kubelet, where a --register-with-taints flag
// overrides the config.
func (l *linter) lintAL2023(text []byte) boot {
	var docs []*nodeadm.Doc
	if nodeadm.IsMultipart(text) {
		if stop := l.userScripts(text); stop != nil {
			return *stop
		}
		parts, err := nodeadm.Parts(text)
		if err != nil {
			l.add(CodeSyntax, 0, "fix the MIME structure", "nodeadm cannot read the MIME userData: %v", err)
			return boot{}
		}
		for _, p := range parts {
			d, ok := l.nodeConfigPart(p.Body, p.Line)
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
		if err := nodeadm.MultipartError(text); mimedoc.LooksMIME(text) && err != nil {
			l.add(CodeSyntax, 1, "end the header block with an empty line, write each header as Name: value, and give a multipart/* Content-Type with a boundary",
				"nodeadm reads userData as MIME only when Go's mail reader accepts its header block and its Content-Type is multipart/* (configprovider/mime.go getMultipartReader), and it refuses this one (%v); it then decodes the whole userData as one NodeConfig, which fails, and the node never joins", err)
			return boot{}
		}
		d, ok := l.nodeConfigPart(text, 1)
		if !ok {
			return boot{}
		}
		docs = append(docs, d)
	}
	return l.nodeadm(docs)
}

// al2023JoinFiles are the files nodeadm and the kubelet it starts read
// on AL2023 (awslabs/amazon-eks-ami@81fec2e8 nodeadm: its config
// directory, the kubelet's config, environment and units, containerd's),
// and the programs they run. The scripts of the userData run between
// nodeadm-config and nodeadm-run, so a change to one of these may change
// what the kubelet registers, in a way Lint does not follow.
var al2023JoinFiles = joinFiles{
	"/etc/eks", "/etc/kubernetes", "/var/lib/kubelet", "/etc/containerd", "/etc/systemd/system/kubelet.service",
	"/etc/systemd/system/kubelet.service.d", "/etc/systemd/system/containerd.service.d", "/etc/systemd/system/service.d",
	"/etc/systemd/system.conf", "/etc/systemd/system.conf.d", "/etc/systemd/system/nodeadm-config.service.d",
	"/etc/systemd/system/nodeadm-run.service.d", "/usr/lib/systemd/system/kubelet.service", "/usr/lib/systemd/system/containerd.service",
	"/usr/bin/nodeadm", "/usr/bin/kubelet", "/usr/bin/containerd",
}

// userScripts follows the scripts cloud-init runs on AL2023 beside
// nodeadm: one that runs nodeadm itself, starts the kubelet, changes a
// file nodeadm or the kubelet reads, or does something the linter cannot
// follow makes the verdict unresolved.
func (l *linter) userScripts(text []byte) *boot {
	l.endsFollowed = true
	ci, stop := l.cloudInitScripts(text, nodeadm.Command, al2023JoinFiles)
	l.endsFollowed = false
	if stop != nil {
		if !stop.unresolved {
			return nil // cloud-init cannot read it; nodeadm's own reading decides
		}
		return stop
	}
	if ci.horizon != nil {
		b := l.unfollowable(ci.horizon)
		return &b
	}
	if stop := l.startBefore(ci, nil); stop != nil {
		return stop
	}
	if stop := l.unfollowed(ci.changes, "which nodeadm or the kubelet it starts reads, so what the kubelet registers may not be what the NodeConfig says"); stop != nil {
		return stop
	}
	calls, stop := l.allCalls(ci, nodeadm.Command)
	if stop != nil {
		return stop
	}
	calls = slices.DeleteFunc(calls, func(c located) bool {
		if !repeatsNodeadm(c.call) {
			return false
		}
		l.part = c.script.part
		l.add(CodeRepeatedJoin, c.script.absLine(c.call.Line), "remove the call; nodeadm-config.service and nodeadm-run.service run nodeadm",
			"this script runs nodeadm init with nodeadm's own configuration source, so it starts the kubelet before nodeadm-run.service does, with the same NodeConfig")
		return true
	})
	if len(calls) > 0 {
		c := calls[0]
		l.part = c.script.part
		b := l.unresolved(c.script.absLine(c.call.Line), "remove the nodeadm call; nodeadm runs from its own systemd units",
			"this script runs nodeadm, which configures and may start the kubelet, in an order relative to nodeadm's own units the linter cannot tell")
		return &b
	}
	return nil
}

func (l *linter) nodeConfigPart(body []byte, line int) (*nodeadm.Doc, bool) {
	d, ok := nodeadm.Decode(body)
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
			"this part does not decode as a NodeConfig (nodeadm registers only apiVersion %s, kind NodeConfig); nodeadm then drops every NodeConfig of the user data (configprovider/mime.go returns the first decoding error) and the node never joins", nodeadm.APIVersion)
		return nil, false
	}
	d.Line = line
	return d, true
}

func (l *linter) nodeadm(docs []*nodeadm.Doc) boot {
	m := nodeadm.Merge(docs)
	if !l.clusterComplete(m.Cluster, docs[len(docs)-1].Line) {
		return boot{}
	}
	flagLine := docs[len(docs)-1].Line
	if len(m.FlagDocs) > 0 {
		flagLine = m.FlagDocs[len(m.FlagDocs)-1].LineOf("register-with-taints")
	}
	k, stop := l.nodeadmKubelet(docs, m.Flags, flagLine)
	if stop != nil {
		return *stop
	}
	configTaints, ok := l.registerWithTaints(kubelet.Lookup(m.Config, "registerWithTaints"), m.TaintDoc)
	if !ok {
		return boot{}
	}
	vals, stop := l.nodeadmKubeletConfig(m, docs)
	if stop != nil {
		return *stop
	}
	b := boot{registers: true, labels: k.labels, kubeletVals: vals.overlay(k.values)}
	if m.ExpressionDoc != nil {
		b.maxPodsExpression, b.maxPodsExpressionLine = m.MaxPodsExpression, m.ExpressionDoc.KeyLine("maxPodsExpression")
	}
	if k.taintFlag {
		return l.withCloudProviderTaint(l.flagTaints(b, k, m.TaintDoc, configTaints, flagLine))
	}
	b.taints = configTaints
	b.line = docs[len(docs)-1].Line
	if m.TaintDoc != nil {
		b.line = m.TaintDoc.KeyLine("registerWithTaints")
		if containsMatch(configTaints, CloudProviderTaint()) {
			b.line = m.TaintDoc.LineOf(CloudProviderTaint().Key)
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

// clusterComplete reports the cluster fields nodeadm requires and
// returns false when one is missing.
func (l *linter) clusterComplete(cluster map[string]any, line int) bool {
	if missing := nodeadm.MissingCluster(cluster); len(missing) > 0 {
		l.add(CodeIncompleteConfig, line, "set "+strings.Join(missing, ", "),
			"the merged NodeConfig lacks %s, so nodeadm refuses it and the node never joins", strings.Join(missing, ", "))
		return false
	}
	return true
}

// nodeadmKubelet follows the merged flags to the kubelet; stop is set
// when the kubelet exits or the result cannot be known.
func (l *linter) nodeadmKubelet(docs []*nodeadm.Doc, flags []string, flagLine int) (kubeletOutcome, *boot) {
	args, resolved := l.envFileArgs(flags, flagLine)
	if !resolved {
		return kubeletOutcome{}, &boot{registers: true, unresolved: true}
	}
	l.argLine = func(arg string) int {
		for _, d := range docs {
			if bytes.Contains(d.Body, []byte(arg)) {
				return d.LineOf(arg)
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
func (l *linter) flagTaints(b boot, k kubeletOutcome, taintDoc *nodeadm.Doc, configTaints []Taint, flagLine int) boot {
	if taintDoc != nil {
		l.add(CodeFlagOverridesConfig, flagLine,
			"remove --register-with-taints from spec.kubelet.flags and list its taints in spec.kubelet.config.registerWithTaints",
			"the kubelet flag --register-with-taints in spec.kubelet.flags overrides spec.kubelet.config.registerWithTaints (line %d: %s), so those taints are not registered (aws/karpenter-provider-aws#7486)",
			taintDoc.KeyLine("registerWithTaints"), FormatTaints(configTaints))
	}
	b.taints, b.line = k.taints, flagLine
	b.fix = func(t Taint) string {
		return "use --register-with-taints=" + taintListWith(k.taints, t) + ", or better remove the flag and use spec.kubelet.config.registerWithTaints"
	}
	return b
}

// registerWithTaints reads kubelet config registerWithTaints entries.
func (l *linter) registerWithTaints(v any, d *nodeadm.Doc) ([]Taint, bool) {
	if nodeadm.IsEmpty(v) {
		return nil, true
	}
	line := 0
	if d != nil {
		line = d.KeyLine("registerWithTaints")
	}
	list, ok := v.([]any)
	if !ok {
		l.add(CodeInvalidTaint, line, "make registerWithTaints a list of {key, value, effect}", "spec.kubelet.config.registerWithTaints is not a list, so the kubelet cannot load its config")
		return nil, false
	}
	taints := make([]Taint, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		key, kok := kubelet.Lookup(m, "key").(string)
		value, vok := kubelet.Lookup(m, "value").(string)
		effect, eok := kubelet.Lookup(m, "effect").(string)
		if kubelet.Lookup(m, "value") == nil {
			vok = true
		}
		if kubelet.Lookup(m, "effect") == nil {
			eok = true
		}
		if kubelet.Lookup(m, "timeAdded") != nil {
			at := line
			if d != nil {
				at = d.KeyLine("timeAdded")
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

// envFileArgs follows kubelet flags to the kubelet's argv
// ([nodeadm.KubeletArgs]), reporting what systemd would rewrite.
func (l *linter) envFileArgs(flags []string, line int) ([]string, bool) {
	args, hazard, cut := nodeadm.KubeletArgs(flags)
	if hazard {
		l.add(CodeSystemdHazard, line, "use only letters, digits and - _ . / = : , \" in kubelet flags",
			"the kubelet flags %q contain a backslash, a newline or a leading quote, which nodeadm writes unescaped into the kubelet's systemd environment file", strings.Join(flags, " "))
	}
	return args, !cut
}

// nodeadmKubeletConfig is the kubelet configuration nodeadm hands the
// kubelet before its flags: its own config.json ([nodeadm.KubeletBase]),
// with the merged spec.kubelet.config merged over it as the kubelet merges
// the drop-in nodeadm writes it to. Each key's line is in the last
// document that sets it. stop is set when nodeadm fails first, or the
// config cannot be read.
func (l *linter) nodeadmKubeletConfig(m nodeadm.Merged, docs []*nodeadm.Doc) (kubeletValues, *boot) {
	last := docs[len(docs)-1]
	cidr, _ := m.Cluster["cidr"].(string)
	base, computed, err := nodeadm.KubeletBase(cidr, l.minor)
	if err != nil {
		l.add(CodeIncompleteConfig, lastSetting(docs, func(d *nodeadm.Doc) map[string]any { return d.Cluster }, "cidr"), "set spec.cluster.cidr to the cluster's service CIDR, like 10.100.0.0/16",
			"%v, so nodeadm fails deriving the cluster DNS IP before it starts the kubelet (nodeadm/internal/kubelet/config.go@81fec2e8 L305-307, api/net.go L10-37)", err)
		return kubeletValues{}, &boot{}
	}
	vals, err := kubeletFromConfig(base, nodeadmConfigJSON, func(string) int { return 0 })
	if err != nil {
		return kubeletValues{}, nil // nodeadm's own config always reads
	}
	vals = vals.relabel(nodeadmConfigJSON)
	for _, c := range computed {
		name, key, _ := strings.Cut(c, ".")
		if i := slices.IndexFunc(kubeletFields, func(f kubeletField) bool { return f.config == name }); i >= 0 {
			vals = vals.computed(kubeletFields[i].field, key, nodeadmConfigJSON+computedAtBoot)
		}
	}
	user, err := kubeletFromConfig(m.Config, "spec.kubelet.config", func(key string) int {
		return lastSetting(docs, func(d *nodeadm.Doc) map[string]any { return d.Config }, key)
	})
	if err != nil {
		b := l.unresolved(last.Line, "write spec.kubelet.config as a KubeletConfiguration types it", "%v, so the kubelet cannot load its config", err)
		return kubeletValues{}, &b
	}
	return vals.patch(user), nil
}

// lastSetting returns the line of key in the last document whose section
// (spec.cluster, spec.kubelet.config) sets it, 0 if none does.
func lastSetting(docs []*nodeadm.Doc, section func(*nodeadm.Doc) map[string]any, key string) int {
	for i := len(docs) - 1; i >= 0; i-- {
		if _, ok := kubelet.LookupKey(section(docs[i]), key); ok {
			return docs[i].KeyLine(key)
		}
	}
	return 0
}

// repeatsNodeadm reports a script's "nodeadm init" that does what
// nodeadm's own units do: with no flag but the default config source
// (imds://user-data, nodeadm/internal/cli/options.go
// DefaultConfigSources), it reads the same NodeConfig and configures and
// starts the same kubelet, earlier (scripts run in cloud-final, before
// nodeadm-run.service: templates/al2023/runtime/rootfs/etc/systemd/system,
// awslabs/amazon-eks-ami@81fec2e8). nodeadm-run.service adds
// file:///etc/eks/nodeadm.d/, which the AMI creates empty
// (provisioners/install-nodeadm.sh L63) and a script's write to which is
// a change of the join's files, reported as such.
func repeatsNodeadm(c shell.Call) bool {
	if len(c.Args) == 0 || !c.Args[0].Known || c.Args[0].Value != "init" {
		return false
	}
	args := c.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.Known:
			return false
		case a.Value == "--config-source=imds://user-data" || a.Value == "-c=imds://user-data":
		case (a.Value == "--config-source" || a.Value == "-c") && i+1 < len(args) && args[i+1].Known && args[i+1].Value == "imds://user-data":
			i++
		default:
			return false
		}
	}
	return true
}
