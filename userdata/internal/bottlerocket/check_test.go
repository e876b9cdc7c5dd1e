package bottlerocket

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func findingStrings(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		s := f.Key() + " " + f.Kind.String()
		if f.Kind == Since || f.Kind == Variant {
			s += " " + f.Detail
		}
		out = append(out, s)
	}
	return out
}

func stepStrings(steps []Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, JoinKey(s.Path)+" "+s.Effect.String())
	}
	return out
}

// TestCheckPublished: settings people publish (testdata/published, each
// with its source) are accepted, with the variant and release notes the
// model has for them; only Karpenter's fixture sets keys Bottlerocket does
// not have.
func TestCheckPublished(t *testing.T) {
	t.Parallel()
	want := map[string]struct{ findings, steps []string }{
		"blueprints-gpu-time-slicing.toml": {findings: []string{"settings.kubelet-device-plugins variant aws-k8s-*-nvidia"}},
		"blueprints-soci-snapshotter.toml": {findings: []string{
			"settings.container-runtime.snapshotter since 1.44.0", "settings.container-runtime-plugins since 1.44.0"}},
		"blueprints-ebs-resize-bootstrap-container.toml": {steps: []string{"settings.bootstrap-containers.ebsresize cannot-tell"}},
		"bottlerocket-docs-bootstrap-command.toml":       {},
		"bottlerocket-docs-ecr-credential-provider.toml": {},
		"bottlerocket-docs-mps.toml": {findings: []string{"settings.kubelet-device-plugins variant aws-k8s-*-nvidia",
			"settings.kubelet-device-plugins.nvidia.mps since 1.54.0"}},
		"karpenter-br-custom-userdata.toml": {},
		"karpenter-e2e-br-userdata.toml":    {},
		"karpenter-br-userdata-input.toml": {findings: []string{
			"settings.kubernetes.labels unknown", "settings.kubernetes.unknown-setting unknown"}},
	}
	files, err := filepath.Glob("testdata/published/*.toml")
	if err != nil || len(files) != len(want) {
		t.Fatalf("testdata/published has %d files (%v); the table has %d", len(files), err, len(want))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			settings, err := ReadUserData(text)
			if err != nil {
				t.Fatal(err)
			}
			w := want[filepath.Base(file)]
			if diff := cmp.Diff(w.findings, findingStrings(Check(settings))); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(w.steps, stepStrings(Steps(settings))); diff != "" {
				t.Errorf("Steps (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckNamespaces pins the namespaces to the aws-k8s settings plugins
// of Bottlerocket 1.50.0 (bottlerocket-os/bottlerocket@80378023
// sources/settings-plugins/aws-k8s/src/lib.rs L6-L28, and
// aws-k8s-nvidia/src/lib.rs L6-L30, which adds nvidia-container-runtime and
// kubelet-device-plugins), plus image-verifier-plugins, documented from
// 1.51 (bottlerocket-project-website@6102096
// content/en/os/1.57.x/api/settings/image-verifier-plugins), and the two
// the settings models export that no published plugin is known to
// include (bottlerocket-settings-sdk@09fb002e
// bottlerocket-settings-models/settings-models/src/lib.rs).
func TestCheckNamespaces(t *testing.T) {
	t.Parallel()
	awsK8s := []string{"motd", "kubernetes", "updates", "host-containers", "bootstrap-commands", "bootstrap-containers",
		"ntp", "network", "kernel", "boot", "aws", "metrics", "pki", "container-registry", "oci-defaults", "oci-hooks",
		"cloudformation", "dns", "container-runtime", "container-runtime-plugins", "autoscaling"}
	nvidia := []string{"nvidia-container-runtime", "kubelet-device-plugins"}
	var settled, unsettled, variant []string
	for _, name := range namespaceNames {
		ns := namespaces[name]
		switch {
		case !ns.settled:
			unsettled = append(unsettled, name)
		case ns.variants != "":
			variant = append(variant, name)
		default:
			settled = append(settled, name)
		}
		if ns.model == "" || ns.source == "" {
			t.Errorf("namespace %s has no model or source", name)
		}
	}
	wantSettled := slices.Sorted(slices.Values(append(awsK8s, "image-verifier-plugins")))
	if diff := cmp.Diff(wantSettled, settled); diff != "" {
		t.Errorf("every aws-k8s variant's namespaces (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(nvidia)), variant); diff != "" {
		t.Errorf("nvidia-only namespaces (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"kubelet-dra-drivers", "measurement"}, unsettled); diff != "" {
		t.Errorf("unsettled namespaces (-want +got):\n%s", diff)
	}
}

// TestCheck: where the model denies unknown fields (the model macro adds
// deny_unknown_fields to every struct without its own serde attribute:
// bottlerocket-settings-sdk@5ba2c487
// bottlerocket-settings-models/model-derive/src/lib.rs L107-L120; the
// settings plugin is such a struct, renamed "settings", so an unknown
// namespace is refused too, as bottlerocket-os/bottlerocket#4145 shows:
// "unknown field `nvidia-container-runtime`, expected one of `motd`, …"),
// a key the model lacks is refused; where it does not (CredentialProvider,
// modeled-types/src/kubernetes.rs L1321-L1330, derives Deserialize without
// it), any key passes; where the keys are not established, the finding is
// Unsettled.
func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string
		near       string
	}{
		{"unknown namespace", "[settings.kubelet]\nmax-pods = 1\n", []string{"settings.kubelet unknown"}, ""},
		{"misspelt namespace", "[settings.kubernetess]\nmax-pods = 1\n", []string{"settings.kubernetess unknown"}, "kubernetes"},
		{"unknown kubernetes key", "[settings.kubernetes]\nnode-taint = 'a'\n", []string{"settings.kubernetes.node-taint unknown"}, "node-taints"},
		{"unknown host-container key", "[settings.host-containers.admin]\nenable = true\n",
			[]string{"settings.host-containers.admin.enable unknown"}, "enabled"},
		// The settings API lists NvidiaDevicePluginSettings' keys when it
		// refuses one (bottlerocket-os/bottlerocket-core-kit#914).
		{"unknown nvidia key", "[settings.kubelet-device-plugins.nvidia]\nmig-strategy = 'single'\n",
			[]string{"settings.kubelet-device-plugins variant aws-k8s-*-nvidia", "settings.kubelet-device-plugins.nvidia.mig-strategy unknown"}, ""},
		{"registry credential", "[[settings.container-registry.credentials]]\nregistry = 'r'\nuser = 'u'\n",
			[]string{"settings.container-registry.credentials.user unknown"}, ""},
		{"bad name", "[settings.host-containers.my_admin]\nenabled = true\n", []string{"settings.host-containers.my_admin bad-name"}, ""},
		{"not a table", "[settings.host-containers]\nadmin = true\n", []string{"settings.host-containers.admin wrong-shape"}, ""},
		{"lax credential provider", "[settings.kubernetes.credential-providers.ecr-credential-provider]\nenabled = true\nfuture = 1\n", nil, ""},
		{"unsettled plugin key", "[settings.container-runtime-plugins.soci-snapshotter]\nfuture = 1\n",
			[]string{"settings.container-runtime-plugins since 1.44.0", "settings.container-runtime-plugins.soci-snapshotter.future unsettled"}, ""},
		{"unsettled namespace", "[settings.kubelet-dra-drivers.nvidia]\nenabled = true\n", []string{"settings.kubelet-dra-drivers unsettled"}, ""},
		// KmodKey allows '_' (modeled-types/src/shared.rs L1171-L1186).
		{"kernel module", "[settings.kernel.modules.nf_conntrack]\nallowed = true\n", nil, ""},
		{"aliases", "[settings.boot.kernel]\nquiet = []\n[settings.container-registry]\ncreds = []\n[settings.kubernetes]\nfail-cgroupv1 = false\n", nil, ""},
		{"since", "[settings.kubernetes]\nimage-minimum-gc-age = '2m'\n", []string{"settings.kubernetes.image-minimum-gc-age since 1.51.0"}, ""},
		{"quoted key", "[settings.kubernetes]\n'a.b' = 1\n", []string{`settings.kubernetes."a.b" unknown`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings, err := ReadUserData([]byte(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			got := Check(settings)
			if diff := cmp.Diff(tt.want, findingStrings(got)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
			if tt.near != "" && (len(got) == 0 || got[len(got)-1].Near != tt.near) {
				t.Errorf("Near = %v; want %q", got, tt.near)
			}
		})
	}
}

// modelPaths lists every key path of the model, with "a" for a map key.
func modelPaths() [][]string {
	var out [][]string
	var walk func(n *node, path []string)
	walk = func(n *node, path []string) {
		out = append(out, path)
		switch n.level {
		case strict, lax, unsettled:
			for _, k := range slices.Sorted(maps.Keys(n.fields)) {
				walk(n.fields[k], append(slices.Clone(path), k))
			}
		case mapOf:
			walk(n.elem, append(slices.Clone(path), "a"))
		case listOf:
			walk(n.elem, path)
		}
	}
	for _, name := range namespaceNames {
		walk(namespaces[name].node, []string{name})
	}
	return out
}

// settingsWith builds the settings that set path, with tables (or a list
// of one table) down to it, following the model's shapes.
func settingsWith(path []string) map[string]any {
	root := map[string]any{}
	cur, n := root, (*node)(nil)
	for i, k := range path {
		if i == 0 {
			n = namespaces[k].node
		} else {
			n = step(n, k)
		}
		if i == len(path)-1 {
			cur[k] = "v"
			if n != nil && n.level != leaf {
				cur[k] = map[string]any{}
			}
			if n != nil && n.level == listOf {
				cur[k] = []any{map[string]any{}}
			}
			break
		}
		next := map[string]any{}
		if n.level == listOf {
			cur[k] = []any{next}
		} else {
			cur[k] = next
		}
		cur = next
	}
	return root
}

func step(n *node, k string) *node {
	if n.level == listOf {
		n = n.elem
	}
	if n.level == mapOf {
		return n.elem
	}
	return n.fields[k]
}

// TestCheckModelLaws: every key the model has is accepted, wherever it is;
// a key one letter off at a strict level is refused.
func TestCheckModelLaws(t *testing.T) {
	t.Parallel()
	paths := modelPaths()
	rapid.Check(t, func(t *rapid.T) {
		path := rapid.SampledFrom(paths).Draw(t, "path")
		for _, f := range Check(settingsWith(path)) {
			if f.Kind.Refused() || f.Kind == Unsettled && namespaces[path[0]].settled {
				t.Fatalf("Check(%v) = %v", path, f)
			}
		}
		if len(path) < 2 {
			return
		}
		parent := namespaces[path[0]].node
		for _, k := range path[1 : len(path)-1] {
			parent = step(parent, k)
		}
		if parent.level == listOf {
			parent = parent.elem
		}
		if parent.level != strict {
			return
		}
		bad := slices.Clone(path)
		bad[len(bad)-1] += "x"
		if _, ok := parent.fields[bad[len(bad)-1]]; ok {
			return
		}
		found := Check(settingsWith(bad))
		if !slices.ContainsFunc(found, func(f Finding) bool {
			return f.Kind == Unknown && slices.Equal(f.Path, append([]string{"settings"}, bad...))
		}) {
			t.Fatalf("Check(%v) = %v; want it unknown", bad, found)
		}
	})
}

func TestJoinKey(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"settings|kubernetes|node-labels":        "settings.kubernetes.node-labels",
		"settings|kubernetes|node-labels|a.b/c":  `settings.kubernetes.node-labels."a.b/c"`,
		`settings|x|q"uo\te`:                     `settings.x."q\"uo\\te"`,
		"settings|host-containers|":              `settings.host-containers.""`,
		"settings|kubernetes|node-taints|a_b-C1": "settings.kubernetes.node-taints.a_b-C1",
	} {
		if got := JoinKey(strings.Split(path, "|")); got != want {
			t.Errorf("JoinKey(%q) = %s; want %s", path, got, want)
		}
	}
}

func TestIsIdentifier(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"admin": true, "000-mount-instance-storage": true, "": true, strings.Repeat("a", 76): true,
		strings.Repeat("a", 77): false, "my_admin": false, "a.b": false, "é": false,
	} {
		if got := IsIdentifier(s); got != want {
			t.Errorf("IsIdentifier(%q) = %v; want %v", s, got, want)
		}
	}
}

func TestNearest(t *testing.T) {
	t.Parallel()
	names := []string{"enabled", "node-labels", "node-taints"}
	for s, want := range map[string]string{"node-taint": "node-taints", "enable": "enabled", "xyz": "", "node-label": "node-labels"} {
		if got := nearest(s, names); got != want {
			t.Errorf("nearest(%q) = %q; want %q", s, got, want)
		}
	}
}
