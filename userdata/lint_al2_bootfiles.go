package userdata

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/edit"
	"github.com/ec2select/ec2select/userdata/internal/shell"
	"github.com/ec2select/ec2select/userdata/internal/systemd"
)

// The files of AL2's join that people edit before calling it
// (awslabs/amazon-eks-ami@0ab84280, templates/al2/runtime and
// provisioners/install-worker.sh, where they are installed).
const (
	al2Bootstrap     = "/etc/eks/bootstrap.sh"
	al2KubeletConfig = "/etc/kubernetes/kubelet/kubelet-config.json"
	al2DropIns       = "/etc/systemd/system/kubelet.service.d"
	// bootstrap.sh writes these two drop-ins itself (L613-621): the first
	// always, the second when KUBELET_EXTRA_ARGS is not empty.
	al2ArgsDropIn  = "10-kubelet-args.conf"
	al2ExtraDropIn = "30-kubelet-extra-args.conf"
	// al2ExtraArgsAnchor is the one line of bootstrap.sh that matches
	// /^KUBELET_EXTRA_ARGS=/ in every AL2 release (L220, since the first
	// bootstrap.sh, 5ef02c9e): after option parsing, before the value is
	// used. The --kubelet-extra-args arm (L83) and the outposts line
	// (L447) are indented.
	al2ExtraArgsAnchor = "^KUBELET_EXTRA_ARGS="
)

// al2JoinFiles are the files AL2's join reads, directly or through the
// kubelet and the units it requires: a change to one of them that Lint
// does not follow makes the verdict unresolved. Files elsewhere
// (/etc/sysctl.d, other units, logs) do not change how the node joins.
// Docker's files are not among them: from Kubernetes 1.24, the first AL2
// release Lint judges, bootstrap.sh runs containerd only and exits on any
// other runtime (bootstrap.sh L200-213); its containerd branch (L544-576)
// reads nothing of docker's and replaces kubelet.service by
// kubelet-containerd.service, which requires containerd and
// sandbox-image only; docker is installed only on AMIs before 1.25
// (provisioners/install-worker.sh L231-256), beside the join.
var al2JoinFiles = joinFiles{
	"/etc/eks", "/etc/kubernetes", "/var/lib/kubelet", "/etc/containerd",
	"/etc/systemd/system/kubelet.service", al2DropIns, "/etc/systemd/system/containerd.service", "/etc/systemd/system/containerd.service.d",
	"/etc/systemd/system/sandbox-image.service",
	"/etc/systemd/system/iptables-restore.service", "/etc/systemd/system.conf", "/etc/systemd/system.conf.d", "/etc/systemd/system/service.d",
	"/usr/lib/systemd/system/containerd.service",
	// Programs bootstrap.sh runs that people might replace.
	"/usr/bin/kubelet", "/usr/bin/containerd", "/usr/bin/jq", "/usr/bin/aws", "/usr/local/bin/aws", "/usr/bin/imds",
	"/usr/bin/vercmp", "/usr/bin/provider-id", "/usr/bin/private-dns-name", "/usr/bin/setup-local-disks", "/usr/bin/mount-bpf-fs",
}

// al2Files is what the userData has done, before a bootstrap.sh call, to
// the files it and the kubelet read.
type al2Files struct {
	// inserts are the lines sed added around /^KUBELET_EXTRA_ARGS=/, in
	// the order bootstrap.sh runs them.
	before, after []fileChange
	config        []configEdit
	// configText: an edit of kubelet-config.json works on its text.
	configText bool
	dropIns    map[string]dropIn // kubelet.service.d/*.conf by file name
}

type configEdit struct {
	edit.Edit
	change fileChange
	// sed, when set, is a sed edit of the file's text instead (then Edit
	// is zero): it needs the AMI's text, so the analysis runs once per
	// text AL2 AMIs have shipped (al2ConfigLayouts).
	sed edit.Sed
}

type dropIn struct {
	text   string
	change fileChange // the last change
}

