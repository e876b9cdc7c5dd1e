package weighting

import (
	"bytes"
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/internal/golden"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// defaultCatalog converts ec2fake's catalog, leaving out the types no EKS
// node runs on (mac).
func defaultCatalog(t testing.TB) []compat.InstanceType {
	t.Helper()
	_, infos := ec2fake.DefaultCatalog()
	var out []compat.InstanceType
	for _, info := range infos {
		it, err := compat.InstanceTypeFromEC2(info)
		if err != nil {
			continue
		}
		out = append(out, it)
	}
	if len(out) < 80 {
		t.Fatalf("the default catalog has %d usable instance types; want at least 80", len(out))
	}
	return out
}

func TestFlexOverCatalog(t *testing.T) {
	catalog := defaultCatalog(t)
	p := flexPolicy()
	r, err := p.Rank(catalog, RankOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var wantFlex, wantRest []string
	for _, it := range catalog {
		if it.Family == "c7i-flex" || it.Family == "m7i-flex" {
			wantFlex = append(wantFlex, it.Name)
		} else {
			wantRest = append(wantRest, it.Name)
		}
	}
	slices.Sort(wantFlex)
	slices.Sort(wantRest)
	if len(wantFlex) != 14 {
		t.Errorf("the catalog has %d c7i-flex and m7i-flex types; want 14 (large to 16xlarge each)", len(wantFlex))
	}
	if diff := cmp.Diff(wantFlex, names(r.Tiers[0].InstanceTypes)); diff != "" {
		t.Errorf("flex tier mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantRest, names(r.Tiers[1].InstanceTypes)); diff != "" {
		t.Errorf("rest tier mismatch (-want +got):\n%s", diff)
	}
	if len(r.Unranked) != 0 {
		t.Errorf("unranked: %v", names(r.Unranked))
	}
	seen := make(map[string]int)
	for _, rt := range r.Tiers {
		for _, it := range rt.InstanceTypes {
			seen[it.Name]++
		}
	}
	for _, it := range catalog {
		if seen[it.Name] != 1 {
			t.Errorf("%s is ranked %d times", it.Name, seen[it.Name])
		}
	}
	if len(seen) != len(catalog) {
		t.Errorf("%d types ranked; the catalog has %d", len(seen), len(catalog))
	}

	pools, err := p.NodePools(catalog, NodePool{Name: "default", NodeClassRef: NodeClassRef{Name: "default"}})
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, p, catalog, pools)
	checkGolden(t, "flex.golden.yaml", pools)
}

// TestTiersOverCatalog expands a richer policy, with families taken in part,
// and checks the result the same way.
func TestTiersOverCatalog(t *testing.T) {
	catalog := defaultCatalog(t)
	p := Policy{Strict: true, Tiers: []Tier{
		{Name: "flex", Weight: 100, Families: []string{"c*-flex", "m*-flex"}},
		{Name: "graviton", Weight: 50, Families: []string{"*g"}, Requirements: []compat.Requirement{
			{Key: compat.LabelInstanceCPU, Operator: compat.Lte, Values: []string{"16"}},
		}},
		{Name: "current", Weight: 20, Families: []string{"c7*", "m7*", "r7*"}},
		{Name: "rest", Weight: 1, Families: []string{"*"}, Requirements: []compat.Requirement{
			{Key: compat.LabelInstanceGPUCount, Operator: compat.DoesNotExist},
			{Key: compat.LabelInstanceAcceleratorCount, Operator: compat.DoesNotExist},
		}},
	}}
	base := NodePool{
		Name: "general",
		Requirements: []compat.Requirement{
			{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"spot", "on-demand"}},
			{Key: compat.LabelOS, Operator: compat.In, Values: []string{compat.OSLinux}},
		},
		NodeClassRef: NodeClassRef{Name: "default"},
		Labels:       map[string]string{"example.com/pool": "general"},
	}
	pools, err := p.NodePools(catalog, base)
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, p, catalog, pools)
	r, _ := p.Rank(catalog, RankOptions{})
	for _, it := range r.Unranked {
		if !it.HasGPU() && !it.HasAccelerator() {
			t.Errorf("%s is unranked but has neither GPU nor accelerator", it.Name)
		}
	}
	if len(r.Unranked) == 0 {
		t.Errorf("no type is unranked; the catalog's GPU and accelerator types should be")
	}
	checkGolden(t, "tiers.golden.yaml", pools)
}

