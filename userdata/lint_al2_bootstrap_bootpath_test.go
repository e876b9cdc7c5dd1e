package userdata_test

import (
	"fmt"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// bootstrapOptions is bootstrap.sh's complete option list: every arm of the
// `case $key in` at templates/al2/runtime/bootstrap.sh@0ab84280 L59-182, each
// with a value that passes its later checks, and the line of its arm. Every
// arm but -h/--help takes the next word ($2) and shifts twice.
var bootstrapOptions = []struct {
	opt, value string
	line       int
}{
	{"--use-max-pods", "false", 64},
	{"--b64-cluster-ca", ca, 70},
	{"--apiserver-endpoint", endpoint, 76},
	{"--kubelet-extra-args", "--node-labels=team=web", 82},
	{"--enable-docker-bridge", "false", 88},
	{"--aws-api-retry-attempts", "5", 94},
	{"--docker-config-json", "{}", 100},
	// --containerd-config-file: L559-560 copies the file under errexit;
	// whether it exists at boot is not known offline (a row below).
	{"--pause-container-account", "602401143452", 112},
	{"--pause-container-version", "3.5", 118},
	{"--dns-cluster-ip", "10.100.0.10", 124},
	{"--container-runtime", "containerd", 130},
	{"--ip-family", "ipv4", 136},
	{"--service-ipv4-cidr", "10.100.0.0/16", 142},
	{"--service-ipv6-cidr", "fd00:10:100::/108", 148},
	{"--enable-local-outpost", "false", 154},
	{"--cluster-id", "0123abcd-4567-89ef-0123-456789abcdef", 160},
	{"--mount-bpf-fs", "true", 166},
	{"--local-disks", "raid0", 172},
}

// TestBootPathBootstrapOptions puts each option before the cluster name, as
// bootstrap.sh's own usage line does ("usage: $0 [options] <cluster-name>",
// L18). A linter that does not know an option takes it for the cluster name
// and its value for an ignored positional; bootstrap.sh consumes both.
func TestBootPathBootstrapOptions(t *testing.T) {
	var rows []row
	for _, o := range bootstrapOptions {
		call := "/etc/eks/bootstrap.sh " + o.opt + " '" + o.value + "' my-cluster --kubelet-extra-args '" + withRequired + "'"
		want := outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}}
		if o.opt == "--kubelet-extra-args" {
			// The later occurrence wins: KUBELET_EXTRA_ARGS=$2 (L83) is a
			// plain assignment.
			call = "/etc/eks/bootstrap.sh --kubelet-extra-args '--node-labels=team=web' my-cluster --kubelet-extra-args '" + withRequired + "'"
		}
		rows = append(rows, row{
			// bootstrap.sh@0ab84280 L<o.line>: the arm that consumes o.opt
			// and its value.
			name:     fmt.Sprintf("option before the cluster name: %s (L%d)", o.opt, o.line),
			family:   compat.AL2,
			userData: "#!/bin/bash\nset -ex\n" + call + "\n",
			want:     want,
			// --service-ipv6-cidr makes the node IPv6 (L317-323), which
			// needs an IPv6 address on the instance (L493-494).
			orUnresolved: o.opt == "--service-ipv6-cidr",
		})
	}
	runRows(t, rows)
}

