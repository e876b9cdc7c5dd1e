package userdata

import (
	"bytes"
	"encoding/base64"
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
func (l *linter) equalsForm(s *script, a shell.Arg, opt string, first, inString bool) {
	msg := fmt.Sprintf("%s= is ignored by bootstrap.sh: it matches options exactly, so %q is an extra positional argument and is silently dropped", opt, a.Value)
	if first {
		msg = fmt.Sprintf("%s= is not understood by bootstrap.sh: it matches options exactly, so %q is a positional argument, and as the first one it becomes the cluster name", opt, a.Value)
	}
	fix := ""
	if !inString { // a word of sh -c's string has no place in the script's text
		fix = equalsFix(s.Body, a, opt)
	}
	l.add(CodeEqualsForm, s.absLine(a.Line), fix, "%s", msg)
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

// bootstrapCall is one bootstrap.sh call after its case loop: the last
// value of each option (each arm is a plain assignment, so a later one
// wins) and the positional words.
type bootstrapCall struct {
	opts       map[string]shell.Arg
	optLines   map[string]int
	positional []shell.Arg
}

func (b bootstrapCall) value(opt string) (string, bool) {
	a, ok := b.opts[opt]
	return a.Value, ok
}

// checkedOptions are the options whose values decide whether bootstrap.sh
// exits ([bootstrapCall] checks); an unknown value of one of them stops
// the analysis. The CA only counts when the endpoint is given too.
var checkedOptions = []string{"--ip-family", "--service-ipv6-cidr", "--dns-cluster-ip", "--container-runtime",
	"--enable-local-outpost", "--cluster-id", "--local-disks", "--containerd-config-file", "--b64-cluster-ca"}

func (l *linter) unknownValues(s *script, call bootstrapCall) *boot {
	for _, opt := range checkedOptions {
		v, ok := call.opts[opt]
		if !ok || v.Known {
			continue
		}
		if ep, has := call.opts["--apiserver-endpoint"]; opt == "--b64-cluster-ca" && (!has || ep.Known && ep.Value == "") {
			continue // describe-cluster replaces the CA
		}
		b := l.unresolved(s.absLine(v.Origin), "pass bootstrap.sh option values as literal words",
			"the value of %s is only known at boot, and bootstrap.sh exits on some values of it", opt)
		return &b
	}
	return nil
}

// bootstrapArgs runs bootstrap.sh's case loop over the call's words. A
// word only known at boot, quoted or not, may be an option or not, so it
// stops the analysis.
func (l *linter) bootstrapArgs(s *script, c shell.Call) (bootstrapCall, *boot) {
	call := bootstrapCall{opts: map[string]shell.Arg{}, optLines: map[string]int{}}
	firstEquals := false
	for i := 0; i < len(c.Args); i++ {
		a := c.Args[i]
		at := s.absLine(a.Line)
		switch {
		case !a.Known:
			b := l.unresolved(s.absLine(a.Origin), "pass bootstrap.sh options as literal words",
				"argument %q of bootstrap.sh is only known at boot, so the linter cannot tell how bootstrap.sh reads the arguments", shell.Source(a.Word))
			return call, &b
		case a.Value == "-h" || a.Value == "--help":
			l.add(CodeBootstrapArguments, at, "remove "+a.Value, "%s makes bootstrap.sh print its usage and exit, so the kubelet never starts", a.Value)
			return call, &boot{}
		case slices.Contains(bootstrapValueOptions, a.Value):
			if i+1 >= len(c.Args) {
				l.add(CodeBootstrapArguments, at, a.Value+" VALUE",
					"bootstrap.sh option %s has no value; bootstrap.sh reads $2 under 'set -o nounset' and exits", a.Value)
				return call, &boot{}
			}
			call.opts[a.Value], call.optLines[a.Value] = c.Args[i+1], at
			i++
		default:
			if opt := equalsOption(a.Value); opt != "" {
				l.equalsForm(s, a, opt, len(call.positional) == 0, c.InString)
				firstEquals = firstEquals || len(call.positional) == 0
			} else if len(call.positional) > 0 {
				l.add(CodeIgnoredArgument, at, ignoredFix(a.Value),
					"bootstrap.sh ignores the extra argument %q (only the first positional argument, the cluster name, is used)", a.Value)
			}
			call.positional = append(call.positional, a)
		}
	}
	if firstEquals {
		return call, &boot{}
	}
	return call, nil
}

// bootstrapExits applies the checks with which bootstrap.sh@0ab84280 exits
// before it starts the kubelet, where the arguments decide them; a check
// that depends on the AMI or the instance makes the verdict unresolved.
// Calls to AWS (describe-cluster when the CA or endpoint is missing) are
// assumed to succeed.
func (l *linter) bootstrapExits(c bootstrapCall, line int) *boot {
	for _, check := range []func(bootstrapCall) (exit, unresolved string){
		clusterNameCheck, ipFamilyCheck, containerRuntimeCheck, caCheck, outpostCheck, localDisksCheck, containerdConfigCheck,
	} {
		exit, unresolved := check(c)
		switch {
		case exit != "":
			l.add(CodeBootstrapArguments, line, "fix the bootstrap.sh arguments", "%s, so bootstrap.sh exits before it starts the kubelet", exit)
			return &boot{}
		case unresolved != "":
			b := l.unresolved(line, "pass only arguments bootstrap.sh accepts on every AL2 AMI", "%s", unresolved)
			return &b
		}
	}
	return nil
}

// clusterNameCheck: L304-307, an empty CLUSTER_NAME ("cluster name is not
// defined").
func clusterNameCheck(c bootstrapCall) (string, string) {
	if len(c.positional) == 0 || c.positional[0].Value == "" {
		return "bootstrap.sh gets no cluster name (\"cluster name is not defined\"); pass it as the first argument", ""
	}
	return "", ""
}

// ipFamilyCheck: L309-322 (lowercased, ipv4 or ipv6 only; an IPv6 service
// CIDR with ipv4 exits) and L457-462 (ipv6 without --dns-cluster-ip needs
// --service-ipv6-cidr).
func ipFamilyCheck(c bootstrapCall) (string, string) {
	family, set := c.value("--ip-family")
	family = strings.ToLower(family)
	v6cidr, hasV6 := c.value("--service-ipv6-cidr")
	hasV6 = hasV6 && v6cidr != ""
	switch {
	case set && family != "" && family != "ipv4" && family != "ipv6":
		return "--ip-family " + family + " is neither ipv4 nor ipv6", ""
	case hasV6 && family == "ipv4":
		return "--service-ipv6-cidr is given with --ip-family ipv4", ""
	}
	dns, _ := c.value("--dns-cluster-ip")
	if (family == "ipv6" || hasV6) && dns == "" && !hasV6 {
		return "--ip-family ipv6 needs --service-ipv6-cidr or --dns-cluster-ip", ""
	}
	return "", ""
}

// containerRuntimeCheck: L203-213 (containerd is the only runtime from
// Kubernetes 1.24) and L605-607 (neither containerd nor dockerd).
func containerRuntimeCheck(c bootstrapCall) (string, string) {
	rt, set := c.value("--container-runtime")
	switch {
	case !set || rt == "containerd" || rt == "":
		return "", ""
	case rt == "dockerd":
		return "", "--container-runtime dockerd makes bootstrap.sh exit on AMIs with Kubernetes 1.24 or later and not before; the userData does not say which"
	}
	return "--container-runtime " + rt + " is neither containerd nor dockerd", ""
}

// caCheck: L410, `echo "$B64_CLUSTER_CA" | base64 -d` under errexit and
// pipefail, when both the CA and the endpoint are given (otherwise
// describe-cluster supplies them).
func caCheck(c bootstrapCall) (string, string) {
	ca, hasCA := c.value("--b64-cluster-ca")
	ep, hasEP := c.value("--apiserver-endpoint")
	if !hasCA || !hasEP || ca == "" || ep == "" {
		return "", ""
	}
	if _, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(ca, "\n", "")); err != nil {
		return "--b64-cluster-ca does not decode as base64 (base64 -d fails under errexit)", ""
	}
	return "", ""
}

// outpostCheck: L431-441, local outpost support without a cluster id
// (given CA and endpoint, describe-cluster does not supply one).
func outpostCheck(c bootstrapCall) (string, string) {
	if v, _ := c.value("--enable-local-outpost"); v != "true" {
		return "", ""
	}
	if id, _ := c.value("--cluster-id"); id != "" {
		return "", ""
	}
	ca, _ := c.value("--b64-cluster-ca")
	ep, _ := c.value("--apiserver-endpoint")
	if ca == "" || ep == "" {
		return "", "--enable-local-outpost true without --cluster-id depends on what describe-cluster returns at boot"
	}
	return "--enable-local-outpost true needs --cluster-id (\"Cluster ID is required when local outpost support is enabled\")", ""
}

// localDisksCheck: L237-238 runs setup-local-disks under errexit, which
// exits on any strategy but raid0, raid10, mount and none
// (templates/shared/runtime/bin/setup-local-disks L273-276); raid10 needs
// four instance-store disks (L301-303), which depends on the instance type.
func localDisksCheck(c bootstrapCall) (string, string) {
	v, set := c.value("--local-disks")
	switch {
	case !set || v == "" || v == "raid0" || v == "mount" || v == "none":
		return "", ""
	case v == "raid10":
		return "", "--local-disks raid10 needs at least four instance-store disks, which depends on the instance type"
	}
	return "--local-disks " + v + " is not raid0, raid10, mount or none", ""
}

// containerdConfigCheck: L559-560 copies the file under errexit; whether
// it exists at boot is not known.
func containerdConfigCheck(c bootstrapCall) (string, string) {
	if v, set := c.value("--containerd-config-file"); set && v != "" {
		return "", "--containerd-config-file " + v + " is copied under errexit; whether the file exists at boot is not known"
	}
	return "", ""
}

// taintsIn are the taints a dropped bootstrap.sh argument would have
// registered: the --register-with-taints values of the kubelet arguments
// it holds ("--kubelet-extra-args=ARGS" or a kubelet flag given to
// bootstrap.sh itself), split as systemd splits $KUBELET_EXTRA_ARGS.
func taintsIn(word string) []Taint {
	args := word
	if opt := equalsOption(word); opt != "" {
		args = strings.TrimPrefix(word, opt+"=")
	}
	words, _ := systemd.Split(args, false, true)
	var out []Taint
	for i, w := range words {
		value, ok := strings.CutPrefix(w, "--register-with-taints=")
		if !ok && w == "--register-with-taints" && i+1 < len(words) {
			value, ok = words[i+1], true
		}
		if ts, _, code, _ := kubeletTaints(value); ok && code == "" {
			out = append(out, ts...)
		}
	}
	return out
}