// al2FilesFrom follows the changes in order. stop is set, after a
// CodeUnresolved problem, for one it does not follow.
func (l *linter) al2FilesFrom(changes []fileChange) (al2Files, *boot) {
	f := al2Files{dropIns: map[string]dropIn{}}
	for _, c := range changes {
		l.part = c.part
		var why string
		switch {
		case c.Path == al2Bootstrap:
			why = f.editBootstrap(c)
		case c.Path == al2KubeletConfig:
			why = f.editConfig(c)
		case path.Dir(c.Path) == al2DropIns:
			why = f.editDropIn(c)
		case c.Path == "":
			why = "and Lint cannot tell which file that is"
		default:
			why = "which the join reads; Lint does not follow what that does"
		}
		if why != "" {
			b := l.unresolved(c.line, "put the kubelet settings in bootstrap.sh's --kubelet-extra-args instead",
				"this changes %s (%s), %s", c.what(), c.how, why)
			return f, &b
		}
	}
	return f, nil
}

// editBootstrap follows sed's /^KUBELET_EXTRA_ARGS=/a TEXT (and i), the
// edit aws/containers-roadmap#864 made common: bootstrap.sh then runs
// TEXT right after L220. Each a puts its text right after the anchor,
// before texts added earlier; each i right before it, after them.
func (f *al2Files) editBootstrap(c fileChange) string {
	const only = "; Lint follows only sed '/^KUBELET_EXTRA_ARGS=/a TEXT' (and i) on bootstrap.sh"
	if c.Kind != shell.OpFilter || c.Tool != "sed" {
		return "which replaces or removes the join itself" + only
	}
	script, err := edit.ParseSed(c.Text)
	if err != nil {
		return err.Error() + only
	}
	for _, cmd := range script {
		if cmd.Address != al2ExtraArgsAnchor || (cmd.Name != 'a' && cmd.Name != 'i') {
			return fmt.Sprintf("a sed command on lines of bootstrap.sh whose text differs between AMI releases%s", only)
		}
		for _, prev := range append(slices.Clone(f.before), f.after...) {
			if strings.HasPrefix(prev.Text, "KUBELET_EXTRA_ARGS=") {
				return "an earlier edit added a line this address matches too" + only
			}
		}
		ins := c
		ins.Text = cmd.Text
		if cmd.Name == 'a' {
			f.after = append([]fileChange{ins}, f.after...)
		} else {
			f.before = append(f.before, ins)
		}
	}
	return ""
}

// editConfig follows jq and sed edits of kubelet-config.json.
func (f *al2Files) editConfig(c fileChange) string {
	if c.Kind == shell.OpFilter && c.Tool == "sed" {
		script, err := edit.ParseSed(c.Text)
		if err != nil {
			return err.Error() + "; Lint follows sed's a, i, c and s commands on it"
		}
		f.config = append(f.config, configEdit{change: c, sed: script})
		f.configText = true
		return ""
	}
	if c.Kind != shell.OpFilter || c.Tool != "jq" {
		return "and the AMI's kubelet configuration it starts from differs between releases; Lint follows only jq and sed edits of it"
	}
	edits, err := edit.ParseJQ(c.Text, c.Args)
	if err != nil {
		return err.Error()
	}
	for _, e := range edits {
		f.config = append(f.config, configEdit{Edit: e, change: c})
	}
	return ""
}

// editDropIn follows writes, appends, sed edits and removals of the
// kubelet's drop-ins; systemd reads only *.conf files.
func (f *al2Files) editDropIn(c fileChange) string {
	name := path.Base(c.Path)
	if !strings.HasSuffix(name, ".conf") {
		return ""
	}
	old, had := f.dropIns[name]
	switch c.Kind {
	case shell.OpWrite:
		f.dropIns[name] = dropIn{text: c.Text, change: c}
	case shell.OpAppend:
		f.dropIns[name] = dropIn{text: old.text + c.Text, change: c}
	case shell.OpRemove:
		delete(f.dropIns, name)
	case shell.OpFilter:
		script, err := edit.ParseSed(c.Text)
		if c.Tool != "sed" || err != nil || !had {
			return "a drop-in whose content Lint does not know after this edit"
		}
		text, ok := script.Apply(old.text)
		if !ok {
			return "a sed edit Lint cannot compute"
		}
		f.dropIns[name] = dropIn{text: text, change: c}
	default:
		return "a drop-in of the kubelet's unit whose content Lint does not know"
	}
	return ""
}

