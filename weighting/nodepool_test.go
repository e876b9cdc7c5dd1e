package weighting

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/golden"
	"github.com/ec2select/ec2select/userdata"
	"github.com/google/go-cmp/cmp"
	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// The Karpenter release whose rules NodePool.Validate follows, cited below
// as crd:LINE (pkg/apis/crds/karpenter.sh_nodepools.yaml) and file:LINE
// (pkg/apis/v1/...) in kubernetes-sigs/karpenter at v1.14.1,
// 6e7eab7a0f485d7225eb98995fad9b66c79b322b.

// fullPool sets every field NodePool maps.
func fullPool() NodePool {
	return NodePool{
		Name:              "default-flex",
		ObjectLabels:      map[string]string{"team": "web"},
		ObjectAnnotations: map[string]string{"example.com/owner": "web-team"},
		Weight:            100,
		Limits:            map[string]string{"cpu": "1000", "memory": "1000Gi"},
		Disruption: Disruption{
			ConsolidationPolicy: WhenEmptyOrUnderutilized,
			ConsolidateAfter:    "1m",
			Budgets: []Budget{
				{Nodes: "10%"},
				{Nodes: "0", Schedule: "0 9 * * mon-fri", Duration: "8h", Reasons: []DisruptionReason{Drifted, Underutilized}},
			},
		},
		Labels:      map[string]string{"team": "web", "example.com/tier": "flex", "on": "yes"},
		Annotations: map[string]string{"example.com/purpose": "flex"},
		Requirements: []compat.Requirement{
			{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"spot", "on-demand"}},
			{Key: compat.LabelInstanceFamily, Operator: compat.In, Values: []string{"c7i-flex", "m7i-flex"}, MinValues: 2},
			{Key: compat.LabelInstanceCPU, Operator: compat.Gt, Values: []string{"1"}},
			{Key: compat.LabelInstanceGPUCount, Operator: compat.DoesNotExist},
		},
		NodeClassRef:           NodeClassRef{Group: DefaultNodeClassGroup, Kind: DefaultNodeClassKind, Name: "default"},
		Taints:                 []userdata.Taint{{Key: "example.com/flex", Value: "true", Effect: userdata.NoSchedule}},
		StartupTaints:          []userdata.Taint{{Key: "example.com/warming", Effect: userdata.NoExecute}},
		ExpireAfter:            "720h",
		TerminationGracePeriod: "48h",
		Unknown:                map[string]any{"/metadata/uid": "0b2f1c8e", "/metadata/finalizers": []any{"example.com/cleanup"}},
	}
}

// TestNodePoolDocuments decodes realistic NodePools (testdata/nodepools,
// written in the shape of Karpenter's documentation examples), encodes
// them, and checks that the encoding is the golden one and stable:
// decoding it gives the same NodePool and encoding that the same bytes.
func TestNodePoolDocuments(t *testing.T) {
	inputs, err := filepath.Glob("testdata/nodepools/*.[jy]*")
	if err != nil || len(inputs) < 4 {
		t.Fatalf("testdata/nodepools: %v, %d files", err, len(inputs))
	}
	for _, in := range inputs {
		if strings.HasSuffix(in, ".golden.yaml") || strings.HasSuffix(in, "go-types.json") { // go-types.json is refused: TestNodePoolDocumentFields
			continue
		}
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			decode := DecodeNodePool
			if stored(in) {
				decode = decodeStored
			}
			np, err := decode(data)
			if err != nil {
				t.Fatal(err)
			}
			out, err := np.EncodeYAML()
			if err != nil {
				t.Fatal(err)
			}
			checkCRD(t, out)
			golden.Check(t, strings.TrimSuffix(in, filepath.Ext(in))+".golden.yaml", out, *update)
			back, err := decode(out)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(np, back); diff != "" {
				t.Errorf("decode(encode(decode(doc))) mismatch (-want +got):\n%s", diff)
			}
			again, err := back.EncodeYAML()
			if err != nil || string(again) != string(out) {
				t.Errorf("encoding is not stable (%v):\n%s\n---\n%s", err, out, again)
			}
		})
	}
}

// stored reports whether a test document is a NodePool as the API server
// holds it, which DecodeNodePool (for manifests to apply) refuses.
func stored(name string) bool { return strings.Contains(name, "from-cluster") }

