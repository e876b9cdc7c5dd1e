package weighting

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
)

func fullPool() NodePool {
	return NodePool{
		Name:   "default-flex",
		Weight: 100,
		Requirements: []compat.Requirement{
			{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"spot", "on-demand"}},
			{Key: compat.LabelInstanceFamily, Operator: compat.In, Values: []string{"c7i-flex", "m7i-flex"}},
			{Key: compat.LabelInstanceCPU, Operator: compat.Gt, Values: []string{"1"}},
			{Key: compat.LabelInstanceGPUCount, Operator: compat.DoesNotExist},
		},
		MinValues:     map[string]int{compat.LabelInstanceFamily: 2},
		NodeClassRef:  NodeClassRef{Group: DefaultNodeClassGroup, Kind: DefaultNodeClassKind, Name: "default"},
		Taints:        []Taint{{Key: "example.com/flex", Value: "true", Effect: TaintEffectNoSchedule}},
		StartupTaints: []Taint{{Key: "example.com/warming", Effect: TaintEffectNoExecute}},
		Labels:        map[string]string{"team": "web", "example.com/tier": "flex", "on": "yes"},
	}
}

const fullPoolYAML = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default-flex
spec:
  template:
    metadata:
      labels:
        example.com/tier: flex
        "on": "yes"
        team: web
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
      - key: karpenter.sh/capacity-type
        operator: In
        values:
        - spot
        - on-demand
      - key: karpenter.k8s.aws/instance-family
        minValues: 2
        operator: In
        values:
        - c7i-flex
        - m7i-flex
      - key: karpenter.k8s.aws/instance-cpu
        operator: Gt
        values:
        - "1"
      - key: karpenter.k8s.aws/instance-gpu-count
        operator: DoesNotExist
      startupTaints:
      - effect: NoExecute
        key: example.com/warming
      taints:
      - effect: NoSchedule
        key: example.com/flex
        value: "true"
  weight: 100
