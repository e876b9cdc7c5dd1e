package userdata

import (
	"bytes"
	"errors"
	"path"
	"slices"

	"github.com/ec2select/ec2select/userdata/internal/cloudinit"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
	"github.com/ec2select/ec2select/userdata/internal/shell"
)

// script is one shell script cloud-init runs, where it came from, and
// what walking it found.
type script struct {
	cloudinit.Script
	part  string // the part's file name in reports; "" for single-part userData
	index int    // its place in the order cloud-init runs the scripts
	walk  shell.Result
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
	index  int // its place among all the calls of the userData
}

// at orders events: the script's place in the run order, then the event's
// place in the script. write_files runs before every script that can
// call the join (cloud_init_modules, or write-files-deferred before
// scripts-user).
type at struct{ script, seq int }

func (a at) before(b at) bool { return a.script < b.script || a.script == b.script && a.seq < b.seq }

func (c located) at() at { return at{c.script.index, c.call.Seq} }

// fileChange is a change the userData makes to a file the join reads: a
// write_files entry, or a command of a script.
type fileChange struct {
	shell.FileOp
	script *script // nil for write_files
	part   string
	line   int // in the userData
	when   at
	how    string // the command or "write_files", for people
	// ignored: a file the join does not read (written by write_files; the
	// walk records only the files it watches).
	ignored bool
}

// what names the changed file for people.
func (c fileChange) what() string {
	if c.Path == "" {
		return "a file only known at boot, which may be one the join reads"
	}
	return c.Path
}

// cloudInit is what cloud-init runs from userData, walked for one join.
type cloudInit struct {
	scripts []*script
	changes []fileChange
	starts  []kubeletStart
	// python2Differs says how Python 2.7's email parser reads the MIME
	// document differently from Python 3's ("" when they agree).
	python2Differs string
	// horizon, when set, is the first point in run order the analysis
	// cannot follow past; the scripts, changes, starts and calls above
	// are those before it.
	horizon *horizon
}

// horizon is the first construct, in the order cloud-init runs the
// scripts, that the analysis cannot follow (eval, a command only known at
// boot, another interpreter): what runs before it is known, what runs
// after it is not.
type horizon struct {
	when at
	// stop is the Unresolved boot it makes, and problems the problems
	// that say why, held back until the verdict is known.
	stop     boot
	problems []Problem
	// later are the calls of the join after it, which run after it if at
	// all.
	later []located
	// endsOnly: all the script can do there is end early (an exit, or a
	// failure under set -e, in a branch).
	endsOnly bool
}

// skipsNoJoin reports a horizon that can only end its script early,
// where nothing after it in that script matters to the join (a call of
// it, a change of its files, a kubelet start): it then decides only
// whether inert commands run, and a later script runs whatever this one
// does.
func (ci *cloudInit) skipsNoJoin() bool {
	h := ci.horizon
	if h == nil || !h.endsOnly {
		return false
	}
	for _, s := range ci.scripts {
		if s.index != h.when.script {
			continue
		}
		var seqs []int
		for _, c := range s.walk.Calls {
			seqs = append(seqs, c.Seq)
		}
		for _, op := range s.walk.Files {
			seqs = append(seqs, op.Seq)
		}
		for _, st := range s.walk.Starts {
			seqs = append(seqs, st.Seq)
		}
		for _, seq := range seqs {
			if h.when.before(at{s.index, seq}) {
				return false
			}
		}
	}
	return true
}

// unfollowable returns the Unresolved boot of the horizon, with its
// problems.
func (l *linter) unfollowable(h *horizon) boot {
	l.problems = append(l.problems, h.problems...)
	return h.stop
}

// kubeletStart is a command that may start the kubelet, in its script.
type kubeletStart struct {
	shell.Construct
	script *script
}

func (k kubeletStart) at() at { return at{k.script.index, k.Seq} }

// joinFiles says which files a family's join reads: the watch of the
// scripts' walk.
type joinFiles []string

func (j joinFiles) reads(p string) bool {
	p = path.Clean(p)
	for _, w := range j {
		if p == w || len(p) > len(w) && p[:len(w)] == w && p[len(w)] == '/' {
			return true
		}
	}
	return false
}

