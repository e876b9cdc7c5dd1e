package userdata_test

import (
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// boot-path.md §3: shell semantics a linter must follow or give up on. The
// script is run by bash (its #! line, executed by cloud-init's runparts), so
// bash decides; bootstrap.sh then sees the words bash passes.
func TestBootPathShell(t *testing.T) {
	joins := outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}}
	untainted := outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint}}
	unresolved := outcome{Verdict: userdata.Unresolved}
	head := "#!/bin/bash\n"
	rows := []row{
		{
			// bash: "${ARGS[@]}" expands to one word per element, so
			// bootstrap.sh's case (L82-87) sees --kubelet-extra-args and its
			// value as $1 and $2.
			name:   "array of bootstrap arguments",
			family: compat.AL2,
			userData: head + "CLUSTER=my-cluster\nARGS=(--b64-cluster-ca '" + ca + "' --apiserver-endpoint '" + endpoint + "')\n" +
				"ARGS+=(--kubelet-extra-args '" + withRequired + "')\n/etc/eks/bootstrap.sh \"$CLUSTER\" \"${ARGS[@]}\"\n",
			want: joins,
		},
		{
			// The value comes from the instance at boot; quoted or not, the
			// linter cannot know it.
			name:   "array element from a command substitution",
			family: compat.AL2,
			userData: head + "TAINTS=$(aws ssm get-parameter --name /eks/taints --query Parameter.Value --output text)\n" +
				"ARGS=(--kubelet-extra-args \"--register-with-taints=$TAINTS\")\n" + join("") + " \"${ARGS[@]}\"\n",
			want:       unresolved,
			lineAt:     "TAINTS=$(aws",
			alsoLineAt: "/etc/eks/bootstrap.sh",
		},
		{
			name:     "variable set earlier in the script",
			family:   compat.AL2,
			userData: head + "TAINTS=karpenter.sh/unregistered:NoExecute\n" + join("") + " --kubelet-extra-args \"--register-with-taints=${TAINTS}\"\n",
			want:     joins,
		},
		{
			// Never assigned in the script: it would come from cloud-init's
			// environment, which userData does not show.
			name:     "variable never assigned in the script",
			family:   compat.AL2,
			userData: head + join("") + " --kubelet-extra-args \"--register-with-taints=$NODE_TAINTS\"\n",
			want:     unresolved,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// bash errexit: `false` stops the script before the call.
			name:     "set -e then a failing command",
			family:   compat.AL2,
			userData: head + "set -e\nmkdir -p /etc/myorg\nfalse\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: userdata.NeverJoins},
			lineAt:   "false",
		},
		{
			name:     "set -o errexit then a failing test",
			family:   compat.AL2,
			userData: head + "set -o errexit\n[ 1 -eq 2 ]\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: userdata.NeverJoins},
			lineAt:   "[ 1 -eq 2 ]",
		},
		{
			// errexit ignores a command whose status is tested (|| list).
			name:     "set -e with the failure guarded by || true",
			family:   compat.AL2,
			userData: head + "set -e\nfalse || true\n" + join(withRequired) + "\n",
			want:     joins,
		},
		{
			name:     "failing command without set -e",
			family:   compat.AL2,
			userData: head + "false\n" + join(withRequired) + "\n",
			want:     joins,
		},
		{
			name:     "exit before the call",
			family:   compat.AL2,
			userData: head + "if true; then\n  exit 0\nfi\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: userdata.NeverJoins},
			lineAt:   "exit 0",
		},
		{
			name:     "eval building the call",
			family:   compat.AL2,
			userData: head + "CMD=\"" + join("") + "\"\neval \"$CMD --kubelet-extra-args '" + withRequired + "'\"\n",
			want:     unresolved,
			lineAt:   "eval \"",
		},
		{
			// bash(1), -c: "commands are read from the first non-option
			// argument command_string"; a static string is a script, read
			// as one. This call has no taints: the node joins untainted.
			name:     "sh -c running the call",
			family:   compat.AL2,
			userData: head + "sh -c \"" + join("") + "\"\n",
			want:     untainted,
		},
		{
			name:     "bash -c running the call",
			family:   compat.AL2,
			userData: head + "bash -c '/etc/eks/bootstrap.sh my-cluster'\n",
			want:     untainted,
		},
		{
			name:     "bash -c of a string only known at boot",
			family:   compat.AL2,
			userData: head + "bash -c \"$JOIN_CMD\"\n" + join(withRequired) + "\n",
			want:     unresolved,
			lineAt:   "bash -c",
		},
		{
			name:     "source of a file written at boot",
			family:   compat.AL2,
			userData: head + "aws s3 cp s3://my-bucket/eks-env.sh /tmp/eks-env.sh\nsource /tmp/eks-env.sh\n" + join(withRequired) + "\n",
			want:     unresolved,
			lineAt:   "source",
		},
		{
			name:     ". of a file",
			family:   compat.AL2,
			userData: head + ". /etc/profile.d/eks.sh\n" + join(withRequired) + "\n",
			want:     unresolved,
			lineAt:   ". /etc",
		},
		{
			// The heredoc's body is data to bash; the file is then run.
			name:   "script written to a file, then run",
			family: compat.AL2,
			userData: head + "cat > /tmp/join.sh <<'EOF'\n#!/bin/bash\n" + join(withRequired) + "\nEOF\n" +
				"chmod +x /tmp/join.sh\nbash /tmp/join.sh\n",
			want:   unresolved,
			lineAt: "bash /tmp/join.sh",
		},
		{
			name:     "command substitution building the call",
			family:   compat.AL2,
			userData: head + "$(echo /etc/eks/bootstrap.sh) my-cluster --kubelet-extra-args '" + withRequired + "'\n",
			want:     unresolved,
			lineAt:   "$(echo",
		},
		{
			// The condition is about the machine at boot; the file exists on
			// every AL2 EKS AMI, so Joins is right, but only a model of the
			// AMI's files can know it.
			name:         "call inside a file test",
			family:       compat.AL2,
			userData:     head + "if [ -x /etc/eks/bootstrap.sh ]; then\n  " + join(withRequired) + "\nfi\n",
			want:         joins,
			orUnresolved: true,
		},
		{
			// A shell function is followed: the call in its body runs when
			// the function is called.
			name:         "call inside a function",
			family:       compat.AL2,
			userData:     head + "join_cluster() {\n  " + join("") + " --kubelet-extra-args \"$1\"\n}\njoin_cluster '" + withRequired + "'\n",
			want:         joins,
			orUnresolved: true,
		},
		{
			// Single and double quotes and a backslash-newline continuation
			// produce the words bash would; the taint is in the last word.
			name:   "quoting and line continuation",
			family: compat.AL2,
			userData: head + "/etc/eks/bootstrap.sh \"my-cluster\" \\\n  --b64-cluster-ca '" + ca + "' \\\n  --apiserver-endpoint \"" + endpoint + "\" \\\n" +
				"  --kubelet-extra-args \"--node-labels=team=web \"'--register-with-taints=karpenter.sh/unregistered:NoExecute'\n",
			want: joins,
		},
		{
			// A taint in a variable that an if/else sets differently by a
			// boot-time condition.
			name:   "taints chosen by a boot-time condition",
			family: compat.AL2,
			userData: head + "if curl -sf http://169.254.169.254/latest/meta-data/spot/instance-action; then\n  T=spot=true:NoSchedule\nelse\n  T=" +
				"karpenter.sh/unregistered:NoExecute\nfi\n" + join("") + " --kubelet-extra-args \"--register-with-taints=$T\"\n",
			want:       unresolved,
			lineAt:     "if curl",
			alsoLineAt: "/etc/eks/bootstrap.sh",
		},
		{
			// bootstrap.sh run through an explicit interpreter or sudo is
			// the same call (its #! is /usr/bin/env bash, L1).
			name:         "bash /etc/eks/bootstrap.sh",
			family:       compat.AL2,
			userData:     head + "bash " + join(withRequired) + "\n",
			want:         joins,
			orUnresolved: true,
		},
		{
			name:         "sudo /etc/eks/bootstrap.sh",
			family:       compat.AL2,
			userData:     head + "sudo " + join(withRequired) + "\n",
			want:         joins,
			orUnresolved: true,
		},
		{
			// The untainted call is only a comment.
			name:     "commented-out call",
			family:   compat.AL2,
			userData: head + "# " + join("") + "\n" + join(withRequired) + "\n",
			want:     joins,
		},
		{
			// Parts run as separate processes, so set -e in one part does not
			// stop another (cloudinit/subp.py@22.4.2 runparts runs every file
			// and collects failures, raising only after the loop).
			name:   "set -e failure in one part does not stop the next",
			family: compat.AL2,
			userData: mime(
				shellPart("", "#!/bin/bash\nset -e\nfalse\n"),
				shellPart("", head+join("")+"\n"),
			),
			want: untainted,
		},
	}
	runRows(t, rows)
}

