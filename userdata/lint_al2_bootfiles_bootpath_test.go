package userdata_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// Scripts that edit AL2's join or the kubelet's files before calling the
// join (issue 23, hole 1). The rules that decide them:
//
//   - bootstrap.sh (awslabs/amazon-eks-ami@0ab84280
//     templates/al2/runtime/bootstrap.sh) runs L220
//     KUBELET_EXTRA_ARGS="${KUBELET_EXTRA_ARGS:-}", the one line matching
//     /^KUBELET_EXTRA_ARGS=/ in every AL2 release, after its option parsing;
//     sed's "a" puts its text on the next line, so it runs there. It then
//     writes Environment='KUBELET_EXTRA_ARGS=$KUBELET_EXTRA_ARGS' to
//     kubelet.service.d/30-kubelet-extra-args.conf (L617-621).
//   - The kubelet keeps the last --register-with-taints: pflag calls the
//     flag's Set for every occurrence (spf13/pflag v1.0.9 flag.go L491,
//     flag.Value.Set(value)), and RegisterWithTaintsVar.Set replaces the
//     list (kubernetes v1.35.3 pkg/util/flag/flags.go L266-286, *t.Value =
//     taints).
//   - A flag overrides the config file: kubeletConfigFlagPrecedence
//     re-parses the command line over the loaded KubeletConfiguration
//     (kubernetes v1.35.3 cmd/kubelet/app/server.go L404-431).
//   - The AMI's kubelet-config.json has no registerWithTaints
//     (templates/al2/runtime/kubelet-config.json@0ab84280), so jq's +=
//     adds to null.
//   - systemd reads a unit's drop-ins in file-name order
//     (systemd/systemd@03b35f87 src/shared/dropin.c
//     unit_file_find_dropin_paths, conf_files_list_strv), and a later
//     Environment= assignment of a variable replaces the earlier one
//     (src/core/load-fragment.c config_parse_environ).
func TestBootPathBootFileEdits(t *testing.T) {
	const (
		config = "/etc/kubernetes/kubelet/kubelet-config.json"
		dropIn = "/etc/systemd/system/kubelet.service.d/"
	)
	head := "#!/bin/bash\n"
	// The workaround from aws/containers-roadmap#864, as
	// terraform-aws-modules/terraform-aws-eks publishes it
	// (modules/node_groups/templates/userdata.sh.tpl@18e0a047).
	sed864 := func(args string) string {
		return "sed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=\" " + args + "\"' /etc/eks/bootstrap.sh\n"
	}
	dedicated := "dedicated=infra:NoSchedule/user"
	unresolved := userdata.Unresolved
	rows := []row{
		{
			// From Kubernetes 1.24 bootstrap.sh runs containerd only
			// (L200-213) and its containerd branch (L544-576) reads none of
			// docker's files; kubelet-containerd.service requires containerd
			// and sandbox-image only. ran (issue 39's corpus): the
			// devopsbots document's sed on daemon.json changes nothing the
			// kubelet gets.
			name:     "an edit of docker's daemon.json is beside the join",
			family:   compat.AL2,
			userData: head + "sed -i 's/10m/300m/g' /etc/docker/daemon.json\nsystemctl restart docker\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// The NodePool's and the required taints are in the call; the
			// sed adds a second --register-with-taints after them, which the
			// kubelet keeps: karpenter.sh/unregistered is lost.
			name:     "#864: sed appends a second --register-with-taints",
			family:   compat.AL2,
			userData: head + sed864("--register-with-taints=dedicated=infra:NoSchedule") + join(withRequired) + "\n",
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, dedicated}},
		},
		{
			// The same edit, with a call that gives no taints: the sed's
			// taint is the only one.
			name:     "#864: sed adds the only taints",
			family:   compat.AL2,
			userData: head + sed864("--register-with-taints=karpenter.sh/unregistered:NoExecute") + join("") + "\n",
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			name:     "#864: sed adds labels only",
			family:   compat.AL2,
			userData: head + sed864("--node-labels=team=web") + join(withRequired) + "\n",
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// s/// on bootstrap.sh depends on its text, which differs
			// between AMI releases.
			name:     "sed s/// on bootstrap.sh",
			family:   compat.AL2,
			userData: head + "sed -i 's/KUBELET_EXTRA_ARGS=$2/KUBELET_EXTRA_ARGS=\"$2 --v=4\"/' /etc/eks/bootstrap.sh\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: unresolved},
			lineAt:   "sed -i",
		},
		{
			// No --register-with-taints flag: the config file's list is what
			// the kubelet registers.
			name:     "jq adds registerWithTaints to kubelet-config.json",
			family:   compat.AL2,
			userData: head + "echo \"$(jq '.registerWithTaints += [{key: \"karpenter.sh/unregistered\", effect: \"NoExecute\"}]' " + config + ")\" > " + config + "\n" + join("--node-labels=team=web") + "\n",
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// A flag overrides the file: the file's taint is lost.
			name:     "jq's registerWithTaints under a --register-with-taints flag",
			family:   compat.AL2,
			userData: head + "jq '.registerWithTaints = [{\"key\": \"dedicated\", \"value\": \"infra\", \"effect\": \"NoSchedule\"}]' " + config + " > /tmp/k.json\nmv /tmp/k.json " + config + "\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// bootstrap.sh sets kubeReserved itself after the userData ran
			// (L527-528), so only taints matter here.
			name:     "jq setting a field bootstrap.sh overwrites",
			family:   compat.AL2,
			userData: head + "echo \"$(jq '.kubeReserved = {\"cpu\": \"1\"}' " + config + ")\" > " + config + "\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			name:     "jq with a filter Lint does not follow",
			family:   compat.AL2,
			userData: head + "echo \"$(jq '.registerWithTaints |= map(select(.key != \"x\"))' " + config + ")\" > " + config + "\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: unresolved},
			lineAt:   "echo \"$(jq",
		},
		{
			// 40-taints.conf sorts after bootstrap.sh's 30-kubelet-extra-args.conf,
			// so its KUBELET_EXTRA_ARGS is the one the kubelet gets.
			name:   "a drop-in after bootstrap.sh's replaces its kubelet arguments",
			family: compat.AL2,
			userData: head + "cat > " + dropIn + "40-taints.conf <<'EOF'\n[Service]\nEnvironment='KUBELET_EXTRA_ARGS=--register-with-taints=dedicated=infra:NoSchedule'\nEOF\n" +
				join(withRequired) + "\n",
			want: outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, dedicated}},
		},
		{
			// 20-taints.conf sorts before it: bootstrap.sh's value wins.
			name:   "a drop-in before bootstrap.sh's is overridden by it",
			family: compat.AL2,
			userData: head + "echo '[Service]' > " + dropIn + "20-taints.conf\necho \"Environment='KUBELET_EXTRA_ARGS=--register-with-taints=dedicated=infra:NoSchedule'\" >> " + dropIn + "20-taints.conf\n" +
				join(withRequired) + "\n",
			want: outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// ...unless bootstrap.sh writes no drop-in (no kubelet arguments).
			name:   "a drop-in before bootstrap.sh's when it writes none",
			family: compat.AL2,
			userData: head + "printf '[Service]\\nEnvironment=\"KUBELET_EXTRA_ARGS=--register-with-taints=karpenter.sh/unregistered:NoExecute\"\\n' > " + dropIn + "20-taints.conf\n" +
				join("") + "\n",
			want: outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			name:     "a drop-in replacing ExecStart",
			family:   compat.AL2,
			userData: head + "cat > " + dropIn + "90-exec.conf <<'EOF'\n[Service]\nExecStart=\nExecStart=/usr/bin/kubelet --v=2\nEOF\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: unresolved},
			lineAt:   "cat > ",
		},
		{
			name:     "a drop-in written from a variable only known at boot",
			family:   compat.AL2,
			userData: head + "echo \"$DROPIN\" > " + dropIn + "90-x.conf\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: unresolved},
			lineAt:   "echo \"$DROPIN\"",
		},
		{
			name:     "write_files writing a drop-in",
			family:   compat.AL2,
			userData: mime("Content-Type: text/cloud-config\n\n#cloud-config\nwrite_files:\n  - path: "+dropIn+"40-taints.conf\n    content: |\n      [Service]\n      Environment='KUBELET_EXTRA_ARGS=--register-with-taints=dedicated=infra:NoSchedule'\n", shellPart("", head+join(withRequired)+"\n")),
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, dedicated}},
		},
		// Feature gates: the kubelet exits on a gate its release does not
		// know (k8s.io/component-base@v0.26.15
		// featuregate/feature_gate.go:227, "unrecognized feature gate"),
		// and AL2 AMIs ship releases with different gates: NodeLogQuery is
		// in kubernetes v1.27.16 pkg/features/kube_features.go:602 and not
		// in v1.26.15. Karpenter's al2-kubelet-log-query example
		// (aws/karpenter-provider-aws@v1.14.1
		// examples/v1/al2-kubelet-log-query.yaml) sets it in a drop-in.
		{
			name:   "a drop-in giving the kubelet a feature gate",
			family: compat.AL2,
			userData: head + "cat > " + dropIn + "90-kubelet-extra-args.conf <<EOF\n[Service]\nEnvironment=\"KUBELET_EXTRA_ARGS=--feature-gates=NodeLogQuery=true $KUBELET_EXTRA_ARGS\"\nEOF\n" +
				join(withRequired) + "\n",
			want:   outcome{Verdict: unresolved},
			lineAt: "/etc/eks/bootstrap.sh",
		},
		{
			name:   "jq setting featureGates in kubelet-config.json",
			family: compat.AL2,
			// NodeLogQuery is a gate from 1.27 (internal/kubelet/upstream's
			// kubelet-gates.txt), so 1.24-1.26's kubelet refuses it: the line
			// is the edit's.
			userData: head + "echo \"$(jq '.featureGates.NodeLogQuery = true' " + config + ")\" > " + config + "\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: unresolved},
			lineAt:   "jq '.featureGates",
		},
		{
			name:     "--feature-gates in --kubelet-extra-args",
			family:   compat.AL2,
			userData: head + join(withRequired+" --feature-gates=NodeLogQuery=true") + "\n",
			want:     outcome{Verdict: unresolved},
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			name:     "a download over bootstrap.sh",
			family:   compat.AL2,
			userData: head + "curl -sfo /etc/eks/bootstrap.sh https://example.com/bootstrap.sh\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: unresolved},
			lineAt:   "curl",
		},
		{
			// The edit runs only if the file exists; with or without it the
			// kubelet registers different taints.
			name:     "a conditional edit that changes the taints",
			family:   compat.AL2,
			userData: head + "if [ -f /etc/spot ]; then\n  " + sed864("--register-with-taints=dedicated=infra:NoSchedule") + "fi\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: unresolved},
			lineAt:   "  sed -i",
		},
		{
			// Edits after the join, with no restart, cannot change the first
			// registration.
			name:     "an edit after the join",
			family:   compat.AL2,
			userData: head + join(withRequired) + "\n" + sed864("--register-with-taints=dedicated=infra:NoSchedule"),
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// ...but a restart may come before the node has registered.
			name:     "an edit after the join, then a restart",
			family:   compat.AL2,
			userData: head + join(withRequired) + "\n" + "echo \"$(jq '.registerWithTaints = []' " + config + ")\" > " + config + "\nsystemctl restart kubelet\n",
			want:     outcome{Verdict: unresolved},
			lineAt:   "systemctl restart",
		},
		{
			name:     "a restart after the join without edits",
			family:   compat.AL2,
			userData: head + join(withRequired) + "\nsystemctl daemon-reload\nsystemctl restart kubelet\n",
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
	}
	runRows(t, rows)
}