// TestNodePoolDocumentFields pins what the documents decode to, field by
// field, so that the golden files cannot silently lose one.
func TestNodePoolDocumentFields(t *testing.T) {
	decode := func(name string) NodePool {
		data, err := os.ReadFile(filepath.Join("testdata/nodepools", name))
		if err != nil {
			t.Fatal(err)
		}
		read := DecodeNodePool
		if stored(name) {
			read = decodeStored
		}
		np, err := read(data)
		if err != nil {
			t.Fatal(err)
		}
		return np
	}
	gp := decode("general-purpose.yaml")
	want := NodePool{
		Name:              "general-purpose",
		ObjectLabels:      map[string]string{"team": "platform"},
		ObjectAnnotations: map[string]string{"example.com/owner": "platform-team"},
		Weight:            50,
		// cpu is written as an integer: it keeps its text.
		Limits: map[string]string{"cpu": "1000", "memory": "1000Gi", "nvidia.com/gpu": "4"},
		Disruption: Disruption{ConsolidationPolicy: WhenEmptyOrUnderutilized, ConsolidateAfter: "1m", Budgets: []Budget{
			{Nodes: "10%"},
			{Nodes: "0", Schedule: "0 9 * * mon-fri", Duration: "8h", Reasons: []DisruptionReason{Drifted, Underutilized}},
			{Nodes: "5", Reasons: []DisruptionReason{Empty}},
		}},
		Labels:      map[string]string{"billing-team": "checkout", "on": "yes"},
		Annotations: map[string]string{"example.com/purpose": "general"},
		Requirements: []compat.Requirement{
			{Key: "karpenter.k8s.aws/instance-category", Operator: compat.In, Values: []string{"c", "m", "r"}, MinValues: 2},
			{Key: "karpenter.k8s.aws/instance-family", Operator: compat.Exists, MinValues: 5},
			{Key: "karpenter.k8s.aws/instance-generation", Operator: compat.Gt, Values: []string{"5"}},
			{Key: "karpenter.k8s.aws/instance-cpu", Operator: compat.Lte, Values: []string{"64"}},
			{Key: "kubernetes.io/arch", Operator: compat.In, Values: []string{"amd64", "arm64"}},
			{Key: "kubernetes.io/os", Operator: compat.In, Values: []string{"linux"}},
			{Key: "karpenter.sh/capacity-type", Operator: compat.In, Values: []string{"spot", "on-demand"}},
			{Key: "topology.kubernetes.io/zone", Operator: compat.NotIn, Values: []string{"us-west-2d"}},
			{Key: "karpenter.k8s.aws/instance-gpu-count", Operator: compat.DoesNotExist},
		},
		NodeClassRef:           NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
		Taints:                 []userdata.Taint{{Key: "example.com/dedicated", Value: "web", Effect: userdata.NoSchedule}},
		StartupTaints:          []userdata.Taint{{Key: "example.com/agent-not-ready", Effect: userdata.NoExecute}},
		ExpireAfter:            "720h",
		TerminationGracePeriod: "48h",
	}
	if diff := cmp.Diff(want, gp); diff != "" {
		t.Errorf("general-purpose.yaml (-want +got):\n%s", diff)
	}

	fc := decode("from-cluster.yaml")
	wantUnknown := map[string]any{
		"/metadata/creationTimestamp": "2026-03-02T10:15:00Z",
		"/metadata/generation":        float64(3),
		"/metadata/managedFields": []any{map[string]any{
			"apiVersion": "karpenter.sh/v1", "fieldsType": "FieldsV1", "manager": "kubectl-client-side-apply",
			"operation": "Update", "time": "2026-03-02T10:15:00Z",
		}},
		"/metadata/resourceVersion": "4815162342",
		"/metadata/uid":             "0b2f1c8e-6a51-4f0e-9d43-2a5d8c1e7f90",
	}
	if diff := cmp.Diff(wantUnknown, fc.Unknown); diff != "" {
		t.Errorf("from-cluster.yaml Unknown (-want +got):\n%s", diff)
	}
	if fc.ExpireAfter != "Never" || fc.Disruption.ConsolidationPolicy != WhenEmpty || len(fc.ObjectAnnotations) != 3 {
		t.Errorf("from-cluster.yaml: expireAfter %q, policy %q, %d annotations", fc.ExpireAfter, fc.Disruption.ConsolidationPolicy, len(fc.ObjectAnnotations))
	}

	st := decode("static.yaml")
	if st.Replicas == nil || *st.Replicas != 3 || st.Weight != 0 || st.Limits["nodes"] != "5" {
		t.Errorf("static.yaml: replicas %v, weight %d, limits %v", st.Replicas, st.Weight, st.Limits)
	}

	// As a manifest to apply, the same document is refused for what only
	// the API server writes.
	data, err := os.ReadFile("testdata/nodepools/from-cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeNodePool(data); err == nil || !strings.Contains(err.Error(), "metadata.resourceVersion: is set") || !strings.Contains(err.Error(), "metadata.managedFields: is written by the API server") {
		t.Errorf("DecodeNodePool(from-cluster.yaml) = %v; want resourceVersion and managedFields refused", err)
	}

	// What Karpenter's own Go types write for a bare NodePool: an empty
	// template metadata, requirements null, a null creationTimestamp and an
	// empty status. The API server drops the null and then refuses the
	// NodePool for its missing requirements, which the CRD requires.
	data, err = os.ReadFile("testdata/nodepools/go-types.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeNodePool(data); err == nil || !strings.Contains(err.Error(), "spec.template.spec.requirements: is required and not set") {
		t.Errorf("DecodeNodePool(go-types.json) = %v; want requirements refused as missing", err)
	}
	fixed := strings.Replace(string(data), `"requirements":null`, `"requirements":[]`, 1)
	var bare NodePool
	if err := json.Unmarshal([]byte(fixed), &bare); err != nil {
		t.Fatal(err)
	}
	wantBare := NodePool{
		Name:         "bare",
		Disruption:   Disruption{ConsolidateAfter: "Never"},
		NodeClassRef: NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
		ExpireAfter:  "Never",
		Unknown:      map[string]any{"/metadata/creationTimestamp": nil},
	}
	if diff := cmp.Diff(wantBare, bare); diff != "" {
		t.Errorf("go-types.json with requirements [] (-want +got):\n%s", diff)
	}
}

