package userdata

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

const eksBootstrapPS1 = "start-eksbootstrap.ps1"

// eksBootstrapParams are Start-EKSBootstrap.ps1's parameters. PowerShell
// matches parameter names ignoring case and accepts any unambiguous
// prefix.
var eksBootstrapParams = []string{
	"APIServerEndpoint",
	"Base64ClusterCA",
	"ContainerRuntime",
	"DNSClusterIP",
	"EKSClusterName",
	"Endpoint",
	"ExcludedSnatCIDRs",
	"KubeProxyExtraArgs",
	"KubeletExtraArgs",
	"ServiceCIDR",
}

// psCall is a call of Start-EKSBootstrap.ps1.
type psCall struct {
	line   int
	params map[string]psToken
}

// psWalker follows a PowerShell script's statements in order.
type psWalker struct {
	vars    map[string]psToken // lower-case name → value token
	calls   []psCall
	stopped bool // exit, return, throw or break ran at the top level
	stopAt  int
}

func (w *psWalker) eval(t psToken) (string, bool) {
	switch t.kind {
	case psString, psWord:
		return t.value, t.known
	case psVar:
		if v, ok := w.vars[strings.ToLower(t.value)]; ok {
			return v.value, v.known
		}
	}
	return string(psUnknown), false
}

func (w *psWalker) walk(toks []psToken) {
	for _, st := range psStatements(toks) {
		if w.stopped {
			return
		}
		w.statement(st)
	}
}

func (w *psWalker) statement(st []psToken) {
	for len(st) > 0 && st[0].kind == psType {
		st = st[1:]
	}
	if len(st) == 0 {
		return
	}
	if st[0].kind == psVar && len(st) > 1 && st[1].kind == psOp && strings.HasSuffix(st[1].value, "=") {
		name := strings.ToLower(st[0].value)
		if st[1].value == "=" && len(st) == 3 && st[2].kind != psGroup {
			v, known := w.eval(st[2])
			w.vars[name] = psToken{kind: psString, value: v, known: known}
		} else {
			w.vars[name] = psToken{kind: psString, value: string(psUnknown)}
		}
		return
	}
	if st[0].kind == psWord && st[0].depth == 0 {
		switch strings.ToLower(st[0].value) {
		case "exit", "return", "throw", "break":
			w.stopped, w.stopAt = true, st[0].line
			return
		}
	}
	var name psToken
	var args []psToken
	switch {
	case st[0].kind == psOp && st[0].value == "&", st[0].kind == psWord && st[0].value == ".":
		if len(st) < 2 {
			return
		}
		name, args = st[1], st[2:]
	case st[0].kind == psWord:
		name, args = st[0], st[1:]
	default:
		return
	}
	v, _ := w.eval(name)
	if !strings.HasSuffix(strings.ToLower(v), eksBootstrapPS1) {
		return
	}
	w.calls = append(w.calls, psCall{line: name.line, params: w.bindParams(args)})
}

// bindParams binds arguments to Start-EKSBootstrap.ps1's parameters:
// -Name value, -Name:value, and by position EKSClusterName then
// KubeletExtraArgs (their declaration order in the script).
func (w *psWalker) bindParams(args []psToken) map[string]psToken {
	params := map[string]psToken{}
	var positional []psToken
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.kind == psWord && strings.Contains(a.value, ">") {
			continue // a redirection such as 3>&1
		}
		r := []rune(a.value)
		if a.kind != psWord || len(r) < 2 || !isPSDash(r[0]) {
			positional = append(positional, a)
			continue
		}
		name, inline, hasColon := strings.Cut(string(r[1:]), ":")
		var value psToken
		switch {
		case hasColon && inline != "":
			value = psToken{kind: psString, value: inline, known: true, line: a.line}
		case i+1 < len(args) && (hasColon || !isPSParam(args[i+1])):
			i++
			value = args[i]
		default:
			value = psToken{kind: psString, value: "True", known: true, line: a.line} // a switch
		}
		if canon := psParamName(name); canon != "" {
			params[canon] = value
		}
	}
	// Positional arguments fill, in order, the positional parameters not
	// bound by name.
	for _, canon := range []string{"EKSClusterName", "KubeletExtraArgs"} {
		if len(positional) == 0 {
			break
		}
		if _, set := params[canon]; !set {
			params[canon] = positional[0]
			positional = positional[1:]
		}
	}
	return params
}

func isPSParam(t psToken) bool {
	r := []rune(t.value)
	return t.kind == psWord && len(r) > 1 && isPSDash(r[0]) && (r[1] == '_' || isLetter(r[1]))
}

func isLetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

func psParamName(name string) string {
	l := strings.ToLower(name)
	match := ""
	for _, p := range eksBootstrapParams {
		pl := strings.ToLower(p)
		if pl == l {
			return p
		}
		if strings.HasPrefix(pl, l) {
			if match != "" {
				return "" // ambiguous: PowerShell refuses it
			}
			match = p
		}
	}
	return match
}

// asciiLower lowercases ASCII letters only, so that offsets into the
// result are offsets into b (bytes.ToLower can change the length of
// non-ASCII text).
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// powershellBlock returns the text of the first <powershell> block and the
// 1-based line it starts on.
func powershellBlock(text []byte) (string, int, bool) {
	lower := asciiLower(text)
	start := bytes.Index(lower, []byte("<powershell>"))
	if start < 0 {
		return "", 0, false
	}
	start += len("<powershell>")
	end := bytes.Index(lower[start:], []byte("</powershell>"))
	if end < 0 {
		end = len(text) - start
	}
	return string(text[start : start+end]), lineAt(text, start), true
}

// lintWindows follows EC2Launch into the <powershell> block, finds the
// Start-EKSBootstrap.ps1 call and follows -KubeletExtraArgs to the
// kubelet's argv. How the script hands those arguments to kubelet.exe is
// not published; the linter assumes what the public copies do: the string
// joins the service command line, which the kubelet splits with the
// Windows rules.
func (l *linter) lintWindows(text []byte) boot {
	block, base, ok := powershellBlock(text)
	if !ok {
		l.add(CodeNoBootstrap, 0, "wrap the script in <powershell> ... </powershell>",
			"the userData has no <powershell> block, so EC2Launch runs nothing and the node never joins")
		return boot{}
	}
	abs := func(n int) int { return base + n - 1 }
	toks, err := lexPowerShell(block)
	if err != nil {
		var pe *psError
		line := 0
		if errors.As(err, &pe) {
			line = abs(pe.line)
		}
		l.add(CodeSyntax, line, "fix the PowerShell syntax", "PowerShell cannot parse the script (%v), so none of it runs", err)
		return boot{}
	}
	w := &psWalker{vars: map[string]psToken{}}
	w.walk(toks)
	if len(w.calls) == 0 {
		msg := "no statement calls Start-EKSBootstrap.ps1, so the node never joins the cluster"
		if w.stopped {
			msg = fmt.Sprintf("the script stops on line %d before any call of Start-EKSBootstrap.ps1, so the node never joins the cluster", abs(w.stopAt))
		}
		l.add(CodeNoBootstrap, 0, "call & \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\" -EKSClusterName ... -KubeletExtraArgs '...'", "%s", msg)
		return boot{}
	}
	if len(w.calls) > 1 {
		var lines []string
		for _, c := range w.calls[1:] {
			lines = append(lines, fmt.Sprint(abs(c.line)))
		}
		first := abs(w.calls[0].line)
		l.add(CodeMultipleBootstrap, first, fmt.Sprintf("remove the call on line %d and keep a single call with all kubelet arguments", first),
			"Start-EKSBootstrap.ps1 is called here and again on line %s; this first call registers the node with its own taints before the later call runs",
			strings.Join(lines, ", "))
	}
	c := w.calls[0]
	line := abs(c.line)
	if name, ok := c.params["EKSClusterName"]; !ok {
		l.add(CodeIncompleteConfig, line, "add -EKSClusterName 'CLUSTER'",
			"Start-EKSBootstrap.ps1 is called without -EKSClusterName, a mandatory parameter, so it stops and the node never joins")
		return boot{}
	} else if v, known := w.eval(name); known && v == "" {
		l.add(CodeIncompleteConfig, line, "pass the cluster name to -EKSClusterName",
			"-EKSClusterName is empty, so the node never joins")
		return boot{}
	}
	b := boot{registers: true, line: line}
	var args []string
	if extra, ok := c.params["KubeletExtraArgs"]; ok {
		b.line = abs(extra.line)
		v, known := w.eval(extra)
		if !known {
			l.add(CodeUnresolved, b.line, "pass -KubeletExtraArgs a single-quoted literal",
				"the value of -KubeletExtraArgs is only known at boot, so the linter cannot tell which taints the kubelet registers")
			return boot{registers: true, unresolved: true}
		}
		args = windowsArgv(v)
	}
	return l.withKubeletArgs(b, args, "-KubeletExtraArgs '...'")
}
