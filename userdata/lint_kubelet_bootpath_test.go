package userdata_test

import (
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// Kubernetes citations are to the k8s.io/kubernetes module as the Go module
// proxy serves it (v1.32.0, AL2's last; v1.34.0 checked where noted), which
// is the kubernetes/kubernetes tree at that tag.

const karpenterKubelet = "  kubelet:\n    config:\n      registerWithTaints:\n        - key: karpenter.sh/unregistered\n          effect: NoExecute\n"

// boot-path.md §5: the kubelet's flag set, its config validation, and the
// API server's Node validation.
func TestBootPathKubelet(t *testing.T) {
	al2 := func(extra string) string {
		return "#!/bin/bash\nset -ex\n" + join(extra) + "\n"
	}
	never := outcome{Verdict: userdata.NeverJoins}
	rows := []row{
		{
			// cmd/kubelet/app/server.go@v1.32.0 L182-184: the kubelet parses
			// its own flag set (DisableFlagParsing, L178) and returns "failed
			// to parse kubelet flag" on an unknown flag; the process exits.
			// Ran (the kubelet's options.AddFlags/AddKubeletConfigFlags/
			// AddGlobalFlags set, v1.32.0): "unknown flag:
			// --register-with-taint"; "unknown shorthand flag: 'r' in
			// -register-with-taints=..."; "unknown command false" for the
			// separate bool value; "unknown flag: --container-runtime".
			name:     "typo in a kubelet flag (--register-with-taint)",
			family:   compat.AL2,
			userData: al2("--register-with-taint=karpenter.sh/unregistered:NoExecute"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// pflag reads -register-with-taints as shorthand flags r, e, g...
			// ("unknown shorthand flag: 'r'"), same exit at L182-184.
			name:     "single-dash long kubelet flag",
			family:   compat.AL2,
			userData: al2("-register-with-taints=karpenter.sh/unregistered:NoExecute"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// A bool flag takes no separate value: "false" is a non-flag
			// argument, and L187-190 return "unknown command false".
			name:     "bool kubelet flag followed by a separate value",
			family:   compat.AL2,
			userData: al2("--serialize-image-pulls false " + withRequired),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			name:     "bool kubelet flag with =value",
			family:   compat.AL2,
			userData: al2("--serialize-image-pulls=false " + withRequired),
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// --container-runtime is a kubelet flag in v1.26.0
			// (pkg/kubelet/config/flags.go L54) and gone from v1.27.0 on;
			// AL2 AMIs were built for versions before and after, and
			// userData does not say which.
			name:     "--container-runtime: a kubelet flag removed in 1.27",
			family:   compat.AL2,
			userData: al2("--container-runtime=remote " + withRequired),
			want:     outcome{Verdict: userdata.Unresolved},
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// pkg/util/taints/taints.go ParseTaints: "duplicated taints with
			// the same key and effect"; the flag's Set fails, the kubelet
			// exits at L182-184.
			name:     "duplicate taints in --register-with-taints",
			family:   compat.AL2,
			userData: al2("--register-with-taints=env=prod:NoSchedule,env=staging:NoSchedule"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// Each occurrence is parsed when pflag sets it
			// (pkg/util/flag/flags.go@v1.32.0 L266-275 calls ParseTaints),
			// so a duplicate in a flag that a later one replaces still stops
			// the kubelet. Ran: the kubelet's own flag set (v1.32.0) exited
			// with "duplicated taints with the same key and effect".
			name:     "duplicate in a --register-with-taints that a later one replaces",
			family:   compat.AL2,
			userData: al2("--register-with-taints=spot=true:PreferNoSchedule,spot=true:PreferNoSchedule " + withRequired),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// server.go@v1.32.0 L143 sets cliflag.WordSepNormalizeFunc
			// (k8s.io/component-base@v0.32.0 cli/flag/flags.go L30-35: "_"
			// becomes "-"), so --register_with_taints is the same flag. Ran:
			// the kubelet's flag set accepted it.
			name:     "underscores in a kubelet flag name are normalized",
			family:   compat.AL2,
			userData: al2("--register_with_taints=karpenter.sh/unregistered:NoExecute"),
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// pkg/util/flag/flags.go RegisterWithTaintsVar.Set replaces the
			// list, so the last --register-with-taints wins.
			name:     "repeated --register-with-taints: the last wins",
			family:   compat.AL2,
			userData: al2("--register-with-taints=dedicated=gpu:NoSchedule " + withRequired),
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// pkg/kubelet/kubelet_node_status.go@v1.32.0 L341-349 appends the
			// cloud-provider taint to registerWithTaints without
			// deduplicating; pkg/apis/core/validation/validation.go@v1.32.0
			// validateNodeTaints L6249-6252 ("taints must be unique by key
			// and effect pair") makes the API server refuse the Node.
			name:     "user taint duplicating the kubelet's cloud-provider taint",
			family:   compat.AL2,
			userData: al2("--register-with-taints=node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule,karpenter.sh/unregistered:NoExecute"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// Same key and effect, other value: still a duplicate pair.
			name:     "same key and effect as the kubelet's taint, other value",
			family:   compat.AL2,
			userData: al2("--register-with-taints=node.cloudprovider.kubernetes.io/uninitialized=false:NoSchedule,karpenter.sh/unregistered:NoExecute"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// Same key, other effect: unique by (key, effect), accepted.
			name:     "same key as the kubelet's taint, other effect",
			family:   compat.AL2,
			userData: al2("--register-with-taints=node.cloudprovider.kubernetes.io/uninitialized=true:NoExecute,karpenter.sh/unregistered:NoExecute"),
			want: outcome{Verdict: userdata.Joins, Taints: []string{
				kubeletTaint, unregistered, "node.cloudprovider.kubernetes.io/uninitialized=true:NoExecute/user",
			}},
		},
		{
			// nodeadm sets --cloud-provider=external too
			// (nodeadm/internal/kubelet/config.go@81fec2e8 L258).
			name:   "AL2023: config taint duplicating the kubelet's taint",
			family: compat.AL2023,
			userData: mime(nodeConfigPart(nodeConfig(karpenterKubelet +
				"        - key: node.cloudprovider.kubernetes.io/uninitialized\n          value: \"true\"\n          effect: NoSchedule\n"))),
			want:   never,
			lineAt: "- key: node.cloudprovider",
		},
		{
			// pkg/kubelet/apis/config/validation/validation.go@v1.32.0
			// L153-159 (L158-159 at v1.34.0): "taint.TimeAdded is not nil";
			// server.go L255 exits on validation errors.
			name:   "AL2023: registerWithTaints entry with timeAdded",
			family: compat.AL2023,
			userData: mime(nodeConfigPart(nodeConfig(karpenterKubelet +
				"        - key: dedicated\n          value: gpu\n          effect: NoSchedule\n          timeAdded: \"2024-01-01T00:00:00Z\"\n"))),
			want:   never,
			lineAt: "timeAdded:",
		},
		{
			// nodeadm writes kubelet.config to a drop-in
			// (nodeadm/internal/kubelet/config.go@81fec2e8 L352-375); the
			// kubelet decodes drop-ins to unstructured
			// (pkg/kubelet/kubeletconfig/util/codec/codec.go@v1.32.0 L114),
			// JSON-merge-patches them (server.go L347) and decodes the result
			// with encoding/json (server.go L23, L365; L372 at v1.34.0), whose
			// field matching ignores case.
			name:   "AL2023: config keys in another case",
			family: compat.AL2023,
			userData: mime(nodeConfigPart(nodeConfig(
				"  kubelet:\n    config:\n      RegisterWithTaints:\n        - Key: karpenter.sh/unregistered\n          Effect: NoExecute\n"))),
			want: outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
	}
	runRows(t, rows)
}