`

func TestNodePoolYAML(t *testing.T) {
	np := fullPool()
	got, err := np.MarshalYAML()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fullPoolYAML, string(got)); diff != "" {
		t.Errorf("MarshalYAML mismatch (-want +got):\n%s", diff)
	}
	var back NodePool
	if err := back.UnmarshalYAML(got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(np, back); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}

	// JSON, directly or inside another value.
	j, err := json.Marshal(struct{ Pools []NodePool }{[]NodePool{np}})
	if err != nil {
		t.Fatal(err)
	}
	var wrapped struct{ Pools []NodePool }
	if err := json.Unmarshal(j, &wrapped); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]NodePool{np}, wrapped.Pools); diff != "" {
		t.Errorf("JSON round trip mismatch (-want +got):\n%s", diff)
	}

	// The smallest NodePool: requirements are required by the CRD, so an
	// empty list is written.
	min := NodePool{Name: "x", NodeClassRef: NodeClassRef{Group: "g", Kind: "K", Name: "n"}}
	got, err = min.MarshalYAML()
	if err != nil {
		t.Fatal(err)
	}
	const wantMin = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: x\nspec:\n  template:\n    spec:\n      nodeClassRef:\n        group: g\n        kind: K\n        name: \"n\"\n      requirements: []\n"
	if diff := cmp.Diff(wantMin, string(got)); diff != "" {
		t.Errorf("MarshalYAML of the smallest NodePool mismatch (-want +got):\n%s", diff)
	}
	back = NodePool{}
	if err := back.UnmarshalYAML(got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(min, back); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}

func TestNodePoolValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*NodePool)
		want   string
	}{
		{"no name", func(np *NodePool) { np.Name = "" }, "NodePool (unnamed): the name is empty"},
		{"bad name", func(np *NodePool) { np.Name = "Default" }, "is not a DNS-1123 subdomain"},
		{"long name", func(np *NodePool) { np.Name = strings.Repeat("a", 64) }, "is 64 characters; Karpenter writes it into the karpenter.sh/nodepool label"},
		{"weight", func(np *NodePool) { np.Weight = 101 }, "weight 101 is outside 1–100"},
		{"wildcard value", func(np *NodePool) { np.Requirements[1].Values = []string{"c7i-flex", "*"} }, `"*"`},
		{"too many requirements", func(np *NodePool) {
			for range 100 {
				np.Requirements = append(np.Requirements, np.Requirements[0])
			}
		}, "104 requirements; Karpenter allows at most 100"},
		{"long key", func(np *NodePool) {
			np.Requirements[0].Key = strings.Repeat("a.", 126) + "b/" + strings.Repeat("c", 63)
		}, "is 317 characters; Karpenter allows at most 316"},
		{"nodepool key", func(np *NodePool) {
			np.Requirements[0] = compat.Requirement{Key: compat.LabelNodePool, Operator: compat.In, Values: []string{"x"}}
		}, "Karpenter sets karpenter.sh/nodepool itself"},
		{"hostname key", func(np *NodePool) {
			np.Requirements[0] = compat.Requirement{Key: compat.LabelHostname, Operator: compat.Exists}
		}, "kubernetes.io/hostname is restricted"},
		{"kubernetes.io domain", func(np *NodePool) {
			np.Requirements[0] = compat.Requirement{Key: "kubernetes.io/foo", Operator: compat.Exists}
		}, "the domain kubernetes.io is restricted"},
		{"k8s.io domain", func(np *NodePool) { np.Labels["x.k8s.io/y"] = "z" }, "label x.k8s.io/y: the domain x.k8s.io is restricted"},
		{"karpenter.sh domain", func(np *NodePool) { np.Labels["karpenter.sh/foo"] = "z" }, "the domain karpenter.sh is restricted except for karpenter.sh/capacity-type"},
		{"minValues without requirement", func(np *NodePool) { np.MinValues["foo"] = 1 }, "minValues is set for foo, which no requirement constrains"},
		{"minValues too large", func(np *NodePool) { np.MinValues[compat.LabelInstanceFamily] = 51 }, "minValues 51 for karpenter.k8s.aws/instance-family is outside 1–50"},
		{"minValues above values", func(np *NodePool) { np.MinValues[compat.LabelInstanceFamily] = 3 }, "exceeds the 2 values"},
		{"no node class", func(np *NodePool) { np.NodeClassRef.Name = "" }, "nodeClassRef needs a group, a kind and a name"},
		{"node class group", func(np *NodePool) { np.NodeClassRef.Group = "karpenter.k8s.aws/v1" }, "has a '/'"},
		{"taint effect", func(np *NodePool) { np.Taints[0].Effect = "NoEffect" }, `effect "NoEffect" is not one of`},
		{"taint key", func(np *NodePool) { np.StartupTaints[0].Key = "" }, "taint key"},
		{"taint value", func(np *NodePool) { np.Taints[0].Value = "a/b" }, "taint example.com/flex value"},
		{"label value", func(np *NodePool) { np.Labels["team"] = "-web" }, `label team value "-web"`},
		{"label key", func(np *NodePool) { np.Labels["a b"] = "x" }, `label key "a b"`},
		{"too many labels", func(np *NodePool) {
			for i := range 98 {
				np.Labels["k"+strings.Repeat("x", i)] = "v"
			}
		}, "101 labels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := fullPool()
			tt.modify(&np)
			err := np.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "weighting: NodePool ") {
				t.Fatalf("Validate() = %v; want an error containing %q", err, tt.want)
			}
			if _, merr := np.MarshalYAML(); merr == nil || merr.Error() != err.Error() {
				t.Errorf("MarshalYAML error = %v; want %v", merr, err)
			}
		})
	}
	// Allowed keys in restricted domains.
	np := fullPool()
	np.Requirements = append(np.Requirements,
		compat.Requirement{Key: "node.kubernetes.io/instance-type", Operator: compat.In, Values: []string{"m5.large"}},
		compat.Requirement{Key: "topology.kubernetes.io/zone", Operator: compat.In, Values: []string{"us-east-1a"}},
		compat.Requirement{Key: "beta.kubernetes.io/arch", Operator: compat.In, Values: []string{"amd64"}},
		compat.Requirement{Key: "example.node-restriction.kubernetes.io/x", Operator: compat.Exists},
		compat.Requirement{Key: "kops.k8s.io/instancegroup", Operator: compat.Exists},
		compat.Requirement{Key: "karpenter.k8s.aws/instance-size", Operator: compat.NotIn, Values: []string{"metal"}},
		compat.Requirement{Key: compat.LabelInstanceCPU, Operator: compat.Lte, Values: []string{"64"}},
	)
	if err := np.Validate(); err != nil {
		t.Errorf("Validate() = %v; want nil", err)
	}
}

func TestNodePoolUnmarshalErrors(t *testing.T) {
	valid := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: x\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: g, kind: K, name: n}\n      requirements: []\n"
	tests := []struct{ name, yaml, want string }{
		{"wrong kind", strings.Replace(valid, "kind: NodePool", "kind: NodeClaim", 1), `kind "NodeClaim"; want apiVersion karpenter.sh/v1, kind NodePool`},
		{"old version", strings.Replace(valid, "karpenter.sh/v1", "karpenter.sh/v1beta1", 1), `apiVersion "karpenter.sh/v1beta1"`},
		{"unknown field", valid + "  disruption:\n    consolidateAfter: 30s\n", `unknown field "spec.disruption"`},
		{"status", valid + "status: {}\n", `unknown field "status"`},
		{"field case", valid + "  Weight: 5\n", `unknown field "spec.Weight"`},
		{"nested field", strings.Replace(valid, "requirements: []", "requirements: [{key: a, operator: Exists}, {key: a, operator: Exists, minvalues: 1}]", 1), `unknown field "spec.template.spec.requirements[1].minvalues"`},
		{"object metadata", strings.Replace(valid, "  name: x\n", "  name: x\n  labels: {a: b}\n", 1), `unknown field "metadata.labels"`},
		{"weight 0", valid + "  weight: 0\n", "weight 0 is below 1; omit spec.weight"},
		{"weight 200", valid + "  weight: 200\n", "weight 200 is outside"},
		{"weight text", valid + "  weight: high\n", "decoding a NodePool"},
		{"duplicate field", valid + "  weight: 1\n  weight: 2\n", "decoding a NodePool"},
		{"bad operator", strings.Replace(valid, "requirements: []", "requirements: [{key: a, operator: Near}]", 1), "requirements: compat:"},
		{"minValues twice", strings.Replace(valid, "requirements: []", "requirements: [{key: a, operator: Exists, minValues: 1}, {key: a, operator: Exists, minValues: 2}]", 1), "requirements on a set minValues 1 and 2; set it once"},
		{"not yaml", "{", "decoding a NodePool"},
		{"a list", "- a\n", "decoding a NodePool"},
		{"empty", "", "apiVersion \"\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := fullPool()
			err := np.UnmarshalYAML([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "weighting: ") {
				t.Fatalf("UnmarshalYAML() = %v; want an error containing %q", err, tt.want)
			}
			if diff := cmp.Diff(fullPool(), np); diff != "" {
				t.Errorf("UnmarshalYAML changed its receiver on failure (-want +got):\n%s", diff)
			}
		})
	}
	var np NodePool
	if err := np.UnmarshalJSON([]byte(`{"apiVersion":"karpenter.sh/v1","kind":"NodePool"} {}`)); err == nil || !strings.Contains(err.Error(), "one NodePool at a time") {
		t.Errorf("UnmarshalJSON of two objects = %v", err)
	}
	if err := np.UnmarshalJSON([]byte(`{"apiVersion":"karpenter.sh/v1","Kind":"NodePool"}`)); err == nil || !strings.Contains(err.Error(), `unknown field "Kind"`) {
		t.Errorf("UnmarshalJSON with a field in the wrong case = %v", err)
	}
	if err := np.UnmarshalJSON([]byte(`{"apiVersion":`)); err == nil || !strings.HasPrefix(err.Error(), "weighting: decoding a NodePool: ") {
		t.Errorf("UnmarshalJSON of broken JSON = %v", err)
	}
	// minValues repeated with one value is the same NodePool.
	same := strings.Replace(valid, "requirements: []", "requirements: [{key: a, operator: Exists, minValues: 2}, {key: a, operator: Exists, minValues: 2}]", 1)
	if err := np.UnmarshalYAML([]byte(same)); err != nil || np.MinValues["a"] != 2 {
		t.Errorf("UnmarshalYAML(%q) = %v, MinValues %v", same, err, np.MinValues)
	}
}

// FuzzNodePoolYAML decodes arbitrary text: it must never panic, and what it
// accepts must encode, and decode again to the same NodePool.
func FuzzNodePoolYAML(f *testing.F) {
	full, _ := fullPool().MarshalYAML()
	f.Add(string(full))
	f.Add("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec: {template: {spec: {nodeClassRef: {group: g, kind: K, name: n}, requirements: []}}}\n")
	f.Add("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec: {weight: 3, template: {metadata: {labels: {a: 'no'}}, spec: {nodeClassRef: {group: g, kind: K, name: n}, requirements: [{key: a, operator: In, values: ['1', 'y']}]}}}\n")
	f.Fuzz(func(t *testing.T, text string) {
		var np NodePool
		if err := np.UnmarshalYAML([]byte(text)); err != nil {
			return
		}
		out, err := np.MarshalYAML()
		if err != nil {
			t.Fatalf("MarshalYAML of a decoded NodePool: %v\ninput:\n%s", err, text)
		}
		var back NodePool
		if err := back.UnmarshalYAML(out); err != nil {
			t.Fatalf("UnmarshalYAML of our own output: %v\n%s", err, out)
		}
		if diff := cmp.Diff(np, back); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
		again, _ := back.MarshalYAML()
		if string(again) != string(out) {
			t.Fatalf("encoding is not stable:\n%s\n%s", out, again)
		}
	})
}
