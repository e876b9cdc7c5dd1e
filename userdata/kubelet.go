package userdata

import (
	"fmt"
	"strings"

	"github.com/ec2select/ec2select/internal/validation"
)

// kubelet is what the kubelet makes of its command line and config.
type kubelet struct {
	starts    bool // false: the kubelet exits or the node is refused; a problem says why
	taintFlag bool // --register-with-taints was given (it overrides the config)
	taints    []Taint
	labels    map[string]string
	// cloudProvider is the value of a --cloud-provider flag, if given.
	cloudProvider *string
	// unresolved says why whether the kubelet starts depends on its
	// version; "" when it does not.
	unresolved string
	// values is the kubelet configuration its flags set.
	values kubeletValues
}

// withCloudProviderTaint adds the taint the kubelet registers itself
// under --cloud-provider=external, or makes the node never join when a
// configured taint duplicates it: the API server refuses a Node whose
// taints repeat a key and effect (pkg/apis/core/validation ValidateNode).
func (l *linter) withCloudProviderTaint(b boot) boot {
	own := CloudProviderTaint()
	for _, t := range b.taints {
		if t.Matches(own) {
			l.add(CodeDuplicateTaint, b.line, "remove "+t.String()+"; the kubelet registers "+own.String()+" itself",
				"the taint %s duplicates %s, which the kubelet adds itself with --cloud-provider=external, so the API server refuses the Node and it never registers", t, own)
			return boot{}
		}
	}
	b.kubelet = []Taint{own}
	return b
}

// withKubeletArgs completes b with what the kubelet makes of args, the
// arguments a boot agent hands it, or returns a boot in which the kubelet
// never starts. where names the place a missing taint belongs, for fixes.
// externalCloud says whether the boot agent starts the kubelet with
// --cloud-provider=external before these arguments.
func (l *linter) withKubeletArgs(b boot, args []string, where string, externalCloud bool) boot {
	k := l.kubeletArgs(args, b.line)
	if !k.starts {
		return boot{}
	}
	if k.unresolved != "" {
		return l.unresolved(b.line, "use only flags every supported kubelet release has", "%s", k.unresolved)
	}
	b.taints, b.labels = k.taints, k.labels
	b.kubeletVals = b.kubeletVals.overlay(k.values)
	b.fix = func(t Taint) string {
		return "put --register-with-taints=" + taintListWith(k.taints, t) + " in " + where
	}
	if k.cloudProvider != nil {
		return l.unresolved(b.line, "remove --cloud-provider from the kubelet arguments; the boot agent sets it",
			"the kubelet argument --cloud-provider=%s overrides the boot agent's; whether the kubelet then starts, and whether it adds %s, depends on its version", *k.cloudProvider, CloudProviderTaint())
	}
	if externalCloud {
		return l.withCloudProviderTaint(b)
	}
	return b
}

// kubeletArgs parses the kubelet's argv as pflag does over the kubelet's
// flag set ([parseKubeletArgs]) and applies --register-with-taints,
// --node-labels and --cloud-provider as the kubelet does. line is where
// the arguments come from.
func (l *linter) kubeletArgs(args []string, line int) kubelet {
	k := kubelet{starts: true, labels: map[string]string{}}
	flags, exit, versioned, bad := parseKubeletArgs(args, l.releases)
	if exit != "" {
		if l.argLine != nil {
			line = l.argLine(args[bad])
		}
		l.add(CodeKubeletArguments, line, "write kubelet flags as --flag=value with names the kubelet knows, and quote values that contain spaces",
			"%s, so the kubelet exits", exit)
		k.starts = false
		return k
	}
	if versioned != "" {
		k.unresolved = fmt.Sprintf("the kubelet flag --%s exists only in some of the Kubernetes releases this AMI family ships; the kubelet exits on it where it does not", versioned)
	}
	values, err := kubeletFromFlags(flags, line)
	if err != nil && k.unresolved == "" {
		k.unresolved = fmt.Sprintf("the kubelet flag %v cannot be read as the kubelet reads it", err)
	}
	k.values = values
	var taintValues []string
	configFile := ""
	for _, f := range flags {
		switch f.name {
		case "register-with-taints":
			taintValues = append(taintValues, f.value)
		case "node-labels":
			setConfigurationMap(k.labels, f.value)
		case "cloud-provider":
			v := f.value
			k.cloudProvider = &v
		case "config", "config-dir":
			configFile = "--" + f.name + "=" + f.value
		}
	}
	if configFile != "" && len(taintValues) == 0 && k.unresolved == "" {
		// A config file the linter has not read may set registerWithTaints;
		// only a --register-with-taints flag would override it.
		k.unresolved = fmt.Sprintf("the kubelet argument %s points the kubelet at a config the linter has not read, which may set registerWithTaints", configFile)
	}
	l.applyTaintFlags(&k, taintValues, line)
	if !l.checkLabels(k.labels, line) {
		k.starts = false
	}
	return k
}

