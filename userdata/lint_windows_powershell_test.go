package userdata

import (
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
)

func TestLintWindows(t *testing.T) {
	t.Parallel()
	karpenter := "<powershell>\n[string]$EKSBootstrapScriptFile = \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n& $EKSBootstrapScriptFile -EKSClusterName 'c' -APIServerEndpoint 'https://x' -Base64ClusterCA 'Y2E=' -KubeletExtraArgs '--node-labels=\"a=b\" --register-with-taints=\"karpenter.sh/unregistered:NoExecute\" --max-pods=110' -DNSClusterIP '10.0.100.10'\n</powershell>\n"
	tests := []struct {
		name   string
		doc    string
		want   []Code
		taints []Taint
	}{
		{name: "Karpenter's form", doc: karpenter, taints: []Taint{UnregisteredTaint()}},
		{name: "abbreviated, positional, case-insensitive", doc: "<POWERSHELL>\n& 'C:\\Program Files\\Amazon\\EKS\\start-eksbootstrap.ps1' c -kubeletextra \"--register-with-taints=karpenter.sh/unregistered:NoExecute\" 3>&1\n</POWERSHELL>",
			taints: []Taint{UnregisteredTaint()}},
		{name: "positional after a named parameter", doc: "<powershell>\n& Start-EKSBootstrap.ps1 -EKSClusterName c '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n</powershell>",
			taints: []Taint{UnregisteredTaint()}},
		{name: "continuation lines", doc: "<powershell>\n$f = 'Start-EKSBootstrap.ps1'\n& $f `\n  -EKSClusterName c `\n  -KubeletExtraArgs:'--register-with-taints=karpenter.sh/unregistered:NoExecute'\n</powershell>",
			taints: []Taint{UnregisteredTaint()}},
		{name: "missing taint", doc: strings.Replace(karpenter, `--register-with-taints="karpenter.sh/unregistered:NoExecute" `, "", 1), want: []Code{CodeRequiredTaintMissing}, taints: []Taint{}},
		{name: "no block", doc: "& Start-EKSBootstrap.ps1 -EKSClusterName c\n", want: []Code{CodeNoBootstrap}},
		{name: "unterminated string", doc: "<powershell>\nWrite-Host 'oops\n" + karpenter[len("<powershell>\n"):], want: []Code{CodeSyntax}},
		{name: "exit first", doc: "<powershell>\nexit 1\n" + karpenter[len("<powershell>\n"):], want: []Code{CodeNoBootstrap}},
		{name: "no cluster name", doc: "<powershell>\n& Start-EKSBootstrap.ps1 -KubeletExtraArgs '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n</powershell>", want: []Code{CodeIncompleteConfig}},
		{name: "dynamic args", doc: "<powershell>\n& Start-EKSBootstrap.ps1 -EKSClusterName c -KubeletExtraArgs \"$args\"\n</powershell>", want: []Code{CodeUnresolved}},
		{name: "Invoke-Expression", doc: "<powershell>\nInvoke-Expression $env:JOIN\n" + karpenter[len("<powershell>\n"):], want: []Code{CodeUnresolved}},
		{name: "kubelet service started", doc: "<powershell>\nStart-Service kubelet\n" + karpenter[len("<powershell>\n"):], want: []Code{CodeUnresolved}},
		{name: "twice", doc: "<powershell>\n& Start-EKSBootstrap.ps1 -EKSClusterName c\n" + karpenter[len("<powershell>\n"):], want: []Code{CodeMultipleBootstrap, CodeRequiredTaintMissing}, taints: []Taint{}},
	}
	for _, tt := range tests {
		got := mustLint(t, compat.Windows2022, []byte(tt.doc), nil)
		if diff := cmp.Diff(tt.want, codes(got)); diff != "" {
			t.Errorf("%s: codes mismatch (-want +got):\n%s\n%s", tt.name, diff, got)
		}
		if len(tt.taints) == 0 {
			tt.taints = nil
		}
		if diff := cmp.Diff(tt.taints, configuredTaints(got)); diff != "" {
			t.Errorf("%s: taints (-want +got):\n%s", tt.name, diff)
		}
	}
}
