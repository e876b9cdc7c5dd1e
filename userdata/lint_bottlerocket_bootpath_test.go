package userdata

import (
	"strings"
	"testing"
	"time"

	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
)

// TestLintBottlerocketOtherUserData: Bottlerocket reads userData only as
// TOML settings. early-boot-config's EC2 provider parses it with the toml
// crate and takes its settings table (bottlerocket-core-kit@a10182f9
// sources/early-boot-config/early-boot-config-provider/src/settings.rs
// L36-L51, user-data-providers/ec2-imds/src/lib.rs L34-L44); on an error
// the provider and early-boot-config fail
// (early-boot-config/src/main.rs L202-L210), and
// early-boot-config.service is RequiredBy=preconfigured.target
// (packages/early-boot-config/early-boot-config.service), so the boot
// stops before the kubelet: the node never joins. The problem names what
// the userData is.
func TestLintBottlerocketOtherUserData(t *testing.T) {
	t.Parallel()
	al2, err := Render(compat.AL2, baseConfig())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, doc, what string
		code            Code
		line            int
	}{
		{"bash", "#!/bin/bash\nset -ex\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n",
			`a script ("#!/bin/bash")`, CodeSyntax, 1},
		{"bash after blank lines", "\n\n#!/bin/bash -xe\necho hi\n", `a script ("#!/bin/bash -xe")`, CodeSyntax, 3},
		// "#!/bin/bash" is a TOML comment: a script of comments is TOML
		// without a settings table, which early-boot-config refuses too.
		{"comments only", "#!/bin/bash\n# nothing to do\n", `a script ("#!/bin/bash")`, CodeSyntax, 1},
		{"cloud-config", "#cloud-config\nruncmd:\n- [sh, -c, 'echo hi']\n", `cloud-init userData ("#cloud-config")`, CodeSyntax, 1},
		{"MIME", string(al2), "a MIME multi-part document", CodeSyntax, 1},
		{"NodeConfig", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: c\n", "a nodeadm NodeConfig", CodeSyntax, 1},
		{"TOML without settings", "[kubernetes]\ncluster-name = 'c'\n", "without a [settings] table", CodeIncompleteConfig, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustLint(t, compat.Bottlerocket, []byte(tt.doc), nil)
			if r.Verdict != NeverJoins || len(r.Problems) != 1 {
				t.Fatalf("Lint = %s; want never-joins with one problem", r)
			}
			p := r.Problems[0]
			if p.Code != tt.code || p.Line != tt.line || !strings.Contains(p.Message, tt.what) || p.Fix == "" {
				t.Errorf("problem = %+v; want %s at line %d naming %q", p, tt.code, tt.line, tt.what)
			}
		})
	}
}

// TestLintBottlerocketModel: verdicts that follow from the settings model.
func TestLintBottlerocketModel(t *testing.T) {
	t.Parallel()
	base := "[settings.kubernetes]\ncluster-name = 'c'\napi-server = 'https://x'\n[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\n"
	tests := []struct {
		name, doc string
		verdict   Verdict
		want      []Code
		line      int
	}{
		// Published settings: kubelet-device-plugins exists only in the
		// NVIDIA variants (bottlerocket@80378023
		// sources/settings-plugins/aws-k8s-nvidia/src/lib.rs L29 and not
		// aws-k8s/src/lib.rs), a warning.
		{"device plugins", base + "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = 'time-slicing'\n",
			Joins, []Code{CodeVariantSetting}, 6},
		{"soci", base + "[settings.container-runtime-plugins.soci-snapshotter]\npull-mode = 'parallel-pull-unpack'\n",
			Joins, []Code{CodeVariantSetting}, 6},
		{"misspelt", base + "[settings.kubelet-device-plugin.nvidia]\ndevice-sharing-strategy = 'time-slicing'\n",
			NeverJoins, []Code{CodeRefusedSetting}, 6},
		// ApiclientCommand (bottlerocket-settings-sdk@5ba2c487
		// modeled-types/src/shared.rs L978-L990), validated whatever the
		// mode.
		{"echo", base + "[settings.bootstrap-commands.hi]\ncommands = [['echo', 'hello']]\nmode = 'off'\n",
			NeverJoins, []Code{CodeRefusedSetting}, 7}, // the commands line
		{"apiclient set motd", base + "[settings.bootstrap-commands.hi]\ncommands = [['apiclient', 'set', 'motd=hi']]\nmode = 'always'\n",
			Joins, nil, 0},
		{"apiclient set taints", base + "[settings.bootstrap-commands.t]\ncommands = [['apiclient', 'set', 'kubernetes.node-taints.a=b:NoSchedule']]\nmode = 'once'\n",
			Unresolved, []Code{CodeUnresolved}, 7},
		// A step can set the cluster fields, so it decides before them.
		{"step sets cluster", "[settings.bootstrap-commands.c]\ncommands = [['apiclient', 'set', 'kubernetes.cluster-name=c']]\nmode = 'once'\n",
			Unresolved, []Code{CodeUnresolved}, 2},
		{"standalone", base + "[settings.kubernetes.static-pods.p]\nenabled = true\n[settings]\n",
			Joins, nil, 0},
		{"standalone on", strings.Replace(base, "api-server = 'https://x'\n", "api-server = 'https://x'\nstandalone-mode = true\n", 1),
			NeverJoins, []Code{CodeIncompleteConfig}, 4},
		{"unsettled key", base + "[settings.image-verifier-plugins.notation]\nfuture = 1\n",
			Unresolved, []Code{CodeVariantSetting, CodeUnresolved}, 7},
		{"kubelet-extra-config", strings.Replace(base, "api-server", "kubelet-extra-config = 'e30='\napi-server", 1),
			Unresolved, []Code{CodeUnresolved}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustLint(t, compat.Bottlerocket, []byte(tt.doc), nil)
			if r.Verdict != tt.verdict {
				t.Fatalf("verdict %s; want %s\n%s", r.Verdict, tt.verdict, r)
			}
			if diff := cmp.Diff(tt.want, codes(r)); diff != "" {
				t.Errorf("codes (-want +got):\n%s\n%s", diff, r)
			}
			if len(r.Problems) > 0 && r.Problems[len(r.Problems)-1].Line != tt.line {
				t.Errorf("line %d; want %d\n%s", r.Problems[len(r.Problems)-1].Line, tt.line, r)
			}
		})
	}
}