// TestNewFamily adds a family AWS has not launched (c9i-flex; the catalog
// already has c8i-flex) and checks it lands in the right tier with no
// change to the policy.
func TestNewFamily(t *testing.T) {
	catalog := defaultCatalog(t)
	var added []string
	for _, it := range catalog {
		if it.Family == "c7i-flex" {
			it.Name = "c9i-flex." + it.Size
			it.Family = "c9i-flex"
			it.Generation = 9
			catalog = append(catalog, it)
			added = append(added, it.Name)
		}
	}
	slices.Sort(added)
	glob := Policy{Strict: true, Tiers: []Tier{
		{Name: "flex", Weight: 100, Families: []string{"c*-flex"}},
		{Name: "rest", Weight: 1, Families: []string{"*"}},
	}}
	r, err := glob.Rank(catalog, RankOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range added {
		if got := r.Explain(n); !strings.HasPrefix(got, n+": tier flex (weight 100)") {
			t.Errorf("Explain(%s) = %q; want it in tier flex", n, got)
		}
	}
	pools, err := glob.NodePools(catalog, NodePool{NodeClassRef: NodeClassRef{Name: "default"}})
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, glob, catalog, pools)
	want := []compat.Requirement{{Key: compat.LabelInstanceFamily, Operator: compat.In, Values: []string{"c7i-flex", "c8i-flex", "c9i-flex"}}}
	if diff := cmp.Diff(want, pools[0].Requirements); diff != "" {
		t.Errorf("flex NodePool requirements mismatch (-want +got):\n%s", diff)
	}

	// A literal family list does not pick the new family up: that is what
	// the glob is for.
	r, err = flexPolicy().Rank(catalog, RankOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Explain(added[0]); !strings.HasPrefix(got, added[0]+": tier rest") {
		t.Errorf("Explain(%s) under the literal policy = %q; want it in tier rest", added[0], got)
	}
}

// golden compares the YAML of pools with testdata/name, or rewrites it
// with -update, after checking it against the CRD's rules.
func checkGolden(t *testing.T, name string, pools []NodePool) {
	t.Helper()
	var b bytes.Buffer
	for _, np := range pools {
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
			t.Errorf("NodePool %s round trip mismatch (-want +got):\n%s", np.Name, diff)
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	golden.Check(t, filepath.Join("testdata", name), b.Bytes(), *update)
}

// labelValue is the CRD's pattern for requirement values and labels.
var labelValue = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)

// checkCRD checks one NodePool document against the karpenter.sh/v1
// schema, read generically so that it does not share code with the
// encoder: the fields present are the CRD's, required ones are there, and
// values follow its patterns and bounds.
func checkCRD(t *testing.T, doc []byte) {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal(doc, &obj); err != nil {
		t.Fatal(err)
	}
	fail := func(format string, args ...any) { t.Errorf("CRD: "+format+"\n%s", append(args, doc)...) }
	object := func(v any, path string, allowed ...string) map[string]any {
		m, ok := v.(map[string]any)
		if !ok {
			fail("%s is %T, not an object", path, v)
			return nil
		}
		for k := range m {
			if !slices.Contains(allowed, k) {
				fail("%s.%s is not a field of the CRD", path, k)
			}
		}
		return m
	}
	top := object(obj, "", "apiVersion", "kind", "metadata", "spec")
	if top["apiVersion"] != "karpenter.sh/v1" || top["kind"] != "NodePool" {
		fail("apiVersion %v, kind %v", top["apiVersion"], top["kind"])
	}
	meta, _ := top["metadata"].(map[string]any) // the CRD leaves metadata to the API server
	if name, _ := meta["name"].(string); name == "" || !labelValue.MatchString(name) || len(name) > 63 {
		fail("metadata.name %q", meta["name"])
	}
	spec := object(top["spec"], "spec", "template", "weight", "disruption", "limits", "replicas")
	if w, ok := spec["weight"]; ok {
		if n, isNum := w.(float64); !isNum || n != float64(int32(n)) || n < 1 || n > 100 {
			fail("spec.weight %v is not an integer in 1–100", w)
		}
	}
	tmpl := object(spec["template"], "spec.template", "metadata", "spec")
	if m, ok := tmpl["metadata"]; ok {
		labels, _ := object(m, "spec.template.metadata", "labels", "annotations")["labels"].(map[string]any)
		for k, v := range labels {
			if s, ok := v.(string); !ok || !labelValue.MatchString(s) || len(s) > 63 {
				fail("label %s value %v", k, v)
			}
		}
	}
	ts := object(tmpl["spec"], "spec.template.spec", "nodeClassRef", "requirements", "taints", "startupTaints", "expireAfter", "terminationGracePeriod")
	ref := object(ts["nodeClassRef"], "nodeClassRef", "group", "kind", "name")
	for _, k := range []string{"group", "kind", "name"} {
		if s, _ := ref[k].(string); s == "" {
			fail("nodeClassRef.%s is missing", k)
		}
	}
	reqs, ok := ts["requirements"].([]any)
	if !ok {
		fail("spec.template.spec.requirements is missing")
	}
	if len(reqs) > 100 {
		fail("%d requirements", len(reqs))
	}
	for i, r := range reqs {
		m := object(r, fmt.Sprintf("requirements[%d]", i), "key", "operator", "values", "minValues")
		op, _ := m["operator"].(string)
		if !slices.Contains([]string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"}, op) {
			fail("requirements[%d].operator %q", i, op)
		}
		values, _ := m["values"].([]any)
		if (op == "In" || op == "NotIn") && len(values) == 0 {
			fail("requirements[%d] has no values", i)
		}
		for _, v := range values {
			if s, ok := v.(string); !ok || !labelValue.MatchString(s) || len(s) > 63 {
				fail("requirements[%d] value %v", i, v)
			}
		}
	}
}
