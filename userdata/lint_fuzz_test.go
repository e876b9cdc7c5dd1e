package userdata

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
)

// FuzzLint checks that Lint never panics on any bytes for any family, that
// it is deterministic, and that its report is well-formed: taints valid,
// unique and sorted; problems with a message, the code's severity and a
// line inside the input.
func FuzzLint(f *testing.F) {
	seeds := []string{
		userScript,
		"#!/bin/bash\nexport KUBELET_EXTRA_ARGS=\"--register-with-taints=a:NoSchedule\"\nsudo -E /etc/eks/bootstrap.sh c $X \"${Y:-z}\" --kubelet-extra-args \"$(cat f)\"\n",
		"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/x-shellscript\n\n#!/bin/bash\n/etc/eks/bootstrap.sh c\n--//--\n",
		"apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags: [--register-with-taints=a:NoSchedule]\n",
		"[settings.kubernetes]\ncluster-name = 'c'\napi-server = 'https://x'\n[settings.kubernetes.node-taints]\na = [':NoSchedule']\n",
		"<powershell>\n& Start-EKSBootstrap.ps1 -EKSClusterName c -KubeletExtraArgs '--register-with-taints=a:NoSchedule'\n</powershell>",
		"<powershell>\n$x = @\"\n$(Get-Date) `\"\n\"@\n",
		"#!/bin/bash\nX=\n$X\n${X:-}\nset -a\nKUBELET_EXTRA_ARGS=--v=2\nenv -u KUBELET_EXTRA_ARGS /etc/eks/bootstrap.sh c\n",
	}
	for _, s := range seeds {
		for fam := range uint8(5) {
			f.Add(fam, []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, fam uint8, data []byte) {
		family := families[int(fam)%len(families)]
		r, err := Lint(family, data, nil)
		if err != nil {
			return
		}
		again, _ := Lint(family, data, nil)
		if diff := cmp.Diff(r, again); diff != "" {
			t.Fatalf("Lint is not deterministic (-first +second):\n%s", diff)
		}
		if !slices.IsSortedFunc(r.Taints, func(a, b RegisteredTaint) int { return compareTaints(a.Taint, b.Taint) }) {
			t.Fatalf("taints not sorted: %v", r.Taints)
		}
		for i, x := range r.Taints {
			if err := x.Validate(); err != nil {
				t.Fatalf("reported taint is invalid: %v", err)
			}
			if i > 0 && r.Taints[i-1].Matches(x.Taint) {
				t.Fatalf("reported taints repeat a key and effect: %v", r.Taints)
			}
		}
		text, _, _ := decodeUserData(data)
		lines := bytes.Count(text, []byte("\n")) + 1
		for _, p := range r.Problems {
			if p.Message == "" || p.Severity != p.Code.Severity() || p.Line < 0 || p.Line > lines {
				t.Fatalf("malformed problem %+v (input has %d lines)", p, lines)
			}
		}
		_ = r.String()
	})
}

// TestLintShellFragments composes scripts from shell fragments that stress
// the walker (assignments, exports, expansions that vanish or split,
// wrappers, compound commands, bootstrap.sh calls) and checks that Lint
// never panics and stays well-formed.
func TestLintShellFragments(t *testing.T) {
	t.Parallel()
	fragments := []string{
		"X=", "X='--register-with-taints=a:NoSchedule'", "export X", "export -n X", "declare -x Y=1", "readonly Z", "local Q=1",
		"KUBELET_EXTRA_ARGS=\"$X\"", "export KUBELET_EXTRA_ARGS", "unset KUBELET_EXTRA_ARGS", "set -a", "set +a", "set -o allexport",
		"$X", "\"$X\"", "${X:-}", "${X#--}", "${#X}", "${!X}", "$((1+2))", "$(date)", "`date`", "~/x", "{a,b}", "*.sh",
		"/etc/eks/bootstrap.sh", "bootstrap.sh", "sudo", "sudo -E", "env -i", "env KUBELET_EXTRA_ARGS=--v=2", "exec", "nice -n 1", "timeout 5",
		"bash -c 'x'", "command", "eval \"$X\"", "source /x", "read X", "exit", "exit 1",
		"--kubelet-extra-args", "--kubelet-extra-args=", "--kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'",
		"--b64-cluster-ca", "c", "-h", "--", "'\\''", "\"a b\"", "$'\\t'",
		"if true; then", "fi", "else", "for i in 1 2; do", "done", "while false; do", "case $X in a)", ";;", "esac",
		"{", "}", "(", ")", "|", "&&", "||", "&", ";", "f() {", "let X=1", "((X++))", "[[ -n $X ]]", "<<EOF", "EOF",
	}
	rapid.Check(t, func(t *rapid.T) {
		var b bytes.Buffer
		b.WriteString("#!/bin/bash\n")
		for range rapid.IntRange(1, 12).Draw(t, "lines") {
			words := rapid.SliceOfN(rapid.SampledFrom(fragments), 1, 6).Draw(t, "words")
			for i, w := range words {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(w)
			}
			b.WriteByte('\n')
		}
		for _, f := range []compat.AMIFamily{compat.AL2, compat.Custom} {
			r, err := Lint(f, b.Bytes(), nil)
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			for _, p := range r.Problems {
				if p.Message == "" || p.Severity != p.Code.Severity() {
					t.Fatalf("malformed problem %+v", p)
				}
			}
		}
	})
}
