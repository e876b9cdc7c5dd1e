package userdata

import (
	"bytes"
	"errors"
	"path"

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

// kubeletExtraArgs is the environment variable bootstrap.sh reads its
// kubelet arguments from. The walk of every script records it at each
// call; cloud-init's environment never has it, so a script sees it unset.
const kubeletExtraArgs = "KUBELET_EXTRA_ARGS"
