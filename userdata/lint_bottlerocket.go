package userdata

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/bottlerocket"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
	"github.com/pelletier/go-toml/v2"
)

// lintBottlerocket reads Bottlerocket's TOML settings as early-boot-config
// and the settings API read them ([bottlerocket.ReadUserData],
// [bottlerocket.Check], [bottlerocket.Steps]):
// settings.kubernetes.node-taints maps a key to a list of "value:Effect"
// strings (one string is accepted too), node-labels maps keys to values.
func (l *linter) lintBottlerocket(text []byte) boot {
	settings, err := bottlerocket.ReadUserData(text)
	if err != nil {
		return l.bottlerocketUnreadable(text, err)
	}
	br := &brLines{text: text}
	findings := bottlerocket.Check(settings)
	if b, done := l.bottlerocketModel(settings, findings, br); done {
		return b
	}
	kube, _ := settings["kubernetes"].(map[string]any)
	if !l.bottlerocketJoins(kube, br) {
		return boot{}
	}
	if b, done := l.bottlerocketUnsettled(findings, kube, br); done {
		return b
	}
	taintLine := br.line("kubernetes", "node-taints")
	taints, ok := l.bottlerocketTaints(kube, taintLine)
	if !ok {
		return boot{}
	}
	labelLine := br.line("kubernetes", "node-labels")
	labels, ok := l.bottlerocketLabels(kube, labelLine)
	if !ok {
		return boot{}
	}
	if !l.checkLabels(labels, labelLine) {
		return boot{}
	}
	vals, err := kubeletFromBottlerocket(kube, func(key string) int { return br.line("kubernetes", key) })
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
		return l.unresolved(br.line("kubernetes", "cloud-provider"), "remove settings.kubernetes.cloud-provider; the aws-k8s variants set it to external",
			"settings.kubernetes.cloud-provider = %v replaces the variant's \"external\"; whether the kubelet then starts, and whether it adds %s, depends on the Kubernetes version", cp, CloudProviderTaint())
	}
	return l.withCloudProviderTaint(b)
}

// bottlerocketJoins reports whether the settings tell the kubelet to join
// a cluster: its name and API server set, not standalone-mode (which runs
// the kubelet without an API server: bottlerocket-project-website@6102096
// data/settings/1.15.x/kubernetes.toml, standalone-mode).
func (l *linter) bottlerocketJoins(kube map[string]any, br *brLines) bool {
	var missing []string
	for _, k := range []string{"cluster-name", "api-server"} {
		if s, _ := kube[k].(string); s == "" {
			missing = append(missing, "settings.kubernetes."+k)
		}
	}
	if len(missing) > 0 {
		l.add(CodeIncompleteConfig, br.line("kubernetes"), "set "+strings.Join(missing, " and "),
			"the settings lack %s, so the kubelet never starts", strings.Join(missing, " and "))
		return false
	}
	if on, _ := kube["standalone-mode"].(bool); on {
		l.add(CodeIncompleteConfig, br.line("kubernetes", "standalone-mode"), "remove settings.kubernetes.standalone-mode",
			"settings.kubernetes.standalone-mode = true runs the kubelet without the API server, so the node never registers")
		return false
	}
	return true
}

// brLines finds the line of a setting, indexing the TOML only when a
// line is first asked for, and the paths below settings.NAMESPACE.KEY only
// when such a path is.
type brLines struct {
	text           []byte
	shallow, lines bottlerocket.Lines
}

// shallowDepth covers settings.kubernetes.max-pods and the like.
const shallowDepth = 3

// line returns the line of settings.path…, or of its closest written
// parent, 0 if none is written.
func (b *brLines) line(path ...string) int {
	full := append([]string{"settings"}, path...)
	index := &b.lines
	if len(full) <= shallowDepth {
		index = &b.shallow
	}
	if *index == nil {
		depth := 0
		if index == &b.shallow {
			depth = shallowDepth
		}
		*index = bottlerocket.ReadLines(b.text, depth)
	}
	for n := len(full); n > 0; n-- {
		if line := index.Line(full[:n]...); line > 0 {
			return line
		}
	}
	return 0
}