// insertedArgs runs the lines sed added to bootstrap.sh on its
// KUBELET_EXTRA_ARGS, value after option parsing.
func (l *linter) insertedArgs(f al2Files, value string) (string, *boot) {
	for _, c := range append(slices.Clone(f.before), f.after...) {
		vars, ok := shell.Eval(c.Text, map[string]string{kubeletExtraArgs: value})
		if !ok {
			l.part = c.part
			b := l.unresolved(c.line, "pass the kubelet flags in --kubelet-extra-args instead of editing bootstrap.sh",
				"this edit makes bootstrap.sh run %q, which does more than assign static values to variables, so Lint cannot tell what it does", c.Text)
			return "", &b
		}
		value = vars[kubeletExtraArgs]
	}
	return value, nil
}

// harmlessDirectives are drop-in settings of the kubelet's unit that do
// not change its arguments or whether it starts.
var harmlessDirectives = map[string]bool{
	"Service.Environment": true, "Service.LimitNOFILE": true, "Service.LimitNPROC": true, "Service.LimitMEMLOCK": true,
	"Service.LimitCORE": true, "Service.TasksMax": true, "Service.CPUAccounting": true, "Service.MemoryAccounting": true,
	"Service.IOAccounting": true, "Service.Restart": true, "Service.RestartSec": true, "Service.TimeoutStartSec": true,
	"Service.TimeoutStopSec": true, "Service.KillMode": true, "Service.Nice": true, "Service.OOMScoreAdjust": true,
	"Unit.Description": true, "Unit.Documentation": true, "Unit.After": true, "Unit.Wants": true,
}

// extraArgsEnv is the value of $KUBELET_EXTRA_ARGS in the kubelet's
// ExecStart: systemd reads the unit's drop-ins in file-name order
// (src/shared/dropin.c unit_file_find_dropin_paths, conf_files_list), and
// a later Environment= assignment of a variable replaces an earlier one
// (src/core/load-fragment.c config_parse_environ). bootstrap.sh's own
// drop-ins replace the userData's files of the same names. fromUser is
// set when a drop-in of the userData decides it; value is then as systemd
// reads it.
func (l *linter) extraArgsEnv(f al2Files, bootstrapValue string) (value string, fromUser *dropIn, stop *boot) {
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range f.dropIns {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		d := f.dropIns[name]
		if name == al2ArgsDropIn || name == al2ExtraDropIn && bootstrapValue != "" {
			continue // bootstrap.sh overwrites it
		}
		l.part = d.change.part
		directives, err := systemd.ParseUnit(d.text)
		if err != nil {
			b := l.unresolved(d.change.line, "write the drop-in as [Service] and KEY=VALUE lines", "the drop-in %s does not parse: %v", name, err)
			return "", nil, &b
		}
		for _, dir := range directives {
			key := dir.Section + "." + dir.Key
			if !harmlessDirectives[key] {
				b := l.unresolved(d.change.line, "remove the setting; put kubelet flags in --kubelet-extra-args",
					"the drop-in %s sets %s=, which can change how the kubelet starts or what it is given; Lint does not follow it", name, dir.Key)
				return "", nil, &b
			}
			if dir.Key != "Environment" {
				continue
			}
			env, specifier, ok := systemd.Environment(dir.Value)
			_, args := env["KUBELET_ARGS"]
			extra, sets := env[kubeletExtraArgs]
			switch {
			case !ok:
				continue // systemd ignores the line
			case specifier && (sets || args):
				b := l.unresolved(d.change.line, "write % as %%", "the drop-in %s uses a '%%' specifier in the kubelet's arguments, which systemd releases expand differently", name)
				return "", nil, &b
			case args && name > al2ArgsDropIn:
				b := l.unresolved(d.change.line, "remove KUBELET_ARGS from the drop-in",
					"the drop-in %s replaces KUBELET_ARGS, bootstrap.sh's own kubelet arguments (--node-ip, --cloud-provider=external, L534-542)", name)
				return "", nil, &b
			case sets && (name > al2ExtraDropIn || bootstrapValue == ""):
				value, fromUser = extra, &dropIn{text: d.text, change: d.change}
			}
		}
	}
	return value, fromUser, nil
}

