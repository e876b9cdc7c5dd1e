package userdata_test

import (
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// Kubernetes citations are to the k8s.io/kubernetes module as the Go module
// proxy serves it (v1.32.0, AL2's last; v1.34.0 checked where noted), which
// is the kubernetes/kubernetes tree at that tag.

// nodeConfig is a NodeConfig document as the EKS docs show it, with the
// cluster fields nodeadm requires (nodeadm/internal/api/validation.go@81fec2e8
// L5-16) and the given kubelet section (indented under spec:).
func nodeConfig(kubelet string) string {
	return "---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: my-cluster\n" +
		"    apiServerEndpoint: " + endpoint + "\n    certificateAuthority: " + ca + "\n    cidr: 10.100.0.0/16\n" + kubelet
}

// nodeConfigPart wraps a document as the application/node.eks.aws part
// nodeadm looks for (nodeadm/internal/configprovider/userdata.go@81fec2e8 L22).
func nodeConfigPart(doc string) string {
	return "Content-Type: application/node.eks.aws\n\n" + doc
}

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

// boot-path.md §6: nodeadm reads top-level parts, merges in order, and the
// kubelet lets flags override config.
func TestBootPathNodeadm(t *testing.T) {
	joinsReq := outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}}
	onlyKubelet := outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint}}
	nested := func(doc string) string {
		return "Content-Type: multipart/mixed; boundary=\"inner\"\n\n--inner\n" + nodeConfigPart(doc) + "\n--inner--\n"
	}
	rows := []row{
		{
			name:     "one NodeConfig part",
			family:   compat.AL2023,
			userData: mime(nodeConfigPart(nodeConfig(karpenterKubelet))),
			want:     joinsReq,
		},
		{
			// nodeadm/internal/api/bridge/decode.go@81fec2e8 L19-26: a
			// UniversalDecoder, which takes JSON as well as YAML.
			name:   "NodeConfig part in JSON",
			family: compat.AL2023,
			userData: mime(nodeConfigPart(`{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig","spec":{"cluster":{"name":"my-cluster",` +
				`"apiServerEndpoint":"` + endpoint + `","certificateAuthority":"` + ca + `","cidr":"10.100.0.0/16"},` +
				`"kubelet":{"config":{"registerWithTaints":[{"key":"karpenter.sh/unregistered","effect":"NoExecute"}]}}}}` + "\n")),
			want: joinsReq,
		},
		{
			// nodeadm/internal/configprovider/mime.go@81fec2e8 L36-69: one
			// multipart.Reader over the top level; a nested multipart/mixed
			// part is not application/node.eks.aws (L49) and is skipped
			// whole, so its NodeConfig and taints are never read.
			name:   "NodeConfig with taints inside a nested multipart is not read",
			family: compat.AL2023,
			userData: mime(
				nodeConfigPart(nodeConfig("")),
				nested("---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n"+karpenterKubelet),
			),
			want: onlyKubelet,
		},
		{
			// mime.go L70-72: no top-level NodeConfig ->
			// ErrNoConfigInUserData; nodeadm fails and the kubelet never
			// starts.
			name:     "only NodeConfig is inside a nested multipart",
			family:   compat.AL2023,
			userData: mime(nested(nodeConfig(karpenterKubelet))),
			want:     outcome{Verdict: userdata.NeverJoins},
			anyPlace: true,
		},
		{
			// nodeadm/internal/api/validation.go@81fec2e8 L15-16.
			name:     "NodeConfig without cidr",
			family:   compat.AL2023,
			userData: mime(nodeConfigPart(strings.Replace(nodeConfig(karpenterKubelet), "    cidr: 10.100.0.0/16\n", "", 1))),
			want:     outcome{Verdict: userdata.NeverJoins},
			anyPlace: true,
		},
		{
			// internal/api/merge.go@81fec2e8 L85-105 merges kubelet.config
			// maps with internal/util/merge.go L16-53 (mergo.WithOverride);
			// dario.cat/mergo@v1.0.2 merge.go L120-170: for a slice value the
			// emptiness test is on the enclosing map (L166-170), so an
			// explicit [] in a later document replaces the earlier list.
			name:   "later NodeConfig with registerWithTaints: [] clears the list",
			family: compat.AL2023,
			userData: mime(
				nodeConfigPart(nodeConfig(karpenterKubelet)),
				nodeConfigPart("---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registerWithTaints: []\n"),
			),
			want: onlyKubelet,
		},
		{
			// mergo@v1.0.2 merge.go L128-131: a nil source value with
			// WithOverride is set into the map (null); nodeadm writes it to
			// the drop-in and the kubelet's JSON merge patch (server.go
			// L347) deletes the field.
			name:   "later NodeConfig with registerWithTaints: null clears the list",
			family: compat.AL2023,
			userData: mime(
				nodeConfigPart(nodeConfig(karpenterKubelet)),
				nodeConfigPart("---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registerWithTaints: null\n"),
			),
			want: onlyKubelet,
		},
		{
			// A later document without the key leaves it alone.
			name:   "later NodeConfig without registerWithTaints keeps the list",
			family: compat.AL2023,
			userData: mime(
				nodeConfigPart(nodeConfig(karpenterKubelet)),
				nodeConfigPart("---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 110\n"),
			),
			want: joinsReq,
		},
		{
			// internal/kubelet/environment.go@81fec2e8 L22-29 puts user flags
			// after nodeadm's; cmd/kubelet/app/server.go@v1.32.0 L237 and
			// kubeletConfigFlagPrecedence L401-420 re-apply flags over the
			// merged config, so the flag's list replaces the config's
			// (aws/karpenter-provider-aws#7486).
			name:   "kubelet.flags --register-with-taints overrides the config list",
			family: compat.AL2023,
			userData: mime(
				nodeConfigPart(nodeConfig(karpenterKubelet)),
				nodeConfigPart("---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n      - --register-with-taints=spot=true:NoSchedule\n"),
			),
			want: outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, "spot=true:NoSchedule/user"}},
		},
		{
			// internal/api/merge.go@81fec2e8 L46-57 appends kubelet.flags
			// across documents; the kubelet keeps the last
			// --register-with-taints.
			name:   "kubelet.flags from two documents are appended; the last taint flag wins",
			family: compat.AL2023,
			userData: mime(
				nodeConfigPart(nodeConfig("  kubelet:\n    flags:\n      - --register-with-taints=spot=true:NoSchedule\n")),
				nodeConfigPart("---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n      - --register-with-taints=karpenter.sh/unregistered:NoExecute\n"),
			),
			want: joinsReq,
		},
		{
			// An AL2 script reused on AL2023: /etc/eks/bootstrap.sh is a stub
			// that prints an error and exits 1
			// (templates/al2023/runtime/rootfs/etc/eks/bootstrap.sh@81fec2e8
			// L5, L15). The userData holds no NodeConfig: ParseMaybeMultipart
			// fails to decode the script, the chain tolerates that
			// (configprovider/chain.go L38-46) and then has no config at all
			// (L53-55), so nodeadm-config.service fails and nodeadm-run,
			// which Requires it, never starts the kubelet. Ran (nodeadm's
			// chain): "no config in chain".
			name:     "AL2 bootstrap.sh script on AL2023",
			family:   compat.AL2023,
			userData: "#!/bin/bash\nset -ex\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: userdata.NeverJoins},
			anyPlace: true,
		},
		{
			// cloud-config write_files runs in the init stage
			// (cloud.cfg cloud_init_modules), before nodeadm-run
			// (After=cloud-final.service), which reads
			// /etc/eks/nodeadm.d/*.yaml after the user data
			// (configprovider/file.go L47-60, L82) and merges it last, so
			// its flag overrides the config list.
			name:   "cloud-config write_files adding a NodeConfig to /etc/eks/nodeadm.d",
			family: compat.AL2023,
			userData: mime(
				nodeConfigPart(nodeConfig(karpenterKubelet)),
				"Content-Type: text/cloud-config; charset=\"us-ascii\"\n\n#cloud-config\nwrite_files:\n  - path: /etc/eks/nodeadm.d/99-spot.yaml\n    content: |\n"+
					"      apiVersion: node.eks.aws/v1alpha1\n      kind: NodeConfig\n      spec:\n        kubelet:\n          flags:\n            - --register-with-taints=spot=true:NoSchedule\n",
			),
			want:         outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, "spot=true:NoSchedule/user"}},
			orUnresolved: true,
		},
		{
			// The kubelet's flag set applies to nodeadm's flags too
			// (server.go L182-184).
			name:     "AL2023: unknown kubelet flag in kubelet.flags",
			family:   compat.AL2023,
			userData: mime(nodeConfigPart(nodeConfig(karpenterKubelet + "    flags:\n      - --node-label=team=web\n"))),
			want:     outcome{Verdict: userdata.NeverJoins},
			lineAt:   "--node-label=",
		},
	}
	runRows(t, rows)
}
