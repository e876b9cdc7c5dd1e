package userdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"
)

// publishedBottlerocket is settings people publish (each file names its
// source).
const publishedBottlerocket = "internal/bottlerocket/testdata/published"

func tomlTree(t *testing.T, text []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := toml.Unmarshal(text, &doc); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return doc
}

// TestRenderBottlerocketPublished: Render keeps every published setting
// that exists (settings.kubelet-device-plugins and
// settings.container-runtime-plugins among them: bottlerocket-os/bottlerocket@80378023
// sources/settings-plugins/aws-k8s-nvidia/src/lib.rs L28-L29 and
// aws-k8s/src/lib.rs L26), and refuses only what Bottlerocket refuses or
// what can change the taints: Karpenter's fixture with two keys
// KubernetesSettingsV1 lacks, and a bootstrap container, which runs an
// image the userData does not hold.
func TestRenderBottlerocketPublished(t *testing.T) {
	t.Parallel()
	refused := map[string]string{
		"karpenter-br-userdata-input.toml":               "settings.kubernetes.labels",
		"blueprints-ebs-resize-bootstrap-container.toml": "settings.bootstrap-containers.ebsresize",
	}
	files, err := filepath.Glob(publishedBottlerocket + "/*.toml")
	if err != nil || len(files) < 9 {
		t.Fatalf("%d files: %v", len(files), err)
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			custom, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			cfg := baseConfig()
			cfg.CustomUserData = custom
			out, err := Render(compat.Bottlerocket, cfg)
			if want, ok := refused[name]; ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("Render = %v; want an error naming %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Render refused published settings: %v", err)
			}
			// Every custom setting outside settings.kubernetes survives as
			// written.
			in, got := tomlTree(t, custom)["settings"].(map[string]any), tomlTree(t, out)["settings"].(map[string]any)
			for ns, v := range in {
				if ns == "kubernetes" {
					continue
				}
				if diff := cmp.Diff(v, got[ns]); diff != "" {
					t.Errorf("settings.%s (-custom +rendered):\n%s", ns, diff)
				}
			}
			r := mustLint(t, compat.Bottlerocket, out, nil)
			if r.Verdict != Joins {
				t.Errorf("Lint(Render) = %s", r)
			}
			for _, p := range r.Problems {
				if p.Code != CodeVariantSetting {
					t.Errorf("Lint(Render) problem %v", p)
				}
			}
		})
	}
}

// TestRenderBottlerocketBootstrapCommands: bootstrap commands are kept
// beside Render's RAID0 command, as Karpenter v1.14.1 keeps them
// (pkg/providers/amifamily/bootstrap/bottlerocket.go L96-L113; its
// launch-template suite_test.go L1475-L1502), unless they can change what
// the kubelet registers or Bottlerocket refuses them. Bottlerocket runs
// only apiclient commands: its settings model refuses any other
// (ApiclientCommand, bottlerocket-settings-sdk@5ba2c487
// bottlerocket-settings-models/modeled-types/src/shared.rs L978-L990), so
// Karpenter's own [['echo', 'hello']] is refused here (a documented
// difference).
func TestRenderBottlerocketBootstrapCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, custom, err string
		keep              []string
	}{
		{name: "apiclient set motd", custom: "[settings.bootstrap-commands.111-say-hello]\ncommands = [['apiclient', 'set', 'motd=hello']]\nmode = 'always'\nessential = true\n",
			keep: []string{"111-say-hello", "000-mount-instance-storage"}},
		{name: "docs ephemeral storage", custom: "[settings.bootstrap-commands.mybootstrap]\ncommands = [['apiclient', 'ephemeral-storage', 'init']]\nmode = 'always'\n",
			keep: []string{"mybootstrap", "000-mount-instance-storage"}},
		{name: "kubernetes set, mode off", custom: "[settings.bootstrap-commands.later]\ncommands = [['apiclient', 'set', 'kubernetes.max-pods=10']]\nmode = 'off'\n",
			keep: []string{"later", "000-mount-instance-storage"}},
		{name: "karpenter echo", custom: "[settings.bootstrap-commands.111-say-hello]\ncommands = [['echo', 'hello']]\nmode = 'always'\nessential = true\n",
			err: "settings.bootstrap-commands.111-say-hello.commands.0: its first word is not apiclient"},
		{name: "taint", custom: "[settings.bootstrap-commands.taint]\ncommands = [['apiclient', 'set', 'kubernetes.node-taints.a=b:NoSchedule']]\nmode = 'once'\n",
			err: "settings.bootstrap-commands.taint.commands.0 runs before the kubelet and can change what it registers (apiclient set changes settings.kubernetes"},
		{name: "json", custom: "[settings.bootstrap-commands.j]\ncommands = [['apiclient', 'set', '--json', '{\"kubernetes\": {\"max-pods\": 10}}']]\nmode = 'always'\n",
			err: "settings.bootstrap-commands.j.commands.0"},
		{name: "apply", custom: "[settings.bootstrap-commands.a]\ncommands = [['apiclient', 'apply', 's3://b/s.toml']]\nmode = 'once'\n",
			err: "apiclient apply applies settings from files"},
		{name: "bad name", custom: "[settings.bootstrap-commands.say_hello]\ncommands = [['apiclient', 'get']]\nmode = 'always'\n",
			err: "settings.bootstrap-commands.say_hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.InstanceStorePolicy = RAID0
			cfg.CustomUserData = []byte(tt.custom)
			out, err := Render(compat.Bottlerocket, cfg)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Render = %v; want an error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cmds := tomlTree(t, out)["settings"].(map[string]any)["bootstrap-commands"].(map[string]any)
			for _, k := range tt.keep {
				if _, ok := cmds[k]; !ok {
					t.Errorf("bootstrap command %s lost:\n%s", k, out)
				}
			}
			if r := mustLint(t, compat.Bottlerocket, out, nil); r.Verdict != Joins || len(r.Problems) > 0 {
				t.Errorf("Lint(Render) = %s", r)
			}
		})
	}
}