// configOverwritten are the kubelet-config.json keys bootstrap.sh sets
// itself after the userData ran, whatever the userData wrote
// (templates/al2/runtime/bootstrap.sh@0ab84280 L488 clusterDNS, L526
// evictionHard, L527-528 kubeReserved, L536 providerID, L565
// cgroupDriver, L568-569 the reserved cgroups unless --reserved-cpus;
// maxPods at L531 unless --use-max-pods false).
var configOverwritten = []string{"clusterDNS", "evictionHard", "kubeReserved", "providerID", "cgroupDriver", "systemReservedCgroup", "kubeReservedCgroup"}

// kubeletConfigFile applies the jq edits to kubelet-config.json and reads
// what the kubelet gets from it: registerWithTaints (the AMI's file has
// none, templates/al2/runtime/kubelet-config.json@0ab84280, so += starts
// from null) and the fields Report.Kubelet shows.
func (l *linter) kubeletConfigFile(f al2Files, useMaxPods bool) (cfg map[string]any, taints []Taint, line int, keyLines map[string]int, stop *boot) {
	if f.configText {
		cfg, keyLines, line, stop = l.configFromText(f)
		if stop != nil {
			return nil, nil, 0, nil, stop
		}
		return l.configRead(cfg, line, keyLines, useMaxPods)
	}
	cfg = map[string]any{}
	set := map[string]bool{}
	keyLines = map[string]int{}
	for _, e := range f.config {
		l.part = e.change.part
		key := e.Path[0]
		switch {
		case e.Op == edit.Set:
			setPath(cfg, e.Path, e.Value)
		case e.Op == edit.Add && (set[key] || key == "registerWithTaints" && len(e.Path) == 1):
			sum, ok := edit.AddValues(getPath(cfg, e.Path), e.Value)
			if !ok {
				b := l.unresolved(e.change.line, "set the value with = instead", "jq cannot add %v to .%s, so it fails and bootstrap.sh's config file is left as its error made it", e.Value, strings.Join(e.Path, "."))
				return nil, nil, 0, nil, &b
			}
			setPath(cfg, e.Path, sum)
		case e.Op == edit.Delete && set[key]:
			delete(cfg, key)
		default:
			b := l.unresolved(e.change.line, "set the whole value with = instead",
				"this edit of .%s starts from the AMI's kubelet-config.json, which differs between releases", strings.Join(e.Path, "."))
			return nil, nil, 0, nil, &b
		}
		set[key] = true
		keyLines[key] = e.change.line
		if key == "registerWithTaints" {
			line = e.change.line
		}
	}
	return l.configRead(cfg, line, keyLines, useMaxPods)
}

// configRead drops from the userData's kubelet-config.json keys what
// bootstrap.sh writes itself, and reads registerWithTaints.
func (l *linter) configRead(cfg map[string]any, line int, keyLines map[string]int, useMaxPods bool) (map[string]any, []Taint, int, map[string]int, *boot) {
	var taints []Taint
	for _, k := range configOverwritten {
		delete(cfg, k)
	}
	if useMaxPods {
		delete(cfg, "maxPods")
	}
	if v, ok := cfg["registerWithTaints"]; ok {
		var stop *boot
		taints, stop = l.fileTaints(v, line)
		if stop != nil {
			return nil, nil, 0, nil, stop
		}
		if taints == nil {
			taints = []Taint{}
		}
	}
	return cfg, taints, line, keyLines, nil
}

// fileTaints reads registerWithTaints from the kubelet's config file: a
// list of {key, value, effect}; timeAdded set is refused by the kubelet's
// config validation (kubernetes v1.35.3
// pkg/kubelet/apis/config/validation/validation.go, "taint.TimeAdded is
// not nil"), and the API server refuses invalid or duplicate taints.
func (l *linter) fileTaints(v any, line int) ([]Taint, *boot) {
	list, ok := v.([]any)
	if v == nil {
		return nil, nil
	}
	if !ok {
		l.add(CodeInvalidTaint, line, "make registerWithTaints a list of {key, value, effect}", "kubelet-config.json's registerWithTaints is not a list, so the kubelet cannot load its config")
		return nil, &boot{}
	}
	var taints []Taint
	for i, e := range list {
		m, _ := e.(map[string]any)
		key, _ := m["key"].(string)
		value, vok := m["value"].(string)
		effect, eok := m["effect"].(string)
		if _, has := m["timeAdded"]; has {
			l.add(CodeInvalidTaint, line, "remove timeAdded from the registerWithTaints entry",
				"kubelet-config.json's registerWithTaints[%d] sets timeAdded, which the kubelet's config validation rejects, so it exits", i)
			return nil, &boot{}
		}
		if m == nil || (!vok && m["value"] != nil) || (!eok && m["effect"] != nil) {
			l.add(CodeInvalidTaint, line, "write each entry as {key: K, value: V, effect: E} with string fields", "kubelet-config.json's registerWithTaints[%d] is not a taint", i)
			return nil, &boot{}
		}
		taints = append(taints, Taint{Key: key, Value: value, Effect: Effect(effect)})
	}
	if !l.configTaints(taints, line, "kubelet-config.json's registerWithTaints") {
		return nil, &boot{}
	}
	return taints, nil
}

