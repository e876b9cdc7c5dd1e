package userdata_test

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
	"pgregory.net/rapid"
)

// This file is the issue 11 property: AL2 userData generated from a grammar
// of realistic shapes is rendered to text, and a small reference evaluator
// computes from the same syntax tree (never from the text) what the boot
// path does. Lint must agree with the reference or say Unresolved.
//
// The reference is deliberately naive and independent of Lint: it models
// only what cloud-init (part names, file-name order, overwrites, CRLF),
// bash (set -e, if, exit, arrays, variables), bootstrap.sh (its case loop
// and exits) and the kubelet (flag set, taint list, the API server's
// duplicate check) do on the shapes generated here. Every rule cites the
// row in the corpus tables that pins it with its upstream source.

// --- syntax tree -----------------------------------------------------------

type stmtKind int

const (
	sSetE   stmtKind = iota // set -e and friends
	sOK                     // a command that succeeds
	sFail                   // a command that fails
	sFailOK                 // a failing command whose status is tested
	sExit                   // exit 0
	sIf                     // if <literal>; then ...; else ...; fi
	sCall                   // a bootstrap.sh call
	sOpaque                 // eval, sh -c, source, ... (lint_cloudinit_shell_bootpath_test.go)
)

type callStyle int

const (
	styleInline callStyle = iota // words on the command line
	styleArray                   // ARGS=(...); bootstrap.sh "${ARGS[@]}"
	styleVar                     // EXTRA='...'; ... --kubelet-extra-args "$EXTRA"
)

type bootCall struct {
	args   []string // the words bootstrap.sh receives
	quotes []int    // per word: 0 single, 1 double, 2 bare where safe
	style  callStyle
	cont   bool // backslash-newline between words (inline only)
}

type stmt struct {
	kind      stmtKind
	text      string // rendering of sSetE, sOK, sFail, sFailOK, sOpaque
	cond      bool
	then, els []stmt
	call      *bootCall
}

type partKind int

const (
	pShell    partKind = iota // text/x-shellscript, #!/bin/bash
	pPlain                    // text/plain starting #!/bin/bash
	pPackages                 // #cloud-config with packages only
	pRuncmd                   // #cloud-config runcmd with bootstrap calls
	pEarly                    // boothook, per-boot script, bootcmd: run before scripts-user
	pInline                   // python or jinja part: runs in file-name order, unfollowable
)

type part struct {
	kind partKind
	name string // Content-Disposition file name, "" for none
	crlf bool
	body []stmt // pShell, pPlain, pRuncmd (sCall only)
	raw  string // pEarly, pInline: the whole part, headers included
}

type genUserData struct {
	mime    bool
	crlfAll bool
	parts   []part
}

// --- generators ------------------------------------------------------------

var (
	taintPool = []string{
		"karpenter.sh/unregistered:NoExecute",
		"dedicated=gpu:NoSchedule",
		"dedicated=cpu:NoSchedule", // duplicates dedicated=gpu by key and effect
		"spot=true:PreferNoSchedule",
		"node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule", // the kubelet's own
	}
	partNames = []string{"", "", "", "00-join.sh", "zz-join.sh", "userdata.sh", "Join.sh", "a/b.sh", "my join.sh", "part-002"}
	okCmds    = []string{"true", ":", "echo starting node setup"}
	failCmds  = []string{"false", "[ 1 -eq 2 ]"}
	setECmds  = []string{"set -e", "set -o errexit", "set -ex", "set -euo pipefail"}
	opaques   = []string{
		`eval "$(curl -s http://169.254.169.254/latest/meta-data/tags/instance/join)"`,
		`sh -c "$(cat /root/join-cmd)"`,
		`bash -c "$JOIN_CMD"`, // a static string is followed as a script (TestBootPathShell)
		`source /etc/eks/env.sh`,
		`. /root/join.env`,
		`$(cat /root/join-cmd) my-cluster`,
		"cat > /tmp/j.sh <<'EOF'\n/etc/eks/bootstrap.sh my-cluster\nEOF\nbash /tmp/j.sh",
	}
	earlyParts = []string{
		"Content-Type: text/cloud-boothook; charset=\"us-ascii\"\n\n#cloud-boothook\n#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster\n",
		"Content-Type: text/x-shellscript-per-boot; charset=\"us-ascii\"\n\n#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster\n",
		"Content-Type: text/cloud-config; charset=\"us-ascii\"\n\n#cloud-config\nbootcmd:\n  - /etc/eks/bootstrap.sh my-cluster\n",
	}
	inlineParts = []string{
		"Content-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/usr/bin/python3\nimport subprocess\nsubprocess.run(['/etc/eks/bootstrap.sh', 'my-cluster'])\n",
		"Content-Type: text/jinja2; charset=\"us-ascii\"\n\n## template: jinja\n#!/bin/bash\n/etc/eks/bootstrap.sh {{ v1.local_hostname }}\n",
	}
)