// TestBootPathBootstrapExits: the values that make bootstrap.sh exit before
// `systemctl start kubelet` (L635), and neighbours that do not.
func TestBootPathBootstrapExits(t *testing.T) {
	script := func(call string) string {
		return "#!/bin/bash\nset -o xtrace\nyum install -y amazon-ssm-agent\n" + call + "\n"
	}
	joins := outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}}
	never := outcome{Verdict: userdata.NeverJoins}
	rows := []row{
		{
			// L178-181: --opt=value matches no arm, lands in POSITIONAL and
			// is dropped (reproduced: KUBELET_EXTRA_ARGS stayed empty, no
			// 30-kubelet-extra-args.conf). The node joins without the taint.
			name:     "--kubelet-extra-args=VALUE is silently ignored",
			family:   compat.AL2,
			userData: script(join("") + " --kubelet-extra-args='" + withRequired + "'"),
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint}},
		},
		{
			// L186-187: the first positional is the cluster name, so an
			// =-form word before it becomes CLUSTER_NAME; without
			// --b64-cluster-ca/--apiserver-endpoint, L358-373 runs `aws eks
			// wait cluster-active --name=<that word>` (no cluster has '=' in
			// its name) and exits once the retries are exhausted.
			name:         "=-form word before the cluster name becomes the cluster name",
			family:       compat.AL2,
			userData:     script("/etc/eks/bootstrap.sh --kubelet-extra-args='" + withRequired + "' my-cluster"),
			want:         never,
			lineAt:       "/etc/eks/bootstrap.sh",
			orUnresolved: true,
		},
		{
			// EKS's own documented form: only the cluster name; the CA and
			// endpoint come from describe-cluster (L347-400).
			name:     "cluster name only",
			family:   compat.AL2,
			userData: script("/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '" + withRequired + "'"),
			want:     joins,
		},
		{
			// L304-307: `if [ -z "$CLUSTER_NAME" ]` -> exit 1.
			name:     "no cluster name",
			family:   compat.AL2,
			userData: script("/etc/eks/bootstrap.sh --b64-cluster-ca '" + ca + "' --apiserver-endpoint '" + endpoint + "' --kubelet-extra-args '" + withRequired + "'"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// L4 (set -o nounset) and L83 (KUBELET_EXTRA_ARGS=$2): an option
			// as the last word has no $2; reproduced with the case loop:
			// "$2: unbound variable", exit 1.
			name:     "option without its value at the end",
			family:   compat.AL2,
			userData: script(join("") + " --kubelet-extra-args"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// L60-63: -h | --help prints usage and exits 1.
			name:     "--help",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --help"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// L309-315: IP_FAMILY is lowercased (L310), then must be ipv4 or
			// ipv6.
			name:     "--ip-family ipv5",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --ip-family ipv5"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// L310 lowercases first, so IPv6 is ipv6; with
			// --service-ipv6-cidr, L457-463 derives the DNS IP.
			name:     "--ip-family IPv6 with --service-ipv6-cidr",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --ip-family IPv6 --service-ipv6-cidr fd00:10:100::/108"),
			want:     joins,
			// L493-494 then reads the node's IPv6 address from IMDS under
			// errexit: an instance without one stops there.
			orUnresolved: true,
		},
		{
			// L457-462: ipv6 without --dns-cluster-ip needs
			// --service-ipv6-cidr, else exit 1 (CA and endpoint given, so
			// describe-cluster does not supply it, L347).
			name:     "--ip-family ipv6 without a service IPv6 CIDR",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --ip-family ipv6"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// L457: a --dns-cluster-ip skips that check.
			name:     "--ip-family ipv6 with --dns-cluster-ip",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --ip-family ipv6 --dns-cluster-ip fd00:10:100::a"),
			want:     joins,
			// As above: needs an IPv6 address on the instance (L493-494).
			orUnresolved: true,
		},
		{
			// L317-321: --service-ipv6-cidr with --ip-family ipv4 -> exit 1.
			name:     "--service-ipv6-cidr with --ip-family ipv4",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --ip-family ipv4 --service-ipv6-cidr fd00:10:100::/108"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// L210-213 (>= 1.24: only containerd) and L605-607 (any other
			// version: neither containerd nor dockerd) -> exit 1.
			name:     "--container-runtime docker",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --container-runtime docker"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// dockerd exits only when the kubelet is >= 1.24 (L203, L210);
			// AL2 AMIs exist for older versions, and userData does not say
			// which: unresolved.
			name:     "--container-runtime dockerd depends on the kubelet version",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --container-runtime dockerd"),
			want:     outcome{Verdict: userdata.Unresolved},
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// L3, L5, L410: `echo "$B64_CLUSTER_CA" | base64 -d > ...` under
			// pipefail and errexit; a CA that does not decode ends the script.
			name:     "--b64-cluster-ca that does not decode",
			family:   compat.AL2,
			userData: script("/etc/eks/bootstrap.sh my-cluster --b64-cluster-ca 'not base64!' --apiserver-endpoint '" + endpoint + "' --kubelet-extra-args '" + withRequired + "'"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// L431-441: outpost support without a cluster id -> exit 1 (CA
			// and endpoint given, so describe-cluster does not supply it).
			name:     "--enable-local-outpost true without --cluster-id",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --enable-local-outpost true"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			name:     "--enable-local-outpost true with --cluster-id",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --enable-local-outpost true --cluster-id 0123abcd-4567-89ef-0123-456789abcdef"),
			want:     joins,
			// Joins only on a local-outpost cluster: L433-447 resolve the
			// endpoint under pipefail and authenticate with the cluster id.
			orUnresolved: true,
		},
		{
			// L237-238 runs setup-local-disks under errexit;
			// templates/shared/runtime/bin/setup-local-disks@0ab84280
			// L273-276 exits 1 on anything but raid0, raid10, mount, none.
			name:     "--local-disks raid5",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --local-disks raid5"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// setup-local-disks L301-303: raid10 needs >= 4 instance-store
			// disks, which depends on the instance type: unresolved.
			name:     "--local-disks raid10 depends on the instance type",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --local-disks raid10"),
			want:     outcome{Verdict: userdata.Unresolved},
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// L559-560: `cp -v "${CONTAINERD_CONFIG_FILE}" ...` under errexit;
			// whether the file exists at boot is unknown offline.
			name:     "--containerd-config-file depends on a file at boot",
			family:   compat.AL2,
			userData: script(join(withRequired) + " --containerd-config-file /etc/containerd/custom.toml"),
			want:     outcome{Verdict: userdata.Unresolved},
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// L617-621 writes Environment='KUBELET_EXTRA_ARGS=...' and
			// kubelet-containerd.service@0ab84280 ExecStart ends
			// `$KUBELET_ARGS $KUBELET_EXTRA_ARGS`; systemd splits the unbraced
			// variable on whitespace and removes quotes, so the taint arrives
			// as its own word (reproduced in reference/userdata.md §2).
			name:     "--kubelet-extra-args with a quoted space-separated flag value",
			family:   compat.AL2,
			userData: script(join("") + " --kubelet-extra-args '--node-labels=team=web --register-with-taints \"karpenter.sh/unregistered:NoExecute,dedicated=gpu:NoSchedule\"'"),
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered, "dedicated=gpu:NoSchedule/user"}},
		},
		{
			// A ' inside the value ends Environment='...' early (L620): how
			// systemd then parses the line is not something to guess.
			name:     "--kubelet-extra-args containing a single quote",
			family:   compat.AL2,
			userData: script(join("") + ` --kubelet-extra-args "--node-labels='team=web' ` + withRequired + `"`),
			want:     outcome{Verdict: userdata.Unresolved},
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// boot-path.md §4: a newline in the kubelet arguments is cut or
			// dropped depending on the systemd version (the heredoc at L618
			// puts it into the unit file as a line break).
			name:     "--kubelet-extra-args containing a newline",
			family:   compat.AL2,
			userData: script(join("") + " --kubelet-extra-args \"--node-labels=team=web\n" + withRequired + "\""),
			want:     outcome{Verdict: userdata.Unresolved},
			lineAt:   "/etc/eks/bootstrap.sh",
		},
	}
	runRows(t, rows)
}