// cloudInitScripts returns the scripts cloud-init runs, in run order, each
// walked for target and the family's join files, with the changes made to
// those files. It reports the scripts it cannot execute. stop is set when
// the userData cannot be followed: an opaque part, a script in another
// language, or a construct the walk cannot follow (after a
// CodeUnresolved problem), or a MIME error.
func (l *linter) cloudInitScripts(text []byte, target string, files joinFiles) (*cloudInit, *boot) {
	planned, err := cloudinit.Plan(text)
	if err != nil {
		l.add(CodeSyntax, 0, "write the MIME document with a Content-Type header, a boundary and --boundary delimiter lines",
			"cloud-init finds no part in the MIME userData: %v", err)
		return nil, &boot{}
	}
	multipart := mimedoc.LooksMIME(text)
	partName := func(name string) string {
		if multipart {
			return name
		}
		return ""
	}
	if len(planned.Opaque) > 0 {
		o := planned.Opaque[0]
		l.part = partName(o.Part)
		b := l.unresolved(o.Line, "replace the part with a plain #!/bin/bash script or inert cloud-config", "%s: the linter cannot tell what it runs", o.Reason)
		return nil, &b
	}
	ci := &cloudInit{python2Differs: planned.Python2Differs}
	for _, w := range planned.Writes {
		ci.changes = append(ci.changes, writeChange(w, partName(w.Part), files))
	}
	var after []*script // walked past the horizon, for their calls
	for _, p := range planned.Scripts {
		s := &script{Script: p, part: partName(p.Part), index: len(ci.scripts) + len(after) + 1}
		l.part = s.part
		if !l.runnable(s) {
			continue
		}
		if ci.horizon != nil {
			mark, stopped := len(l.problems), l.stop
			l.walkScript(s, target, files)
			l.problems, l.stop = l.problems[:mark], stopped
			after = append(after, s)
			continue
		}
		mark := len(l.problems)
		stop, seq := l.walkScript(s, target, files)
		if stop != nil {
			ci.horizon = &horizon{when: at{s.index, seq}, stop: *stop, problems: slices.Clone(l.problems[mark:]), endsOnly: endsOnly(s.walk.Opaque)}
			l.problems = l.problems[:mark]
		}
		ci.add(s)
	}
	if ci.horizon != nil {
		for _, s := range after {
			for _, c := range s.walk.Calls {
				ci.horizon.later = append(ci.horizon.later, located{call: c, script: s})
			}
		}
	}
	l.part = ""
	return ci, nil
}

// add records what a walked script does before the horizon: the changes
// it makes to the join's files and the commands that may start the
// kubelet; its calls of the join are read from its walk ([linter.allCalls]).
func (ci *cloudInit) add(s *script) {
	if ci.horizon != nil && s.walk.Files == nil && s.walk.Starts == nil && s.walk.Calls == nil {
		return // stopped before anything of it was walked
	}
	ci.scripts = append(ci.scripts, s)
	for _, op := range s.walk.Files {
		if !ci.known(at{s.index, op.Seq}) {
			continue
		}
		op.Cond = op.Cond || s.MayNotRun != "" // AL2's cloud-init may not run the script at all
		ci.changes = append(ci.changes, fileChange{FileOp: op, script: s, part: s.part, line: s.absLine(op.Line), when: at{s.index, op.Seq}, how: opHow(op)})
	}
	for _, st := range s.walk.Starts {
		if ci.known(at{s.index, st.Seq}) {
			ci.starts = append(ci.starts, kubeletStart{Construct: st, script: s})
		}
	}
}

// known reports whether a point runs before the horizon.
func (ci *cloudInit) known(when at) bool {
	return ci.horizon == nil || when.before(ci.horizon.when)
}

