package userdata

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/shell"
	"github.com/ec2select/ec2select/userdata/internal/systemd"
)

// bootstrapValueOptions are the options of AL2's /etc/eks/bootstrap.sh
// (amazon-eks-ami templates/al2/runtime/bootstrap.sh). Each is matched
// exactly and takes the next argument as its value; -h and --help print
// the usage and exit; every other word is a positional argument, the
// first of which is the cluster name, the rest silently ignored.
var bootstrapValueOptions = []string{
	"--apiserver-endpoint",
	"--aws-api-retry-attempts",
	"--b64-cluster-ca",
	"--cluster-id",
	"--container-runtime",
	"--containerd-config-file",
	"--dns-cluster-ip",
	"--docker-config-json",
	"--enable-docker-bridge",
	"--enable-local-outpost",
	"--ip-family",
	"--kubelet-extra-args",
	"--local-disks",
	"--mount-bpf-fs",
	"--pause-container-account",
	"--pause-container-version",
	"--service-ipv6-cidr",
	"--use-max-pods",
}

const (
	bootstrapScript  = "bootstrap.sh"
	kubeletExtraArgs = "KUBELET_EXTRA_ARGS"
)

// script is one shell script cloud-init runs.
type script struct {
	body  []byte
	line  int // 1-based line of body[0] in the userData; 0 if unknown
	stage int // cloud-init runs lower stages first
}

// absLine maps a line of the script to a line of the userData.
func (s *script) absLine(n int) int {
	if s.line == 0 || n == 0 {
		return 0
	}
	return s.line + n - 1
}

// cloud-init stages, in the order they run: boothooks in the init stage,
// then in the final stage scripts-per-once, scripts-per-boot,
// scripts-per-instance and scripts-user.
const (
	stageBoothook = iota
	stagePerOnce
	stagePerBoot
	stagePerInstance
	stageUser
)

// lintCloudInit follows cloud-init through AL2 userData to the
// bootstrap.sh calls, then follows the first call to the kubelet.
func (l *linter) lintCloudInit(text []byte) boot {
	scripts := l.cloudInitScripts(text)
	var calls []located
	for _, s := range scripts {
		found, ok := l.scriptCalls(s)
		if !ok {
			return boot{registers: true, unresolved: true}
		}
		calls = append(calls, found...)
	}
	if len(calls) == 0 {
		l.add(CodeNoBootstrap, 0, "call /etc/eks/bootstrap.sh CLUSTER --kubelet-extra-args '--register-with-taints=...' from a #!/bin/bash script",
			"no script in the userData calls /etc/eks/bootstrap.sh, so the node never joins the cluster")
		return boot{}
	}
	// The first call that runs starts the kubelet, which registers the node
	// (--register-with-taints only acts on first registration). Any call up
	// to the first unconditional one can be that call.
	var firsts []located
	for _, c := range calls {
		firsts = append(firsts, c)
		if !c.call.Cond {
			break
		}
	}
	reported := map[int]bool{}
	for i, f := range firsts {
		var again []string
		for _, c := range calls[i+1:] {
			if !shell.Exclusive(f.call, c.call) {
				again = append(again, fmt.Sprint(c.script.absLine(c.call.Line)))
			}
		}
		line := f.script.absLine(f.call.Line)
		if len(again) > 0 && !reported[line] {
			reported[line] = true
			l.add(CodeMultipleBootstrap, line, fmt.Sprintf("remove the call on line %d and keep a single call with all kubelet arguments", line),
				"bootstrap.sh is called here and again on line %s; this first call starts the kubelet, which registers the node with this call's taints before the later call runs (--register-with-taints only acts on first registration)",
				strings.Join(again, ", "))
		}
	}
	b := l.bootstrap(firsts[0])
	for _, f := range firsts[1:] {
		other := l.bootstrap(f)
		if other.registers != b.registers || other.unresolved != b.unresolved || !slices.Equal(sortedTaints(other.taints), sortedTaints(b.taints)) {
			var lines []string
			for _, f := range firsts {
				lines = append(lines, fmt.Sprint(f.script.absLine(f.call.Line)))
			}
			l.add(CodeUnresolved, f.script.absLine(f.call.Line), "register the same taints on every path, or call bootstrap.sh once, unconditionally",
				"which bootstrap.sh call runs first (lines %s) depends on conditions only known at boot, and they register different taints", strings.Join(lines, ", "))
			return boot{registers: true, unresolved: true}
		}
	}
	return b
}