// kubeletWords generates the words of one --kubelet-extra-args value.
func kubeletWords(t *rapid.T) []string {
	var words []string
	for range rapid.IntRange(0, 3).Draw(t, "kubeletFlags") {
		switch rapid.IntRange(0, 9).Draw(t, "kubeletFlag") {
		case 0, 1, 2, 3:
			var ts []string
			for range rapid.IntRange(0, 3).Draw(t, "taints") {
				ts = append(ts, rapid.SampledFrom(taintPool).Draw(t, "taint"))
			}
			list := strings.Join(ts, ",")
			switch rapid.IntRange(0, 5).Draw(t, "taintFlagForm") {
			case 0:
				if list == "" {
					// An empty word vanishes in systemd's split, and the
					// flag would take the next flag as its value.
					words = append(words, "--register-with-taints=")
					break
				}
				words = append(words, "--register-with-taints", list)
			case 1:
				words = append(words, "--register-with-taint="+list) // typo
			case 2:
				words = append(words, "-register-with-taints="+list) // single dash
			default:
				words = append(words, "--register-with-taints="+list)
			}
		case 4:
			words = append(words, "--node-labels=team=web")
		case 5:
			words = append(words, "--max-pods=110")
		case 6:
			words = append(words, "--serialize-image-pulls=false")
		case 7:
			words = append(words, "--serialize-image-pulls", "false") // bool flag + separate value
		case 8:
			words = append(words, "--serialize-image-pulls")
		default:
			words = append(words, "--register-with-taints=karpenter.sh/unregistered:NoExecute")
		}
	}
	return words
}

type opt struct{ name, value string }

// bootstrapOpts generates options with values: good, and the values that
// make bootstrap.sh exit (lint_al2_bootstrap_bootpath_test.go pins each).
func bootstrapOpts(t *rapid.T) []opt {
	cafe := ca
	if rapid.IntRange(0, 9).Draw(t, "badCA") == 0 {
		cafe = "%%%%"
	}
	opts := []opt{{"--b64-cluster-ca", cafe}, {"--apiserver-endpoint", endpoint}}
	pool := [][]opt{
		{{"--ip-family", "ipv4"}, {"--ip-family", "ipv6"}, {"--ip-family", "IPv6"}, {"--ip-family", "ipv5"}},
		{{"--service-ipv6-cidr", "fd00:10:100::/108"}},
		{{"--dns-cluster-ip", "10.100.0.10"}, {"--dns-cluster-ip", "fd00:10:100::a"}},
		{{"--container-runtime", "containerd"}, {"--container-runtime", "docker"}},
		{{"--enable-local-outpost", "true"}, {"--enable-local-outpost", "false"}},
		{{"--cluster-id", "0123abcd-4567-89ef-0123-456789abcdef"}},
		{{"--local-disks", "raid0"}, {"--local-disks", "mount"}, {"--local-disks", "none"}, {"--local-disks", "raid5"}},
		{{"--use-max-pods", "false"}},
		{{"--mount-bpf-fs", "true"}},
		{{"--pause-container-version", "3.5"}},
	}
	for i, choices := range pool {
		if rapid.IntRange(0, 4).Draw(t, fmt.Sprintf("use%d", i)) == 0 {
			opts = append(opts, rapid.SampledFrom(choices).Draw(t, fmt.Sprintf("opt%d", i)))
		}
	}
	if rapid.IntRange(0, 4).Draw(t, "extraArgs") > 0 {
		opts = append(opts, opt{"--kubelet-extra-args", strings.Join(kubeletWords(t), " ")})
	}
	return rapid.Permutation(opts).Draw(t, "optOrder")
}