// bottlerocketUnreadable reports user data early-boot-config cannot read:
// the boot stops before the kubelet ([bottlerocket.ReadUserData]). Shell
// scripts, cloud-config and MIME documents are named: Bottlerocket runs
// none of them.
func (l *linter) bottlerocketUnreadable(text []byte, err error) boot {
	line := 0
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ = de.Position()
	}
	const fix = "write Bottlerocket settings as TOML ([settings.kubernetes] with cluster-name, api-server and cluster-certificate); " +
		"run commands as settings.bootstrap-commands (apiclient only) or a bootstrap container; " +
		"or, if the userData is for Amazon Linux, select the AL2023 or AL2 AMI family"
	if what, at := otherUserData(text); what != "" {
		l.add(CodeSyntax, at, fix,
			"the userData is %s, but Bottlerocket reads userData only as TOML settings: early-boot-config cannot read it (%v) and the boot stops before the kubelet starts, so the node never joins", what, err)
		return boot{}
	}
	if errors.Is(err, bottlerocket.ErrNoSettings) {
		l.add(CodeIncompleteConfig, 0, "put the settings under [settings]",
			"the userData is TOML without a [settings] table; early-boot-config refuses it and the boot stops before the kubelet starts, so the node never joins")
		return boot{}
	}
	l.add(CodeSyntax, line, "fix the TOML", "Bottlerocket cannot parse the settings TOML (%v), so the node never joins", err)
	return boot{}
}

// otherUserData names the kind of userData text is when it is not
// Bottlerocket's: a script, cloud-init text, MIME, PowerShell or a
// NodeConfig, with the line that shows it.
func otherUserData(text []byte) (what string, line int) {
	first, line := firstLine(text)
	switch {
	case bytes.HasPrefix(first, []byte("#!")):
		return fmt.Sprintf("a script (%q)", first), line
	case bytes.HasPrefix(first, []byte("#cloud-")) || bytes.HasPrefix(first, []byte("## template: jinja")):
		return fmt.Sprintf("cloud-init userData (%q)", first), line
	case mimedoc.LooksMIME(text):
		return "a MIME multi-part document", line
	case bytes.Contains(bytes.ToLower(text), []byte("<powershell>")):
		return "a PowerShell script (<powershell>)", line
	case nodeadm.IsNodeConfig(text):
		return "a nodeadm NodeConfig (AL2023)", line
	}
	return "", 0
}

// firstLine returns the first non-blank line, trimmed, and its number.
func firstLine(text []byte) ([]byte, int) {
	for n := 1; len(text) > 0; n++ {
		var l []byte
		l, text, _ = bytes.Cut(text, []byte("\n"))
		if l = bytes.TrimSpace(l); len(l) > 0 {
			return l, n
		}
	}
	return nil, 0
}

// bottlerocketModel checks the settings against the model and the
// bootstrap steps; done is set when that decides the verdict: a setting
// the settings API refuses (never joins) or a step that can change what
// the kubelet registers (unresolved). Settings only some variants or
// releases have are warnings.
func (l *linter) bottlerocketModel(settings map[string]any, findings []bottlerocket.Finding, br *brLines) (boot, bool) {
	steps := bottlerocket.Steps(settings)
	for _, f := range findings {
		if f.Kind.Refused() {
			l.refusedSetting(f, br)
			return boot{}, true
		}
	}
	for _, s := range steps {
		if s.Effect == bottlerocket.Refused {
			l.add(CodeRefusedSetting, br.line(s.Path[1:]...), "bootstrap commands are apiclient commands, as lists of words, with mode off, once or always",
				"the settings API refuses %s: %s, so early-boot-config fails and the node never joins", bottlerocket.JoinKey(s.Path), s.Why)
			return boot{}, true
		}
	}
	for _, f := range findings {
		var scope AMIScope
		var fix, only, others string
		switch f.Kind {
		case bottlerocket.Variant:
			scope = AMIScope{ExceptVariant: bottlerocket.VariantName(f.Detail)}
			fix, only, others = "use it only with "+f.Detail+" AMIs", "exists only in the "+f.Detail+" variants", "the others"
		case bottlerocket.Since:
			scope = AMIScope{Before: f.Detail}
			fix, only, others = "use it only with Bottlerocket "+f.Detail+" or later", "exists from Bottlerocket "+f.Detail+" on", "older releases"
		default:
			continue
		}
		line := br.line(f.Path[1:]...)
		switch arises, known := l.ami.arises(scope); {
		case known && !arises:
			// The AMI has the setting.
		case known:
			l.add(CodeRefusedSetting, line, fix,
				"%s %s, and the AMI (%s) is not one of them: the settings API refuses it, so early-boot-config fails and the node never joins", f.Key(), only, l.ami)
			return boot{}, true
		default:
			l.add(CodeVariantSetting, line, fix, "%s %s; %s refuse it and the node never joins", f.Key(), only, others)
			l.scopeLast(scope)
		}
	}
	if len(steps) > 0 {
		s := steps[0]
		return l.unresolved(br.line(s.Path[1:]...), "move the step's work into the settings themselves, or set its mode to \"off\"",
			"%s runs before the kubelet and can change what it registers (%s), so the linter cannot tell what the kubelet registers", bottlerocket.JoinKey(s.Path), s.Why), true
	}
	return boot{}, false
}

