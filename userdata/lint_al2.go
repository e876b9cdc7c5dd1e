package userdata

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/ec2select/ec2select/userdata/internal/shell"
	"github.com/ec2select/ec2select/userdata/internal/systemd"
)

// bootstrapValueOptions are the options of AL2's /etc/eks/bootstrap.sh
// (awslabs/amazon-eks-ami@0ab84280 templates/al2/runtime/bootstrap.sh, the
// case statement at L59-182). Each is matched exactly and takes the next
// argument as its value; -h and --help print
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
	"--service-ipv4-cidr",
	"--service-ipv6-cidr",
	"--use-max-pods",
}

const (
	bootstrapScript  = "bootstrap.sh"
	kubeletExtraArgs = "KUBELET_EXTRA_ARGS"
)

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
	l.add(CodeEqualsForm, s.absLine(int(a.Word.Pos().Line())), equalsFix(s.Body, a, opt), "%s", msg)
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
