package userdata

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/shell"
	"github.com/ec2select/ec2select/userdata/internal/systemd"
)

// bootstrapScript is the base name of AL2's join, /etc/eks/bootstrap.sh.
const bootstrapScript = "bootstrap.sh"

// al2Trace is what the AL2 analysis learnt on its way to the join:
// cloud-init's scripts and the changes they make, and, for each
// bootstrap.sh call it followed to the kubelet, what that call passes.
type al2Trace struct {
	ci     *cloudInit
	joins  map[int]joinTrace // by the call's index among the calls
	joined int               // the index of the call that starts the kubelet; -1 when none
}

// joinTrace is one bootstrap.sh call followed to the kubelet.
type joinTrace struct {
	at    located
	call  bootstrapCall
	files al2Files
	// argv are the kubelet's arguments from KUBELET_EXTRA_ARGS, as systemd
	// splits them; extra is that value before the split, and given the
	// value --kubelet-extra-args (or the environment) gave bootstrap.sh.
	argv         []string
	extra, given string
}

// al2Trace returns the trace Migrate asked for, nil when none.
func (l *linter) al2Trace() *al2Trace {
	t, _ := l.trace.(*al2Trace)
	return t
}

// lintAL2 follows cloud-init through AL2 userData to the bootstrap.sh
// calls, with what the userData does to the files they read, then follows
// the first call that starts the kubelet to the kubelet.
func (l *linter) lintAL2(text []byte) boot {
	ci, stop := l.cloudInitScripts(text, bootstrapScript, al2JoinFiles)
	if stop != nil {
		return *stop
	}
	if ci.skipsNoJoin() {
		// An exit in a branch, with no join after it in its script, only
		// decides whether what follows it runs: read it all as possibly
		// running, which the analysis takes either way.
		l.endsFollowed = true
		ci, stop = l.cloudInitScripts(text, bootstrapScript, al2JoinFiles)
		l.endsFollowed = false
		if stop != nil {
			return *stop
		}
	}
	if t := l.al2Trace(); t != nil {
		t.ci = ci
	}
	if ci.python2Differs != "" {
		// AL2's cloud-init (19.3-46.amzn2) is not upstream's Python 3 build.
		return l.unresolved(0, "start every header line of the MIME document with a name", "%s", ci.python2Differs)
	}
	if ci.horizon != nil {
		return l.beforeHorizon(ci)
	}
	if editsConfigText(ci) {
		return l.followLayouts(ci)
	}
	return l.followAL2(ci)
}

// editsConfigText reports a sed edit of kubelet-config.json, whose effect
// depends on the file's text, which AL2 AMIs have shipped in several
// layouts (al2ConfigLayouts).
func editsConfigText(ci *cloudInit) bool {
	return slices.ContainsFunc(ci.changes, func(c fileChange) bool {
		return !c.ignored && c.Path == al2KubeletConfig && c.Kind == shell.OpFilter && c.Tool == "sed"
	})
}

// followLayouts follows the boot once for each text of kubelet-config.json
// the AMIs the node may run ship. The outcome is certain when every text
// gives the same (verdict and taints, the kubelet refusing or not); the
// kubelet configuration reported is then what they agree on.
func (l *linter) followLayouts(ci *cloudInit) boot {
	mark := len(l.problems)
	var first boot
	var problems []Problem
	n := 0
	for _, layout := range al2ConfigLayouts() {
		if layout.releases&l.releases == 0 {
			continue
		}
		l.layout = layout
		l.problems = l.problems[:mark]
		b := l.kubeletRefuses(l.followAL2(ci))
		if n++; n == 1 {
			first, problems = b, slices.Clone(l.problems)
			continue
		}
		if !sameOutcome(b, first) {
			l.problems = problems
			return l.unresolved(0, "set the kubelet's settings with --kubelet-extra-args, or with jq '.key = value' on kubelet-config.json",
				"the edits of kubelet-config.json give the node another outcome on the AMIs whose file is %s than %s, and the userData does not say which AMIs the node runs (give Lint the Kubernetes version)",
				layout.name, "on the others")
		}
		first.kubeletVals = commonValues(first.kubeletVals, b.kubeletVals)
	}
	l.problems = problems
	return first
}

