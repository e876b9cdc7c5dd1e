package userdata_test

import (
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
	"github.com/google/go-cmp/cmp"
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

// brSettings is Bottlerocket userData with the cluster settings, the
// required taint, and more settings.kubernetes lines.
func brSettings(kube string) string {
	return "[settings.kubernetes]\ncluster-name = 'my-cluster'\napi-server = '" + endpoint + "'\ncluster-certificate = '" + ca + "'\n" + kube +
		"[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\n"
}

// The kubelet's own rules on its configuration, applied to every place
// Lint reads it: flags (AL2's --kubelet-extra-args), NodeConfig parts
// (AL2023) and Bottlerocket's settings. Each rule is the same in every
// release from v1.24.17 to v1.36.3 (k8s.io/kubernetes as the module proxy
// serves it); lines are v1.35.3's. The kubelet exits on each: its command
// returns the validation error (cmd/kubelet/app/server.go L251-253), or
// NewMainKubelet returns the eviction parse error (pkg/kubelet/kubelet.go
// L522-525) and Run fails.
func TestBootPathKubeletConfig(t *testing.T) {
	al2 := func(extra string) string {
		return "#!/bin/bash\nset -ex\n" + join(extra+" "+withRequired) + "\n"
	}
	config := func(lines string) string {
		return mime(nodeConfigPart(nodeConfig(karpenterKubelet + lines)))
	}
	never := outcome{Verdict: userdata.NeverJoins}
	joins := outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}}
	rows := []row{
		{
			// Issue 23, hole 2. pkg/kubelet/apis/config/v1beta1/defaults.go
			// L156-162 default an unset low bound to 80; nodeadm's drop-in is
			// merged over the defaulted base config (cmd/kubelet/app/server.go
			// L334, L355: the base is marshalled with low 80, then
			// JSON-merge-patched), so low 80 meets high 80 and
			// pkg/kubelet/apis/config/validation/validation.go L93-95 refuses
			// "imageGCLowThresholdPercent ... must be less than
			// imageGCHighThresholdPercent".
			name:     "AL2023: imageGCHighThresholdPercent 80, low unset",
			family:   compat.AL2023,
			userData: config("      imageGCHighThresholdPercent: 80\n"),
			want:     never,
			lineAt:   "imageGCHighThresholdPercent:",
		},
		{
			name:     "AL2023: imageGCHighThresholdPercent 70, low unset",
			family:   compat.AL2023,
			userData: config("      imageGCHighThresholdPercent: 70\n"),
			want:     never,
			lineAt:   "imageGCHighThresholdPercent:",
		},
		{
			// The default high bound is 85 (defaults.go L156-159).
			name:     "AL2023: imageGCLowThresholdPercent 85, high unset",
			family:   compat.AL2023,
			userData: config("      imageGCLowThresholdPercent: 85\n"),
			want:     never,
			lineAt:   "imageGCLowThresholdPercent:",
		},
		{
			// nodeadm merges the documents before the kubelet sees them: a
			// low bound from an earlier document orders the pair.
			name:   "AL2023: the low bound in an earlier NodeConfig",
			family: compat.AL2023,
			userData: mime(nodeConfigPart(nodeConfig("  kubelet:\n    config:\n      imageGCLowThresholdPercent: 60\n")),
				nodeConfigPart(nodeConfig(karpenterKubelet+"      imageGCHighThresholdPercent: 80\n"))),
			want: joins,
		},
		{
			// validation.go L87-89: each bound from 0 to 100.
			name:     "AL2023: imageGCHighThresholdPercent over 100",
			family:   compat.AL2023,
			userData: config("      imageGCHighThresholdPercent: 101\n"),
			want:     never,
			lineAt:   "imageGCHighThresholdPercent:",
		},
		{
			// Flags are validated after they are applied over the config
			// (server.go L231, L251): the low bound is the default 80.
			name:     "AL2: --image-gc-high-threshold=80, low unset",
			family:   compat.AL2,
			userData: al2("--image-gc-high-threshold=80"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			name:     "AL2: both image GC flags, ordered",
			family:   compat.AL2,
			userData: al2("--image-gc-high-threshold=80 --image-gc-low-threshold=70"),
			want:     joins,
		},
		{
			// Bottlerocket writes imageGCHighThresholdPercent only when the
			// setting is set (bottlerocket-os/bottlerocket-core-kit@a10182f9
			// packages/kubernetes-1.31/kubelet-config L124-129), so the kubelet
			// defaults the other bound.
			name:     "Bottlerocket: image-gc-high-threshold-percent 80, low unset",
			family:   compat.Bottlerocket,
			userData: brSettings("image-gc-high-threshold-percent = 80\n"),
			want:     never,
			lineAt:   "image-gc-high-threshold-percent",
		},
		{
			// validation.go L123-125.
			name:     "AL2023: maxPods negative",
			family:   compat.AL2023,
			userData: config("      maxPods: -1\n"),
			want:     never,
			lineAt:   "maxPods:",
		},
		{
			// validation.go L129-131.
			name:     "AL2: --pods-per-core=-1",
			family:   compat.AL2,
			userData: al2("--pods-per-core=-1"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// cmd/kubelet/app/server.go parseResourceList L1326-1348 (called
			// at L800, L804): "cannot reserve" any other resource.
			name:     "AL2023: kubeReserved of a resource the kubelet cannot reserve",
			family:   compat.AL2023,
			userData: config("      kubeReserved:\n        nvidia.com/gpu: \"1\"\n"),
			want:     never,
			lineAt:   "kubeReserved:",
		},
		{
			name:     "AL2: a negative --system-reserved",
			family:   compat.AL2,
			userData: al2("--system-reserved=memory=-1Gi"),
			want:     never,
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// pkg/kubelet/eviction/helpers.go parseThresholdStatement
			// L381-425: a quantity threshold must be positive.
			name:     "AL2023: an evictionHard threshold of 0",
			family:   compat.AL2023,
			userData: config("      evictionHard:\n        memory.available: \"0\"\n"),
			want:     never,
			lineAt:   "evictionHard:",
		},
		{
			// helpers.go L111-114, L382-384: a signal the kubelet knows; it
			// knows allocatableMemory.available, which Karpenter's CRD does
			// not list.
			name:     "AL2023: an evictionHard signal the kubelet does not know",
			family:   compat.AL2023,
			userData: config("      evictionHard:\n        memory.free: 1Gi\n"),
			want:     never,
			lineAt:   "evictionHard:",
		},
		{
			name:     "AL2023: allocatableMemory.available, a signal the kubelet knows",
			family:   compat.AL2023,
			userData: config("      evictionHard:\n        allocatableMemory.available: 1Gi\n"),
			want:     joins,
		},
		{
			// helpers.go L147-152: "grace period must be specified for the
			// soft eviction threshold".
			name:     "AL2023: evictionSoft without a grace period",
			family:   compat.AL2023,
			userData: config("      evictionSoft:\n        memory.available: 1Gi\n"),
			want:     never,
			lineAt:   "evictionSoft:",
		},
		{
			// 0% and 100% switch a threshold off (helpers.go L387-390).
			name:     "AL2: --eviction-hard with 0% and 100%",
			family:   compat.AL2,
			userData: al2("--eviction-hard=memory.available<0%%,nodefs.available<100%%"),
			want:     joins,
		},
	}
	runRows(t, rows)
}

// Version-dependent facts are judged for the kubelet release of the
// Kubernetes version Lint is given, and are Unresolved when the releases
// the family ships disagree and no version is given.
func TestBootPathKubeletVersions(t *testing.T) {
	// Issue 23, hole 3, as published for AL2023. The gate is in
	// pkg/features/kube_features.go up to v1.32.13 and gone from v1.33.0
	// (v1.33.13 and later have no DisableKubeletCloudCredentialProviders);
	// the kubelet sets its gates from the merged config
	// (cmd/kubelet/app/server.go@v1.35.3 L235-237), and
	// k8s.io/component-base@v0.35.3 featuregate/feature_gate.go L384-389
	// returns "unrecognized feature gate" on a name it does not know.
	gate := mime(nodeConfigPart(nodeConfig(karpenterKubelet + "      featureGates:\n        DisableKubeletCloudCredentialProviders: true\n")))
	// --container-runtime: a flag in v1.24.17 (pkg/kubelet/config/flags.go L54),
	// gone in v1.28.15 (upstream/kubelet-flags.txt, dumped from each
	// release); the kubelet exits on an unknown flag (server.go@v1.35.3
	// L182-184).
	runtime := "#!/bin/bash\nset -ex\n" + join("--container-runtime=remote "+withRequired) + "\n"
	// containerfs.available: an eviction signal from v1.29
	// (pkg/kubelet/eviction/helpers.go signalToResource; not in v1.28.15).
	containerfs := mime(nodeConfigPart(nodeConfig(karpenterKubelet + "      evictionHard:\n        containerfs.available: 10%\n")))
	// Turning GracefulNodeShutdown off leaves
	// GracefulNodeShutdownBasedOnPodPriority on by default, which depends on
	// it from v1.35 (pkg/features/kube_features.go@v1.35.3
	// defaultKubernetesFeatureGateDependencies); component-base's
	// unsafeSetFromMap then returns "depends on features that are disabled".
	shutdown := mime(nodeConfigPart(nodeConfig(karpenterKubelet + "      featureGates:\n        GracefulNodeShutdown: false\n")))
	joins := userdata.Joins
	tests := []struct {
		name, userData, version, lineAt string
		family                          compat.AMIFamily
		want                            userdata.Verdict
	}{
		{"gate removed in 1.33, on 1.35", gate, "1.35", "featureGates:", compat.AL2023, userdata.NeverJoins},
		{"gate removed in 1.33, on 1.36", gate, "1.36", "featureGates:", compat.AL2023, userdata.NeverJoins},
		{"gate removed in 1.33, on 1.31", gate, "1.31", "", compat.AL2023, joins},
		{"gate removed in 1.33, version unknown", gate, "", "featureGates:", compat.AL2023, userdata.Unresolved},
		{"flag removed by 1.28, on 1.24", runtime, "1.24", "", compat.AL2, joins},
		{"flag removed by 1.28, on 1.28", runtime, "1.28", "/etc/eks/bootstrap.sh", compat.AL2, userdata.NeverJoins},
		{"flag removed by 1.28, version unknown", runtime, "", "/etc/eks/bootstrap.sh", compat.AL2, userdata.Unresolved},
		{"signal from 1.29, on 1.29", containerfs, "1.29", "", compat.AL2023, joins},
		{"signal from 1.29, on 1.28", containerfs, "1.28", "evictionHard:", compat.AL2023, userdata.NeverJoins},
		{"signal from 1.29, version unknown", containerfs, "", "evictionHard:", compat.AL2023, userdata.Unresolved},
		{"a dependency turned off, on 1.35", shutdown, "1.35", "featureGates:", compat.AL2023, userdata.NeverJoins},
		{"a dependency turned off, on 1.34", shutdown, "1.34", "", compat.AL2023, joins},
		{"a version past the tables is an unknown one", gate, "1.99", "featureGates:", compat.AL2023, userdata.Unresolved},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := userdata.Lint(tt.family, []byte(tt.userData), []userdata.Taint{userdata.UnregisteredTaint()}, userdata.KubernetesVersion(tt.version))
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tt.want || r.Line != lineOf(tt.userData, tt.lineAt) {
				t.Errorf("verdict %v at line %d; want %v at line %d\n%s", r.Verdict, r.Line, tt.want, lineOf(tt.userData, tt.lineAt), r)
			}
		})
	}
	for _, bad := range []string{"v1.32", "1.32.1", "1", "one.two"} {
		if _, err := userdata.Lint(compat.AL2023, []byte(gate), nil, userdata.KubernetesVersion(bad)); err == nil || !strings.Contains(err.Error(), "userdata: Kubernetes version") {
			t.Errorf("KubernetesVersion(%q): error %v; want one naming the version", bad, err)
		}
	}
}

