package userdata

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
)

var uninitialized = []Taint{{Key: "karpenter.sh/uninitialized", Effect: NoExecute}}

// The script from the issue: the '=' form is dropped by bootstrap.sh.
const userScript = `#!/bin/bash
/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args='--register-with-taints="karpenter.sh/uninitialized:NoExecute"'
`

func TestLintUserScript(t *testing.T) {
	t.Parallel()
	want := Report{
		Verdict: Joins,
		Taints:  wantRegistered(compat.AL2, nil, uninitialized),
		Problems: []Problem{
			{
				Code:     CodeEqualsForm,
				Severity: SeverityError,
				Line:     2,
				Message:  `--kubelet-extra-args= is ignored by bootstrap.sh: it matches options exactly, so "--kubelet-extra-args=--register-with-taints=\"karpenter.sh/uninitialized:NoExecute\"" is an extra positional argument and is silently dropped`,
				Fix:      `/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints="karpenter.sh/uninitialized:NoExecute"'`,
			},
			{
				Code:     CodeRequiredTaintMissing,
				Severity: SeverityError,
				Line:     2,
				Message:  "required taint karpenter.sh/uninitialized:NoExecute missing: the kubelet will register the node without it",
				Fix:      "put --register-with-taints=karpenter.sh/uninitialized:NoExecute in --kubelet-extra-args '...' (one flag, space after --kubelet-extra-args)",
			},
		},
	}
	for name, in := range map[string][]byte{
		"raw":    []byte(userScript),
		"base64": []byte(base64.StdEncoding.EncodeToString([]byte(userScript))),
		"gzip":   gzipped(t, userScript),
	} {
		got := mustLint(t, compat.AL2, in, uninitialized)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Lint mismatch (-want +got):\n%s", name, diff)
		}
	}
	// The fix, applied, lints clean.
	fixed := "#!/bin/bash\n" + want.Problems[0].Fix + "\n"
	got := mustLint(t, compat.AL2, []byte(fixed), uninitialized)
	if diff := cmp.Diff(Report{Verdict: Joins, Taints: wantRegistered(compat.AL2, uninitialized, uninitialized)}, got); diff != "" {
		t.Errorf("the corrected line does not lint clean (-want +got):\n%s", diff)
	}
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestLintCleanForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		want   []Taint
	}{
		{
			name:   "space form",
			script: "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints \"karpenter.sh/uninitialized:NoExecute\"'\n",
			want:   uninitialized,
		},
		{
			name:   "Karpenter's form",
			script: "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=\"karpenter.sh/uninitialized:NoExecute\"'\n",
			want:   uninitialized,
		},
		{
			name:   "exported variable",
			script: "#!/bin/bash\nexport KUBELET_EXTRA_ARGS='--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n/etc/eks/bootstrap.sh my-cluster\n",
			want:   uninitialized,
		},
		{
			name:   "assignment, then export",
			script: "#!/bin/bash\nKUBELET_EXTRA_ARGS=--register-with-taints=karpenter.sh/uninitialized:NoExecute\nexport KUBELET_EXTRA_ARGS\n/etc/eks/bootstrap.sh my-cluster\n",
			want:   uninitialized,
		},
		{
			name:   "prefix assignment",
			script: "#!/bin/bash\nKUBELET_EXTRA_ARGS=\"--register-with-taints karpenter.sh/uninitialized:NoExecute\" /etc/eks/bootstrap.sh my-cluster\n",
			want:   uninitialized,
		},
		{
			name:   "env wrapper",
			script: "#!/bin/sh\nenv KUBELET_EXTRA_ARGS=--register-with-taints=karpenter.sh/uninitialized:NoExecute /etc/eks/bootstrap.sh my-cluster\n",
			want:   uninitialized,
		},
		{
			name: "variables and continuation lines",
			script: `#!/usr/bin/env bash
set -ex
CLUSTER=my-cluster
TAINTS="karpenter.sh/uninitialized:NoExecute,team=a:NoSchedule"
ARGS="--node-labels=example.com/team=a --register-with-taints=${TAINTS}"
/etc/eks/bootstrap.sh "$CLUSTER" \
  --b64-cluster-ca "$(cat /tmp/ca)" \
  --kubelet-extra-args "$ARGS"
`,
			want: []Taint{{Key: "karpenter.sh/uninitialized", Effect: NoExecute}, {Key: "team", Value: "a", Effect: NoSchedule}},
		},
		{
			name:   "unquoted variable splits into option and value",
			script: "#!/bin/bash\nEXTRA=\"--kubelet-extra-args --register-with-taints=karpenter.sh/uninitialized:NoExecute\"\n/etc/eks/bootstrap.sh my-cluster $EXTRA\n",
			want:   uninitialized,
		},
		{
			name:   "sudo -E keeps the environment",
			script: "#!/bin/bash\nexport KUBELET_EXTRA_ARGS=--register-with-taints=karpenter.sh/uninitialized:NoExecute\nsudo -E /etc/eks/bootstrap.sh my-cluster\n",
			want:   uninitialized,
		},
		{
			name:   "last --kubelet-extra-args wins",
			script: "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--v=2' --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want:   uninitialized,
		},
	}
	for _, tt := range tests {
		got := mustLint(t, compat.AL2, []byte(tt.script), uninitialized)
		if len(got.Problems) > 0 {
			t.Errorf("%s: unexpected problems:\n%s", tt.name, got)
		}
		sortTaints(tt.want)
		if diff := cmp.Diff(tt.want, configuredTaints(got)); diff != "" {
			t.Errorf("%s: taints mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func sortTaints(ts []Taint) {
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			if compareTaints(ts[j], ts[i]) < 0 {
				ts[i], ts[j] = ts[j], ts[i]
			}
		}
	}
}

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
		{name: "conditional assignment", script: "#!/bin/bash\nif [ -f /x ]; then export KUBELET_EXTRA_ARGS=--register-with-taints=karpenter.sh/uninitialized:NoExecute; fi\n/etc/eks/bootstrap.sh c\n",
			want: []Code{CodeUnresolved}, line: 3},
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
		{name: "script editing the kubelet config", script: "#!/bin/bash\njq '.registerWithTaints=[]' /etc/kubernetes/kubelet/kubelet-config.json > /tmp/k && mv /tmp/k /etc/kubernetes/kubelet/kubelet-config.json\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/uninitialized:NoExecute'\n",
			want: []Code{CodeUnresolved}, line: 2},
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
		Kubelet: KubeletConfig{ClusterDNS: []string{"10.100.0.10"}, MaxPods: ptr[int32](110)},
		KubeletSources: []KubeletSource{
			{Field: "ClusterDNS", From: "bootstrap.sh --dns-cluster-ip", Line: 16},
			{Field: "MaxPods", From: "--max-pods", Line: 18},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Karpenter's AL2 userData (-want +got):\n%s", diff)
	}
}