// beforeHorizon follows the boot up to the first construct the analysis
// cannot follow. When a join runs before it, what that join does is
// certain and is reported (the kubelet starts and registers with that
// call's taints and settings: a required taint it lacks is missing
// whatever comes later); the verdict stays Unresolved, for what runs
// after the horizon may still change the node.
func (l *linter) beforeHorizon(ci *cloudInit) boot {
	if !ci.joinsBefore() {
		return l.unfollowable(ci.horizon) // the join may come after it
	}
	b := l.followAL2(ci)
	if b.unresolved {
		return b
	}
	if b = l.kubeletRefuses(b); b.verdict() == Joins {
		l.checkRequired(b)
	}
	if b.unresolved {
		return b
	}
	return l.unfollowable(ci.horizon)
}

// joinsBefore reports whether a script calls the join before the horizon.
func (ci *cloudInit) joinsBefore() bool {
	for _, s := range ci.scripts {
		for _, c := range s.walk.Calls {
			if ci.known(at{s.index, c.Seq}) {
				return true
			}
		}
	}
	return false
}

// followAL2 follows the bootstrap.sh calls cloud-init runs, with the
// changes the userData makes to the files they read.
func (l *linter) followAL2(ci *cloudInit) boot {
	l.reportChanges(ci.changes)
	calls, stop := l.allCalls(ci, bootstrapScript)
	if stop != nil {
		return *stop
	}
	if len(calls) == 0 {
		if stop := l.startBefore(ci, nil); stop != nil {
			return *stop
		}
		if l.stop.line > 0 {
			l.part = l.stop.part
			l.add(CodeNoBootstrap, l.stop.line, "remove the command, or guard it (|| true), so that the script reaches bootstrap.sh",
				"the script stops here (%s), before its bootstrap.sh call, so the node never joins the cluster", l.stop.why)
			return boot{}
		}
		l.part = ""
		l.add(CodeNoBootstrap, 0, "call /etc/eks/bootstrap.sh CLUSTER --kubelet-extra-args '--register-with-taints=...' from a #!/bin/bash script",
			"no script in the userData calls /etc/eks/bootstrap.sh, so the node never joins the cluster")
		return boot{}
	}
	if stop := l.startBefore(ci, &calls[0]); stop != nil {
		return *stop
	}
	b, joined := l.firstBootstrap(ci, calls)
	if t := l.al2Trace(); t != nil && joined != nil {
		t.joined = joined.index
	}
	if joined == nil {
		if stop := l.startBefore(ci, nil); stop != nil {
			return *stop // every call exits before starting the kubelet, and something else starts it
		}
		return b
	}
	if stop := l.restartAfter(ci, *joined); stop != nil {
		return *stop
	}
	return b
}

// restartAfter reads what runs after the join: the kubelet registers the
// node once, with the arguments and files it started with, so a later
// command matters only if it changes the kubelet's files and then
// restarts it, which may happen before the node has registered.
func (l *linter) restartAfter(ci *cloudInit, join located) *boot {
	later := changesAfter(ci.changes, join.at())
	for _, st := range ci.starts {
		if !join.at().before(st.at()) {
			continue
		}
		for _, c := range later {
			if c.when.before(st.at()) {
				l.part = st.script.part
				b := l.unresolved(st.script.absLine(st.Line), "pass every kubelet setting to bootstrap.sh, and do not restart the kubelet after it",
					"%s restarts the kubelet after line %d changed %s, which may happen before the node has registered; whether it registers with the old or the new settings is not known", st.What, c.line, c.Path)
				return &b
			}
		}
	}
	return nil
}

