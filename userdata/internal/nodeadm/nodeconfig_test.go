package nodeadm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const full = `apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    name: c
    apiServerEndpoint: https://x
    certificateAuthority: Q0E=
    cidr: 10.100.0.0/16
  kubelet:
    config:
      maxPods: 110
      registerWithTaints:
        - key: k
          effect: NoSchedule
    flags:
      - --node-labels=a=b
      - 7
`

// TestDecode: nodeadm's scheme decodes only node.eks.aws/v1alpha1
// NodeConfig (awslabs/amazon-eks-ami@81fec2e8
// nodeadm/internal/api/bridge/scheme.go L12-13), from YAML or JSON.
func TestDecode(t *testing.T) {
	t.Parallel()
	d, ok := Decode([]byte(full))
	if !ok || d == nil {
		t.Fatalf("Decode(full) = %v, %v", d, ok)
	}
	want := &Doc{
		Cluster: map[string]any{"name": "c", "apiServerEndpoint": "https://x", "certificateAuthority": "Q0E=", "cidr": "10.100.0.0/16"},
		Config:  map[string]any{"maxPods": float64(110), "registerWithTaints": []any{map[string]any{"key": "k", "effect": "NoSchedule"}}},
		Flags:   []string{"--node-labels=a=b", "7"},
		Body:    []byte(full),
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
	tests := []struct {
		name, text string
		ok, isNC   bool
	}{
		{"JSON", `{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig"}`, true, true},
		{"another version", "apiVersion: node.eks.aws/v1\nkind: NodeConfig\n", true, false},
		{"another kind", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfiguration\n", true, false},
		{"not an object", "- a\n- b\n", false, false},
		{"not YAML", "a: [\n", false, false},
		{"empty", "", false, false},
	}
	for _, tt := range tests {
		d, ok := Decode([]byte(tt.text))
		if ok != tt.ok || (d != nil) != tt.isNC || IsNodeConfig([]byte(tt.text)) != tt.isNC {
			t.Errorf("%s: Decode = %v, %v; want ok %v, a NodeConfig %v", tt.name, d, ok, tt.ok, tt.isNC)
		}
	}
}

func TestDocLines(t *testing.T) {
	t.Parallel()
	d, _ := Decode([]byte(full))
	d.Line = 10
	for _, tt := range []struct {
		s    string
		key  bool
		want int
	}{
		{"maxPods", false, 20},
		{"registerWithTaints", false, 21},
		{"REGISTERWITHTAINTS", true, 21},
		{"REGISTERWITHTAINTS", false, 10}, // not found: the document's line
	} {
		got := d.LineOf(tt.s)
		if tt.key {
			got = d.KeyLine(tt.s)
		}
		if got != tt.want {
			t.Errorf("line of %q (as a key %v) = %d; want %d", tt.s, tt.key, got, tt.want)
		}
	}
	d.Line = 0
	if got := d.LineOf("maxPods"); got != 0 {
		t.Errorf("a document without a line: LineOf = %d; want 0", got)
	}
}

func TestSetsTaintFlag(t *testing.T) {
	t.Parallel()
	for flag, want := range map[string]bool{"--register-with-taints=a:NoSchedule": true, "--register_with_taints=a:NoSchedule": true, "--node-labels=a=b": false} {
		if got := SetsTaintFlag(flag); got != want {
			t.Errorf("SetsTaintFlag(%q) = %v; want %v", flag, got, want)
		}
	}
}

// TestMerge: nodeadm merges documents in order
// (nodeadm/internal/api/merge.go): cluster fields with mergo (an empty
// value keeps the earlier one), kubelet.config as an InlineDocument (a
// later value replaces, even an empty list or null; maps merge), flags
// appended.
func TestMerge(t *testing.T) {
	t.Parallel()
	first := &Doc{
		Cluster: map[string]any{"name": "c", "cidr": "10.0.0.0/16"},
		Config: map[string]any{
			"maxPods":            float64(110),
			"evictionHard":       map[string]any{"memory.available": "100Mi", "nodefs.available": "10%"},
			"registerWithTaints": []any{map[string]any{"key": "a", "effect": "NoSchedule"}},
		},
		Flags: []string{"--node-labels=a=b"},
	}
	second := &Doc{
		Cluster: map[string]any{"name": "", "apiServerEndpoint": "https://x"},
		Config: map[string]any{
			"evictionHard":       map[string]any{"memory.available": "200Mi"},
			"registerWithTaints": []any{},
			"podsPerCore":        nil,
		},
		Flags: []string{"--register_with_taints=b:NoSchedule"},
	}
	third := &Doc{Config: map[string]any{"RegisterWithTaints": []any{}}} // the kubelet matches keys ignoring case
	m := Merge([]*Doc{first, second, third})
	want := Merged{
		Cluster: map[string]any{"name": "c", "cidr": "10.0.0.0/16", "apiServerEndpoint": "https://x"},
		Config: map[string]any{
			"maxPods":            float64(110),
			"evictionHard":       map[string]any{"memory.available": "200Mi", "nodefs.available": "10%"},
			"registerWithTaints": []any{},
			"podsPerCore":        nil,
			"RegisterWithTaints": []any{},
		},
		Flags:    []string{"--node-labels=a=b", "--register_with_taints=b:NoSchedule"},
		FlagDocs: []*Doc{second},
		TaintDoc: third,
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	// A document without kubelet.config keeps the earlier config, and
	// nested cluster maps merge key by key.
	a := &Doc{Cluster: map[string]any{"x": map[string]any{"p": "1"}}, Config: map[string]any{"maxPods": float64(1)}}
	b := &Doc{Cluster: map[string]any{"x": map[string]any{"q": "2"}}}
	m = Merge([]*Doc{a, b})
	if diff := cmp.Diff(map[string]any{"x": map[string]any{"p": "1", "q": "2"}}, m.Cluster); diff != "" {
		t.Errorf("nested cluster (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"maxPods": float64(1)}, m.Config); diff != "" || m.TaintDoc != nil {
		t.Errorf("config (-want +got):\n%s (taint doc %v)", diff, m.TaintDoc)
	}
	if got := Merge(nil); len(got.Cluster) != 0 || got.Config != nil {
		t.Errorf("Merge(nil) = %+v", got)
	}
}

// TestMissingCluster: nodeadm's validation requires every cluster field
// (nodeadm/internal/api/validation.go).
func TestMissingCluster(t *testing.T) {
	t.Parallel()
	got := MissingCluster(map[string]any{"name": "c", "apiServerEndpoint": "", "cidr": false})
	if diff := cmp.Diff([]string{"spec.cluster.apiServerEndpoint", "spec.cluster.certificateAuthority", "spec.cluster.cidr"}, got); diff != "" {
		t.Errorf("MissingCluster (-want +got):\n%s", diff)
	}
	d, _ := Decode([]byte(full))
	if got := MissingCluster(d.Cluster); got != nil {
		t.Errorf("MissingCluster(full) = %v", got)
	}
}

// TestIsEmpty: mergo's isEmptyValue over decoded JSON values.
func TestIsEmpty(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		v    any
		want bool
	}{
		{nil, true}, {"", true}, {false, true}, {float64(0), true}, {[]any{}, true}, {map[string]any{}, true},
		{"x", false}, {true, false}, {float64(1), false}, {[]any{1}, false}, {map[string]any{"a": 1}, false}, {int64(0), false},
	} {
		if got := IsEmpty(tt.v); got != tt.want {
			t.Errorf("IsEmpty(%#v) = %v; want %v", tt.v, got, tt.want)
		}
	}
}

// TestKeyLine: the line of a key is where YAML or JSON has it as a mapping
// key, never a comment or a value that mentions it.
func TestKeyLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, key string
		want            int
	}{
		{"a plain key", "spec:\n  kubelet:\n    config:\n      maxPods: 1\n", "maxPods", 13},
		{"a comment first", "# maxPods: set below\nspec:\n  kubelet:\n    config:\n      # raise maxPods: we pack\n      maxPods: 1\n", "maxPods", 15},
		{"a trailing comment", "a: b # maxPods: 3\nmaxPods: 1\n", "maxPods", 11},
		{"in another case", "spec:\n  MAXPODS: 1\n", "maxPods", 11},
		{"quoted", "spec:\n  \"maxPods\" : 1\n", "maxPods", 11},
		{"JSON on one line", `{"spec": {"kubelet": {"config": {"maxPods": 1}}}}`, "maxPods", 10},
		{"a longer key", "xmaxPods: 1\nmaxPodsX: 2\nmaxPods: 3\n", "maxPods", 12},
		{"a value, not a key", "flags: [maxPods]\nnote: 'maxPods: 1'\n", "maxPods", 10},
		{"a list entry", "- maxPods: 1\n", "maxPods", 10},
		{"absent", "spec: {}\n", "maxPods", 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Doc{Body: []byte(tt.body), Line: 10}
			if got := d.KeyLine(tt.key); got != tt.want {
				t.Errorf("KeyLine(%q) = %d; want %d", tt.key, got, tt.want)
			}
		})
	}
	if got := (&Doc{Body: []byte("maxPods: 1\n")}).KeyLine("maxPods"); got != 0 {
		t.Errorf("KeyLine without a document line = %d; want 0", got)
	}
}