// TestRenderBottlerocketSettingsModel: what Render refuses, each for the
// rule named.
func TestRenderBottlerocketSettingsModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, custom, release, err string
	}{
		// deny_unknown_fields (bottlerocket-settings-sdk@5ba2c487
		// model-derive/src/lib.rs L107-L120).
		{"misspelt key", "[settings.kubernetes]\nnode-taint = 'a'\n", "", "did you mean node-taints?"},
		{"unknown namespace", "[settings.kubelet]\nmax-pods = 10\n", "", "settings.kubelet, which Bottlerocket's settings model"},
		{"unknown nested key", "[settings.kubelet-device-plugins.nvidia.time-slicing]\nreplica = 4\n", "", "did you mean replicas?"},
		// Identifier (modeled-types/src/shared.rs L395-L408).
		{"bad name", "[settings.host-containers.my_admin]\nenabled = true\n", "", "settings.host-containers.my_admin"},
		{"not a table", "[settings.host-containers]\nadmin = true\n", "", "must be a table"},
		// container-runtime-plugins from 1.44.0
		// (bottlerocket@80378023 sources/settings-migrations/v1.44.0/container-runtime-plugins-settings).
		{"too old", "[settings.container-runtime-plugins.soci-snapshotter]\npull-mode = 'parallel-pull-unpack'\n", "v1.43.2", "from 1.44.0 on; Config.AMIRelease v1.43.2"},
		{"new enough", "[settings.container-runtime-plugins.soci-snapshotter]\npull-mode = 'parallel-pull-unpack'\n", "v1.44.0", ""},
		{"release unknown", "[settings.container-runtime-plugins.soci-snapshotter]\npull-mode = 'parallel-pull-unpack'\n", "", ""},
		{"unsettled key", "[settings.container-runtime-plugins.soci-snapshotter]\nfuture-key = 1\n", "", ""},
		{"variant", "[settings.nvidia-container-runtime]\nvisible-devices-as-volume-mounts = true\n", "", ""},
		// Bottlerocket's docs: standalone-mode runs the kubelet without an
		// API server (bottlerocket-project-website@6102096
		// data/settings/1.15.x/kubernetes.toml, standalone-mode).
		{"standalone", "[settings.kubernetes]\nstandalone-mode = true\n", "", "standalone-mode = true"},
		{"not standalone", "[settings.kubernetes]\nstandalone-mode = false\n", "", ""},
		{"kubelet-extra-config", "[settings.kubernetes]\nkubelet-extra-config = 'bWF4UG9kczogMTAK'\n", "", "kubelet-extra-config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.AMIRelease = tt.release
			cfg.CustomUserData = []byte(tt.custom)
			_, err := Render(compat.Bottlerocket, cfg)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Render refused: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("Render = %v; want an error containing %q", err, tt.err)
			case err != nil && !strings.HasPrefix(err.Error(), "userdata: "):
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}