// TestBootPathRenderRefusesBootFileEdits: before issue 23, Render accepted
// each of these custom parts (they call no join and start no kubelet), and
// the node lost its taints. Render now lints what it writes; each refusal
// names the part, the line of the edit and what to do instead.
func TestBootPathRenderRefusesBootFileEdits(t *testing.T) {
	cases := []struct {
		name, custom, lineAt string
		construct            string
	}{
		{"#864's sed", "#!/bin/bash\nsed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=\" --register-with-taints=dedicated=infra:NoSchedule\"' /etc/eks/bootstrap.sh\n",
			"sed -i", `bootstrap\.sh.*karpenter\.sh/unregistered|registers the taints`},
		{"a drop-in replacing the kubelet's arguments", "#!/bin/bash\ncat > /etc/systemd/system/kubelet.service.d/40-x.conf <<'EOF'\n[Service]\nEnvironment='KUBELET_EXTRA_ARGS=--v=2'\nEOF\n",
			"cat >", `40-x\.conf`},
		{"jq registerWithTaints overridden by Render's flag", "#!/bin/bash\necho \"$(jq '.registerWithTaints = [{key: \"a\", effect: \"NoSchedule\"}]' /etc/kubernetes/kubelet/kubelet-config.json)\" > /etc/kubernetes/kubelet/kubelet-config.json\n",
			"echo", `kubelet-config\.json`},
		{"a file the join reads, replaced", "#!/bin/bash\ncurl -sfo /etc/eks/bootstrap.sh https://example.com/b.sh\n",
			"curl", `bootstrap\.sh`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := userdata.Render(compat.AL2, renderConfig(c.custom))
			if err == nil {
				t.Fatalf("Render accepted it; output:\n%s", out)
			}
			var le *userdata.LintError
			if !errors.As(err, &le) {
				t.Errorf("error %T is not a *LintError", err)
			}
			msg := err.Error()
			if line := lineOf(c.custom, c.lineAt); !strings.Contains(msg, fmt.Sprintf("line %d:", line)) {
				t.Errorf("error %q does not name line %d", msg, line)
			}
			if !regexp.MustCompile(`(?i)` + c.construct).MatchString(msg) {
				t.Errorf("error %q does not name %s", msg, c.construct)
			}
		})
	}
}