// applyTaintFlags applies the --register-with-taints values in order: the
// last wins, and each must parse.
func (l *linter) applyTaintFlags(k *kubelet, taintValues []string, line int) {
	for i, v := range taintValues {
		taints, removed, code, msg := kubeletTaints(v)
		if code != "" {
			l.add(code, line, "write each taint as key=value:Effect or key:Effect, once per key and effect",
				"--register-with-taints=%s: %s; the kubelet exits", v, msg)
			k.starts = false
			continue
		}
		for _, r := range removed {
			l.add(CodeTaintRemovalIgnored, line, "remove "+r+" from --register-with-taints",
				"%q in --register-with-taints is a removal, which the kubelet silently drops", r)
		}
		if i == len(taintValues)-1 {
			k.taints = taints
		}
	}
	k.taintFlag = len(taintValues) > 0
	if len(taintValues) > 1 && k.starts {
		var lost []string
		last, _, _, _ := kubeletTaints(taintValues[len(taintValues)-1])
		for _, v := range taintValues[:len(taintValues)-1] {
			earlier, _, _, _ := kubeletTaints(v)
			for _, t := range earlier {
				if !containsMatch(last, t) {
					lost = append(lost, t.String())
				}
			}
		}
		if len(lost) > 0 {
			l.add(CodeRepeatedTaintFlag, line, "--register-with-taints="+FormatTaints(mergeTaints(taintValues)),
				"--register-with-taints is given %d times and the kubelet keeps only the last, so %s are lost; merge them into one flag",
				len(taintValues), strings.Join(lost, ", "))
		}
	}
}