// TestBootPathAnswers: constructs on which Lint abstained where the node
// joins (issue 23), and that it now follows as bash and cloud-init run
// them.
func TestBootPathAnswers(t *testing.T) {
	joins := outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}}
	head := "#!/bin/bash\n"
	rows := []row{
		{
			// bash(1), if: exactly one arm runs, or none; each arm assigns
			// from a static value, so EXTRA is one of two values, and both
			// give the kubelet the required taint.
			name:   "--kubelet-extra-args built by a conditional, both branches tainted",
			family: compat.AL2,
			userData: head + "EXTRA=\"--node-labels=team=web\"\nif [[ \"$(curl -s http://169.254.169.254/latest/meta-data/instance-life-cycle)\" == spot ]]; then\n" +
				"  EXTRA=\"$EXTRA --node-labels=lifecycle=spot\"\nfi\n" + join("") + " --kubelet-extra-args \"$EXTRA " + withRequired + "\"\n",
			want: joins,
		},
		{
			name:   "--kubelet-extra-args built by a conditional, the taints differ",
			family: compat.AL2,
			userData: head + "T=karpenter.sh/unregistered:NoExecute\nif [ -f /etc/gpu ]; then\n  T=\"$T,nvidia.com/gpu=true:NoSchedule\"\nfi\n" +
				join("") + " --kubelet-extra-args \"--register-with-taints=$T\"\n",
			want:   outcome{Verdict: userdata.Unresolved},
			lineAt: "if [ -f",
		},
		{
			name:   "case over the instance type",
			family: compat.AL2,
			userData: head + "case \"$(curl -s http://169.254.169.254/latest/meta-data/instance-type)\" in\n  p3.*|g4dn.*) L=gpu ;;\n  *) L=cpu ;;\nesac\n" +
				join("") + " --kubelet-extra-args \"--node-labels=kind=$L " + withRequired + "\"\n",
			want: joins,
		},
		{
			// cc_runcmd writes each list item single-quoted; sh -c then runs
			// the string as a script.
			name:     "runcmd sh -c with a static script",
			family:   compat.AL2,
			userData: "#cloud-config\nruncmd:\n  - [sh, -c, \"" + join(withRequired) + "\"]\n",
			want:     joins,
		},
		{
			// aws-cfn-bootstrap's cfn-signal only signals CloudFormation;
			// it runs after the join, as in AWS's node group template.
			name:     "cfn-signal after the join",
			family:   compat.AL2,
			userData: head + join(withRequired) + "\n/opt/aws/bin/cfn-signal --exit-code $? --stack my-stack --resource NodeGroup --region us-west-2\n",
			want:     joins,
		},
		{
			// cc_write_files writes in the init stage; the join never reads
			// /etc/sysctl.d.
			name:     "write_files a file the join never reads",
			family:   compat.AL2,
			userData: "#cloud-config\nwrite_files:\n  - path: /etc/sysctl.d/99-k8s.conf\n    content: |\n      net.ipv4.ip_forward = 1\nruncmd:\n  - [" + strings.Join(strings.Fields(strings.ReplaceAll(join(withRequired), "'", "")), ", ") + "]\n",
			want:     joins,
		},
		{
			// Lint used to keep N at 1: mvdan.cc/sh v3.12.0 numbers Assgn
			// after ShrAssgn (syntax/tokens.go), so a range from one to the
			// other held no operator.
			name:     "a count changed by arithmetic",
			family:   compat.AL2,
			userData: head + "N=1\n((N+=109))\n" + join("") + " --kubelet-extra-args \"--max-pods=$N " + withRequired + "\"\n",
			want:     outcome{Verdict: userdata.Unresolved},
			lineAt:   "((N+=109))",
		},
	}
	runRows(t, rows)
}
