package userdata

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
)

// TestLintDefectBeforeHorizon (issue 43): a defect Lint is certain of,
// found before the first construct it cannot follow, is reported with the
// Unresolved for what comes after. A user script that runs bootstrap.sh
// itself before Karpenter's part starts the kubelet, which registers the
// node with that call's taints (--register-with-taints acts on first
// registration; awslabs/amazon-eks-ami#288) — whatever a background helper
// seventy lines later does.
func TestLintDefectBeforeHorizon(t *testing.T) {
	t.Parallel()
	helper := "nohup bash -c \"$(curl -s http://169.254.169.254/latest/user-data-helper)\" &\n"
	userPart := func(before, after string) string {
		return "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/bin/bash\n" + before + strings.Repeat("echo step\n", 70) + after
	}
	karpenter := "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/bin/bash -xe\n/etc/eks/bootstrap.sh 'test-cluster' --apiserver-endpoint 'https://x.example.com' --b64-cluster-ca 'Y2E=' --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"
	doc := func(parts ...string) []byte {
		return []byte("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\n" + strings.Join(parts, "--//\n") + "--//--\n")
	}
	join := "/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--node-labels=team=a'\n"
	tests := []struct {
		name  string
		data  []byte
		codes []Code
	}{
		{"the user's join, then a helper", doc(userPart(join, helper), karpenter),
			[]Code{CodeMultipleBootstrap, CodeRequiredTaintMissing, CodeUnresolved}},
		{"the helper first: nothing is certain", doc(userPart(helper, join), karpenter),
			[]Code{CodeUnresolved}},
		{"no join before the helper: the join may come after it", doc(userPart("", helper), karpenter),
			[]Code{CodeUnresolved}},
		{"a join whose kubelet exits, then a helper", doc(userPart("/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taint=a:NoSchedule'\n", helper)),
			[]Code{CodeKubeletArguments, CodeUnresolved}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustLint(t, compat.AL2, tc.data, nil)
			if r.Verdict != Unresolved {
				t.Fatalf("verdict %v; want unresolved\n%s", r.Verdict, r)
			}
			if diff := cmp.Diff(tc.codes, codes(r)); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%s", diff, r)
			}
			if !strings.Contains(r.Reason, "bash -c") {
				t.Errorf("reason %q; want the helper", r.Reason)
			}
		})
	}
}

// TestRenderRefusesJoinBeforeHorizon: custom AL2 userData that certainly
// calls bootstrap.sh is refused even with Config.AllowUnresolved, when Lint
// cannot follow what it does after the call.
func TestRenderRefusesJoinBeforeHorizon(t *testing.T) {
	t.Parallel()
	cfg := baseConfig()
	cfg.AllowUnresolved = true
	cfg.CustomUserData = []byte("#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster\neval \"$EXTRA\"\n")
	_, err := Render(compat.AL2, cfg)
	var le *LintError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "it calls bootstrap.sh") {
		t.Fatalf("Render: %v; want a *LintError saying it calls bootstrap.sh", err)
	}
}

// TestLintExitAfterJoin: an exit in a branch after the join, with nothing
// after it that matters to the join, does not make the verdict
// unresolved; one before a later change of the join's files does.
func TestLintExitAfterJoin(t *testing.T) {
	t.Parallel()
	join := "/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'"
	for _, tc := range []struct {
		name, script string
		want         Verdict
	}{
		{"|| exit 1 after the join", "#!/bin/bash\n" + join + " || exit 1\necho done\n", Joins},
		{"an exit in a branch before the join", "#!/bin/bash\nif [ -e /x ]; then exit 0; fi\n" + join + "\n", Unresolved},
		{"an exit in a branch before a drop-in and a restart", "#!/bin/bash\n" + join + "\n[ -e /x ] || exit 0\necho '[Service]' > /etc/systemd/system/kubelet.service.d/50-x.conf\nsystemctl restart kubelet\n", Unresolved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := mustLint(t, compat.AL2, []byte(tc.script), nil); r.Verdict != tc.want {
				t.Errorf("verdict %v; want %v\n%s", r.Verdict, tc.want, r)
			}
		})
	}
}