func (l *linter) refusedSetting(f bottlerocket.Finding, br *brLines) {
	line := br.line(f.Path[1:]...)
	switch f.Kind {
	case bottlerocket.BadName:
		l.add(CodeRefusedSetting, line, "rename it with ASCII letters, digits and '-'",
			"the settings API refuses the name %s (not an Identifier), so early-boot-config fails and the node never joins", f.Key())
	case bottlerocket.WrongShape:
		l.add(CodeRefusedSetting, line, "write it as "+f.Detail,
			"%s is not %s as the settings model has it; the settings API refuses it, so early-boot-config fails and the node never joins", f.Key(), f.Detail)
	default:
		fix := "remove " + f.Key() + " or check its spelling"
		if f.Near != "" {
			fix = "did you mean " + f.Near + "? Otherwise remove " + f.Key()
		}
		l.add(CodeRefusedSetting, line, fix,
			"%s is not a Bottlerocket setting (%s has no such key); the settings API refuses unknown keys, so early-boot-config fails and the node never joins", f.Key(), f.Detail)
	}
}

// bottlerocketUnsettled reports settings whose effect the linter cannot
// establish: keys of levels the model could not settle, and
// kubelet-extra-config, whose merge with node-taints is not published.
func (l *linter) bottlerocketUnsettled(findings []bottlerocket.Finding, kube map[string]any, br *brLines) (boot, bool) {
	for _, f := range findings {
		if f.Kind == bottlerocket.Unsettled {
			return l.unresolved(br.line(f.Path[1:]...), "check that the AMI's Bottlerocket release has "+f.Key(),
				"%s is not a setting this linter can establish (%s); if the AMI's release lacks it, the settings API refuses the settings", f.Key(), f.Detail), true
		}
	}
	if _, ok := kube["kubelet-extra-config"]; ok {
		return l.unresolved(br.line("kubernetes", "kubelet-extra-config"), "put the kubelet settings in the typed settings.kubernetes settings",
			"settings.kubernetes.kubelet-extra-config is merged over the kubelet configuration Bottlerocket writes in a way that is not published, so the linter cannot tell what the kubelet registers"), true
	}
	return boot{}, false
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
		for _, key := range slices.Sorted(maps.Keys(table)) {
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
func (l *linter) bottlerocketLabels(kube map[string]any, line int) (map[string]string, bool) {
	labels := map[string]string{}
	if raw, ok := kube["node-labels"]; ok {
		table, ok := raw.(map[string]any)
		if !ok {
			l.add(CodeInvalidLabel, line, "write [settings.kubernetes.node-labels] with 'key' = 'value'",
				"settings.kubernetes.node-labels is not a table, so Bottlerocket rejects the settings")
			return nil, false
		}
		for k, v := range table {
			s, ok := v.(string)
			if !ok {
				l.add(CodeInvalidLabel, line, "quote the label value",
					"node-labels.%q is not a string, so Bottlerocket rejects the settings", k)
				return nil, false
			}
			labels[k] = s
		}
	}
	return labels, true
}
