package bottlerocket

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
	for _, release := range []string{"", "v1.46.0"} {
		settings := map[string]any{"bootstrap-commands": map[string]any{RAID0CommandName: RAID0Command(release)}}
		if got := Steps(settings); len(got) > 0 {
			t.Errorf("Steps of Render's own RAID0 command (%q) = %v; want none", release, got)
		}
		if got := Check(settings); len(got) > 0 {
			t.Errorf("Check of Render's own RAID0 command (%q) = %v; want none", release, got)
		}
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

func TestAtLeast(t *testing.T) {
	t.Parallel()
	tests := []struct {
		release, min string
		ok, known    bool
	}{
		{"v1.44.0", "1.44.0", true, true},
		{"1.45.1-abc", "1.44.0", true, true},
		{"v1.43.9", "1.44.0", false, true},
		{"v2.0.0", "1.44.0", true, true},
		{"v1.44", "1.44.0", false, false},
		{"", "1.44.0", false, false},
		{"v1.44.0", "latest", false, false},
	}
	for _, tt := range tests {
		if ok, known := AtLeast(tt.release, tt.min); ok != tt.ok || known != tt.known {
			t.Errorf("AtLeast(%q, %q) = %v, %v; want %v, %v", tt.release, tt.min, ok, known, tt.ok, tt.known)
		}
	}
}

// TestReadUserData: early-boot-config parses user data as TOML and takes
// its settings table (bottlerocket-core-kit@a10182f9
// sources/early-boot-config/early-boot-config-provider/src/settings.rs
// L36-L51); blank user data is none (user-data-providers/ec2-imds/src/lib.rs
// L34-L37). A shell script is not TOML: "#!/bin/bash" is a comment, the
// next line is not a key.
func TestReadUserData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       map[string]any
		err        string
	}{
		{"blank", " \n\t\n", nil, ""},
		{"script", "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster\n", nil, "toml"},
		{"cloud-config", "#cloud-config\nruncmd:\n- echo hi\n", nil, "toml"},
		{"comments only", "#!/bin/bash\n# nothing\n", nil, ErrNoSettings.Error()},
		{"other table", "[foo]\nx = 1\n", nil, ErrNoSettings.Error()},
		{"settings value", "settings = 1\n", nil, "not a table"},
		{"motd", "[settings]\nmotd = 'hi'\n", map[string]any{"motd": "hi"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadUserData([]byte(tt.text))
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("err = %v; want one mentioning %q", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
		})
	}
}
