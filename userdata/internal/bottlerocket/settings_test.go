package bottlerocket

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"
)

func settingsOf(t *testing.T, text string) (settings, kube map[string]any) {
	t.Helper()
	var doc map[string]any
	if err := toml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	settings, _ = doc["settings"].(map[string]any)
	kube, _ = settings["kubernetes"].(map[string]any)
	return settings, kube
}

// TestUnknownSetting: the settings model denies unknown fields
// (bottlerocket-os/bottlerocket@468f205b^
// sources/models/model-derive/src/lib.rs L112-116), so the first key, in
// key order, the aws-k8s model lacks is named.
func TestUnknownSetting(t *testing.T) {
	t.Parallel()
	tests := []struct{ text, want string }{
		{"[settings.kubernetes]\ncluster-name = 'c'\nmax-pods = 110\n[settings.host-containers.admin]\nenabled = true\n", ""},
		{"[settings.kubelet]\nmax-pods = 110\n[settings.zzz]\nx = 1\n", "settings.kubelet"},
		{"[settings.kubernetes]\nnode-taint = 'a'\nmax-pod = 1\n", "settings.kubernetes.max-pod"},
		{"", ""},
	}
	for _, tt := range tests {
		settings, kube := settingsOf(t, tt.text)
		if got := UnknownSetting(settings, kube); got != tt.want {
			t.Errorf("UnknownSetting(%q) = %q; want %q", tt.text, got, tt.want)
		}
	}
}

// TestBootSteps: bootstrap commands and containers run before the kubelet
// (bottlerocket-core-kit bootstrap-commands, bootstrap-containers); those
// whose mode is "off" do not run, and commands that only set up ephemeral
// storage (what Karpenter v1.14.1 writes for RAID0) cannot change the
// kubelet's settings.
func TestBootSteps(t *testing.T) {
	t.Parallel()
	tests := []struct{ text, want string }{
		{"[settings.bootstrap-commands.a]\ncommands = [['apiclient', 'set', 'kubernetes.max-pods=1']]\nmode = 'once'\n", "settings.bootstrap-commands.a"},
		{"[settings.bootstrap-commands.a]\ncommands = [['apiclient', 'set', 'x=1']]\nmode = 'off'\n", ""},
		{"[settings.bootstrap-commands.a]\ncommands = [['apiclient', 'ephemeral-storage', 'init'], ['apiclient', 'ephemeral-storage', 'bind']]\n", ""},
		{"[settings.bootstrap-commands.a]\ncommands = []\n", "settings.bootstrap-commands.a"},
		{"[settings.bootstrap-commands.a]\ncommands = ['apiclient ephemeral-storage init']\n", "settings.bootstrap-commands.a"},
		{"[settings.bootstrap-commands.a]\ncommands = [['apiclient']]\n", "settings.bootstrap-commands.a"},
		{"[settings.bootstrap-containers.setup]\nsource = 'x'\nmode = 'always'\n", "settings.bootstrap-containers.setup"},
		{"[settings.bootstrap-commands.b]\nmode = 'off'\n[settings.bootstrap-commands.a]\ncommands = [['echo']]\n", "settings.bootstrap-commands.a"},
		{"[settings.kubernetes]\nmax-pods = 1\n", ""},
	}
	for _, tt := range tests {
		settings, _ := settingsOf(t, tt.text)
		if got := BootSteps(settings); got != tt.want {
			t.Errorf("BootSteps(%q) = %q; want %q", tt.text, got, tt.want)
		}
	}
}

func TestIsSettings(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"[settings.kubernetes]\ncluster-name = 'c'\n": true,
		"settings = 1\n":         false,
		"[other]\nx = 1\n":       false,
		"#!/bin/bash\necho hi\n": false,
	} {
		if got := IsSettings([]byte(text)); got != want {
			t.Errorf("IsSettings(%q) = %v; want %v", text, got, want)
		}
	}
}

// TestTaintEntry: settings.kubernetes.node-taints maps a key to a list of
// KubernetesTaintValue, "value:Effect" (bottlerocket-os/bottlerocket@468f205b^
// sources/models/src/lib.rs L100, modeled-types/src/kubernetes.rs L217-266);
// Render writes and Lint reads the one syntax.
func TestTaintEntry(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ value, effect string }{{"true", "NoSchedule"}, {"", "NoExecute"}} {
		v, e, ok := ParseTaintEntry(TaintEntry(tt.value, tt.effect))
		if !ok || v != tt.value || e != tt.effect {
			t.Errorf("ParseTaintEntry(TaintEntry(%q, %q)) = %q, %q, %v", tt.value, tt.effect, v, e, ok)
		}
	}
	for _, bad := range []string{"NoSchedule", "a:b:NoSchedule"} {
		if _, _, ok := ParseTaintEntry(bad); ok {
			t.Errorf("ParseTaintEntry(%q) accepted it", bad)
		}
	}
}

// TestRAID0Command: Karpenter v1.14.1's command
// (pkg/providers/amifamily/bootstrap/bottlerocket.go), binding named
// directories before Bottlerocket 1.46.0 (pkg/providers/version/version.go
// SupportsDefaultBind).
func TestRAID0Command(t *testing.T) {
	t.Parallel()
	init := []any{"apiclient", "ephemeral-storage", "init"}
	named := map[string]any{"commands": []any{init, []any{"apiclient", "ephemeral-storage", "bind", "--dirs", "/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods"}}, "essential": true, "mode": "always"}
	plain := map[string]any{"commands": []any{init, []any{"apiclient", "ephemeral-storage", "bind"}}, "essential": true, "mode": "always"}
	if diff := cmp.Diff(named, RAID0Command("")); diff != "" {
		t.Errorf("unknown release (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(plain, RAID0Command("v1.46.0")); diff != "" {
		t.Errorf("1.46.0 (-want +got):\n%s", diff)
	}
	settings := map[string]any{"bootstrap-commands": map[string]any{RAID0CommandName: RAID0Command("")}}
	if got := BootSteps(settings); got != "" {
		t.Errorf("BootSteps of Render's own RAID0 command = %q; want none", got)
	}
}

func TestBindsByDefault(t *testing.T) {
	t.Parallel()
	for release, want := range map[string]bool{
		"v1.46.0": true, "1.46.0-5d1a2b3c": true, "v1.47.1": true, "v2.0.0": true,
		"v1.45.9": false, "": false, "v1.46": false, "v1.x.0": false, "v1.-46.0": false, "latest": false,
	} {
		if got := BindsByDefault(release); got != want {
			t.Errorf("BindsByDefault(%q) = %v; want %v", release, got, want)
		}
	}
}