// The nodeadm trap of aws/karpenter-provider-aws#7486: a user NodeConfig
// with a --register-with-taints flag overrides Karpenter's
// registerWithTaints.
func TestLintNodeadmTrap(t *testing.T) {
	t.Parallel()
	doc := `MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: application/node.eks.aws

apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  kubelet:
    flags:
    - --register-with-taints=dedicated=gpu:NoSchedule
--//
Content-Type: application/node.eks.aws

# Karpenter Generated NodeConfig
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    apiServerEndpoint: https://x.eks.amazonaws.com
    certificateAuthority: Y2E=
    cidr: 10.100.0.0/16
    name: my-cluster
  kubelet:
    config:
      clusterDNS:
      - 10.100.0.10
      maxPods: 110
      registerWithTaints:
      - effect: NoExecute
        key: karpenter.sh/unregistered
    flags:
    - --node-labels="karpenter.sh/nodepool=default"
--//--
`
	got := mustLint(t, compat.AL2023, []byte(doc), nil)
	if diff := cmp.Diff([]Code{CodeFlagOverridesConfig, CodeRequiredTaintMissing}, codes(got)); diff != "" {
		t.Fatalf("codes mismatch (-want +got):\n%s\n%s", diff, got)
	}
	if got.Problems[0].Line != 12 {
		t.Errorf("flag-overrides-config on line %d; want 12 (the flag)", got.Problems[0].Line)
	}
	if diff := cmp.Diff([]Taint{{Key: "dedicated", Value: "gpu", Effect: NoSchedule}}, configuredTaints(got)); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	// Without the user's flag, the config's list is what registers.
	clean := strings.Replace(doc, "    flags:\n    - --register-with-taints=dedicated=gpu:NoSchedule\n", "    config:\n      registerWithTaints:\n      - {key: dedicated, value: gpu, effect: NoSchedule}\n", 1)
	got = mustLint(t, compat.AL2023, []byte(clean), nil)
	want := Report{
		Verdict: Joins, Taints: wantRegistered(compat.AL2023, []Taint{UnregisteredTaint()}, []Taint{UnregisteredTaint()}),
		Labels:  map[string]string{"karpenter.sh/nodepool": "default"},
		Kubelet: KubeletConfig{ClusterDNS: []string{"10.100.0.10"}, MaxPods: ptr[int32](110)},
		KubeletSources: []KubeletSource{
			{Field: "ClusterDNS", From: "spec.kubelet.config.clusterDNS", Line: 28},
			{Field: "MaxPods", From: "spec.kubelet.config.maxPods", Line: 30},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("later registerWithTaints replaces the earlier list (-want +got):\n%s", diff)
	}
}

func TestLintNodeadmProblems(t *testing.T) {
	t.Parallel()
	cluster := "  cluster:\n    name: c\n    apiServerEndpoint: https://x\n    certificateAuthority: Y2E=\n    cidr: 10.100.0.0/16\n"
	tests := []struct {
		name string
		doc  string
		want []Code
	}{
		{name: "single document", doc: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n" + cluster + "  kubelet:\n    config:\n      registerWithTaints:\n      - {key: karpenter.sh/unregistered, effect: NoExecute}\n"},
		{name: "json", doc: `{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig","spec":{"cluster":{"name":"c","apiServerEndpoint":"https://x","certificateAuthority":"Y2E=","cidr":"10.0.0.0/16"},"kubelet":{"config":{"registerWithTaints":[{"key":"karpenter.sh/unregistered","effect":"NoExecute"}]}}}}`},
		{name: "missing taint", doc: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n" + cluster, want: []Code{CodeRequiredTaintMissing}},
		{name: "missing cluster", doc: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: {}\n", want: []Code{CodeIncompleteConfig}},
		{name: "not a NodeConfig", doc: "apiVersion: v1\nkind: Pod\n", want: []Code{CodeSyntax}},
		{name: "not yaml", doc: "#!/bin/bash\necho hi\n", want: []Code{CodeSyntax}},
		{name: "invalid taint in config", doc: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n" + cluster + "  kubelet:\n    config:\n      registerWithTaints:\n      - {key: karpenter.sh/unregistered, effect: NoExecute}\n      - {key: a, effect: Sometimes}\n",
			want: []Code{CodeInvalidTaint}},
		{name: "flag alone", doc: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n" + cluster + "  kubelet:\n    flags: [--register-with-taints=karpenter.sh/unregistered:NoExecute]\n"},
	}
	for _, tt := range tests {
		got := mustLint(t, compat.AL2023, []byte(tt.doc), nil)
		if diff := cmp.Diff(tt.want, codes(got)); diff != "" {
			t.Errorf("%s: codes mismatch (-want +got):\n%s\n%s", tt.name, diff, got)
		}
	}
}

func TestLintBottlerocket(t *testing.T) {
	t.Parallel()
	base := "[settings.kubernetes]\ncluster-name = 'c'\napi-server = 'https://x'\n"
	tests := []struct {
		name   string
		doc    string
		want   []Code
		taints []Taint
	}{
		{name: "list form", doc: base + "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\nteam = ['a:NoSchedule', 'a:NoExecute']\n",
			taints: []Taint{UnregisteredTaint(), {Key: "team", Value: "a", Effect: NoExecute}, {Key: "team", Value: "a", Effect: NoSchedule}}},
		{name: "string form", doc: base + "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = ':NoExecute'\n", taints: []Taint{UnregisteredTaint()}},
		{name: "missing", doc: base, want: []Code{CodeRequiredTaintMissing}, taints: []Taint{}},
		{name: "bad effect", doc: base + "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExec']\n", want: []Code{CodeInvalidTaint}},
		{name: "no colon", doc: base + "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = ['NoExecute']\n", want: []Code{CodeInvalidTaint}},
		{name: "no cluster", doc: "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\n", want: []Code{CodeIncompleteConfig}},
		{name: "bad toml", doc: "[settings.kubernetes\n", want: []Code{CodeSyntax}},
		// The settings model denies unknown fields (bottlerocket@468f205b^
		// sources/models/model-derive/src/lib.rs L112-116); whether a key
		// is known depends on the release, so it is unresolved.
		{name: "unknown setting", doc: base + "node-taint = 'x'\n", want: []Code{CodeUnresolved}},
		// Bootstrap commands run before the kubelet (apiclient set can
		// change node-taints); only ephemeral-storage setup is known safe.
		{name: "bootstrap command", doc: "[settings.bootstrap-commands.x]\ncommands = [['apiclient', 'set', 'kubernetes.node-taints.a=:NoSchedule']]\n" + base, want: []Code{CodeUnresolved}},
		{name: "ephemeral-storage bootstrap command", doc: "[settings.bootstrap-commands.raid]\ncommands = [['apiclient', 'ephemeral-storage', 'init']]\n" + base + "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\n",
			taints: []Taint{UnregisteredTaint()}},
		{name: "forbidden label", doc: base + "[settings.kubernetes.node-labels]\n'kubernetes.io/role' = 'x'\n[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\n", want: []Code{CodeForbiddenLabel}},
	}
	for _, tt := range tests {
		got := mustLint(t, compat.Bottlerocket, []byte(tt.doc), nil)
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

func TestLintCustomDetectsFamily(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		doc    string
		family compat.AMIFamily
	}{
		"shell":        {"#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n", compat.AL2},
		"nodeconfig":   {"apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster: {name: c, apiServerEndpoint: 'https://x', certificateAuthority: Y2E=, cidr: 10.0.0.0/16}\n  kubelet:\n    config:\n      registerWithTaints: [{key: karpenter.sh/unregistered, effect: NoExecute}]\n", compat.AL2023},
		"bottlerocket": {"[settings.kubernetes]\ncluster-name = 'c'\napi-server = 'https://x'\n[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\n", compat.Bottlerocket},
		"windows":      {"<powershell>\n& Start-EKSBootstrap.ps1 -EKSClusterName c -KubeletExtraArgs '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n</powershell>\n", compat.Windows2022},
	} {
		got := mustLint(t, compat.Custom, []byte(tc.doc), nil)
		want := Report{Verdict: Joins, Taints: wantRegistered(tc.family, []Taint{UnregisteredTaint()}, []Taint{UnregisteredTaint()})}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", name, diff)
		}
	}
}

func TestLintTooLarge(t *testing.T) {
	t.Parallel()
	script := "#!/bin/bash\n" + strings.Repeat("# padding padding padding\n", 700) +
		"/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"
	got := mustLint(t, compat.AL2, []byte(script), nil)
	if diff := cmp.Diff([]Code{CodeTooLarge}, codes(got)); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if want := fmt.Sprintf("%d bytes", len(script)); !strings.Contains(got.Problems[0].Message, want) {
		t.Errorf("message %q does not give the size", got.Problems[0].Message)
	}
}

func TestLintErrors(t *testing.T) {
	t.Parallel()
	if _, err := Lint(compat.AMIFamily(""), []byte("x"), nil); err == nil {
		t.Error("Lint accepted the zero Family")
	}
	if _, err := Lint(compat.AL2, []byte("x"), []Taint{{Key: "a"}}); err == nil {
		t.Error("Lint accepted an invalid required taint")
	}
	if _, err := Lint(compat.AL2, []byte{0x1f, 0x8b, 1, 2, 3}, nil); err == nil {
		t.Error("Lint accepted broken gzip")
	}
	if r, err := Lint(compat.AL2, []byte("#!/bin/bash\n/etc/eks/bootstrap.sh c\n"), []Taint{}); err != nil || len(r.Problems) != 0 {
		t.Errorf("with no required taints: %v, %v", r, err)
	}
}

func TestReportString(t *testing.T) {
	t.Parallel()
	r := Report{
		Verdict:  Joins,
		Taints:   []RegisteredTaint{{Taint: Taint{Key: "a", Value: "b", Effect: NoSchedule}, Source: SourceUser}, {Taint: UnregisteredTaint(), Source: SourceRequired}},
		Labels:   map[string]string{"x": "1", "a": "2"},
		Problems: []Problem{{Code: CodeIgnoredArgument, Severity: SeverityWarning, Line: 3, Message: "m", Fix: "f"}},
	}
	want := "verdict: joins\ntaints: a=b:NoSchedule, karpenter.sh/unregistered:NoExecute\nlabels: a=2, x=1\nline 3: warning ignored-argument: m\n    fix: f"
	if got := r.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	if r.HasErrors() {
		t.Error("HasErrors() = true for a warning")
	}
}
