package userdata

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/shell"
	"github.com/ec2select/ec2select/userdata/internal/systemd"
)

// bootstrapScript is the base name of AL2's join, /etc/eks/bootstrap.sh.
const bootstrapScript = "bootstrap.sh"

// lintAL2 follows cloud-init through AL2 userData to the
// bootstrap.sh calls, then follows the first call to the kubelet.
func (l *linter) lintAL2(text []byte) boot {
	scripts, stop := l.cloudInitScripts(text, bootstrapScript)
	if stop != nil {
		return *stop
	}
	// bootstrap.sh@0ab84280 edits /etc/kubernetes/kubelet/kubelet-config.json
	// in place and the kubelet units read drop-ins; a script that changes
	// them (registerWithTaints in the config file, say) changes what the
	// kubelet registers in a way the linter does not follow.
	if stop := l.watchedPaths(scripts, al2KubeletPaths, "which the kubelet reads after bootstrap.sh, so what it registers may not be what bootstrap.sh's arguments say"); stop != nil {
		return *stop
	}
	calls, stop := l.allCalls(scripts, bootstrapScript)
	if stop != nil {
		return *stop
	}
	if len(calls) == 0 {
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
	return l.firstBootstrap(calls)
}

// al2KubeletPaths are the kubelet's config file and unit drop-ins on AL2.
var al2KubeletPaths = []string{"/etc/kubernetes/kubelet", "kubelet-config.json", "/etc/systemd/system/kubelet.service", "/var/lib/kubelet"}

// firstBootstrap follows the calls in the order they run. A call after
// which bootstrap.sh exits before starting the kubelet does not register
// the node, and the script goes on to its next call unless errexit ends
// it. The first call that starts the kubelet registers the node
// (--register-with-taints only acts on first registration); conditional
// calls before it may run first, so they must agree with it. When every
// call is conditional, the node joins only if the calls cover every arm of
// one if/else or case clause; otherwise whether it joins is not known.
func (l *linter) firstBootstrap(calls []located) boot {
	var firsts []located
	ended := map[*script]bool{}
	for i, c := range calls {
		if ended[c.script] {
			continue
		}
		l.part = c.script.part
		b, exited := l.bootstrap(c)
		uncertainEnd := c.call.ErrexitMaybe || c.call.Errexit && c.call.Cond
		switch {
		case exited && uncertainEnd && l.laterCallIn(calls[i+1:], c.script):
			return l.unresolved(c.script.absLine(c.call.Line), "set errexit unconditionally, or not at all, and call bootstrap.sh once",
				"bootstrap.sh exits here, and whether errexit then ends the script before its next bootstrap.sh call depends on conditions only known at boot")
		case exited:
			ended[c.script] = c.call.Errexit && !c.call.Cond
			continue
		}
		firsts = append(firsts, c)
		if c.call.Cond {
			continue
		}
		l.reportRepeats(calls, firsts)
		return l.agree(firsts, b)
	}
	if len(firsts) == 0 {
		return boot{} // every call exits; each said why
	}
	l.reportRepeats(calls, firsts)
	last, _ := l.bootstrap(firsts[len(firsts)-1])
	b := l.agree(firsts, last)
	if b.verdict() == Joins && !l.someCallRuns(firsts) {
		f := firsts[0]
		l.part = f.script.part
		return l.unresolved(f.script.absLine(f.call.Line), "call bootstrap.sh unconditionally",
			"every bootstrap.sh call is conditional, so whether any runs, and the node joins, depends on conditions only known at boot")
	}
	return b
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
func (l *linter) agree(firsts []located, b boot) boot {
	last := firsts[len(firsts)-1]
	for _, f := range firsts[:len(firsts)-1] {
		l.part = f.script.part
		other, _ := l.bootstrap(f)
		if other.registers != b.registers || other.unresolved != b.unresolved || !slices.Equal(sortedTaints(other.taints), sortedTaints(b.taints)) {
			var lines []string
			for _, f := range firsts {
				lines = append(lines, fmt.Sprint(f.script.absLine(f.call.Line)))
			}
			return l.unresolved(last.script.absLine(last.call.Line), "register the same taints on every path, or call bootstrap.sh once, unconditionally",
				"which bootstrap.sh call runs first (lines %s) depends on conditions only known at boot, and they register different taints", strings.Join(lines, ", "))
		}
	}
	l.part = ""
	b.part = last.script.part
	return b
}

// reportRepeats reports each possible first call that a later call can
// follow: the later call runs after the kubelet has registered the node.
func (l *linter) reportRepeats(calls, firsts []located) {
	reported := map[int]bool{}
	for _, f := range firsts {
		j := slices.IndexFunc(calls, func(c located) bool { return c.script == f.script && c.call.Word == f.call.Word })
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

// bootstrap follows one bootstrap.sh call: its argument parsing, the
// checks that make it exit before starting the kubelet, the systemd
// drop-in it writes, and the kubelet.
// exited is true when bootstrap.sh itself exits before starting the
// kubelet, so that a later call can still be the one that does.
func (l *linter) bootstrap(lc located) (b boot, exited bool) {
	c, s := lc.call, lc.script
	line := s.absLine(c.Line)
	if c.UnknownName {
		return l.unresolved(line, "call /etc/eks/bootstrap.sh by a literal path",
			"the command on this line looks like bootstrap.sh but its path is only known at boot, so the linter cannot follow it"), false
	}
	call, stop := l.bootstrapArgs(s, c)
	if stop == nil {
		stop = l.unknownValues(s, call)
	}
	if stop == nil {
		stop = l.bootstrapExits(call, line)
	}
	if stop != nil {
		return *stop, !stop.unresolved
	}
	return l.extraArgs(s, c, call, line), false
}

// extraArgs follows --kubelet-extra-args (or KUBELET_EXTRA_ARGS from the
// environment) through the systemd drop-in to the kubelet.
func (l *linter) extraArgs(s *script, c shell.Call, call bootstrapCall, line int) boot {
	b := boot{registers: true, line: line}
	dns, dnsSet := call.opts["--dns-cluster-ip"]
	useMaxPods, ok := call.value("--use-max-pods")
	if !ok {
		useMaxPods = "true"
	}
	b.kubeletVals = al2Kubelet(dns.Value, dns.Known, dnsSet, call.optLines["--dns-cluster-ip"], useMaxPods)
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
	args, resolved := l.dropIn(value.Value, b.line)
	if !resolved {
		return l.unresolved(b.line, "use only letters, digits and - _ . / = : , \" and spaces in the kubelet arguments",
			"the kubelet arguments contain a single quote, a newline or a '%%' specifier; how systemd reads the drop-in line bootstrap.sh writes then depends on its version")
	}
	return l.withKubeletArgs(b, args, "--kubelet-extra-args '...' (one flag, space after --kubelet-extra-args)", true)
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