// TestLintBottlerocketScope: a setting only some AMIs of the family have
// is a problem scoped to the others, so a caller that knows the images its
// nodes boot can tell whether it arises: kubelet-device-plugins only off
// the NVIDIA variants (bottlerocket@80378023
// sources/settings-plugins/aws-k8s-nvidia/src/lib.rs L29),
// container-runtime-plugins only before 1.44.0 (its settings migration,
// see internal/bottlerocket's model).
func TestLintBottlerocketScope(t *testing.T) {
	t.Parallel()
	base := "[settings.kubernetes]\ncluster-name = 'c'\napi-server = 'https://x'\n[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\n"
	tests := []struct {
		name, doc string
		want      []AMIScope
	}{
		{"device plugins", base + "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = 'time-slicing'\n",
			[]AMIScope{{ExceptVariant: "nvidia"}}},
		{"soci", base + "[settings.container-runtime-plugins.soci-snapshotter]\npull-mode = 'parallel-pull-unpack'\n",
			[]AMIScope{{Before: "1.44.0"}}},
		{"every AMI", base + "[settings.kubelet-device-plugin.nvidia]\nx = 1\n", []AMIScope{{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustLint(t, compat.Bottlerocket, []byte(tt.doc), nil)
			var got []AMIScope
			for _, p := range r.Problems {
				got = append(got, p.AMIs)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("scopes (-want +got):\n%s\n%s", diff, r)
			}
		})
	}
}

// TestLintBottlerocketKubelet: the kubelet settings Bottlerocket writes
// into the kubelet's configuration are the report's kubelet view, each
// pointing at its key's line, not at a comment that mentions it.
func TestLintBottlerocketKubelet(t *testing.T) {
	t.Parallel()
	doc := `# max-pods and eviction-hard are tuned below
[settings.kubernetes]
cluster-name = 'c'
api-server = 'https://x'
max-pods = 58
image-gc-high-threshold-percent = '85'
image-gc-low-threshold-percent = 60
cpu-cfs-quota-enforced = false
cluster-dns-ip = '10.100.0.10'
[settings.kubernetes.kube-reserved]
memory = '300Mi'
[settings.kubernetes.eviction-hard]
'memory.available' = '5%'
[settings.kubernetes.eviction-soft-grace-period]
'memory.available' = '1m0s'
[settings.kubernetes.node-taints]
'karpenter.sh/unregistered' = [':NoExecute']
`
	r := mustLint(t, compat.Bottlerocket, []byte(doc), nil)
	if r.Verdict != Joins || len(r.Problems) > 0 {
		t.Fatalf("Lint = %s", r)
	}
	want := KubeletConfig{
		ClusterDNS: []string{"10.100.0.10"}, MaxPods: ptr[int32](58),
		KubeReserved: map[string]string{"memory": "300Mi"}, EvictionHard: map[string]string{"memory.available": "5%"},
		EvictionSoftGracePeriod:     map[string]time.Duration{"memory.available": time.Minute},
		ImageGCHighThresholdPercent: ptr[int32](85), ImageGCLowThresholdPercent: ptr[int32](60), CPUCFSQuota: ptr(false),
	}
	if diff := cmp.Diff(want, r.Kubelet); diff != "" {
		t.Errorf("Kubelet (-want +got):\n%s", diff)
	}
	lines := map[string]int{}
	for _, s := range r.KubeletSources {
		lines[s.From] = s.Line
	}
	wantLines := map[string]int{
		"settings.kubernetes.cluster-dns-ip": 9, "settings.kubernetes.max-pods": 5,
		"settings.kubernetes.kube-reserved": 10, "settings.kubernetes.eviction-hard": 12,
		"settings.kubernetes.eviction-soft-grace-period":      14,
		"settings.kubernetes.image-gc-high-threshold-percent": 6,
		"settings.kubernetes.image-gc-low-threshold-percent":  7, "settings.kubernetes.cpu-cfs-quota-enforced": 8,
	}
	if diff := cmp.Diff(wantLines, lines); diff != "" {
		t.Errorf("source lines (-want +got):\n%s", diff)
	}
}