// mergeTaints unions the valid taints of several flag values, first
// occurrence of a key and effect winning.
func mergeTaints(values []string) []Taint {
	var out []Taint
	for _, v := range values {
		ts, _, _, _ := kubeletTaints(v)
		for _, t := range ts {
			if !containsMatch(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// checkLabels reports labels the kubelet refuses; it returns false when
// there is one, because the kubelet then exits.
func (l *linter) checkLabels(labels map[string]string, line int) bool {
	ok := true
	for _, key := range sortedKeys(labels) {
		value := labels[key]
		if err := validation.QualifiedName(key); err != nil {
			l.add(CodeInvalidLabel, line, "fix or remove the label", "label key %q: %v; the kubelet exits", key, err)
			ok = false
		} else if err := validation.LabelValue(value); err != nil {
			l.add(CodeInvalidLabel, line, "fix or remove the label", "label %q value %q: %v; the kubelet exits", key, value, err)
			ok = false
		} else if forbiddenLabel(key) {
			l.add(CodeForbiddenLabel, line, "remove "+key+" from the node labels", "label %q: %s", key, forbiddenLabelAdvice(key))
			ok = false
		}
	}
	return ok
}

// setConfigurationMap applies one --node-labels value as the kubelet's
// ConfigurationMap does: entries split on ',', empty ones skipped, each
// split on the first '=', key and value trimmed; later entries win.
func setConfigurationMap(m map[string]string, value string) {
	for _, s := range strings.Split(value, ",") {
		if s == "" {
			continue
		}
		k, v, _ := strings.Cut(s, "=")
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
}

// kubeletTaints applies one --register-with-taints value exactly as the
// kubelet's RegisterWithTaintsVar does: empty means none; otherwise the
// comma-separated specs are parsed, removals ("…-") are parsed and dropped,
// an addition needs an effect, and two additions may not share key and
// effect. A non-empty code means the kubelet refuses the value.
func kubeletTaints(value string) (taints []Taint, removed []string, code Code, msg string) {
	if value == "" {
		return nil, nil, "", ""
	}
	for _, spec := range strings.Split(value, ",") {
		if rest, ok := strings.CutSuffix(spec, "-"); ok {
			if _, err := kubeletParseTaint(rest); err != nil {
				return nil, nil, CodeInvalidTaint, err.Error()
			}
			removed = append(removed, spec)
			continue
		}
		t, err := kubeletParseTaint(spec)
		if err != nil {
			return nil, nil, CodeInvalidTaint, err.Error()
		}
		if t.Effect == "" {
			return nil, nil, CodeInvalidTaint, fmt.Sprintf("taint %q has no effect", spec)
		}
		for _, prev := range taints {
			if prev.Matches(t) {
				return nil, nil, CodeDuplicateTaint, fmt.Sprintf("taints %q and %q share key and effect", prev.String(), t.String())
			}
		}
		taints = append(taints, t)
	}
	return taints, removed, "", ""
}

// kubeletParseTaint is the kubelet's parseTaint: key, key:Effect or
// key=value:Effect, exactly one ':' and at most one '=' when there is an
// effect, and Kubernetes' key, value and effect rules.
func kubeletParseTaint(spec string) (Taint, error) {
	var t Taint
	parts := strings.Split(spec, ":")
	switch len(parts) {
	case 1:
		t.Key = parts[0]
	case 2:
		t.Effect = Effect(parts[1])
		if !t.Effect.valid() {
			return Taint{}, fmt.Errorf("taint %q: effect %q is not NoSchedule, PreferNoSchedule or NoExecute", spec, parts[1])
		}
		kv := strings.Split(parts[0], "=")
		if len(kv) > 2 {
			return Taint{}, fmt.Errorf("taint %q has more than one '='", spec)
		}
		t.Key = kv[0]
		if len(kv) == 2 {
			t.Value = kv[1]
			if err := validation.LabelValue(t.Value); err != nil {
				return Taint{}, fmt.Errorf("taint %q: value %q: %v", spec, t.Value, err)
			}
		}
	default:
		return Taint{}, fmt.Errorf("taint %q has more than one ':'", spec)
	}
	if err := validation.QualifiedName(t.Key); err != nil {
		return Taint{}, fmt.Errorf("taint %q: key %q: %v", spec, t.Key, err)
	}
	return t, nil
}

// configTaints checks taints from a kubelet config (nodeadm's
// registerWithTaints, Bottlerocket's node-taints) the way the API server
// checks a new Node: valid key, value and effect, unique by key and effect.
// It returns false, after reporting, when the node would be refused.
func (l *linter) configTaints(taints []Taint, line int, where string) bool {
	ok := true
	for i, t := range taints {
		if err := t.check(); err != nil {
			l.add(CodeInvalidTaint, line, "fix or remove the taint", "%s: %v; the API server refuses the node", where, err)
			ok = false
			continue
		}
		for _, prev := range taints[:i] {
			if prev.Matches(t) {
				l.add(CodeDuplicateTaint, line, "keep one of them", "%s: taints %q and %q share key and effect; the API server refuses the node", where, prev.String(), t.String())
				ok = false
			}
		}
	}
	return ok
}