func setPath(m map[string]any, p []string, v any) {
	for _, k := range p[:len(p)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[p[len(p)-1]] = v
}

func getPath(m map[string]any, p []string) any {
	var cur any = m
	for _, k := range p {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = obj[k]
	}
	return cur
}

// reportChanges says, once per change, what the userData does to a file
// the join reads.
func (l *linter) reportChanges(changes []fileChange) {
	for _, c := range changes {
		if c.ignored {
			continue
		}
		l.part = c.part
		l.add(CodeBootFileEdit, c.line, "pass kubelet settings through the join's own arguments instead of editing its files",
			"this changes %s (%s), a file the join or the kubelet reads; Lint applies the change where it can follow it, and what the kubelet registers follows from it", c.what(), c.how)
	}
	l.part = ""
}

// configFromText applies the edits of kubelet-config.json, in order, to
// the text of the AMIs the analysis runs for (linter.layout): sed to its
// lines, jq to its first JSON value (which jq then writes pretty). The
// keys whose values differ from the AMI's are what the userData sets;
// removing one of the AMI's is not followed.
func (l *linter) configFromText(f al2Files) (cfg map[string]any, keyLines map[string]int, line int, stop *boot) {
	text := l.layout.text
	base, _ := firstJSONObject(text)
	jq := false
	for _, e := range f.config {
		l.part = e.change.part
		if line == 0 {
			line = e.change.line
		}
		if e.sed != nil {
			next, ok := e.sed.Apply(text)
			if !ok || jq {
				b := l.unresolved(e.change.line, "set the value with jq '.key = value' instead",
					"this sed edit of kubelet-config.json uses an expression Lint does not follow, or comes after a jq edit, which rewrites the file's layout")
				return nil, nil, 0, &b
			}
			text = next
			continue
		}
		obj, ok := firstJSONObject(text)
		if !ok || !applyJQ(obj, e.Edit) {
			b := l.unresolved(e.change.line, "set the whole value with = instead", "jq cannot apply this edit of .%s to the file as the edits before left it", strings.Join(e.Path, "."))
			return nil, nil, 0, &b
		}
		out, _ := json.MarshalIndent(obj, "", "  ")
		text, jq = string(out)+"\n", true
	}
	obj, ok := firstJSONObject(text)
	if !ok {
		b := l.unresolved(line, "set the values with jq '.key = value' instead",
			"after the edits, kubelet-config.json %s does not start with a JSON object; what bootstrap.sh's jq and the kubelet then do is not followed", l.layout.where())
		return nil, nil, 0, &b
	}
	cfg, keyLines = map[string]any{}, map[string]int{}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !reflect.DeepEqual(base[k], obj[k]) {
			cfg[k], keyLines[k] = obj[k], line
		}
	}
	for k := range base {
		if _, kept := obj[k]; !kept {
			b := l.unresolved(line, "leave the AMI's keys in kubelet-config.json", "the edits remove .%s of kubelet-config.json %s, which Lint does not follow", k, l.layout.where())
			return nil, nil, 0, &b
		}
	}
	return cfg, keyLines, line, nil
}

// applyJQ applies one jq edit to an object as jq does; false when jq
// fails.
func applyJQ(obj map[string]any, e edit.Edit) bool {
	switch e.Op {
	case edit.Set:
		setPath(obj, e.Path, e.Value)
	case edit.Add:
		sum, ok := edit.AddValues(getPath(obj, e.Path), e.Value)
		if !ok {
			return false
		}
		setPath(obj, e.Path, sum)
	case edit.Delete:
		if len(e.Path) != 1 {
			return false
		}
		delete(obj, e.Path[0])
	default:
		return false
	}
	return true
}
