package userdata

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/cloudinit"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/shell"
)

// script is one shell script cloud-init runs, and where it came from.
type script struct {
	cloudinit.Script
	part string // the part's file name in reports; "" for single-part userData
}

// absLine maps a line of the script to a line of the userData.
func (s *script) absLine(n int) int {
	switch {
	case s.Line == 0 || n == 0:
		return 0
	case s.Fixed:
		return s.Line
	}
	return s.Line + n - 1
}

// located is a recorded call and the script it is in.
type located struct {
	call   shell.Call
	script *script
}

// lintCloudInit follows cloud-init through AL2 userData to the
// bootstrap.sh calls, then follows the first call to the kubelet.
func (l *linter) lintCloudInit(text []byte) boot {
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

// cloudInitScripts returns the scripts cloud-init runs, in run order,
// reporting those it cannot execute. stop is set when the userData cannot
// be followed (an opaque part, a MIME error).
func (l *linter) cloudInitScripts(text []byte, target string) ([]*script, *boot) {
	planned, opaque, err := cloudinit.Plan(text)
	if err != nil {
		l.add(CodeSyntax, 0, "write the MIME document with a Content-Type header, a boundary and --boundary delimiter lines",
			"cloud-init cannot read the MIME userData: %v", err)
		return nil, &boot{}
	}
	multipart := mimedoc.LooksMIME(text)
	partName := func(name string) string {
		if multipart {
			return name
		}
		return ""
	}
	if len(opaque) > 0 {
		o := opaque[0]
		l.part = partName(o.Part)
		b := l.unresolved(o.Line, "replace the part with a plain #!/bin/bash script or inert cloud-config", "%s: the linter cannot tell what it runs", o.Reason)
		return nil, &b
	}
	var out []*script
	for _, p := range planned {
		s := &script{Script: p, part: partName(p.Part)}
		l.part = s.part
		if !l.runnable(s, target) {
			continue
		}
		out = append(out, s)
	}
	l.part = ""
	return out, nil
}

// runnable reports whether a script is a shell script the linter reads.
// A script without "#!" cannot be executed (the kernel refuses it); a
// script for another interpreter is checked for the target's name only.
func (l *linter) runnable(s *script, target string) bool {
	if s.Interpreter == "" {
		if len(bytes.TrimSpace(s.Body)) > 0 && (s.part != "" || bytes.HasPrefix(bytes.TrimSpace(s.Body), []byte("#"))) {
			l.add(CodeNotExecutable, s.absLine(1), "make #!/bin/bash the first line of the script",
				"this script does not start with \"#!\", so cloud-init cannot execute it (\"Exec format error\") and nothing in it runs")
		} else if len(bytes.TrimSpace(s.Body)) > 0 {
			l.add(CodeNotExecutable, 1, "start the script with #!/bin/bash",
				"the userData does not start with \"#!\" (or #cloud-config, or a MIME header), so cloud-init ignores it and nothing in it runs")
		}
		return false
	}
	return true
}

// allCalls walks every script and returns the target's calls in run
// order. stop is set, after a CodeUnresolved problem, when a script that
// runs does something the linter cannot follow.
func (l *linter) allCalls(scripts []*script, target string) ([]located, *boot) {
	var calls []located
	for _, s := range scripts {
		l.part = s.part
		found, stop := l.scriptCalls(s, target)
		if stop != nil {
			return nil, stop
		}
		if len(found) > 0 && s.MayNotRun != "" {
			b := l.unresolved(s.PartLine, "use a text/x-shellscript part", "%s, and this one calls %s", s.MayNotRun, target)
			return nil, &b
		}
		calls = append(calls, found...)
	}
	l.part = ""
	return calls, nil
}

// scriptCalls walks one script and returns its calls of target. Bash runs
// the complete commands before a syntax error, so those are kept.
func (l *linter) scriptCalls(s *script, target string) ([]located, *boot) {
	if !isShellInterpreter(s.Interpreter) {
		b := l.unresolved(s.absLine(1), "write the part as a #!/bin/bash script",
			"this part runs %s, which can call %s or start the kubelet in ways a shell linter cannot see", s.Interpreter, target)
		return nil, &b
	}
	if i := bytes.IndexAny(s.Body, "\r\u0080\u0081"); i >= 0 {
		b := l.unresolved(s.absLine(lineAt(s.Body, i)), "remove carriage returns and control characters from the script",
			"the script contains a carriage return (CRLF line ends that cloud-init does not convert, because the first line ends in LF) or the control character U+0080/U+0081, which bash keeps but the linter's shell parser cannot read faithfully")
		return nil, &b
	}
	r, err := shell.Walk(s.Body, target, kubeletExtraArgs)
	var se *shell.SyntaxError
	if errors.As(err, &se) {
		l.add(CodeSyntax, s.absLine(se.Line), "fix the shell syntax", "bash stops at this syntax error: %v", err)
	}
	if len(r.Opaque) > 0 {
		b := l.unresolved(s.absLine(r.Opaque[0].Line), "call "+target+" directly, with literal arguments, from the script itself",
			"%s: the linter cannot follow it, and it may call %s or start the kubelet", r.Opaque[0].What, target)
		return nil, &b
	}
	if r.SkipsTarget && l.stop.line == 0 {
		l.stop = stopBefore{line: s.absLine(r.StopLine), part: s.part, why: r.StopWhy}
	}
	if len(r.Calls) > 0 && (s.Stage == cloudinit.StageBoothook || s.Stage == cloudinit.StageBootcmd) {
		b := l.unresolved(s.PartLine, "call "+target+" from a #!/bin/bash script part or runcmd",
			"this %s runs in cloud-init's init stage, on every boot, before the network and instance metadata it needs may be ready; whether the call succeeds there is not known", stageName(s.Stage))
		return nil, &b
	}
	out := make([]located, 0, len(r.Calls))
	for _, c := range r.Calls {
		out = append(out, located{call: c, script: s})
	}
	return out, nil
}

// al2KubeletPaths are the kubelet's config file and unit drop-ins on AL2.
var al2KubeletPaths = []string{"/etc/kubernetes/kubelet", "kubelet-config.json", "/etc/systemd/system/kubelet.service", "/var/lib/kubelet"}

// stopBefore is the first place a script certainly stops before a later
// mention of the join.
type stopBefore struct {
	line int
	part string
	why  string
}

func stageName(s cloudinit.Stage) string {
	if s == cloudinit.StageBootcmd {
		return "bootcmd"
	}
	return "boothook"
}

func isShellInterpreter(prog string) bool {
	switch path.Base(prog) {
	case "bash", "sh", "dash":
		return true
	}
	return false
}

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
