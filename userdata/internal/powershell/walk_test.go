package powershell

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// walked writes what a walk of src found: each call's bound parameters,
// each statement it cannot follow, and where it stopped.
func walked(t *testing.T, src string) []string {
	t.Helper()
	toks, err := Lex(src)
	if err != nil {
		t.Fatalf("Lex(%q): %v", src, err)
	}
	w := NewWalker("Start-EKSBootstrap.ps1", []string{"EKSClusterName", "Endpoint", "KubeletExtraArgs", "ContainerRuntime"}, []string{"EKSClusterName", "KubeletExtraArgs"})
	w.Walk(toks)
	var out []string
	for _, c := range w.Calls {
		var ps []string
		for name, tok := range c.Params {
			v, known := w.Eval(tok)
			if !known {
				v = "?"
			}
			ps = append(ps, name+"="+v)
		}
		sort.Strings(ps)
		out = append(out, fmt.Sprintf("call L%d %s", c.Line, strings.Join(ps, " ")))
	}
	for _, o := range w.Opaque {
		out = append(out, fmt.Sprintf("opaque L%d: %s", o.Line, o.What))
	}
	if w.Stopped {
		out = append(out, fmt.Sprintf("stop L%d", w.StopLine))
	}
	return out
}

// TestWalk pins how the walker follows statements and binds
// Start-EKSBootstrap.ps1's parameters as PowerShell binds them
// (about_Parameters: -Name value, -Name:value, a unique prefix, switches,
// then positional arguments in order) and what it cannot follow.
func TestWalk(t *testing.T) {
	t.Parallel()
	const call = "& C:\\EKS\\Start-EKSBootstrap.ps1"
	tests := []struct {
		name, src string
		want      []string
	}{
		{"named", call + " -EKSClusterName c -KubeletExtraArgs '--a'", []string{"call L1 EKSClusterName=c KubeletExtraArgs=--a"}},
		{"positional", call + " c '--a'", []string{"call L1 EKSClusterName=c KubeletExtraArgs=--a"}},
		{"named then positional", call + " -EKSClusterName c '--a'", []string{"call L1 EKSClusterName=c KubeletExtraArgs=--a"}},
		{"colon", call + " -EKSClusterName:c -KubeletExtraArgs: '--a'", []string{"call L1 EKSClusterName=c KubeletExtraArgs=--a"}},
		{"unique prefix, any case", call + " -eksc c -kube '--a'", []string{"call L1 EKSClusterName=c KubeletExtraArgs=--a"}},
		{"ambiguous prefix is dropped", call + " -E c", []string{"call L1 "}},
		{"exact name beats a prefix", "& x.ps1; " + call + " -Endpoint e", []string{"call L1 Endpoint=e"}},
		{"a switch", call + " -ContainerRuntime", []string{"call L1 ContainerRuntime=True"}},
		{"a negative number is a value", call + " -EKSClusterName -1", []string{"call L1 EKSClusterName=-1"}},
		{"a variable", "$x = '--a'\n" + call + " c $x", []string{"call L2 EKSClusterName=c KubeletExtraArgs=--a"}},
		{"a typed variable", "[string]$x = '--a'\n" + call + " c $x", []string{"call L2 EKSClusterName=c KubeletExtraArgs=--a"}},
		{"a variable from a group", "$x = (Get-Args)\n" + call + " c $x", []string{"call L2 EKSClusterName=c KubeletExtraArgs=?"}},
		{"an appended variable", "$x = 'a'\n$x += 'b'\n" + call + " c $x", []string{"call L3 EKSClusterName=c KubeletExtraArgs=?"}},
		{"an unset variable", call + " c $nope", []string{"call L1 EKSClusterName=c KubeletExtraArgs=?"}},
		{"dot-sourced", ". C:\\EKS\\Start-EKSBootstrap.ps1 c", []string{"call L1 EKSClusterName=c"}},
		{"by a bare path", "C:\\EKS\\Start-EKSBootstrap.ps1 c", []string{"call L1 EKSClusterName=c"}},
		{"& alone", "&", nil},
		{"a string statement", "'x'", nil},
		{"exit stops", "exit 0\n" + call + " c", []string{"stop L1"}},
		{"throw stops", "throw 'x'", []string{"stop L1"}},
		{"exit in a block does not", "if ($a) { exit }\n" + call + " c", []string{"call L2 EKSClusterName=c"}},
		{"Invoke-Expression", "Invoke-Expression $s", []string{"opaque L1: Invoke-Expression, which runs a string"}},
		{"a command only known at run time", "& $cmd", []string{"opaque L1: a command whose name is only known at run time ($cmd)"}},
		// terraform-aws-eks's Windows template: the path is built from
		// variables in expandable strings and Windows' own
		// $env:ProgramFiles (C:\Program Files).
		{"a path built in expandable strings", "[string]$Dir = \"$env:ProgramFiles\\Amazon\\EKS\"\n[string]$Name = 'Start-EKSBootstrap.ps1'\n[string]$File = \"$Dir\\$Name\"\n& $File -EKSClusterName c",
			[]string{"call L4 EKSClusterName=c"}},
		{"an expandable string with a variable only known at run time", "$File = \"$Dir\\Start-EKSBootstrap.ps1\"\n& $File c", []string{"call L2 EKSClusterName=c"}},
		{"a script variable is not an environment variable", "& \"$ProgramFiles\\x.ps1\"", []string{"opaque L1: a command whose name is only known at run time (\"$ProgramFiles\\x.ps1\")"}},
		{"Start-Service kubelet", "Start-Service -Name kubelet", []string{"opaque L1: start-service acting on the kubelet service"}},
		{"sc.exe on a service only known at run time", "sc.exe start $svc", []string{"opaque L1: sc.exe acting on the kubelet service"}},
		{"Start-Service on another service", "Start-Service W3SVC", nil},
		{"the kubelet by path", "C:\\k\\kubelet.exe --v=2", []string{"opaque L1: the kubelet, run directly"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, walked(t, tt.src)); diff != "" {
			t.Errorf("%s: %q (-want +got):\n%s", tt.name, tt.src, diff)
		}
	}
}

// TestEval: only literals and variables assigned literals are known.
func TestEval(t *testing.T) {
	t.Parallel()
	toks, err := Lex("(x) $y")
	if err != nil {
		t.Fatal(err)
	}
	w := NewWalker("x.ps1", nil, nil)
	for _, tok := range toks {
		if v, known := w.Eval(tok); known || v != string(unknown) {
			t.Errorf("Eval(%s) = %q, %v; want unknown", tok.Raw(), v, known)
		}
	}
}