// callArgs places options before and after the cluster name; =-forms,
// unknown options and a trailing valueless option or --help come after it
// only (before it they would become the cluster name, whose fate is not
// certain offline).
func callArgs(t *rapid.T) []string {
	opts := bootstrapOpts(t)
	withName := rapid.IntRange(0, 9).Draw(t, "withName") > 0
	var pre, post []string
	for i, o := range opts {
		if withName && rapid.Bool().Draw(t, fmt.Sprintf("post%d", i)) {
			post = append(post, o.name, o.value)
		} else {
			pre = append(pre, o.name, o.value)
		}
	}
	if !withName {
		return pre
	}
	args := append(pre, "my-cluster")
	args = append(args, post...)
	switch rapid.IntRange(0, 7).Draw(t, "tail") {
	case 0:
		args = append(args, "--kubelet-extra-args=--register-with-taints=karpenter.sh/unregistered:NoExecute")
	case 1:
		args = append(args, "--max-pods", "110") // not a bootstrap.sh option: two ignored positionals
	case 2:
		args = append(args, "--kubelet-extra-args") // no value: nounset exit
	case 3:
		args = append(args, "--help")
	}
	return args
}

func genCall(t *rapid.T) *bootCall {
	c := &bootCall{args: callArgs(t)}
	for i := range c.args {
		c.quotes = append(c.quotes, rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("quote%d", i)))
	}
	c.style = callStyle(rapid.IntRange(0, 2).Draw(t, "style"))
	c.cont = c.style == styleInline && rapid.Bool().Draw(t, "cont")
	return c
}

func genStmts(t *rapid.T, depth int) []stmt {
	var out []stmt
	for range rapid.IntRange(1, 4).Draw(t, "stmts") {
		k := stmtKind(rapid.IntRange(0, 9).Draw(t, "kind"))
		switch {
		case k >= sCall:
			out = append(out, stmt{kind: sCall, call: genCall(t)})
		case k == sIf && depth > 0:
			out = append(out, stmt{kind: sOK, text: "true"})
		case k == sIf:
			out = append(out, stmt{kind: sIf, cond: rapid.Bool().Draw(t, "cond"), then: genStmts(t, depth+1), els: genStmts(t, depth+1)})
		case k == sExit:
			if rapid.IntRange(0, 3).Draw(t, "exitOrOpaque") == 0 {
				out = append(out, stmt{kind: sExit})
			} else {
				out = append(out, stmt{kind: sOpaque, text: rapid.SampledFrom(opaques).Draw(t, "opaque")})
			}
		default:
			out = append(out, stmt{kind: k, text: rapid.SampledFrom(map[stmtKind][]string{
				sSetE: setECmds, sOK: okCmds, sFail: failCmds, sFailOK: {"false || true"},
			}[k]).Draw(t, "cmd")})
		}
	}
	return out
}

func genPart(t *rapid.T, cloudConfigUsed *bool) part {
	p := part{name: rapid.SampledFrom(partNames).Draw(t, "name"), crlf: rapid.IntRange(0, 4).Draw(t, "crlf") == 0}
	k := partKind(rapid.IntRange(0, 9).Draw(t, "partKind"))
	if (k == pPackages || k == pRuncmd) && *cloudConfigUsed || k > pInline {
		k = pShell
	}
	switch k {
	case pPackages, pRuncmd:
		*cloudConfigUsed = true
	case pEarly:
		p.raw = rapid.SampledFrom(earlyParts).Draw(t, "early")
	case pInline:
		p.raw = rapid.SampledFrom(inlineParts).Draw(t, "inline")
	}
	p.kind = k
	switch k {
	case pShell, pPlain:
		p.body = genStmts(t, 0)
	case pRuncmd:
		c := genCall(t)
		c.style, c.cont = styleInline, false
		for i := range c.quotes {
			c.quotes[i] = 0 // single quotes: plain YAML scalars stay valid
		}
		p.body = []stmt{{kind: sCall, call: c}}
	}
	return p
}

func genUserDataOf(t *rapid.T) genUserData {
	u := genUserData{mime: rapid.IntRange(0, 3).Draw(t, "mime") > 0}
	n := 1
	if u.mime {
		n = rapid.IntRange(1, 3).Draw(t, "parts")
		u.crlfAll = rapid.IntRange(0, 5).Draw(t, "crlfAll") == 0
	}
	used := false
	for range n {
		p := genPart(t, &used)
		if !u.mime && (p.kind == pPlain || p.kind == pInline) {
			p.kind, p.raw, p.body = pShell, "", genStmts(t, 0)
		}
		if !u.mime && p.kind == pEarly {
			p.raw = earlyParts[0] // a per-boot script needs its MIME type
		}
		if u.crlfAll {
			p.crlf = false // CRLF once, not \r\r\n
		}
		u.parts = append(u.parts, p)
	}
	return u
}