// firstBootstrap follows the calls in the order they run. A call after
// which bootstrap.sh exits before starting the kubelet does not register
// the node, and the script goes on to its next call unless errexit ends
// it. The first call that starts the kubelet registers the node
// (--register-with-taints only acts on first registration); conditional
// calls before it may run first, so they must agree with it. When every
// call is conditional, the node joins only if the calls cover every arm of
// one if/else or case clause (or are the argument lists of one call, see
// [shell.Call.Choice]); otherwise whether it joins is not known. joined
// is the first call that may start the kubelet, nil when none does.
func (l *linter) firstBootstrap(ci *cloudInit, calls []located) (b boot, joined *located) {
	var firsts []located
	ended := map[*script]bool{}
	for i, c := range calls {
		if ended[c.script] {
			continue
		}
		l.part = c.script.part
		b, exited := l.bootstrap(ci, c)
		uncertainEnd := c.call.ErrexitMaybe || c.call.Errexit && c.call.Cond
		switch {
		case exited && uncertainEnd && l.laterCallIn(calls[i+1:], c.script):
			return l.unresolved(c.script.absLine(c.call.Line), "set errexit unconditionally, or not at all, and call bootstrap.sh once",
				"bootstrap.sh exits here, and whether errexit then ends the script before its next bootstrap.sh call depends on conditions only known at boot"), &c
		case exited:
			ended[c.script] = c.call.Errexit && !c.call.Cond
			continue
		}
		firsts = append(firsts, c)
		if c.call.Cond {
			continue
		}
		l.reportRepeats(ci.withLater(calls), firsts)
		return l.agree(ci, firsts, b), &firsts[0]
	}
	if len(firsts) == 0 {
		return boot{}, nil // every call exits; each said why
	}
	l.reportRepeats(ci.withLater(calls), firsts)
	last, _ := l.bootstrap(ci, firsts[len(firsts)-1])
	b = l.agree(ci, firsts, last)
	if b.verdict() == Joins && !l.someCallRuns(firsts) {
		f := firsts[0]
		l.part = f.script.part
		return l.unresolved(f.script.absLine(f.call.Line), "call bootstrap.sh unconditionally",
			"every bootstrap.sh call is conditional, so whether any runs, and the node joins, depends on conditions only known at boot"), &firsts[0]
	}
	return b, &firsts[0]
}

// withLater adds to calls those after the horizon: if they run, they run
// after every call before it.
func (ci *cloudInit) withLater(calls []located) []located {
	if ci.horizon == nil {
		return calls
	}
	out := slices.Clone(calls)
	for _, c := range ci.horizon.later {
		c.index = len(out)
		out = append(out, c)
	}
	return out
}

// someCallRuns reports whether one of the conditional calls certainly
// runs ([shell.Exhaustive]: they cover every arm of one if/else or case
// with a default arm, and that clause itself runs).
func (l *linter) someCallRuns(firsts []located) bool {
	calls := make([]shell.Call, len(firsts))
	for i, f := range firsts {
		if f.script != firsts[0].script {
			return false
		}
		calls[i] = f.call
	}
	return shell.Exhaustive(calls)
}

// laterCallIn reports whether calls has one in script s.
func (l *linter) laterCallIn(calls []located, s *script) bool {
	for _, c := range calls {
		if c.script == s {
			return true
		}
	}
	return false
}

// agree returns b, the result of the last of firsts, when every possible
// first call registers the same taints; otherwise the verdict is
// unresolved.
func (l *linter) agree(ci *cloudInit, firsts []located, b boot) boot {
	last := firsts[len(firsts)-1]
	for _, f := range firsts[:len(firsts)-1] {
		l.part = f.script.part
		other, _ := l.bootstrap(ci, f)
		if sameOutcome(other, b) {
			continue
		}
		if choice := last.call.Choice; choice > 0 && allChoices(firsts) {
			return l.unresolved(last.script.absLine(choice), "register the same taints on every branch, or set the kubelet arguments unconditionally",
				"the arguments of the bootstrap.sh call on line %d depend on which branch of this conditional runs, only known at boot, and the kubelet registers different taints with them", last.script.absLine(last.call.Line))
		}
		var lines []string
		for _, f := range firsts {
			lines = append(lines, fmt.Sprint(f.script.absLine(f.call.Line)))
		}
		return l.unresolved(last.script.absLine(last.call.Line), "register the same taints on every path, or call bootstrap.sh once, unconditionally",
			"which bootstrap.sh call runs first (lines %s) depends on conditions only known at boot, and they register different taints", strings.Join(lines, ", "))
	}
	l.part = ""
	b.part = last.script.part
	if len(firsts) > 1 {
		b = l.commonKubelet(ci, firsts[:len(firsts)-1], b)
	}
	return b
}

// commonKubelet keeps, of b's labels and kubelet settings, those every
// possible first call agrees on: the others depend on which runs.
func (l *linter) commonKubelet(ci *cloudInit, others []located, b boot) boot {
	mark := len(l.problems)
	defer func() { l.problems = l.problems[:mark] }()
	labels := maps.Clone(b.labels)
	vals := b.kubeletVals
	for _, f := range others {
		other, _ := l.bootstrap(ci, f)
		for k, v := range labels {
			if other.labels[k] != v {
				delete(labels, k)
			}
		}
		vals = commonValues(vals, other.kubeletVals)
	}
	b.labels, b.kubeletVals = labels, vals
	return b
}

