package userdata

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/powershell"
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

// newEKSWalker returns a walker for calls of Start-EKSBootstrap.ps1, whose
// positional parameters are EKSClusterName then KubeletExtraArgs (their
// declaration order in the script).
func newEKSWalker() *powershell.Walker {
	return powershell.NewWalker(eksBootstrapPS1, eksBootstrapParams, []string{"EKSClusterName", "KubeletExtraArgs"})
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
	toks, err := powershell.Lex(block)
	if err != nil {
		var pe *powershell.Error
		line := 0
		if errors.As(err, &pe) {
			line = abs(pe.Line())
		}
		l.add(CodeSyntax, line, "fix the PowerShell syntax", "PowerShell cannot parse the script (%v), so none of it runs", err)
		return boot{}
	}
	w := newEKSWalker()
	w.Walk(toks)
	if len(w.Opaque) > 0 {
		o := w.Opaque[0]
		return l.unresolved(abs(o.Line), "call Start-EKSBootstrap.ps1 directly, with literal arguments",
			"%s: the linter cannot follow it, and it may run the bootstrap script or start the kubelet", o.What)
	}
	if len(w.Calls) == 0 {
		msg := "no statement calls Start-EKSBootstrap.ps1, so the node never joins the cluster"
		if w.Stopped {
			msg = fmt.Sprintf("the script stops on line %d before any call of Start-EKSBootstrap.ps1, so the node never joins the cluster", abs(w.StopLine))
		}
		l.add(CodeNoBootstrap, 0, "call & \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\" -EKSClusterName ... -KubeletExtraArgs '...'", "%s", msg)
		return boot{}
	}
	if len(w.Calls) > 1 {
		var lines []string
		for _, c := range w.Calls[1:] {
			lines = append(lines, fmt.Sprint(abs(c.Line)))
		}
		first := abs(w.Calls[0].Line)
		l.add(CodeMultipleBootstrap, first, fmt.Sprintf("remove the call on line %d and keep a single call with all kubelet arguments", first),
			"Start-EKSBootstrap.ps1 is called here and again on line %s; this first call registers the node with its own taints before the later call runs",
			strings.Join(lines, ", "))
	}
	return l.eksBootstrapCall(w, w.Calls[0], abs)
}

// eksBootstrapCall follows one Start-EKSBootstrap.ps1 call to the kubelet.
func (l *linter) eksBootstrapCall(w *powershell.Walker, c powershell.Call, abs func(int) int) boot {
	line := abs(c.Line)
	if name, ok := c.Params["EKSClusterName"]; !ok {
		l.add(CodeIncompleteConfig, line, "add -EKSClusterName 'CLUSTER'",
			"Start-EKSBootstrap.ps1 is called without -EKSClusterName, a mandatory parameter, so it stops and the node never joins")
		return boot{}
	} else if v, known := w.Eval(name); known && v == "" {
		l.add(CodeIncompleteConfig, line, "pass the cluster name to -EKSClusterName",
			"-EKSClusterName is empty, so the node never joins")
		return boot{}
	}
	b := boot{registers: true, line: line}
	var args []string
	if extra, ok := c.Params["KubeletExtraArgs"]; ok {
		b.line = abs(extra.Line())
		v, known := w.Eval(extra)
		if !known {
			l.add(CodeUnresolved, b.line, "pass -KubeletExtraArgs a single-quoted literal",
				"the value of -KubeletExtraArgs is only known at boot, so the linter cannot tell which taints the kubelet registers")
			return boot{registers: true, unresolved: true}
		}
		args = powershell.WindowsArgv(v)
	}
	if dns, ok := c.Params["DNSClusterIP"]; ok {
		if v, known := w.Eval(dns); known && v != "" {
			b.kubeletVals.cfg.ClusterDNS = []string{v}
			b.kubeletVals.set("ClusterDNS", "Start-EKSBootstrap.ps1 -DNSClusterIP", abs(dns.Line()))
		}
	}
	return l.withKubeletArgs(b, args, "-KubeletExtraArgs '...'", false)
}
