package bottlerocket

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadLines: the line of each key as go-toml's parser reads it, not
// the first line that mentions it (a comment, a value).
func TestReadLines(t *testing.T) {
	t.Parallel()
	text := `# settings.kubernetes.max-pods is set below
[settings.kubernetes]
api-server = "max-pods"
max-pods = 110
node-labels."a.b/c" = "x"

[settings.kubernetes.node-taints]
'karpenter.sh/unregistered' = [':NoExecute']

[[settings.container-registry.credentials]]
registry = "r"
[settings.host-containers]
admin = { enabled = true, source = "s" }
`
	want := Lines{
		"settings": 2, "settings.kubernetes": 2, "settings.kubernetes.api-server": 3,
		"settings.kubernetes.max-pods": 4, "settings.kubernetes.node-labels": 5,
		`settings.kubernetes.node-labels."a.b/c"`: 5, "settings.kubernetes.node-taints": 7,
		`settings.kubernetes.node-taints."karpenter.sh/unregistered"`: 8,
		"settings.container-registry":                                 10, "settings.container-registry.credentials": 10,
		"settings.container-registry.credentials.registry": 11,
		"settings.host-containers":                         12, "settings.host-containers.admin": 13,
		"settings.host-containers.admin.enabled": 13, "settings.host-containers.admin.source": 13,
	}
	got := ReadLines([]byte(text), 0)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadLines (-want +got):\n%s", diff)
	}
	if got.Line("settings", "kubernetes", "max-pods") != 4 || got.Line("settings", "nope") != 0 {
		t.Errorf("Line: %v", got)
	}
	// At most three segments: the same lines, without the deeper paths.
	shallow := Lines{}
	for k, v := range want {
		if segs, err := ParseKey(k); err == nil && len(segs) <= 3 {
			shallow[k] = v
		}
	}
	if diff := cmp.Diff(shallow, ReadLines([]byte(text), 3)); diff != "" {
		t.Errorf("ReadLines(3) (-want +got):\n%s", diff)
	}
	// A document that stops parsing keeps the lines read before.
	if l := ReadLines([]byte("[settings.kubernetes]\nmax-pods = 1\nnot toml\n"), 0); l.Line("settings", "kubernetes", "max-pods") != 2 {
		t.Errorf("partial: %v", l)
	}
}