func sortedTaints(ts []Taint) []Taint {
	out := slices.Clone(ts)
	slices.SortFunc(out, compareTaints)
	return out
}

type located struct {
	call   shell.Call
	script *script
}

// cloudInitScripts returns the shell scripts cloud-init runs, in order,
// reporting parts it cannot run.
func (l *linter) cloudInitScripts(text []byte) []*script {
	var scripts []*script
	if !mimedoc.LooksMIME(text) {
		if s := l.scriptPart("text/x-not-multipart", text, 1); s != nil {
			scripts = append(scripts, s)
		}
		return scripts
	}
	parts, err := mimedoc.Parse(text, 1)
	if err != nil {
		l.add(CodeSyntax, 0, "write the MIME document with a Content-Type header, a boundary and --boundary delimiter lines",
			"cloud-init cannot read the MIME userData: %v", err)
		return nil
	}
	for _, p := range parts {
		if s := l.scriptPart(p.MediaType, p.Body, p.Line); s != nil {
			scripts = append(scripts, s)
		}
	}
	slices.SortStableFunc(scripts, func(a, b *script) int { return a.stage - b.stage })
	return scripts
}

// scriptPart decides, as cloud-init does, whether a part is a script and
// when it runs; it returns nil for parts that are not scripts or cannot
// run.
func (l *linter) scriptPart(mediaType string, body []byte, line int) *script {
	stage := -1
	switch mediaType {
	case "text/x-shellscript":
		stage = stageUser
	case "text/x-shellscript-per-boot":
		stage = stagePerBoot
	case "text/x-shellscript-per-instance":
		stage = stagePerInstance
	case "text/x-shellscript-per-once":
		stage = stagePerOnce
	case "text/cloud-boothook":
		stage = stageBoothook
	case "text/plain", "text/x-not-multipart":
		switch {
		case bytes.HasPrefix(body, []byte("#cloud-boothook")):
			stage = stageBoothook
		case bytes.HasPrefix(body, []byte("#!")):
			stage = stageUser
		default:
			if mediaType == "text/x-not-multipart" && len(bytes.TrimSpace(body)) > 0 && !bytes.HasPrefix(body, []byte("#")) {
				l.add(CodeNotExecutable, 1, "start the script with #!/bin/bash",
					"the userData does not start with \"#!\" (or #cloud-config, or a MIME header), so cloud-init ignores it and nothing in it runs")
			}
			return nil
		}
	default:
		return nil
	}
	s := &script{body: body, line: line, stage: stage}
	if stage == stageBoothook && bytes.HasPrefix(body, []byte("#cloud-boothook")) {
		// cloud-init drops the #cloud-boothook line and runs the rest.
		nl := bytes.IndexByte(body, '\n')
		if nl < 0 {
			return nil
		}
		s.body = body[nl+1:]
		if s.line > 0 {
			s.line++
		}
	}
	first, _, _ := bytes.Cut(s.body, []byte("\n"))
	switch {
	case !bytes.HasPrefix(first, []byte("#!")):
		l.add(CodeNotExecutable, s.absLine(1), "make #!/bin/bash the first line of the script",
			"this script does not start with \"#!\", so cloud-init cannot execute it (\"Exec format error\") and nothing in it runs")
		return nil
	case bytes.HasSuffix(first, []byte("\r")):
		l.add(CodeNotExecutable, s.absLine(1), "convert the script to LF line endings",
			"this script has CRLF line endings, so the kernel looks for the interpreter %q and nothing in it runs", string(first[2:]))
		return nil
	}
	if !isShellInterpreter(string(first[2:])) {
		return nil
	}
	return s
}

func isShellInterpreter(line string) bool {
	f := strings.Fields(line)
	if len(f) == 0 {
		return false
	}
	prog := path.Base(f[0])
	if prog == "env" && len(f) > 1 {
		prog = path.Base(f[1])
	}
	switch prog {
	case "bash", "sh", "dash", "ksh", "zsh":
		return true
	}
	return false
}

