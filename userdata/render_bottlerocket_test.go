package userdata

import (
	"bytes"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"
)

func TestRenderBottlerocketMerge(t *testing.T) {
	t.Parallel()
	cfg := goldenConfig(compat.Bottlerocket)
	cfg.Labels = map[string]string{"example.com/rack": "ours"}
	out, err := Render(compat.Bottlerocket, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Settings struct {
			HostContainers map[string]map[string]any `toml:"host-containers"`
			Kubernetes     struct {
				ClusterName string              `toml:"cluster-name"`
				NodeLabels  map[string]string   `toml:"node-labels"`
				NodeTaints  map[string][]string `toml:"node-taints"`
			} `toml:"kubernetes"`
		} `toml:"settings"`
	}
	if err := toml.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Settings.HostContainers["admin"]["enabled"] != true {
		t.Errorf("custom settings lost: %v", doc.Settings.HostContainers)
	}
	if diff := cmp.Diff(map[string]string{"example.com/rack": "ours"}, doc.Settings.Kubernetes.NodeLabels); diff != "" {
		t.Errorf("labels: Render's must win (-want +got):\n%s", diff)
	}
	wantTaints := map[string][]string{
		"example.com/dedicated":       {"gpu:NoSchedule"},
		"example.com/agent-not-ready": {":NoExecute"},
		"karpenter.sh/unregistered":   {":NoExecute"},
	}
	if diff := cmp.Diff(wantTaints, doc.Settings.Kubernetes.NodeTaints); diff != "" {
		t.Errorf("node-taints must be replaced (-want +got):\n%s", diff)
	}
}

// With no effective taints at all, the custom node-taints must still go:
// Render replaces the table, it does not merge into it.
func TestRenderBottlerocketNoTaintsDropsCustom(t *testing.T) {
	t.Parallel()
	cfg := goldenConfig(compat.Bottlerocket)
	cfg.Taints, cfg.StartupTaints, cfg.NoRequiredTaints = nil, nil, true
	out, err := Render(compat.Bottlerocket, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("node-taints")) || bytes.Contains(out, []byte("example.com/dropped")) {
		t.Errorf("custom node-taints survived:\n%s", out)
	}
	if r := mustLint(t, compat.Bottlerocket, out, []Taint{}); len(configuredTaints(r)) != 0 || len(r.Problems) > 0 {
		t.Errorf("Lint = %v", r)
	}
}