// TestNodePoolEmbedded encodes a NodePool inside another value with every
// encoder a caller may use: each writes the whole resource, apiVersion and
// kind included, through NodePool's own methods, and so refuses an invalid
// NodePool rather than writing it.
func TestNodePoolEmbedded(t *testing.T) {
	type doc struct {
		Pools []NodePool `json:"pools" yaml:"pools"`
	}
	in := doc{Pools: []NodePool{fullPool()}}
	bad := doc{Pools: []NodePool{{Name: "bad"}}}
	encoders := []struct {
		name      string
		marshal   func(any) ([]byte, error)
		unmarshal func([]byte, any) error
	}{
		{"encoding/json", json.Marshal, json.Unmarshal},
		{"sigs.k8s.io/yaml", yaml.Marshal, func(b []byte, v any) error { return yaml.Unmarshal(b, v) }},
		{"go.yaml.in/yaml/v2", yamlv2.Marshal, yamlv2.Unmarshal},
	}
	for _, e := range encoders {
		t.Run(e.name, func(t *testing.T) {
			out, err := e.marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"apiVersion", "karpenter.sh/v1", "kind", "NodePool", "nodeClassRef", "consolidateAfter"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			var back doc
			if err := e.unmarshal(out, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(in, back); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
			if _, err := e.marshal(bad); err == nil || !strings.Contains(err.Error(), "weighting: NodePool bad: spec.template.spec.nodeClassRef.group: group may not be empty") {
				t.Errorf("encoding an invalid NodePool: %v; want the validation error", err)
			}
			invalid := strings.Replace(string(out), "default-flex", "Default-Flex", 1)
			if err := e.unmarshal([]byte(invalid), &back); err == nil || !strings.Contains(err.Error(), "is not a DNS-1123 subdomain") {
				t.Errorf("decoding an invalid NodePool: %v; want the validation error", err)
			}
		})
	}
}

// cite names the source of a rule: a line of the v1.14.1 CRD (crd:) or of
// a file under pkg/apis/v1.
type cite string

func TestNodePoolValidate(t *testing.T) {
	tests := []struct {
		name   string
		source cite
		modify func(*NodePool)
		want   string
	}{
		{"no name", "apimachinery ValidateObjectMeta", func(np *NodePool) { np.Name = "" }, "NodePool (unnamed): metadata.name: is required and not set"},
		{"bad name", "apimachinery NameIsDNSSubdomain", func(np *NodePool) { np.Name = "Default" }, "is not a DNS-1123 subdomain"},
		{"long name", "the karpenter.sh/nodepool label is a label value", func(np *NodePool) { np.Name = strings.Repeat("a", 64) }, "is 64 characters; Karpenter writes it into the karpenter.sh/nodepool label"},
		{"object label key", "apimachinery ValidateLabels", func(np *NodePool) { np.ObjectLabels["a b"] = "x" }, `metadata.labels: key "a b"`},
		{"object label value", "apimachinery ValidateLabels", func(np *NodePool) { np.ObjectLabels["team"] = "a/b" }, `metadata.labels[team]: value "a/b"`},
		{"object annotation key", "apimachinery ValidateAnnotations", func(np *NodePool) { np.ObjectAnnotations["a b"] = "x" }, `metadata.annotations: key "a b"`},
		{"annotations too large", "apimachinery ValidateAnnotations: 256 KiB, on each NodeClaim", func(np *NodePool) { np.Annotations["big"] = strings.Repeat("x", 256*1024) }, "spec.template.metadata.annotations: 262170 bytes"},
		{"weight", "crd:452-455", func(np *NodePool) { np.Weight = 101 }, "spec.weight: 101 is above the CRD's maximum of 100; use 1–100"},
		{"negative weight", "crd:452-455", func(np *NodePool) { np.Weight = -1 }, "spec.weight: -1 is below the CRD's minimum of 1"},
		{"negative replicas", "crd:190-192", func(np *NodePool) { r := int64(-1); np.Weight = 0; np.Replicas = &r }, "spec.replicas: -1 is below the CRD's minimum of 0"},
		{"static with weight", "crd:464-465, nodepool.go:41", func(np *NodePool) { r := int64(2); np.Replicas = &r }, "'weight' is not supported on static NodePools"},
		{"static with cpu limit", "crd:462-463, nodepool.go:40", func(np *NodePool) { r := int64(2); np.Weight = 0; np.Replicas = &r }, "spec: only 'limits.nodes' is supported on static NodePools"},
		{"limit not a quantity", "crd:169-174", func(np *NodePool) { np.Limits["memory"] = "1000GB" }, `spec.limits[memory]: "1000GB" does not match the CRD's pattern`},
		{"consolidation policy", "crd:160-163", func(np *NodePool) { np.Disruption.ConsolidationPolicy = "Always" }, `spec.disruption.consolidationPolicy: "Always" is not one of`},
		{"consolidateAfter missing", "crd:165-166", func(np *NodePool) { np.Disruption.ConsolidateAfter = "" }, "spec.disruption.consolidateAfter: is required and not set"},
		{"consolidateAfter days", "crd:151", func(np *NodePool) { np.Disruption.ConsolidateAfter = "1d" }, `spec.disruption.consolidateAfter: "1d" does not match the CRD's pattern`},
		{"consolidateAfter overflows", "duration.go:58-61 (time.ParseDuration)", func(np *NodePool) { np.Disruption.ConsolidateAfter = "9999999999h" }, "is too long for Karpenter to read"},
		{"too many budgets", "crd:139", func(np *NodePool) { np.Disruption.Budgets = make([]Budget, 51) }, "spec.disruption.budgets: has 51 items; the CRD allows at most 50"},
		{"budget nodes", "crd:111", func(np *NodePool) { np.Disruption.Budgets[0].Nodes = "101%" }, `spec.disruption.budgets[0].nodes: "101%" does not match`},
		{"schedule without duration", "crd:142-144", func(np *NodePool) { np.Disruption.Budgets[1].Duration = "" }, "spec.disruption.budgets: 'schedule' must be set with 'duration'"},
		{"duration without schedule", "crd:142-144", func(np *NodePool) { np.Disruption.Budgets[0].Duration = "1h" }, "spec.disruption.budgets: 'schedule' must be set with 'duration'"},
		{"schedule", "crd:134", func(np *NodePool) { np.Disruption.Budgets[1].Schedule = "weekdays" }, `spec.disruption.budgets[1].schedule: "weekdays" does not match`},
		{"budget duration in seconds", "crd:99", func(np *NodePool) { np.Disruption.Budgets[1].Duration = "30s" }, `spec.disruption.budgets[1].duration: "30s" does not match`},
		{"reason", "crd:119-124", func(np *NodePool) { np.Disruption.Budgets[1].Reasons[0] = "Expired" }, `spec.disruption.budgets[1].reasons[0]: "Expired" is not one of`},
		{"reason twice", "crd:127 (x-kubernetes-list-type: set)", func(np *NodePool) { np.Disruption.Budgets[1].Reasons[1] = Drifted }, `spec.disruption.budgets[1].reasons[1]: "Drifted" is listed twice`},
		{"too many labels", "crd:222", func(np *NodePool) {
			for i := range 98 {
				np.Labels["k"+strings.Repeat("x", i)] = "v"
			}
		}, "spec.template.metadata.labels: has 101 entries; the CRD allows at most 100"},
		{"label value", "crd:213-214", func(np *NodePool) { np.Labels["team"] = "-web" }, `spec.template.metadata.labels[team]: "-web" does not match`},
		{"label key", "nodepool_validation.go:38-40", func(np *NodePool) { np.Labels["a b"] = "x" }, `spec.template.metadata.labels[a b]: key "a b" is not a qualified name`},
		{"label in karpenter.sh", "crd:224-225", func(np *NodePool) { np.Labels["karpenter.sh/foo"] = "z" }, `spec.template.metadata.labels: label domain "karpenter.sh" is restricted`},
		{"label in a karpenter.sh subdomain", "crd:224-225", func(np *NodePool) { np.Labels["x.karpenter.sh/foo"] = "z" }, `spec.template.metadata.labels: label domain "karpenter.sh" is restricted`},
		{"nodepool label", "crd:226-227", func(np *NodePool) { np.Labels[compat.LabelNodePool] = "z" }, `label "karpenter.sh/nodepool" is restricted`},
		{"hostname label", "crd:228-229", func(np *NodePool) { np.Labels[compat.LabelHostname] = "z" }, `label "kubernetes.io/hostname" is restricted`},
		{"wildcard value", "crd:329-330, nodeclaim_validation.go:135-139", func(np *NodePool) { np.Requirements[1].Values = []string{"c7i-flex", "*"} }, `spec.template.spec.requirements[1]: karpenter.k8s.aws/instance-family In [c7i-flex *] minValues 2: value "*" is not a valid label value`},
		{"too many requirements", "crd:335", func(np *NodePool) {
			for range 100 {
				np.Requirements = append(np.Requirements, np.Requirements[0])
			}
		}, "spec.template.spec.requirements: has 104 items; the CRD allows at most 100"},
		{"long key", "crd:288", func(np *NodePool) {
			np.Requirements[0].Key = strings.Repeat("a.", 126) + "b/" + strings.Repeat("c", 63)
		}, "is 317 characters; the CRD allows at most 316"},
		{"nodepool key", "crd:293-294, nodepool_validation.go:51-58", func(np *NodePool) {
			np.Requirements[0] = compat.Requirement{Key: compat.LabelNodePool, Operator: compat.In, Values: []string{"x"}}
		}, `spec.template.spec.requirements[0].key: label "karpenter.sh/nodepool" is restricted`},
		{"hostname key", "crd:295-296", func(np *NodePool) {
			np.Requirements[0] = compat.Requirement{Key: compat.LabelHostname, Operator: compat.Exists}
		}, `spec.template.spec.requirements[0].key: label "kubernetes.io/hostname" is restricted`},
		{"karpenter.sh key", "crd:291-292, labels.go:137-153", func(np *NodePool) {
			np.Requirements[0] = compat.Requirement{Key: "karpenter.sh/initialized", Operator: compat.Exists}
		}, `spec.template.spec.requirements[0].key: label domain "karpenter.sh" is restricted`},
		{"In without values", "crd:339-340", func(np *NodePool) { np.Requirements[1].Values = nil }, "requirements with operator 'In' must have a value defined"},
		{"Gt with a word", "crd:341-342", func(np *NodePool) { np.Requirements[2].Values = []string{"two"} }, "must have a single positive integer value"},
		{"bad operator", "crd:308-316", func(np *NodePool) { np.Requirements[2].Operator = "Near" }, `spec.template.spec.requirements[2].operator: "Near" is not one of`},
		{"unknown capacity type", "nodeclaim_validation.go:167-187, labels.go:98-104", func(np *NodePool) { np.Requirements[0].Values = []string{"preemptible"} }, "no value is one Karpenter knows for karpenter.sh/capacity-type; use on-demand, reserved, spot"},
		// minValues follows compat's rules, which are Karpenter's; a written
		// 0 is refused on decoding (TestDecodeNodePoolErrors).
		{"minValues too large", "crd:301-302", func(np *NodePool) { np.Requirements[1].MinValues = 51 }, "spec.template.spec.requirements[1].minValues: 51 is above the CRD's maximum of 50"},
		{"minValues negative", "crd:301-302", func(np *NodePool) { np.Requirements[1].MinValues = -1 }, "spec.template.spec.requirements[1].minValues: -1 is below the CRD's minimum of 1"},
		{"minValues above values", "crd:343-344, nodeclaim_validation.go:144-146", func(np *NodePool) { np.Requirements[1].MinValues = 3 }, "requirements with 'minValues' must have at least that many values specified"},
		{"minValues above known capacity types", "nodeclaim_validation.go:189-193", func(np *NodePool) {
			np.Requirements[0].Values = []string{"spot", "preemptible"}
			np.Requirements[0].MinValues = 2
		}, "spec.template.spec.requirements[0]: karpenter.sh/capacity-type In [spot preemptible] minValues 2: minValues 2 exceeds the 1 values Karpenter knows"},
		{"no node class", "crd:262-267", func(np *NodePool) { np.NodeClassRef.Name = "" }, "spec.template.spec.nodeClassRef.name: name may not be empty"},
		{"no node class group", "crd:249-255", func(np *NodePool) { np.NodeClassRef.Group = "" }, "spec.template.spec.nodeClassRef.group: group may not be empty"},
		{"node class group", "crd:251", func(np *NodePool) { np.NodeClassRef.Group = "karpenter.k8s.aws/v1" }, `spec.template.spec.nodeClassRef.group: "karpenter.k8s.aws/v1" does not match the CRD's pattern ^[^/]*$; give the API group alone`},
		{"taint effect", "crd:362-365", func(np *NodePool) { np.Taints[0].Effect = "NoEffect" }, `spec.template.spec.taints[0].effect: "NoEffect" is not one of`},
		{"taint key", "crd:369-370", func(np *NodePool) { np.StartupTaints[0].Key = "" }, `spec.template.spec.startupTaints[0].key: "" is shorter than the CRD's minimum of 1 characters`},
		{"taint value", "the kubelet and the API server take label values", func(np *NodePool) { np.Taints[0].Value = "a/b" }, `spec.template.spec.taints[0]: taint "example.com/flex=a/b:NoSchedule": value "a/b"`},
		{"taint twice", "nodeclaim_validation.go:66-103", func(np *NodePool) {
			np.StartupTaints = append(np.StartupTaints, userdata.Taint{Key: "example.com/flex", Value: "other", Effect: userdata.NoSchedule})
		}, "spec.template.spec.startupTaints[1]: example.com/flex=other:NoSchedule has the key and effect of spec.template.spec.taints[0]"},
		{"expireAfter", "crd:244", func(np *NodePool) { np.ExpireAfter = "30d" }, `spec.template.spec.expireAfter: "30d" does not match`},
		{"terminationGracePeriod Never", "crd:436", func(np *NodePool) { np.TerminationGracePeriod = "Never" }, `spec.template.spec.terminationGracePeriod: "Never" does not match`},
		{"unknown outside metadata", "", func(np *NodePool) { np.Unknown["/spec/future"] = float64(3) }, "Unknown[/spec/future]: Karpenter v1.14's NodePool has no field there"},
		{"unknown not a pointer", "", func(np *NodePool) { np.Unknown["metadata/uid"] = "x" }, "Unknown[metadata/uid]: Karpenter v1.14's NodePool has no field there"},
		{"unknown shadows a field", "", func(np *NodePool) { np.Unknown["/metadata/name"] = "x" }, "Unknown[/metadata/name]: metadata.name is a field NodePool maps"},
		{"unknown metadata field", "apimachinery ObjectMeta", func(np *NodePool) { np.Unknown["/metadata/colour"] = "x" }, "metadata.colour: is not a field of metadata"},
		{"unknown metadata type", "apimachinery ObjectMeta", func(np *NodePool) { np.Unknown["/metadata/uid"] = true }, "metadata.uid: is a boolean"},
		{"bad finalizer", "apimachinery ValidateFinalizers", func(np *NodePool) { np.Unknown["/metadata/finalizers"] = []any{"a b"} }, `metadata.finalizers[0]: "a b" is not a qualified name`},
		{"unknown value", "", func(np *NodePool) { np.Unknown["/metadata/generation"] = 3 }, "Unknown[/metadata/generation]: a int is not a JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := fullPool()
			tt.modify(&np)
			err := np.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "weighting: NodePool ") {
				t.Fatalf("Validate() = %v; want an error containing %q (rule: %s)", err, tt.want, tt.source)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 || ve.Name != np.Name {
				t.Errorf("Validate() = %#v; want a *ValidationError naming %q with its problems", err, np.Name)
			}
			if _, merr := np.EncodeYAML(); merr == nil || merr.Error() != err.Error() {
				t.Errorf("EncodeYAML error = %v; want %v", merr, err)
			}
		})
	}
}