// TestKubeletSourceLines: a source's line is the key's, in the document
// that sets it: not a YAML comment mentioning the key, not the last
// document's line when an earlier one sets it (issue 23).
func TestKubeletSourceLines(t *testing.T) {
	first := nodeConfig("  kubelet:\n    config:\n      # maxPods and evictionHard are raised below for our CNI\n      maxPods: 58\n      evictionHard:\n        memory.available: 200Mi\n")
	second := nodeConfig(karpenterKubelet + "      # maxPods stays as the first document says\n")
	ud := mime(nodeConfigPart(first), nodeConfigPart(second))
	r, err := userdata.Lint(compat.AL2023, []byte(ud), []userdata.Taint{userdata.UnregisteredTaint()})
	if err != nil || r.Verdict != userdata.Joins {
		t.Fatalf("Lint = %v, %v", r, err)
	}
	lines := map[string]int{}
	for _, s := range r.KubeletSources {
		if strings.HasPrefix(s.From, "spec.kubelet.config") {
			lines[s.Field] = s.Line
		}
	}
	want := map[string]int{"MaxPods": lineOf(ud, "maxPods: 58"), "EvictionHard": lineOf(ud, "evictionHard:")}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("source lines (-want +got):\n%s\n%s", diff, ud)
	}
	// nodeadm's own evictionHard entries stay beneath the user's
	// (nodeadm/internal/kubelet/config.go@81fec2e8 L110-114; the kubelet
	// merges the drop-in over them, cmd/kubelet/app/server.go@v1.35.3 L355).
	wantHard := map[string]string{"memory.available": "200Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
	if diff := cmp.Diff(wantHard, r.Kubelet.EvictionHard); diff != "" {
		t.Errorf("EvictionHard (-want +got):\n%s", diff)
	}
	// UserKubelet is what the userData sets, without nodeadm's own entries
	// (its evictionHard defaults, kubeReserved, clusterDNS, maxPods
	// computed at boot).
	maxPods := int32(58)
	wantUser := userdata.KubeletConfig{MaxPods: &maxPods, EvictionHard: map[string]string{"memory.available": "200Mi"}}
	if diff := cmp.Diff(wantUser, r.UserKubelet()); diff != "" {
		t.Errorf("UserKubelet (-want +got):\n%s", diff)
	}
}
