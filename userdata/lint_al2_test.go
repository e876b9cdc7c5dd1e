package userdata

import (
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
)

func TestLintAL2Problems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		want   []Code
		line   int // line of the first problem
		taints []Taint
	}{
		{name: "no shebang", script: "/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeNotExecutable, CodeNoBootstrap}, line: 1},
		// cloud-init converts a script whose first line ends in CRLF to LF
		// before writing it (canonical/cloud-init 22.4.2
		// cloudinit/handlers/shell_script.py:33, util.dos2unix at
		// cloudinit/util.py; 19.3 shell_script.py:38), so it runs.
		{name: "CRLF", script: "#!/bin/bash\r\n/etc/eks/bootstrap.sh my-cluster\r\n",
			want: []Code{CodeRequiredTaintMissing}, line: 2},
		{name: "equals form as first argument becomes the cluster name",
			script: "#!/bin/bash\n/etc/eks/bootstrap.sh --kubelet-extra-args=--register-with-taints=karpenter.sh/uninitialized:NoExecute my-cluster\n",
			want:   []Code{CodeEqualsForm, CodeIgnoredArgument}, line: 2},
		{name: "other equals forms", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --b64-cluster-ca=abc --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeEqualsForm}, line: 2, taints: uninitialized},
		{name: "kubelet flag passed to bootstrap.sh", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --register-with-taints=karpenter.sh/uninitialized:NoExecute\n",
			want: []Code{CodeIgnoredArgument, CodeRequiredTaintMissing}, line: 2},
		{name: "option without value", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args\n",
			want: []Code{CodeBootstrapArguments}, line: 2},
		{name: "no cluster name", script: "#!/bin/bash\n/etc/eks/bootstrap.sh --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeBootstrapArguments}, line: 2},
		{name: "help", script: "#!/bin/bash\n/etc/eks/bootstrap.sh --help\n", want: []Code{CodeBootstrapArguments}, line: 2},
		{name: "command substitution", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args \"$(cat /etc/args)\"\n",
			want: []Code{CodeUnresolved}, line: 2},
		{name: "unknown variable", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c $EXTRA\n", want: []Code{CodeUnresolved}, line: 2},
		{name: "variable not exported", script: "#!/bin/bash\nKUBELET_EXTRA_ARGS=--register-with-taints=karpenter.sh/uninitialized:NoExecute\n/etc/eks/bootstrap.sh c\n",
			want: []Code{CodeRequiredTaintMissing}, line: 3},
		{name: "sudo drops the environment", script: "#!/bin/bash\nexport KUBELET_EXTRA_ARGS=--register-with-taints=karpenter.sh/uninitialized:NoExecute\nsudo /etc/eks/bootstrap.sh c\n",
			want: []Code{CodeRequiredTaintMissing}, line: 3},
		// The call's environment is one of two values, chosen by the if on
		// line 2, with different taints: that is where the analysis stops.
		{name: "conditional assignment", script: "#!/bin/bash\nif [ -f /x ]; then export KUBELET_EXTRA_ARGS=--register-with-taints=karpenter.sh/uninitialized:NoExecute; fi\n/etc/eks/bootstrap.sh c\n",
			want: []Code{CodeUnresolved}, line: 2},
		{name: "exit before the call", script: "#!/bin/bash\nexit 0\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeNoBootstrap}},
		{name: "called twice", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeMultipleBootstrap, CodeRequiredTaintMissing}, line: 2},
		{name: "repeated taint flag", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute --register-with-taints=a:NoSchedule'\n",
			want: []Code{CodeRepeatedTaintFlag, CodeRequiredTaintMissing}, line: 2, taints: []Taint{{Key: "a", Effect: NoSchedule}}},
		{name: "removal dropped", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute,a:NoSchedule-'\n",
			want: []Code{CodeTaintRemovalIgnored}, line: 2, taints: uninitialized},
		{name: "duplicate taint", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=env=prod:NoSchedule,env=staging:NoSchedule,karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeDuplicateTaint}, line: 2},
		{name: "invalid taint", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute,a=b/c:NoSchedule'\n",
			want: []Code{CodeInvalidTaint}, line: 2},
		{name: "systemd unescapes \\\" in the drop-in", script: `#!/bin/bash
/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=\"karpenter.sh/uninitialized:NoExecute\"'
`, want: []Code{CodeSystemdHazard}, line: 2, taints: uninitialized},
		{name: "quotes that survive make the taint invalid", script: `#!/bin/bash
/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=\\\"karpenter.sh/uninitialized:NoExecute\\\"'
`, want: []Code{CodeSystemdHazard, CodeInvalidTaint}, line: 2},
		{name: "forbidden label", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--node-labels=node-restriction.kubernetes.io/x=y --register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeForbiddenLabel}, line: 2},
		{name: "stray kubelet argument", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute oops'\n",
			want: []Code{CodeKubeletArguments}, line: 2},
		{name: "single quote breaks the drop-in", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args \"--node-labels=a='b c' --register-with-taints=karpenter.sh/uninitialized:NoExecute\"\n",
			// A ' ends Environment='…' early (bootstrap.sh@0ab84280 L620);
			// how systemd then reads the line is not something to guess.
			want: []Code{CodeSystemdHazard, CodeUnresolved}, line: 2},
		{name: "percent", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--eviction-hard=memory.available<10% --register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeSystemdHazard, CodeUnresolved}, line: 2},
		{name: "syntax error after the call", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\nif then\n",
			want: []Code{CodeSyntax}, line: 3, taints: uninitialized},
		{name: "empty", script: "", want: []Code{CodeNoBootstrap}},
		{name: "alternative branches, same taints", script: "#!/bin/bash\nif [ -f /x ]; then\n  /etc/eks/bootstrap.sh a --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\nelse\n  /etc/eks/bootstrap.sh b --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\nfi\n",
			taints: uninitialized},
		// Only a call that certainly runs, or calls covering every arm,
		// make the node certain to join.
		{name: "only a conditional call", script: "#!/bin/bash\nif [ -f /x ]; then\n  /etc/eks/bootstrap.sh a --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\nfi\n",
			want: []Code{CodeUnresolved}, line: 3},
		{name: "only a call behind &&", script: "#!/bin/bash\n[ -f /x ] && /etc/eks/bootstrap.sh a --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeUnresolved}, line: 2},
		{name: "alternative branches, different taints", script: "#!/bin/bash\ncase $(hostname) in\na*) /etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute' ;;\n*) /etc/eks/bootstrap.sh c ;;\nesac\n",
			want: []Code{CodeUnresolved}, line: 4},
		// A conditional run of bootstrap.sh that exits (no cluster name)
		// under set -e ends the script only if it ran.
		// bootstrap.sh@0ab84280 edits kubelet-config.json in place and the
		// kubelet reads it; a script that edits it too may add taints.
		// A kubelet config the linter has not read may set
		// registerWithTaints; without a flag to override it, unknown.
		{name: "kubelet --config-dir without a taint flag", script: "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--config-dir=/etc/kubernetes/kubelet.conf.d'\n",
			want: []Code{CodeUnresolved}, line: 2},
		// jq's edit is followed; the flag overrides the (empty) list either
		// way, so whether the mv runs does not matter.
		{name: "script editing the kubelet config", script: "#!/bin/bash\njq '.registerWithTaints=[]' /etc/kubernetes/kubelet/kubelet-config.json > /tmp/k && mv /tmp/k /etc/kubernetes/kubelet/kubelet-config.json\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeBootFileEdit}, line: 2, taints: []Taint{{Key: "karpenter.sh/uninitialized", Effect: NoExecute}}},
		{name: "script rewriting the kubelet config", script: "#!/bin/bash\ncat > /etc/kubernetes/kubelet/kubelet-config.json <<'EOF'\n{}\nEOF\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeBootFileEdit, CodeUnresolved}, line: 2},
		{name: "conditional exiting call under set -e, then another", script: "#!/bin/bash\nset -e\nif [ -f /x ]; then /etc/eks/bootstrap.sh; fi\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeBootstrapArguments, CodeUnresolved}, line: 3},
		{name: "conditional call, then an unconditional one", script: "#!/bin/bash\n[ -f /x ] && /etc/eks/bootstrap.sh c\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeMultipleBootstrap, CodeUnresolved}, line: 2},
		{name: "a command that expands to nothing", script: "#!/bin/bash\nX=\n$X\n\"$X\"\n/etc/eks/bootstrap.sh c\n",
			want: []Code{CodeRequiredTaintMissing}, line: 5},
	}
	for _, tt := range tests {
		got := mustLint(t, compat.AL2, []byte(tt.script), uninitialized)
		if diff := cmp.Diff(tt.want, codes(got)); diff != "" {
			t.Errorf("%s: codes mismatch (-want +got):\n%s\nreport:\n%s", tt.name, diff, got)
			continue
		}
		if tt.line != 0 && got.Problems[0].Line != tt.line {
			t.Errorf("%s: first problem on line %d; want %d\n%s", tt.name, got.Problems[0].Line, tt.line, got)
		}
		if diff := cmp.Diff(tt.taints, configuredTaints(got)); diff != "" {
			t.Errorf("%s: taints mismatch (-want +got):\n%s", tt.name, diff)
		}
		for _, p := range got.Problems {
			if p.Message == "" || p.Severity != p.Code.Severity() {
				t.Errorf("%s: malformed problem %+v", tt.name, p)
			}
		}
	}
}

// A custom AL2 part that calls bootstrap.sh itself, before the part that
// carries the taints (Karpenter's layout): the first call registers the
// node untainted.
func TestLintCustomPartCallsBootstrap(t *testing.T) {
	t.Parallel()
	doc := `MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
echo custom
/etc/eks/bootstrap.sh my-cluster

--//
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash -xe
exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1
/etc/eks/bootstrap.sh 'my-cluster' --apiserver-endpoint 'https://x.eks.amazonaws.com' --b64-cluster-ca 'Y2E=' \
--dns-cluster-ip '10.100.0.10' \
--use-max-pods false \
--kubelet-extra-args '--node-labels="karpenter.sh/capacity-type=on-demand,karpenter.sh/nodepool=default" --register-with-taints="karpenter.sh/unregistered:NoExecute" --max-pods=110'
--//--
`
	got := mustLint(t, compat.AL2, []byte(doc), nil)
	if diff := cmp.Diff([]Code{CodeMultipleBootstrap, CodeRequiredTaintMissing}, codes(got)); diff != "" {
		t.Fatalf("codes mismatch (-want +got):\n%s\n%s", diff, got)
	}
	if got.Problems[0].Line != 9 || !strings.Contains(got.Problems[0].Message, "line 16") {
		t.Errorf("problem = %+v; want it on line 9 naming line 16", got.Problems[0])
	}
	// Without the custom call, Karpenter's own output is clean.
	clean := strings.Replace(doc, "/etc/eks/bootstrap.sh my-cluster\n", "", 1)
	got = mustLint(t, compat.AL2, []byte(clean), nil)
	want := Report{
		Verdict: Joins,
		Taints:  wantRegistered(compat.AL2, []Taint{UnregisteredTaint()}, []Taint{UnregisteredTaint()}),
		Labels:  map[string]string{"karpenter.sh/capacity-type": "on-demand", "karpenter.sh/nodepool": "default"},
		// bootstrap.sh's own config beneath the flags
		// (templates/al2/runtime/bootstrap.sh@0ab84280 L526-528).
		Kubelet: KubeletConfig{ClusterDNS: []string{"10.100.0.10"}, MaxPods: ptr[int32](110),
			KubeReserved: map[string]string{"ephemeral-storage": "1Gi"},
			EvictionHard: map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}},
		KubeletSources: []KubeletSource{
			{Field: "ClusterDNS", From: "bootstrap.sh --dns-cluster-ip", Line: 16},
			{Field: "EvictionHard", From: "bootstrap.sh's kubelet-config.json"},
			{Field: "KubeReserved", Keys: []string{"ephemeral-storage"}, From: "bootstrap.sh's kubelet-config.json"},
			{Field: "KubeReserved", Keys: []string{"cpu", "memory"}, From: "bootstrap.sh's kubelet-config.json, computed at boot"},
			{Field: "MaxPods", From: "--max-pods", Line: 18},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Karpenter's AL2 userData (-want +got):\n%s", diff)
	}
}