// --- rendering -------------------------------------------------------------

var bareSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=,@+-]+$`)

func quoteWord(w string, style int) string {
	switch {
	case style == 2 && bareSafe.MatchString(w):
		return w
	case style == 1:
		return `"` + w + `"` // generated words hold no " $ ` \
	}
	return "'" + w + "'" // nor '
}

func (c *bootCall) render() string {
	words := make([]string, len(c.args))
	for i, a := range c.args {
		words[i] = quoteWord(a, c.quotes[i])
	}
	var pre string
	switch c.style {
	case styleArray:
		return "ARGS=(" + strings.Join(words, " ") + ")\n/etc/eks/bootstrap.sh \"${ARGS[@]}\""
	case styleVar:
		for i := 0; i+1 < len(c.args); i++ {
			if c.args[i] == "--kubelet-extra-args" {
				pre = "EXTRA=" + words[i+1] + "\n"
				words[i+1] = `"$EXTRA"`
				break
			}
		}
	}
	sep := " "
	if c.cont {
		sep = " \\\n  "
	}
	return pre + "/etc/eks/bootstrap.sh " + strings.Join(words, sep)
}

func renderStmts(b *strings.Builder, stmts []stmt, indent string) {
	for _, s := range stmts {
		switch s.kind {
		case sIf:
			cond := "false"
			if s.cond {
				cond = "true"
			}
			b.WriteString(indent + "if " + cond + "; then\n")
			renderStmts(b, s.then, indent+"  ")
			b.WriteString(indent + "else\n")
			renderStmts(b, s.els, indent+"  ")
			b.WriteString(indent + "fi\n")
		case sExit:
			b.WriteString(indent + "exit 0\n")
		case sCall:
			b.WriteString(indent + strings.ReplaceAll(s.call.render(), "\n", "\n"+indent) + "\n")
		default:
			b.WriteString(indent + s.text + "\n")
		}
	}
}