// scriptCalls parses a script and returns its bootstrap.sh calls. Bash
// runs the complete commands before a syntax error, so those are kept.
// ok is false, after a CodeUnresolved problem, for a script the parser
// cannot read the way bash does.
func (l *linter) scriptCalls(s *script) (calls []located, ok bool) {
	if i := bytes.IndexAny(s.body, "\r\u0080\u0081"); i >= 0 {
		l.add(CodeUnresolved, s.absLine(lineAt(s.body, i)), "remove carriage returns and control characters from the script",
			"the script contains a carriage return or the control character U+0080/U+0081, which bash keeps but the linter's shell parser cannot read faithfully")
		return nil, false
	}
	found, err := shell.Walk(s.body, bootstrapScript, kubeletExtraArgs)
	var se *shell.SyntaxError
	if errors.As(err, &se) {
		l.add(CodeSyntax, s.absLine(se.Line), "fix the shell syntax", "bash stops at this syntax error: %v", err)
	}
	out := make([]located, 0, len(found))
	for _, c := range found {
		out = append(out, located{call: c, script: s})
	}
	return out, true
}

// bootstrap follows one bootstrap.sh call: its argument parsing, the
// systemd drop-in it writes, and the kubelet.
func (l *linter) bootstrap(lc located) boot {
	c, s := lc.call, lc.script
	line := s.absLine(c.Line)
	if c.UnknownName {
		l.add(CodeUnresolved, line, "call /etc/eks/bootstrap.sh by a literal path",
			"the command on this line looks like bootstrap.sh but its path is only known at boot, so the linter cannot follow it")
		return boot{registers: true, unresolved: true}
	}
	var (
		positional []shell.Arg
		extra      *shell.Arg
		extraWord  *syntax.Word
		ok         = true
	)
	for i := 0; i < len(c.Args); i++ {
		a := c.Args[i]
		if !a.Known && (a.Multi || strings.HasPrefix(a.Prefix, "-")) {
			l.add(CodeUnresolved, s.absLine(int(a.Word.Pos().Line())), "pass bootstrap.sh options as literal words",
				"argument %q of bootstrap.sh is only known at boot, so the linter cannot tell how bootstrap.sh reads the arguments", shell.Source(a.Word))
			return boot{registers: true, unresolved: true}
		}
		switch {
		case a.Known && (a.Value == "-h" || a.Value == "--help"):
			l.add(CodeBootstrapArguments, s.absLine(int(a.Word.Pos().Line())), "remove "+a.Value,
				"%s makes bootstrap.sh print its usage and exit, so the kubelet never starts", a.Value)
			return boot{}
		case a.Known && slices.Contains(bootstrapValueOptions, a.Value):
			if i+1 >= len(c.Args) {
				l.add(CodeBootstrapArguments, s.absLine(int(a.Word.Pos().Line())), a.Value+" VALUE",
					"bootstrap.sh option %s has no value; bootstrap.sh reads $2 under 'set -o nounset' and exits", a.Value)
				return boot{}
			}
			if a.Value == "--kubelet-extra-args" {
				v := c.Args[i+1]
				extra, extraWord = &v, a.Word
			}
			i++
		default:
			if a.Known {
				if opt := equalsOption(a.Value); opt != "" {
					l.equalsForm(s, a, opt, len(positional) == 0)
					if len(positional) == 0 {
						ok = false
					}
					positional = append(positional, a)
					continue
				}
			}
			if len(positional) > 0 {
				l.add(CodeIgnoredArgument, s.absLine(int(a.Word.Pos().Line())), ignoredFix(a.Value),
					"bootstrap.sh ignores the extra argument %q (only the first positional argument, the cluster name, is used)", a.Value)
			}
			positional = append(positional, a)
		}
	}
	if len(positional) == 0 {
		l.add(CodeBootstrapArguments, line, "pass the cluster name as the first argument: /etc/eks/bootstrap.sh CLUSTER ...",
			"bootstrap.sh gets no cluster name and exits with \"cluster name is not defined\"")
		return boot{}
	}
	if !ok {
		return boot{}
	}
	b := boot{registers: true, line: line}
	value := c.Env
	if extra != nil {
		b.line = s.absLine(int(extraWord.Pos().Line()))
		if !extra.Known {
			l.add(CodeUnresolved, b.line, "write the kubelet arguments literally",
				"the value of --kubelet-extra-args is only known at boot, so the linter cannot tell which taints the kubelet registers")
			return boot{registers: true, unresolved: true}
		}
		value = shell.Var{Value: extra.Value, Known: true, Set: true}
	} else if !value.Known {
		l.add(CodeUnresolved, line, "set KUBELET_EXTRA_ARGS literally, or pass --kubelet-extra-args '...'",
			"KUBELET_EXTRA_ARGS in bootstrap.sh's environment is only known at boot, so the linter cannot tell which taints the kubelet registers")
		return boot{registers: true, unresolved: true}
	}
	args, resolved := l.dropIn(value.Value, b.line)
	if !resolved {
		return boot{registers: true, unresolved: true}
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
	if strings.ContainsAny(value, "'\\\n%") {
		l.add(CodeSystemdHazard, line, "use only letters, digits and - _ . / = : , \" and spaces in kubelet arguments; use \" (not ') to group a value",
			"the kubelet arguments %q contain %s, which bootstrap.sh copies unescaped into Environment='KUBELET_EXTRA_ARGS=...' of a systemd drop-in, where systemd rewrites or rejects them",
			value, hazardNames(value))
	}
	if strings.Contains(value, "\n") {
		return nil, false
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

// equalsOption returns the bootstrap.sh option a word writes in the
// --option=value form that bootstrap.sh does not understand.
func equalsOption(word string) string {
	name, _, found := strings.Cut(word, "=")
	if found && slices.Contains(bootstrapValueOptions, name) {
		return name
	}
	return ""
}

func ignoredFix(word string) string {
	if strings.HasPrefix(word, "--register-with-taints") || strings.HasPrefix(word, "--node-labels") || strings.HasPrefix(word, "--max-pods") {
		return "kubelet flags go inside --kubelet-extra-args '...'"
	}
	return "remove the argument"
}

// equalsForm reports a --option=value word and builds the corrected line.
func (l *linter) equalsForm(s *script, a shell.Arg, opt string, first bool) {
	msg := fmt.Sprintf("%s= is ignored by bootstrap.sh: it matches options exactly, so %q is an extra positional argument and is silently dropped", opt, a.Value)
	if first {
		msg = fmt.Sprintf("%s= is not understood by bootstrap.sh: it matches options exactly, so %q is a positional argument, and as the first one it becomes the cluster name", opt, a.Value)
	}
	l.add(CodeEqualsForm, s.absLine(int(a.Word.Pos().Line())), equalsFix(s.body, a, opt), "%s", msg)
}

// equalsFix rewrites the line holding an --option=value word with the
// option and its value as two words, keeping the user's quoting when the
// word starts with the literal "--option=".
func equalsFix(src []byte, a shell.Arg, opt string) string {
	start, end := int(a.Word.Pos().Offset()), int(a.Word.End().Offset())
	if start > len(src) || end > len(src) || start > end {
		return ""
	}
	var fixed string
	if lit, ok := a.Word.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, opt+"=") &&
		bytes.HasPrefix(src[start:], []byte(opt+"=")) {
		rest := string(src[start+len(opt)+1 : end])
		if rest == "" || strings.HasPrefix(rest, "~") {
			rest, _ = shell.Quote(strings.TrimPrefix(a.Value, opt+"="))
		}
		fixed = opt + " " + rest
	} else {
		q, err := shell.Quote(strings.TrimPrefix(a.Value, opt+"="))
		if err != nil {
			return ""
		}
		fixed = opt + " " + q
	}
	lineStart := bytes.LastIndexByte(src[:start], '\n') + 1
	lineEnd := len(src)
	if nl := bytes.IndexByte(src[end:], '\n'); nl >= 0 {
		lineEnd = end + nl
	}
	return string(src[lineStart:start]) + fixed + string(src[end:lineEnd])
}