// sameOutcome reports whether two analyses agree on what matters: whether
// the kubelet registers, whether that is known, and with which taints.
func sameOutcome(a, b boot) bool {
	return a.registers == b.registers && a.unresolved == b.unresolved && slices.Equal(sortedTaints(a.taints), sortedTaints(b.taints))
}

// allChoices reports whether the calls are the argument lists of one call.
func allChoices(calls []located) bool {
	for _, c := range calls {
		if c.call.Choice == 0 || c.script != calls[0].script || c.call.Seq != calls[0].call.Seq {
			return false
		}
	}
	return true
}

// reportRepeats reports each possible first call that a later call can
// follow: the later call runs after the kubelet has registered the node.
func (l *linter) reportRepeats(calls, firsts []located) {
	reported := map[int]bool{}
	for _, f := range firsts {
		j := slices.IndexFunc(calls, func(c located) bool { return c.index == f.index })
		var again []string
		for _, c := range calls[j+1:] {
			if !shell.Exclusive(f.call, c.call) {
				again = append(again, fmt.Sprint(c.script.absLine(c.call.Line)))
			}
		}
		line := f.script.absLine(f.call.Line)
		if len(again) > 0 && !reported[line] {
			reported[line] = true
			l.part = f.script.part
			l.add(CodeMultipleBootstrap, line, fmt.Sprintf("remove the call on line %d and keep a single call with all kubelet arguments", line),
				"bootstrap.sh is called here and again on line %s; this first call starts the kubelet, which registers the node with this call's taints before the later call runs (--register-with-taints only acts on first registration)",
				strings.Join(again, ", "))
		}
	}
}

func sortedTaints(ts []Taint) []Taint {
	out := slices.Clone(ts)
	slices.SortFunc(out, compareTaints)
	return out
}

// bootstrap follows one bootstrap.sh call with what the userData did to
// the files it reads before it ran. A change that may not run (in a
// branch) is followed both ways: the outcome is certain only when both
// agree (at most maxCondChanges such changes).
// exited is true when bootstrap.sh itself exits before starting the
// kubelet, so that a later call can still be the one that does.
func (l *linter) bootstrap(ci *cloudInit, lc located) (b boot, exited bool) {
	changes := changesBefore(ci.changes, lc.at())
	var certain, cond []fileChange
	for _, c := range changes {
		if c.Cond {
			cond = append(cond, c)
		} else {
			certain = append(certain, c)
		}
	}
	if len(cond) > maxCondChanges {
		l.part = cond[0].part
		return l.unresolved(cond[0].line, "change the kubelet's files unconditionally, or not at all",
			"%d changes of the join's files may or may not run, depending on conditions only known at boot", len(cond)), false
	}
	mark := len(l.problems)
	for mask := (1 << len(cond)) - 1; mask >= 0; mask-- {
		applied := slices.Clone(certain)
		for i, c := range cond {
			if mask&(1<<i) != 0 {
				applied = append(applied, c)
			}
		}
		slices.SortStableFunc(applied, func(x, y fileChange) int {
			if x.when.before(y.when) {
				return -1
			}
			if y.when.before(x.when) {
				return 1
			}
			return 0
		})
		got, gotExited := l.bootstrapWith(lc, applied)
		if mask == (1<<len(cond))-1 {
			b, exited, mark = got, gotExited, len(l.problems)
			continue
		}
		l.problems = l.problems[:mark] // the reported outcome is the one with every change
		if !sameOutcome(got, b) || gotExited != exited {
			l.part = cond[0].part
			return l.unresolved(cond[0].line, "change the kubelet's files unconditionally, or not at all",
				"whether this change of %s runs depends on conditions only known at boot, and the kubelet registers different taints with and without it", cond[0].Path), false
		}
	}
	return b, exited
}

// maxCondChanges bounds the conditional file changes followed both ways.
const maxCondChanges = 3