// writeChange is a write_files entry as a change of a file the join reads;
// one it does not read is recorded too, as harmless.
func writeChange(w cloudinit.Write, part string, files joinFiles) fileChange {
	op := shell.FileOp{Line: w.Line, Path: path.Clean(w.Path), Kind: shell.OpWrite, Text: w.Content, Cond: w.MayNotRun != ""}
	switch {
	case !w.Known:
		op.Kind, op.What = shell.OpUnknown, "write_files with gzip'd or non-text content"
	case w.Append:
		op.Kind = shell.OpAppend
	}
	return fileChange{FileOp: op, part: part, line: w.Line, how: "write_files", ignored: !files.reads(op.Path)}
}

func opHow(op shell.FileOp) string {
	switch op.Kind {
	case shell.OpUnknown:
		return op.What
	case shell.OpFilter:
		return op.Tool + " " + op.Text
	case shell.OpRemove:
		return "removing it"
	}
	return "writing it"
}

// runnable reports whether a script is one cloud-init can execute. A
// script without "#!" cannot be executed (the kernel refuses it).
func (l *linter) runnable(s *script) bool {
	if s.Interpreter != "" {
		return true
	}
	if len(bytes.TrimSpace(s.Body)) > 0 && (s.part != "" || bytes.HasPrefix(bytes.TrimSpace(s.Body), []byte("#"))) {
		l.add(CodeNotExecutable, s.absLine(1), "make #!/bin/bash the first line of the script",
			"this script does not start with \"#!\", so cloud-init cannot execute it (\"Exec format error\") and nothing in it runs")
	} else if len(bytes.TrimSpace(s.Body)) > 0 {
		l.add(CodeNotExecutable, 1, "start the script with #!/bin/bash",
			"the userData does not start with \"#!\" (or #cloud-config, or a MIME header), so cloud-init ignores it and nothing in it runs")
	}
	return false
}

// walkScript walks one script for target and the join's files. Bash runs
// the complete commands before a syntax error, so what comes before it is
// kept. stop is set, after a CodeUnresolved problem, when the script
// holds something the walk cannot follow; seq is where in the script that
// is (0: before all of it), and the walk up to it is kept.
func (l *linter) walkScript(s *script, target string, files joinFiles) (stop *boot, seq int) {
	if !isShellInterpreter(s.Interpreter) {
		b := l.unresolved(s.absLine(1), "write the part as a #!/bin/bash script",
			"this part runs %s, which can call %s or start the kubelet in ways a shell linter cannot see", s.Interpreter, target)
		return &b, 0
	}
	if i := bytes.IndexAny(s.Body, "\r\u0080\u0081"); i >= 0 {
		b := l.unresolved(s.absLine(lineAt(s.Body, i)), "remove carriage returns and control characters from the script",
			"the script contains a carriage return (CRLF line ends that cloud-init does not convert, because the first line ends in LF) or the control character U+0080/U+0081, which bash keeps but the linter's shell parser cannot read faithfully")
		return &b, 0
	}
	r, err := shell.Walk(s.Body, shell.Options{Target: target, EnvName: kubeletExtraArgs, Watch: files})
	var se *shell.SyntaxError
	if errors.As(err, &se) {
		l.add(CodeSyntax, s.absLine(se.Line), "fix the shell syntax", "bash stops at this syntax error: %v", err)
	}
	s.walk = r
	if l.endsFollowed && endsOnly(r.Opaque) {
		return nil, 0 // what it records after them may run or not, which the caller takes either way
	}
	if len(r.Opaque) > 0 {
		b := l.opaque(s, r, target)
		return &b, r.Opaque[0].Seq
	}
	if r.SkipsTarget && l.stop.line == 0 {
		l.stop = stopBefore{line: s.absLine(r.StopLine), part: s.part, why: r.StopWhy}
	}
	return nil, 0
}

