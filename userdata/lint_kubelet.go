package userdata

import (
	"fmt"
	"github.com/ec2select/ec2select/internal/kubeletrules"
	"maps"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/internal/validation"
	"github.com/ec2select/ec2select/userdata/internal/kubelet"
)

// kubeletOutcome is what the kubelet makes of its command line and config.
type kubeletOutcome struct {
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
	if k.taintFlag || b.taints == nil {
		// b.taints, when set, are the config file's registerWithTaints,
		// which a --register-with-taints flag overrides.
		b.taints = k.taints
	}
	b.labels = k.labels
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
func (l *linter) kubeletArgs(args []string, line int) kubeletOutcome {
	k := kubeletOutcome{starts: true, labels: map[string]string{}}
	flags, exit, versioned, bad := kubelet.ParseArgs(args, l.releases)
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
		switch f.Name {
		case "register-with-taints":
			taintValues = append(taintValues, f.Value)
		case "node-labels":
			kubelet.SetConfigurationMap(k.labels, f.Value)
		case "cloud-provider":
			v := f.Value
			k.cloudProvider = &v
		case "config", "config-dir":
			configFile = "--" + f.Name + "=" + f.Value
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
func (l *linter) applyTaintFlags(k *kubeletOutcome, taintValues []string, line int) {
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
	for _, key := range slices.Sorted(maps.Keys(labels)) {
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

// kubeletRefuses checks the configuration the kubelet of a node that
// would join gets, as it checks it when it starts: its feature gates
// first (cmd/kubelet/app/server.go@v1.35.3 L204-206, L235-237), then its
// config validation and the eviction thresholds and reservations it
// parses (see kubeletrules.Refuse), for the kubelet releases
// the node may run. A refusal every release makes ends the boot: the
// kubelet exits and the node never joins. One only some releases make
// leaves the verdict unresolved.
func (l *linter) kubeletRefuses(b boot) boot {
	if b.verdict() != Joins {
		return b
	}
	v := b.kubeletVals
	l.part = b.part
	var maybe *boot
	if refuse, gate, why := kubelet.GatesRefusal(v.gates, l.releases); refuse != 0 {
		src := v.gateSources[gate]
		if refuse == l.releases {
			l.add(CodeKubeletConfig, src.Line, "remove the feature gate "+gate+" from "+src.From+", or set it as Kubernetes "+refuse.String()+" allows",
				"%s sets the feature gates of the kubelet, and in Kubernetes %s %s, so the kubelet exits", src.From, refuse, why)
			return boot{}
		}
		u := l.unresolved(src.Line, "set only feature gates every kubelet release the AMI may run has, or tell Lint the Kubernetes version (userdata.KubernetesVersion)",
			"%s sets the feature gates of the kubelet: in Kubernetes %s %s, so that kubelet exits; the other releases the AMI may run (%s) start", src.From, refuse, why, l.releases&^refuse)
		maybe = &u
	}
	if r := kubeletrules.Refuse(kubeletrules.Fields(v.cfg), l.releases, kubelet.SignalReleases); r != nil {
		src := v.source(r.Field, r.Key)
		where := src.From
		if r.Key != "" {
			where += fmt.Sprintf("[%q]", r.Key)
		}
		if r.Only == 0 || r.Only == l.releases {
			l.add(CodeKubeletConfig, src.Line, r.Fix+" in "+src.From,
				"%s %s, so the kubelet refuses its configuration and exits (kubernetes %s)", where, r.Why, r.Rule)
			return boot{}
		}
		if maybe == nil {
			u := l.unresolved(src.Line, r.Fix+", or tell Lint the Kubernetes version (userdata.KubernetesVersion)",
				"%s %s: the kubelet of Kubernetes %s exits on it, the other releases the AMI may run start (kubernetes %s)", where, r.Why, r.Only, r.Rule)
			maybe = &u
		}
	}
	if maybe != nil {
		return *maybe
	}
	return b
}

// al2Kubelet is what AL2's bootstrap.sh writes into the kubelet's config
// file (templates/al2/runtime/bootstrap.sh@0ab84280) for the fields the
// kubelet model reads, beneath the kubelet flags that override it:
// clusterDNS, the --dns-cluster-ip value split on ',' (L487-488; without
// it bootstrap.sh computes one at boot, L457-485), evictionHard and
// kubeReserved (L526-528: cpu and memory computed from the instance),
// maxPods computed unless --use-max-pods is not "true" (L530-532), and the
// RotateKubeletServerCertificate gate of kubelet-config.json.
func al2Kubelet(dns string, dnsKnown, dnsSet bool, dnsLine int, useMaxPods bool) kubeletValues {
	const from = al2ConfigJSON
	var v kubeletValues
	switch {
	case dnsSet && dnsKnown && dns != "":
		v.cfg.ClusterDNS = strings.Split(dns, ",")
		v.set("ClusterDNS", "bootstrap.sh --dns-cluster-ip", dnsLine)
	case !dnsSet || dnsKnown:
		v.set("ClusterDNS", from+computedAtBoot, 0)
	}
	v.cfg.EvictionHard = map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
	v.set("EvictionHard", from, 0)
	v.cfg.KubeReserved = map[string]string{"ephemeral-storage": "1Gi"}
	v.sources["KubeReserved"] = []KubeletSource{
		{Field: "KubeReserved", Keys: []string{"ephemeral-storage"}, From: from},
		{Field: "KubeReserved", Keys: []string{"cpu", "memory"}, From: from + computedAtBoot},
	}
	if useMaxPods {
		v.set("MaxPods", from+computedAtBoot, 0)
	}
	v.setGate("RotateKubeletServerCertificate", true, from, 0)
	return v
}