func (p part) text() string {
	var b strings.Builder
	switch p.kind {
	case pShell, pPlain:
		b.WriteString("#!/bin/bash\n")
		renderStmts(&b, p.body, "")
	case pPackages:
		b.WriteString("#cloud-config\npackages:\n  - htop\n")
	case pRuncmd:
		b.WriteString("#cloud-config\nruncmd:\n  - " + p.body[0].call.render() + "\n")
	}
	s := b.String()
	if p.crlf {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

func (p part) render() string {
	if p.kind == pEarly || p.kind == pInline {
		if p.name == "" {
			return p.raw
		}
		// The reference names the part by p.name, so the text must too.
		i := strings.Index(p.raw, "\n")
		return p.raw[:i+1] + "Content-Disposition: attachment; filename=\"" + p.name + "\"\n" + p.raw[i+1:]
	}
	ct := map[partKind]string{pShell: "text/x-shellscript", pPlain: "text/plain", pPackages: "text/cloud-config", pRuncmd: "text/cloud-config"}[p.kind]
	h := "Content-Type: " + ct + "; charset=\"us-ascii\"\n"
	if p.name != "" {
		h += "Content-Disposition: attachment; filename=\"" + p.name + "\"\n"
	}
	return h + "\n" + p.text()
}

func (u genUserData) render() string {
	if !u.mime {
		p := u.parts[0]
		if p.kind == pEarly {
			return p.raw[strings.Index(p.raw, "\n\n")+2:]
		}
		return p.text()
	}
	parts := make([]string, len(u.parts))
	for i, p := range u.parts {
		parts[i] = p.render()
	}
	s := mime(parts...)
	if u.crlfAll {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

// --- reference evaluator ---------------------------------------------------

// refResult is the reference's answer; any marks shapes whose real outcome
// the reference does not claim to know (Lint may say anything).
type refResult struct {
	verdict userdata.Verdict
	taints  []string
	any     bool
	why     string
}

// cleanFilename is cloud-init's util.clean_filename (util.py@22.4.2 L363):
// "/" -> "_", then drop everything outside FN_ALLOWED.
func cleanFilename(s string) string {
	s = strings.ReplaceAll(s, "/", "_")
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.()", r)) {
			return r
		}
		return -1
	}, s)
}

type machine struct {
	calls   [][]string // every bootstrap.sh run, in order (to check the reference against real bash)
	started bool       // a bootstrap.sh run reached `systemctl start kubelet`
	result  refResult
	any     bool
	opaque  bool
}

func reference(u genUserData) refResult {
	r, _ := referenceRun(u)
	return r
}

func referenceRun(u genUserData) (refResult, *machine) {
	files := map[string][]stmt{}
	var runcmd []stmt
	for i, p := range u.parts {
		name := fmt.Sprintf("part-%03d", i+1) // user_data.py _process_before_attach
		if p.name != "" && u.mime {
			name = cleanFilename(p.name)
		}
		switch p.kind {
		case pEarly:
			return refResult{verdict: userdata.Unresolved, why: "boothook/per-boot/bootcmd"}, nil
		case pInline:
			files[name] = []stmt{{kind: sOpaque}}
		case pShell, pPlain:
			files[name] = p.body // a later part with the same name overwrites
		case pRuncmd:
			runcmd = p.body // cc_runcmd.py L88: scripts/runcmd
		}
	}
	if runcmd != nil {
		files["runcmd"] = runcmd
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names) // subp.runparts: sorted(os.listdir())
	m := &machine{}
	for _, n := range names {
		errexit := false
		m.run(files[n], &errexit)
		if m.opaque {
			return refResult{verdict: userdata.Unresolved, why: "unfollowable construct before the kubelet started"}, m
		}
	}
	switch {
	case m.any:
		return refResult{any: true}, m
	case !m.started:
		return refResult{verdict: userdata.NeverJoins, why: "nothing starts the kubelet"}, m
	}
	return m.result, m
}

// run executes statements; it reports whether the script goes on.
func (m *machine) run(stmts []stmt, errexit *bool) bool {
	for _, s := range stmts {
		if m.opaque {
			return false
		}
		switch s.kind {
		case sSetE:
			*errexit = true
		case sFail:
			if *errexit {
				return false
			}
		case sExit:
			return false
		case sIf:
			body := s.els
			if s.cond {
				body = s.then
			}
			if !m.run(body, errexit) {
				return false
			}
		case sOpaque:
			if !m.started {
				m.opaque = true
				return false
			}
		case sCall:
			if !m.call(s.call.args) && *errexit {
				return false
			}
		}
	}
	return true
}

// call runs bootstrap.sh; it reports its exit status as success.
func (m *machine) call(args []string) bool {
	m.calls = append(m.calls, args)
	kubelet, ok, partial := bootstrapRef(args)
	if partial {
		// It failed after moving the kubeconfig for an outpost (L446), so
		// a later run fails differently: not modelled.
		m.any = true
	}
	if !ok {
		return false
	}
	if m.started {
		// The first kubelet registered already, unless its flags made it
		// exit, in which case this run's drop-in may or may not be what a
		// restart picks up.
		if m.result.verdict == userdata.NeverJoins {
			m.any = true
		}
		return true
	}
	m.started = true
	m.result = kubeletRef(kubelet)
	return true
}

var bootstrapValued = map[string]bool{
	"--use-max-pods": true, "--b64-cluster-ca": true, "--apiserver-endpoint": true, "--kubelet-extra-args": true,
	"--enable-docker-bridge": true, "--aws-api-retry-attempts": true, "--docker-config-json": true,
	"--containerd-config-file": true, "--pause-container-account": true, "--pause-container-version": true,
	"--dns-cluster-ip": true, "--container-runtime": true, "--ip-family": true, "--service-ipv4-cidr": true,
	"--service-ipv6-cidr": true, "--enable-local-outpost": true, "--cluster-id": true, "--mount-bpf-fs": true,
	"--local-disks": true,
}

// bootstrapRef is bootstrap.sh@0ab84280 on the generated shapes: the case
// loop (L57-183), then its exits in the order the script reaches them (each
// pinned in TestBootPathBootstrapExits). It returns the kubelet's extra
// words, whether the run reaches `systemctl start kubelet`, and whether it
// failed after moving the outpost kubeconfig (L446), which changes what a
// later run does.
func bootstrapRef(args []string) (kubelet []string, ok, partial bool) {
	opts, positional, ok := bootstrapCaseLoop(args)
	if !ok {
		return nil, false, false
	}
	fam := strings.ToLower(opts["--ip-family"]) // L310
	ipf := fam
	if opts["--service-ipv6-cidr"] != "" {
		ipf = "ipv6" // L322
	}
	_, caErr := base64.StdEncoding.DecodeString(opts["--b64-cluster-ca"])
	outpost := opts["--enable-local-outpost"] == "true"
	exits := []bool{
		opts["--container-runtime"] != "" && opts["--container-runtime"] != "containerd", // L210, L605
		!slices.Contains([]string{"", "raid0", "mount", "none"}, opts["--local-disks"]),  // L238
		len(positional) == 0, // L304
		!slices.Contains([]string{"", "ipv4", "ipv6"}, fam), // L311
		opts["--service-ipv6-cidr"] != "" && fam == "ipv4",  // L318
		caErr != nil,                          // L410
		outpost && opts["--cluster-id"] == "", // L439
	}
	if slices.Contains(exits, true) {
		return nil, false, false
	}
	if ipf == "ipv6" && opts["--dns-cluster-ip"] == "" && opts["--service-ipv6-cidr"] == "" { // L459
		return nil, false, outpost
	}
	return strings.Fields(opts["--kubelet-extra-args"]), true, false
}

// bootstrapCaseLoop is L57-183: valued options take the next word, -h and
// --help exit, a valued option without a next word exits under nounset (L4),
// anything else is positional.
func bootstrapCaseLoop(args []string) (opts map[string]string, positional []string, ok bool) {
	opts = map[string]string{}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-h" || a == "--help":
			return nil, nil, false
		case bootstrapValued[a] && i+1 == len(args):
			return nil, nil, false
		case bootstrapValued[a]:
			opts[a] = args[i+1]
			i++
		default:
			positional = append(positional, a)
		}
	}
	return opts, positional, true
}

