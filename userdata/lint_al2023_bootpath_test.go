package userdata_test

import (
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

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

// TestBootPathNodeadmPending: rows for facts found late by running nodeadm
// itself (see /work/notes/i11-corpus.md); met by the implementation since.
func TestBootPathNodeadmPending(t *testing.T) {
	runRows(t, []row{
		{
			// ParseMultipart returns the first decoding error
			// (configprovider/mime.go L62-65), so one NodeConfig part that
			// does not decode (node.eks.aws/v1 is not a registered version;
			// bridge/decode.go L26-28 wraps ErrNodeConfigDecodingFailure)
			// drops every user-data NodeConfig; the chain tolerates the
			// error (chain.go L44-46) and is left with none (L53-55). Ran
			// (nodeadm's own ParseMaybeMultipart and provider chain at
			// 81fec2e8): "failed to decode node config, no kind "NodeConfig"
			// is registered for version "node.eks.aws/v1"", then "no config
			// in chain"; the same for kind: NodeConfiguration.
			name:   "one NodeConfig part that does not decode drops them all",
			family: compat.AL2023,
			userData: mime(
				nodeConfigPart(nodeConfig(karpenterKubelet)),
				nodeConfigPart("---\napiVersion: node.eks.aws/v1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 110\n"),
			),
			want:     outcome{Verdict: userdata.NeverJoins},
			anyPlace: true,
		},
		{
			// nodeadm-run.service@81fec2e8 L6, L11 runs after cloud-final
			// with --config-source imds://user-data --config-source
			// file:///etc/eks/nodeadm.d/, merging that directory's
			// NodeConfigs after the user data's (chain.go L26-56,
			// file.go L47-...). A script that writes one there changes the
			// taints in a way the user data alone does not show.
			name:   "shell part writing a NodeConfig into /etc/eks/nodeadm.d",
			family: compat.AL2023,
			userData: mime(
				nodeConfigPart(nodeConfig(karpenterKubelet)),
				shellPart("", "#!/bin/bash\nmkdir -p /etc/eks/nodeadm.d\naws s3 cp s3://my-bucket/taints.yaml /etc/eks/nodeadm.d/99-taints.yaml\n"),
			),
			want:       outcome{Verdict: userdata.Unresolved, Part: "part-002"},
			lineAt:     "aws s3 cp",
			alsoLineAt: "mkdir -p /etc/eks/nodeadm.d",
		},
	})
}