// TestNodePoolValidateAccepts pins what Karpenter v1.14 accepts and an
// older release, or a stricter reading, might refuse.
func TestNodePoolValidateAccepts(t *testing.T) {
	tests := []struct {
		name   string
		source cite
		modify func(*NodePool)
	}{
		{"kubernetes.io and k8s.io keys", "labels.go:67-71; nodepool_validation_cel_test.go:501-524 (restricted before v1.9, #2586)", func(np *NodePool) {
			np.Requirements = append(np.Requirements,
				compat.Requirement{Key: "kubernetes.io/test", Operator: compat.In, Values: []string{"test"}},
				compat.Requirement{Key: "subdomain.k8s.io/test", Operator: compat.Exists})
			np.Labels["kubernetes.io/key"] = "v"
			np.Labels["subdomain.k8s.io"] = "v"
		}},
		{"well-known keys", "labels.go:75-84", func(np *NodePool) {
			np.Requirements = append(np.Requirements,
				compat.Requirement{Key: "node.kubernetes.io/instance-type", Operator: compat.In, Values: []string{"m5.large"}},
				compat.Requirement{Key: "topology.kubernetes.io/zone", Operator: compat.In, Values: []string{"us-east-1a"}},
				compat.Requirement{Key: "beta.kubernetes.io/arch", Operator: compat.In, Values: []string{"amd64"}},
				compat.Requirement{Key: "karpenter.k8s.aws/instance-size", Operator: compat.NotIn, Values: []string{"metal"}},
				compat.Requirement{Key: compat.LabelInstanceCPU, Operator: compat.Lte, Values: []string{"64"}})
			np.Labels[compat.LabelCapacityType] = "spot"
		}},
		{"static NodePool with a node limit", "crd:462-465", func(np *NodePool) {
			r := int64(0)
			np.Replicas, np.Weight, np.Limits = &r, 0, map[string]string{"nodes": "5"}
		}},
		{"quantities", "crd:173", func(np *NodePool) {
			np.Limits = map[string]string{"cpu": "500m", "memory": "1.5Ti", "a": "+.5", "b": "1e3", "c": "-1", "d": "2E"}
		}},
		{"durations", "crd:99, 151, 244, 436", func(np *NodePool) {
			np.Disruption.ConsolidateAfter = "Never"
			np.Disruption.Budgets[1].Duration = "1h30m0s"
			np.ExpireAfter = "1h2m3s"
			np.TerminationGracePeriod = "90s"
		}},
		{"budget forms", "crd:111, 134", func(np *NodePool) {
			np.Disruption.Budgets = []Budget{{Nodes: "100%"}, {Nodes: "250"}, {Schedule: "@daily", Duration: "10m"}, {}}
		}},
		{"no budgets", "crd:78-80 (an empty list is not defaulted)", func(np *NodePool) { np.Disruption.Budgets = []Budget{} }},
		{"no disruption", "crd:74-75 (defaulted)", func(np *NodePool) { np.Disruption = Disruption{} }},
		{"reserved capacity", "labels.go:98-104", func(np *NodePool) {
			np.Requirements[0].Values = []string{"reserved"}
		}},
		{"minValues on Exists", "crd:343-344 (In only)", func(np *NodePool) {
			np.Requirements[1] = compat.Requirement{Key: compat.LabelInstanceFamily, Operator: compat.Exists, MinValues: 50}
		}},
		{"minValues differing on one key", "scheduling/requirement.go:188 (an intersection keeps the larger)", func(np *NodePool) {
			np.Requirements = append(np.Requirements, compat.Requirement{Key: compat.LabelInstanceFamily, Operator: compat.Exists, MinValues: 5})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := fullPool()
			tt.modify(&np)
			if err := np.Validate(); err != nil {
				t.Fatalf("Validate() = %v; want nil (rule: %s)", err, tt.source)
			}
			y, err := np.EncodeYAML()
			if err != nil {
				t.Fatal(err)
			}
			checkCRD(t, y)
			back, err := DecodeNodePool(y)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(np, back); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeNodePoolErrors(t *testing.T) {
	valid := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: x\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: g, kind: K, name: nc}\n      requirements: []\n"
	req := func(s string) string { return strings.Replace(valid, "requirements: []", "requirements: "+s, 1) }
	tests := []struct{ name, yaml, want string }{
		{"wrong kind", strings.Replace(valid, "kind: NodePool", "kind: NodeClaim", 1), `kind "NodeClaim"; want apiVersion karpenter.sh/v1, kind NodePool`},
		{"old version", strings.Replace(valid, "karpenter.sh/v1", "karpenter.sh/v1beta1", 1), `apiVersion "karpenter.sh/v1beta1"`},
		{"field case", valid + "  Weight: 5\n", "spec.Weight: is not a field of the CRD: kubectl apply refuses it (strict field validation, its default), and without that the API server drops it; field names are case-sensitive, so write spec.weight"},
		{"field case in a list item", req("[{key: a, operator: Exists}, {key: a, operator: Exists, minvalues: 1}]"), "spec.template.spec.requirements[1].minvalues: is not a field of the CRD"},
		{"unknown field in a list item", req("[{key: a, operator: Exists, weight: 1}]"), "spec.template.spec.requirements[0].weight: is not a field of the CRD"},
		{"v1beta1 kubelet", strings.Replace(valid, "      requirements: []\n", "      requirements: []\n      kubelet: {maxPods: 110}\n", 1), "spec.template.spec.kubelet: is not a field of the CRD"},
		{"taint timeAdded", strings.Replace(valid, "      requirements: []\n", "      requirements: []\n      taints: [{key: a, effect: NoSchedule, timeAdded: '2026-01-01T00:00:00Z'}]\n", 1), "spec.template.spec.taints[0].timeAdded: the node lifecycle controller stamps timeAdded"},
		{"unknown budget field", valid + "  disruption: {consolidateAfter: 1m, budgets: [{nodes: '1', when: never}]}\n", "spec.disruption.budgets[0].when: is not a field of the CRD"},
		{"weight 0", valid + "  weight: 0\n", "spec.weight: 0 is below the CRD's minimum of 1; use 1–100, or leave spec.weight out for no weight"},
		{"weight 200", valid + "  weight: 200\n", "spec.weight: 200 is above the CRD's maximum of 100"},
		{"weight text", valid + "  weight: high\n", `spec.weight: "high" is a string, and the field takes an integer`},
		{"weight fraction", valid + "  weight: 1.5\n", "spec.weight: 1.5 is a number with a fraction, and the field takes an integer"},
		{"bad operator", req("[{key: a, operator: Near}]"), `spec.template.spec.requirements[0].operator: "Near" is not one of`},
		{"minValues zero", req("[{key: a, operator: Exists}, {key: a, operator: Exists, minValues: 0}]"), "spec.template.spec.requirements[1].minValues: 0 is below the CRD's minimum of 1"}, // crd:301-302
		{"minValues too large", req("[{key: a, operator: Exists, minValues: 51}]"), "spec.template.spec.requirements[0].minValues: 51 is above the CRD's maximum of 50"},
		{"limit not a quantity", valid + "  limits: {cpu: true}\n", "spec.limits[cpu]: true is a boolean, and the field takes an integer or a string"},
		{"limit with a fraction", valid + "  limits: {cpu: 1.5}\n", "spec.limits[cpu]: 1.5 is a number with a fraction, and the field takes an integer or a string"},
		{"disruption without consolidateAfter", valid + "  disruption: {consolidationPolicy: WhenEmpty}\n", "spec.disruption.consolidateAfter: is required and not set"},
		{"empty disruption", valid + "  disruption: {}\n", "spec.disruption.consolidateAfter: is required and not set"},
		{"disruption with only an unknown field", valid + "  disruption: {future: 1}\n", "spec.disruption.consolidateAfter: is required and not set"},
		{"requirements absent", strings.Replace(valid, "      requirements: []\n", "", 1), "spec.template.spec.requirements: is required and not set"},
		{"requirements null", strings.Replace(valid, "requirements: []", "requirements: ~", 1), "spec.template.spec.requirements: is required and not set"},
		{"expireAfter empty", strings.Replace(valid, "requirements: []", "requirements: []\n      expireAfter: ''", 1), `spec.template.spec.expireAfter: "" does not match the CRD's pattern`},
		{"taint value empty", strings.Replace(valid, "requirements: []", "requirements: []\n      taints: [{key: a, value: '', effect: NoSchedule}]", 1), `spec.template.spec.taints[0].value: "" does not match the CRD's pattern`},
		{"YAML 1.1 yes", strings.Replace(valid, "requirements: []", "requirements: [{key: a, operator: In, values: [yes]}]", 1), "spec.template.spec.requirements[0].values[0]: true is a boolean, and the field takes a string; kubectl reads the plain YAML scalar as a boolean"},
		{"YAML 1.1 on", strings.Replace(valid, "name: x\n", "name: x\n  labels: {team: on}\n", 1), "metadata.labels[team]: is a boolean"},
		{"YAML 1.1 08", strings.Replace(valid, "requirements: []", "requirements: [{key: a, operator: In, values: [08]}]", 1), "spec.template.spec.requirements[0].values[0]: 8 is an integer, and the field takes a string"},
		{"YAML 1.1 ~", strings.Replace(valid, "requirements: []", "requirements: [{key: a, operator: In, values: [~]}]", 1), "spec.template.spec.requirements[0].values[0]: null is null, and the field takes a string"},
		{"resourceVersion", strings.Replace(valid, "name: x\n", "name: x\n  resourceVersion: '4711'\n", 1), "metadata.resourceVersion: is set, and the API server refuses to create an object with a resourceVersion"},
		{"bad finalizer", strings.Replace(valid, "name: x\n", "name: x\n  finalizers: [a b]\n", 1), `metadata.finalizers[0]: "a b" is not a qualified name`},
		{"provider key", req("[{key: karpenter.k8s.aws/instance-colour, operator: Exists}]"), `spec.template.spec.requirements[0].key: label domain "karpenter.k8s.aws" is restricted`},
		{"not yaml", "{", "decoding a NodePool"},
		{"a list", "- a\n", "decoding a NodePool"},
		{"empty", "", "the document is not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeNodePool([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "weighting: ") {
				t.Fatalf("DecodeNodePool() = %v; want an error containing %q", err, tt.want)
			}
			j, jerr := yaml.YAMLToJSON([]byte(tt.yaml))
			if jerr != nil || tt.name == "resourceVersion" { // a stored NodePool has one
				return
			}
			np := fullPool()
			if err := np.UnmarshalJSON(j); err == nil {
				t.Errorf("UnmarshalJSON(%s) = nil; want an error like DecodeNodePool's", j)
			}
			if diff := cmp.Diff(fullPool(), np); diff != "" {
				t.Errorf("UnmarshalJSON changed its receiver on failure (-want +got):\n%s", diff)
			}
		})
	}
	var np NodePool
	if err := np.UnmarshalJSON([]byte(`{"apiVersion":"karpenter.sh/v1","kind":"NodePool"} {}`)); err == nil || !strings.Contains(err.Error(), "pass one object per document") {
		t.Errorf("UnmarshalJSON of two objects = %v", err)
	}
	if err := np.UnmarshalJSON([]byte(`{"apiVersion":"karpenter.sh/v1","Kind":"NodePool"}`)); err == nil || !strings.Contains(err.Error(), `kind ""`) {
		t.Errorf("UnmarshalJSON with a field in the wrong case = %v", err)
	}
	if err := np.UnmarshalJSON([]byte(`{"apiVersion":`)); err == nil || !strings.HasPrefix(err.Error(), "weighting: decoding a NodePool: ") {
		t.Errorf("UnmarshalJSON of broken JSON = %v", err)
	}
	// minValues stays on the requirement that writes it, also when two on
	// one key differ (Karpenter asks for the larger).
	two := req("[{key: a, operator: Exists, minValues: 2}, {key: a, operator: Exists}, {key: a, operator: Exists, minValues: 3}]")
	// kubectl keeps the last of a key written twice
	// (go.yaml.in/yaml/v2 decode.go L685-691: only strict decoding refuses
	// it; kubectl's reader is not strict).
	if np, err := DecodeNodePool([]byte(valid + "  weight: 1\n  weight: 2\n")); err != nil || np.Weight != 2 {
		t.Errorf("DecodeNodePool with weight written twice = weight %d, %v; want the last, 2", np.Weight, err)
	}
	want := []compat.Requirement{{Key: "a", Operator: compat.Exists, MinValues: 2}, {Key: "a", Operator: compat.Exists}, {Key: "a", Operator: compat.Exists, MinValues: 3}}
	if np, err := DecodeNodePool([]byte(two)); err != nil {
		t.Errorf("DecodeNodePool(%q) = %v", two, err)
	} else if diff := cmp.Diff(want, np.Requirements); diff != "" {
		t.Errorf("DecodeNodePool(%q) requirements (-want +got):\n%s", two, diff)
	}
}

// TestNodePoolSmallest pins the encoding of the least a NodePool needs:
// requirements are required by the CRD, so an empty list is written.
func TestNodePoolSmallest(t *testing.T) {
	min := NodePool{Name: "x", NodeClassRef: NodeClassRef{Group: "g", Kind: "K", Name: "n"}}
	got, err := min.EncodeYAML()
	if err != nil {
		t.Fatal(err)
	}
	const want = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: x\nspec:\n  template:\n    spec:\n      nodeClassRef:\n        group: g\n        kind: K\n        name: \"n\"\n      requirements: []\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("EncodeYAML of the smallest NodePool mismatch (-want +got):\n%s", diff)
	}
	back, err := DecodeNodePool(got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(min, back); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}

// FuzzDecodeNodePool decodes arbitrary text: it must never panic, and what
// it accepts must encode, and decode again to the same NodePool, and encode
// again to the same bytes.
func FuzzDecodeNodePool(f *testing.F) {
	full, _ := fullPool().EncodeYAML()
	f.Add(string(full))
	for _, name := range []string{"general-purpose.yaml", "from-cluster.yaml", "static.yaml", "go-types.json"} {
		data, err := os.ReadFile(filepath.Join("testdata/nodepools", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec: {weight: 3, template: {metadata: {labels: {a: 'no'}}, spec: {nodeClassRef: {group: g, kind: K, name: n}, requirements: [{key: a, operator: In, values: ['1', 'y']}]}}}\n")
	f.Fuzz(func(t *testing.T, text string) {
		np, err := DecodeNodePool([]byte(text))
		if err != nil {
			return
		}
		out, err := np.EncodeYAML()
		if err != nil {
			t.Fatalf("EncodeYAML of a decoded NodePool: %v\ninput:\n%s", err, text)
		}
		back, err := DecodeNodePool(out)
		if err != nil {
			t.Fatalf("DecodeNodePool of our own output: %v\n%s", err, out)
		}
		if diff := cmp.Diff(np, back); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
		again, _ := back.EncodeYAML()
		if string(again) != string(out) {
			t.Fatalf("encoding is not stable:\n%s\n%s", out, again)
		}
	})
}

// TestNodePoolLimitsIntOrString: spec.limits takes integers or strings
// (crd:169-174, x-kubernetes-int-or-string); a JSON number keeps its text,
// and anything else is an error.
func TestNodePoolLimitsIntOrString(t *testing.T) {
	doc := func(limits string) []byte {
		return []byte(`{"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"x"},"spec":{"limits":` + limits +
			`,"template":{"spec":{"nodeClassRef":{"group":"g","kind":"K","name":"n"},"requirements":[]}}}}`)
	}
	var np NodePool
	if err := json.Unmarshal(doc(`{"cpu":1000,"memory":"1000Gi","pods":1.5e3,"nodes":-0,"gpu":null}`), &np); err != nil {
		t.Fatal(err)
	}
	// kubectl sends a number as an unstructured object encodes it, so the
	// API server sees 1.5e3 as 1500 and -0 as 0; a null limit is dropped
	// (PruneNonNullableNullsWithoutDefaults).
	want := map[string]string{"cpu": "1000", "memory": "1000Gi", "pods": "1500", "nodes": "0"}
	if diff := cmp.Diff(want, np.Limits); diff != "" {
		t.Errorf("Limits (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`{"cpu":true}`, `{"cpu":[1]}`, `{"cpu":1.5}`, `{"cpu":"1 CPU"}`} {
		if err := json.Unmarshal(doc(bad), &np); err == nil || !strings.Contains(err.Error(), "weighting: ") {
			t.Errorf("limits %s: error %v; want one", bad, err)
		}
	}
}

// TestNodePoolMarshalYAMLValue: the value MarshalYAML hands a YAML encoder
// holds numbers as int64 or float64, never json.Number, which
// go.yaml.in/yaml/v3 would write as a quoted string (its encoder has no
// case for it, unlike v2's: encode.go in v3.0.3 and v2.4.2).
func TestNodePoolMarshalYAMLValue(t *testing.T) {
	np := fullPool()
	np.Weight = 0
	replicas := int64(math.MaxInt32) // the scale subresource's limit
	np.Replicas, np.Limits = &replicas, map[string]string{"nodes": "5"}
	v, err := np.MarshalYAML()
	if err != nil {
		t.Fatal(err)
	}
	spec := v.(map[string]any)["spec"].(map[string]any)
	if got := spec["replicas"]; got != replicas {
		t.Errorf("spec.replicas = %#v; want int64 %d", got, replicas)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case json.Number:
			t.Errorf("%s is a json.Number", path)
		case map[string]any:
			for k, e := range v {
				walk(path+"."+k, e)
			}
		case []any:
			for i, e := range v {
				walk(path+"["+strconv.Itoa(i)+"]", e)
			}
		}
	}
	walk("", v)
	if _, err := (NodePool{Name: "bad"}).MarshalYAML(); err == nil {
		t.Error("MarshalYAML of an invalid NodePool succeeded")
	}
}
