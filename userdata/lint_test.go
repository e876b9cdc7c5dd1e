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
				// The dropped word carries the taint: fixing the = form
				// fixes this one.
				Cause: CodeEqualsForm,
			},
		},
	}
	for name, in := range map[string][]byte{
		"raw":    []byte(userScript),
		"base64": []byte(base64.StdEncoding.EncodeToString([]byte(userScript))),
		"gzip":   gzipped(t, userScript),
	} {
		got := mustLint(t, compat.AL2, in, uninitialized)
		if diff := cmp.Diff(want, got, ignoreKubelet); diff != "" {
			t.Errorf("%s: Lint mismatch (-want +got):\n%s", name, diff)
		}
	}
	// The fix, applied, lints clean.
	fixed := "#!/bin/bash\n" + want.Problems[0].Fix + "\n"
	got := mustLint(t, compat.AL2, []byte(fixed), uninitialized)
	if diff := cmp.Diff(Report{Verdict: Joins, Taints: wantRegistered(compat.AL2, uninitialized, uninitialized)}, got, ignoreKubelet); diff != "" {
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
		if diff := cmp.Diff(want, got, ignoreKubelet); diff != "" {
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

// TestLintIndependentProblems (issue 43): a missing required taint follows
// from a dropped bootstrap.sh argument only when that argument carries it.
// In Karpenter's custom-family example (aws/karpenter-provider-aws
// examples/v1/custom-family.yaml) the dropped word holds labels, so the
// missing karpenter.sh/unregistered is a problem of its own: fixing the =
// form leaves the node without the taint.
func TestLintIndependentProblems(t *testing.T) {
	t.Parallel()
	unregistered := []Taint{UnregisteredTaint()}
	tests := []struct {
		name, script string
		want         map[Code]Code // code → its Cause
	}{
		{"the = form drops labels; the taint is missing on its own",
			"#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args='--node-labels=foo=bar'\n",
			map[Code]Code{CodeEqualsForm: "", CodeRequiredTaintMissing: ""}},
		{"the = form drops the taint",
			"#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args='--node-labels=a=b --register-with-taints=karpenter.sh/unregistered:NoExecute'\n",
			map[Code]Code{CodeEqualsForm: "", CodeRequiredTaintMissing: CodeEqualsForm}},
		{"a kubelet flag given to bootstrap.sh itself",
			"#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --register-with-taints=karpenter.sh/unregistered:NoExecute\n",
			map[Code]Code{CodeIgnoredArgument: "", CodeRequiredTaintMissing: CodeIgnoredArgument}},
		{"the dropped word holds another taint",
			"#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args=--register-with-taints=a=b:NoSchedule\n",
			map[Code]Code{CodeEqualsForm: "", CodeRequiredTaintMissing: ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := map[Code]Code{}
			for _, p := range mustLint(t, compat.AL2, []byte(tc.script), unregistered).Problems {
				got[p.Code] = p.Cause
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems and causes (-want +got):\n%s", diff)
			}
		})
	}
}