// opaque makes the verdict unresolved at the first construct of a walked
// script that the linter cannot follow. When the script has already
// called the target itself, the construct's own reason would hide that
// call and advise calling the target directly, which the script does: the
// reason names the call, and the fix says where the call belongs.
func (l *linter) opaque(s *script, r shell.Result, target string) boot {
	o := r.Opaque[0]
	i := slices.IndexFunc(r.Calls, func(c shell.Call) bool { return c.Seq < o.Seq && !c.InString })
	if i < 0 {
		fix := "call " + target + " directly, with literal arguments, from the script itself"
		if target == nodeadm.Command {
			fix = "write out the commands it runs, so the linter can follow them; nodeadm itself runs from its own systemd units, after the scripts"
		}
		return l.unresolved(s.absLine(o.Line), fix,
			"%s: the linter cannot follow it, and it may call %s or start the kubelet", o.What, target)
	}
	fix := "make the " + target + " call the script's last command, after everything the linter must follow"
	if target == nodeadm.Command {
		fix = "remove the script's nodeadm calls; nodeadm runs from its own systemd units, after the scripts"
	}
	return l.unresolved(s.absLine(o.Line), fix,
		"this script calls %s itself (its line %d), and then comes %s, which the linter cannot follow: which of its %s calls run, and what runs after them, cannot be told",
		target, r.Calls[i].Line, o.What, target)
}

// allCalls returns the target's calls in run order. stop is set, after a
// CodeUnresolved problem, when a call's script may not run or runs too
// early to be followed.
func (l *linter) allCalls(ci *cloudInit, target string) ([]located, *boot) {
	var calls []located
	for _, s := range ci.scripts {
		if len(s.walk.Calls) == 0 {
			continue
		}
		l.part = s.part
		if s.MayNotRun != "" {
			b := l.unresolved(s.PartLine, "use a text/x-shellscript part", "%s, and this one calls %s", s.MayNotRun, target)
			return nil, &b
		}
		if s.Stage == cloudinit.StageBoothook || s.Stage == cloudinit.StageBootcmd {
			b := l.unresolved(s.PartLine, "call "+target+" from a #!/bin/bash script part or runcmd",
				"this %s runs in cloud-init's init stage, on every boot, before the network and instance metadata it needs may be ready; whether the call succeeds there is not known", stageName(s.Stage))
			return nil, &b
		}
		for _, c := range s.walk.Calls {
			if ci.known(at{s.index, c.Seq}) {
				calls = append(calls, located{call: c, script: s, index: len(calls)})
			}
		}
	}
	l.part = ""
	return calls, nil
}

// startBefore makes the verdict unresolved when a command may start the
// kubelet before join runs (all of them when join is nil): the kubelet
// then registers with what its files say at that moment, which the join
// has not written yet.
func (l *linter) startBefore(ci *cloudInit, join *located) *boot {
	for _, st := range ci.starts {
		if join != nil && join.at().before(st.at()) {
			continue
		}
		l.part = st.script.part
		b := l.unresolved(st.script.absLine(st.Line), "remove the command; the join starts the kubelet",
			"%s may start the kubelet before the join has configured it, and the kubelet then registers the node with what its files say at that moment", st.What)
		return &b
	}
	return nil
}

// unfollowed makes the verdict unresolved at the first change of a file
// the join reads that the analysis does not follow.
func (l *linter) unfollowed(changes []fileChange, why string) *boot {
	for _, c := range changes {
		if c.ignored {
			continue
		}
		l.part = c.part
		b := l.unresolved(c.line, "put the kubelet settings in the join's own arguments or configuration instead",
			"this changes %s (%s), %s", c.what(), c.how, why)
		return &b
	}
	return nil
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

// changesBefore are the changes that matter made before a point.
func changesBefore(changes []fileChange, when at) []fileChange {
	var out []fileChange
	for _, c := range changes {
		if !c.ignored && c.when.before(when) {
			out = append(out, c)
		}
	}
	return out
}

// changesAfter are the changes that matter made after a point.
func changesAfter(changes []fileChange, when at) []fileChange {
	return slices.DeleteFunc(slices.Clone(changes), func(c fileChange) bool { return c.ignored || !when.before(c.when) })
}

// kubeletExtraArgs is the environment variable bootstrap.sh reads its
// kubelet arguments from. The walk of every script records it at each
// call; cloud-init's environment never has it, so a script sees it unset.
const kubeletExtraArgs = "KUBELET_EXTRA_ARGS"

// endsOnly reports constructs that can only end a script early.
func endsOnly(cs []shell.Construct) bool {
	for _, c := range cs {
		if !c.EndsOnly {
			return false
		}
	}
	return true
}