// bootstrapWith follows one bootstrap.sh call: its argument parsing, the
// checks that make it exit before starting the kubelet, the systemd
// drop-in it writes, and the kubelet, with the files as changes made them.
func (l *linter) bootstrapWith(lc located, changes []fileChange) (b boot, exited bool) {
	c, s := lc.call, lc.script
	line := s.absLine(c.Line)
	if c.UnknownName {
		return l.unresolved(line, "call /etc/eks/bootstrap.sh by a literal path",
			"the command on this line looks like bootstrap.sh but its path is only known at boot, so the linter cannot follow it"), false
	}
	files, stop := l.al2FilesFrom(changes)
	l.part = s.part
	if stop == nil {
		var call bootstrapCall
		call, stop = l.bootstrapArgs(s, c)
		if stop == nil {
			stop = l.unknownValues(s, call)
		}
		if stop == nil {
			stop = l.bootstrapExits(call, line)
		}
		if stop == nil {
			b := l.extraArgs(s, c, call, line, files)
			if t := l.al2Trace(); t != nil && b.registers && !b.unresolved {
				t.joins[lc.index] = joinTrace{at: lc, call: call, files: files, argv: b.argv, extra: b.extra, given: b.given}
			}
			return b, false
		}
	}
	return *stop, !stop.unresolved
}

// extraArgs follows --kubelet-extra-args (or KUBELET_EXTRA_ARGS from the
// environment) through the lines sed added to bootstrap.sh and the
// systemd drop-ins to the kubelet, and the kubelet's config file as the
// userData left it.
func (l *linter) extraArgs(s *script, c shell.Call, call bootstrapCall, line int, files al2Files) boot {
	b := boot{registers: true, line: line}
	for _, a := range call.positional[1:] {
		code := CodeIgnoredArgument
		if equalsOption(a.Value) != "" {
			code = CodeEqualsForm
		}
		b.dropped = append(b.dropped, droppedArg{taints: taintsIn(a.Value), code: code})
	}
	dns, dnsSet := call.opts["--dns-cluster-ip"]
	value := c.Env
	if extra, ok := call.opts["--kubelet-extra-args"]; ok {
		b.line = call.optLines["--kubelet-extra-args"]
		if !extra.Known {
			return l.unresolved(s.absLine(extra.Origin), "write the kubelet arguments literally",
				"the value of --kubelet-extra-args is only known at boot, so the linter cannot tell which taints the kubelet registers")
		}
		value = shell.Var{Value: extra.Value, Known: true, Set: true}
	} else if !value.Known {
		return l.unresolved(line, "set KUBELET_EXTRA_ARGS literally, or pass --kubelet-extra-args '...'",
			"KUBELET_EXTRA_ARGS in bootstrap.sh's environment is only known at boot, so the linter cannot tell which taints the kubelet registers")
	}
	extra, stop := l.insertedArgs(files, value.Value)
	if stop != nil {
		return *stop
	}
	l.part = s.part
	// bootstrap.sh sets maxPods when USE_MAX_PODS is "true" (L530-532).
	useMaxPods := true
	if v, ok := call.value("--use-max-pods"); ok {
		useMaxPods = v == "true"
	}
	cfg, fileTaints, taintLine, keyLines, stop := l.kubeletConfigFile(files, useMaxPods)
	if stop != nil {
		return *stop
	}
	configVals, err := kubeletFromConfig(cfg, "kubelet-config.json", func(key string) int {
		for _, k := range slices.Sorted(maps.Keys(keyLines)) {
			if strings.EqualFold(k, key) {
				return keyLines[k]
			}
		}
		return 0
	})
	if err != nil {
		return l.unresolved(taintLine, "write kubelet-config.json's fields as a KubeletConfiguration types them", "%v, so the kubelet cannot load its config", err)
	}
	args, stop := l.kubeletArgv(files, extra, b.line)
	if stop != nil {
		return *stop
	}
	b.argv, b.extra, b.given = args, extra, value.Value
	l.part = s.part
	// Feature gates are judged per release with the rest of the
	// configuration (kubeletRefuses). The keys bootstrap.sh writes itself
	// are gone from cfg (configOverwritten), so the userData's edits and
	// bootstrap.sh's writes do not overlap.
	b.kubeletVals = al2Kubelet(dns.Value, dns.Known, dnsSet, call.optLines["--dns-cluster-ip"], useMaxPods).overlay(configVals)
	b.taints = fileTaints
	if len(fileTaints) > 0 && hasTaintFlag(args) {
		l.add(CodeFlagOverridesConfig, b.line, "remove registerWithTaints from kubelet-config.json and list its taints in --register-with-taints",
			"the kubelet flag --register-with-taints overrides registerWithTaints in kubelet-config.json (line %d: %s), so those taints are not registered", taintLine, FormatTaints(fileTaints))
	}
	return l.withKubeletArgs(b, args, "--kubelet-extra-args '...' (one flag, space after --kubelet-extra-args)", true)
}