// kubeletRef is the kubelet's flag set on the generated flags
// (TestBootPathKubelet pins each rule) and the API server's Node check.
func kubeletRef(words []string) refResult {
	never := func(why string) refResult { return refResult{verdict: userdata.NeverJoins, why: why} }
	var taints []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "--") {
			return never("unknown command or shorthand " + w)
		}
		name, val, hasEq := strings.Cut(w[2:], "=")
		switch name {
		case "register-with-taints", "node-labels", "max-pods":
			if !hasEq {
				if i+1 >= len(words) {
					return never("flag needs an argument")
				}
				i++
				val = words[i]
			}
			if name == "register-with-taints" {
				taints = nil
				if val != "" {
					taints = strings.Split(val, ",")
				}
				// pflag calls Set for every occurrence, and
				// RegisterWithTaintsVar.Set (pkg/util/flag/flags.go@v1.32.0
				// L266-275) parses each value with taints.ParseTaints, which
				// refuses a repeated key and effect (pkg/util/taints/taints.go
				// L113): an earlier occurrence with a duplicate exits too.
				// Found by running the kubelet's flag set (see the notes).
				if dup := duplicateTaint(taints); dup != "" {
					return never("duplicate taint " + dup)
				}
			}
		case "serialize-image-pulls":
		default:
			return never("unknown flag " + w)
		}
	}
	if dup := duplicateTaint(append(slices.Clone(taints), "node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule")); dup != "" {
		return never("the API server refuses duplicate taint " + dup)
	}
	out := []string{kubeletTaint}
	for _, ts := range taints {
		src := "user"
		if ts == "karpenter.sh/unregistered:NoExecute" {
			src = "required"
		}
		out = append(out, ts+"/"+src)
	}
	slices.Sort(out)
	return refResult{verdict: userdata.Joins, taints: out}
}

// duplicateTaint returns the first taint whose key and effect an earlier one
// has, or "".
func duplicateTaint(taints []string) string {
	seen := map[string]bool{}
	for _, ts := range taints {
		kv, effect, _ := strings.Cut(ts, ":")
		key, _, _ := strings.Cut(kv, "=")
		if seen[key+":"+effect] {
			return ts
		}
		seen[key+":"+effect] = true
	}
	return ""
}

// --- the property ----------------------------------------------------------

func TestBootPathLintAgreesWithReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		u := genUserDataOf(t)
		text := u.render()
		ref := reference(u)
		if ref.any {
			return
		}
		rep, err := userdata.Lint(compat.AL2, []byte(text), []userdata.Taint{userdata.UnregisteredTaint()})
		if err != nil {
			t.Fatalf("Lint: %v\n%s", err, text)
		}
		if rep.Verdict == userdata.Unresolved {
			return
		}
		got := outcomeOf(rep)
		if got.Verdict != ref.verdict || (ref.verdict == userdata.Joins && !slices.Equal(got.Taints, ref.taints)) {
			t.Fatalf("Lint says %v %v (%s), the reference %v %v (%s)\nuserData:\n%s",
				got.Verdict, got.Taints, rep.Reason, ref.verdict, ref.taints, ref.why, text)
		}
	})
}