// commonValues keeps the kubelet settings a and b agree on; the others
// are left unset.
func commonValues(a, b kubeletValues) kubeletValues {
	out := kubeletValues{cfg: a.cfg}
	for _, src := range a.list() {
		fa := reflect.ValueOf(&out.cfg).Elem().FieldByName(src.Field)
		fb := reflect.ValueOf(b.cfg).FieldByName(src.Field)
		if !fa.IsValid() {
			continue
		}
		if _, ok := b.sources[src.Field]; ok && reflect.DeepEqual(fa.Interface(), fb.Interface()) {
			out.set(src.Field, src.From, src.Line)
			continue
		}
		fa.SetZero()
	}
	return out
}

// kubeletArgv is $KUBELET_EXTRA_ARGS as the kubelet gets it: from
// bootstrap.sh's drop-in (written when value is not empty), or from a
// drop-in of the userData that systemd reads after it.
func (l *linter) kubeletArgv(files al2Files, value string, line int) ([]string, *boot) {
	env, fromUser, stop := l.extraArgsEnv(files, value)
	if stop != nil {
		return nil, stop
	}
	if fromUser != nil {
		words, _ := systemd.Split(env, false, true)
		return words, nil
	}
	args, resolved := l.dropIn(value, line)
	if !resolved {
		b := l.unresolved(line, "use only letters, digits and - _ . / = : , \" and spaces in the kubelet arguments",
			"the kubelet arguments contain a single quote, a newline or a '%%' specifier; how systemd reads the drop-in line bootstrap.sh writes then depends on its version")
		return nil, &b
	}
	return args, nil
}

// hasTaintFlag reports whether kubelet arguments give
// --register-with-taints.
func hasTaintFlag(args []string) bool { return hasFlag(args, "--register-with-taints") }

// hasFlag reports whether kubelet arguments give flag (--name or
// --name=value).
func hasFlag(args []string, flag string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		return a == flag || strings.HasPrefix(a, flag+"=")
	})
}

// dropIn follows KUBELET_EXTRA_ARGS through the systemd drop-in
// bootstrap.sh writes (only when it is not empty):
//
//	[Service]
//	Environment='KUBELET_EXTRA_ARGS=<value>'
//
// and the unbraced $KUBELET_EXTRA_ARGS in kubelet.service's ExecStart,
// returning the kubelet's arguments. resolved is false when systemd's
// result cannot be known.
func (l *linter) dropIn(value string, line int) (args []string, resolved bool) {
	if value == "" {
		return nil, true
	}
	if strings.ContainsAny(strings.ReplaceAll(value, "%%", ""), "'\\\n%") {
		l.add(CodeSystemdHazard, line, "use only letters, digits and - _ . / = : , \" and spaces in kubelet arguments; use \" (not ') to group a value",
			"the kubelet arguments %q contain %s, which bootstrap.sh copies unescaped into Environment='KUBELET_EXTRA_ARGS=...' of a systemd drop-in, where systemd rewrites or rejects them",
			value, hazardNames(value))
	}
	if strings.ContainsAny(value, "\n'") {
		return nil, false // the unit line is cut, or its quoting ends early
	}
	env, specifier, ok := systemd.Environment("'KUBELET_EXTRA_ARGS=" + value + "'")
	if specifier {
		return nil, false
	}
	if !ok {
		return nil, true // systemd ignores the line: the kubelet gets no extra arguments
	}
	words, _ := systemd.Split(env[kubeletExtraArgs], false, true)
	return words, true
}

func hazardNames(s string) string {
	var names []string
	for _, h := range []struct{ c, name string }{{"'", "a single quote"}, {`\`, "a backslash"}, {"\n", "a newline"}, {"%", "a '%' (a systemd specifier)"}} {
		if strings.Contains(s, h.c) {
			names = append(names, h.name)
		}
	}
	return strings.Join(names, ", ")
}
