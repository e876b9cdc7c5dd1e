package weighting

import (
	"errors"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
	"github.com/google/go-cmp/cmp"
)

// admits reports whether a node of type it can come from np, evaluating
// np's requirements with compat; keys a type does not define (a zone, a
// capacity type) are not held against it.
func admits(t fataler, np NodePool, it compat.InstanceType) bool {
	t.Helper()
	reqs, err := compat.NewRequirements(np.Requirements...)
	if err != nil {
		t.Fatalf("NodePool %s: %v", np.Name, err)
	}
	_, conflict := it.Conflict(reqs, compat.AllowUndefined(reqs.Keys()...))
	return !conflict
}

// checkPartition checks the promise of NodePools: over the catalog, each
// type is admitted by the NodePool of the tier Rank gives it and by no
// other, and an unranked type by none.
func checkPartition(t interface {
	fataler
	Errorf(format string, args ...any)
}, p Policy, catalog []compat.InstanceType, pools []NodePool) {
	t.Helper()
	r, err := p.Rank(catalog, RankOptions{})
	if err != nil {
		t.Fatalf("%v", err)
	}
	if len(pools) != len(r.Tiers) {
		t.Fatalf("%d NodePools for %d tiers", len(pools), len(r.Tiers))
	}
	want := make(map[string]string) // type → NodePool
	for i, rt := range r.Tiers {
		if pools[i].Weight != rt.Tier.Weight {
			t.Errorf("NodePool %s has weight %d; its tier %s has %d", pools[i].Name, pools[i].Weight, rt.Tier.Name, rt.Tier.Weight)
		}
		for _, it := range rt.InstanceTypes {
			want[it.Name] = pools[i].Name
		}
	}
	for _, it := range catalog {
		var got []string
		for _, np := range pools {
			if admits(t, np, it) {
				got = append(got, np.Name)
			}
		}
		switch w, ranked := want[it.Name]; {
		case !ranked && len(got) > 0:
			t.Errorf("%s is unranked but admitted by %v", it.Name, got)
		case ranked && (len(got) != 1 || got[0] != w):
			t.Errorf("%s is admitted by %v; want exactly %s", it.Name, got, w)
		}
	}
}

func TestNodePools(t *testing.T) {
	catalog := mkTypes(t, "c7i-flex.large", "c7i-flex.xlarge", "m7i-flex.large", "c7i.large", "c7i.xlarge", "c7i.2xlarge",
		"m5.large", "m5.xlarge", "c6g.large", "c6g.xlarge", "t3.micro")
	base := NodePool{NodeClassRef: NodeClassRef{Name: "default"}}
	ref := NodeClassRef{Group: DefaultNodeClassGroup, Kind: DefaultNodeClassKind, Name: "default"}
	family := func(op compat.Operator, v ...string) compat.Requirement {
		return compat.Requirement{Key: compat.LabelInstanceFamily, Operator: op, Values: v}
	}
	typ := func(op compat.Operator, v ...string) compat.Requirement {
		return compat.Requirement{Key: compat.LabelInstanceType, Operator: op, Values: v}
	}
	cpu4 := compat.Requirement{Key: compat.LabelInstanceCPU, Operator: compat.Gte, Values: []string{"4"}}
	arm := compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchARM64}}
	pool := func(name string, weight int32, reqs ...compat.Requirement) NodePool {
		return NodePool{Name: name, Weight: weight, NodeClassRef: ref, Requirements: reqs}
	}

	tests := []struct {
		name   string
		policy Policy
		base   NodePool
		want   []NodePool
	}{
		{
			name:   "flex first",
			policy: flexPolicy(),
			base:   base,
			want: []NodePool{
				pool("flex", 100, family(compat.In, "c7i-flex", "m7i-flex")),
				pool("rest", 1, family(compat.NotIn, "c7i-flex", "m7i-flex")),
			},
		},
		{
			name: "globs expand to the catalog's families; base is kept and prefixes the names",
			policy: Policy{Tiers: []Tier{
				{Name: "flex", Weight: 100, Families: []string{"c*-flex", "m*-flex"}},
				{Name: "c", Weight: 50, Families: []string{"c?", "c?i", "c?g"}},
				{Name: "rest", Weight: 1, Families: []string{"*"}},
			}},
			base: NodePool{
				Name:         "web",
				Requirements: []compat.Requirement{{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"spot"}}},
				NodeClassRef: NodeClassRef{Group: "example.com", Kind: "MyClass", Name: "web"},
				Taints:       []userdata.Taint{{Key: "web", Effect: userdata.NoSchedule}},
				Labels:       map[string]string{"team": "web"},
			},
			want: func() []NodePool {
				spot := compat.Requirement{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"spot"}}
				mk := func(name string, weight int32, reqs ...compat.Requirement) NodePool {
					return NodePool{
						Name: name, Weight: weight, Requirements: append([]compat.Requirement{spot}, reqs...),
						NodeClassRef: NodeClassRef{Group: "example.com", Kind: "MyClass", Name: "web"},
						Taints:       []userdata.Taint{{Key: "web", Effect: userdata.NoSchedule}},
						Labels:       map[string]string{"team": "web"},
					}
				}
				return []NodePool{
					mk("web-flex", 100, family(compat.In, "c7i-flex", "m7i-flex")),
					mk("web-c", 50, family(compat.In, "c6g", "c7i")),
					mk("web-rest", 1, family(compat.NotIn, "c6g", "c7i", "c7i-flex", "m7i-flex")),
				}
			}(),
		},
		{
			name: "a family taken in part is split by name",
			policy: Policy{Tiers: []Tier{
				{Name: "big", Weight: 50, Families: []string{"c7i", "m5"}, Requirements: []compat.Requirement{cpu4}},
				{Name: "c7i", Weight: 10, Families: []string{"c7i"}},
				{Name: "rest", Weight: 1, Families: []string{"*"}},
			}},
			base: base,
			want: []NodePool{
				pool("big", 50, cpu4, family(compat.In, "c7i", "m5")),
				pool("c7i", 10, family(compat.In, "c7i"), typ(compat.NotIn, "c7i.2xlarge", "c7i.xlarge")),
				pool("rest", 1, family(compat.NotIn, "c7i"), typ(compat.NotIn, "m5.xlarge")),
			},
		},
		{
			name: "full-name patterns list types",
			policy: Policy{Tiers: []Tier{
				{Name: "xl", Weight: 50, Families: []string{"c7i.*xlarge"}},
				{Name: "mixed", Weight: 20, Families: []string{"m5", "c7i-flex.large"}},
				{Name: "whole", Weight: 15, Families: []string{"m7i-flex.*", "c6g.*large"}},
				{Name: "c7i", Weight: 10, Families: []string{"c7i"}},
			}},
			base: base,
			want: []NodePool{
				pool("xl", 50, typ(compat.In, "c7i.2xlarge", "c7i.xlarge")),
				pool("mixed", 20, typ(compat.In, "c7i-flex.large", "m5.large", "m5.xlarge")),
				pool("whole", 15, family(compat.In, "c6g", "m7i-flex")),
				pool("c7i", 10, family(compat.In, "c7i"), typ(compat.NotIn, "c7i.2xlarge", "c7i.xlarge")),
			},
		},
		{
			name: "a star tier with requirements above others",
			policy: Policy{Tiers: []Tier{
				{Name: "flex", Weight: 100, Families: []string{"*-flex"}},
				{Name: "arm", Weight: 50, Families: []string{"*"}, Requirements: []compat.Requirement{arm}},
				{Name: "rest", Weight: 1, Families: []string{"**"}},
			}},
			base: base,
			want: []NodePool{
				pool("flex", 100, family(compat.In, "c7i-flex", "m7i-flex")),
				pool("arm", 50, arm, family(compat.NotIn, "c7i-flex", "m7i-flex")),
				pool("rest", 1, family(compat.NotIn, "c6g", "c7i-flex", "m7i-flex")),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.policy.NodePools(catalog, tt.base)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NodePools mismatch (-want +got):\n%s", diff)
			}
			checkPartition(t, tt.policy, catalog, got)
			if diff := cmp.Diff(got, Order(got)); diff != "" {
				t.Errorf("NodePools are not in Karpenter's order (-got +ordered):\n%s", diff)
			}
		})
	}
}

func TestNodePoolsSharesNothing(t *testing.T) {
	catalog := mkTypes(t, "c7i-flex.large", "m5.large")
	base := NodePool{
		Requirements: []compat.Requirement{{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchAMD64}, MinValues: 1}},
		NodeClassRef: NodeClassRef{Name: "default"},
		Labels:       map[string]string{"a": "b"},
		Taints:       []userdata.Taint{{Key: "k", Effect: userdata.NoSchedule}},
	}
	pools, err := flexPolicy().NodePools(catalog, base)
	if err != nil {
		t.Fatal(err)
	}
	pools[0].Requirements[0].Values[0] = "changed"
	pools[0].Labels["a"] = "changed"
	pools[0].Taints[0].Key = "changed"
	pools[0].Requirements[0].MinValues = 9
	for _, np := range []NodePool{base, pools[1]} {
		if np.Requirements[0].Values[0] != compat.ArchAMD64 || np.Labels["a"] != "b" || np.Taints[0].Key != "k" || np.Requirements[0].MinValues != 1 {
			t.Errorf("changing one NodePool changed another: %+v", np)
		}
	}
}

func TestNodePoolsErrors(t *testing.T) {
	catalog := mkTypes(t, "c7i-flex.large", "m7i-flex.large", "c7i.large", "m5.large")
	base := NodePool{NodeClassRef: NodeClassRef{Name: "default"}}
	strict := flexPolicy()
	strict.Tiers[0].Families = append(strict.Tiers[0].Families, "c8i-flx")
	strict.Strict = true
	missing := Policy{Tiers: []Tier{{Name: "new", Weight: 10, Families: []string{"x9*"}}, {Name: "rest", Weight: 1, Families: []string{"*"}}}}
	shadowed := Policy{Tiers: []Tier{{Name: "all", Weight: 10, Families: []string{"*"}}, {Name: "flex", Weight: 5, Families: []string{"*-flex"}}}}
	narrow := Policy{Tiers: []Tier{{Name: "arm", Weight: 10, Families: []string{"c7i*"}, Requirements: []compat.Requirement{{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchARM64}}}}}}
	longName := Policy{Tiers: []Tier{{Name: strings.Repeat("t", 60), Weight: 1, Families: []string{"*"}}}}
	armBase := base
	armBase.Requirements = []compat.Requirement{{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchARM64}}}
	tierMinValues := flexPolicy()
	tierMinValues.Tiers[0].Requirements = []compat.Requirement{{Key: compat.LabelInstanceFamily, Operator: compat.Exists, MinValues: 4}}
	badValue := mkTypes(t, "m5.large")
	badValue[0].Name = "m5.large!"
	tests := []struct {
		name     string
		policy   Policy
		catalog  []compat.InstanceType
		base     NodePool
		wantTier string // "" when the error is not a *TierError
		want     string
	}{
		{"strict, pattern matches nothing", strict, catalog, base, "flex", `pattern "c8i-flx" matches no instance type of the catalog`},
		{"tier matches nothing", missing, catalog, base, "new", "its patterns [x9*] match no instance type of the catalog"},
		{"tier shadowed", shadowed, catalog, base, "flex", "of the 2 instance types its patterns match, 2 are taken by higher-weight tiers and 0 fail its requirements"},
		{"requirements exclude everything", narrow, catalog, base, "arm", "0 are taken by higher-weight tiers and 2 fail its requirements"},
		{"base excludes a tier", flexPolicy(), catalog, armBase, "flex", "the base NodePool's requirements exclude all 2 instance types"},
		{"name too long", longName, catalog, NodePool{Name: "default", NodeClassRef: base.NodeClassRef}, strings.Repeat("t", 60), "is 68 characters"},
		{"base weight", flexPolicy(), catalog, NodePool{Weight: 5, NodeClassRef: base.NodeClassRef}, "", "spec.weight: 5 is set; leave it 0"},
		{"base without node class", flexPolicy(), catalog, NodePool{}, "", "base NodePool base: spec.template.spec.nodeClassRef.name: name may not be empty"},
		{"base with a bad taint", flexPolicy(), catalog, NodePool{NodeClassRef: base.NodeClassRef, Taints: []userdata.Taint{{Key: "k"}}}, "", `spec.template.spec.taints[0].effect: "" is not one of "NoSchedule", "PreferNoSchedule", "NoExecute"`},
		{"static base", flexPolicy(), catalog, NodePool{Replicas: new(int64), NodeClassRef: base.NodeClassRef}, "", "spec.replicas is set; a static NodePool cannot have a weight"},
		{"base minValues a tier cannot meet", flexPolicy(), catalog, NodePool{NodeClassRef: base.NodeClassRef,
			Requirements: []compat.Requirement{{Key: compat.LabelInstanceFamily, Operator: compat.Exists, MinValues: 3}}},
			"flex", "its NodePool admits 2 distinct values of karpenter.k8s.aws/instance-family from the catalog (c7i-flex, m7i-flex), fewer than the base NodePool's minValues 3"},
		{"base minValues on types a tier cannot meet", flexPolicy(), catalog, NodePool{NodeClassRef: base.NodeClassRef,
			Requirements: []compat.Requirement{{Key: compat.LabelInstanceType, Operator: compat.Exists, MinValues: 3}}},
			"flex", "admits 2 distinct values of node.kubernetes.io/instance-type from the catalog (c7i-flex.large, m7i-flex.large)"},
		{"the larger of two base minValues on a key", flexPolicy(), catalog, NodePool{NodeClassRef: base.NodeClassRef,
			Requirements: []compat.Requirement{
				{Key: compat.LabelInstanceFamily, Operator: compat.Exists, MinValues: 2},
				{Key: compat.LabelInstanceFamily, Operator: compat.NotIn, Values: []string{"x"}, MinValues: 3},
			}},
			"flex", "admits 2 distinct values of karpenter.k8s.aws/instance-family from the catalog (c7i-flex, m7i-flex), fewer than the base NodePool's minValues 3"},
		{"tier minValues it cannot meet", tierMinValues, catalog, base,
			"flex", "admits 2 distinct values of karpenter.k8s.aws/instance-family from the catalog (c7i-flex, m7i-flex), fewer than its tier's minValues 4"},
		{"base name", flexPolicy(), catalog, NodePool{Name: "Web", NodeClassRef: base.NodeClassRef}, "", "base NodePool Web: metadata.name: \"Web\" is not a DNS-1123 subdomain"},
		{"duplicate type", flexPolicy(), mkTypes(t, "m5.large", "m5.large"), base, "", "m5.large appears twice"},
		{"type name not a label value", flexPolicy(), badValue, base, "", `instance type "m5.large!": the name is not a valid label value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pools, err := tt.policy.NodePools(tt.catalog, tt.base)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "weighting: ") {
				t.Fatalf("NodePools() error = %v; want one containing %q", err, tt.want)
			}
			if pools != nil {
				t.Errorf("NodePools() returned NodePools with its error")
			}
			var te *TierError
			if tt.wantTier == "" {
				if errors.As(err, &te) {
					t.Errorf("error %v is a *TierError", err)
				}
				return
			}
			if !errors.As(err, &te) || te.Tier != tt.wantTier || te.Fix == "" {
				t.Errorf("error %#v; want a *TierError for tier %q with a fix", err, tt.wantTier)
			}
		})
	}
	// Without Strict, a pattern for a family the catalog lacks is fine.
	lenient := strict
	lenient.Strict = false
	pools, err := lenient.NodePools(catalog, base)
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, lenient, catalog, pools)
}

// TestNodePoolsMinValues: minValues on a base key that describes instance
// types is met tier by tier within the catalog; on other keys it is left
// to offerings.
func TestNodePoolsMinValues(t *testing.T) {
	catalog := mkTypes(t, "c7i-flex.large", "m7i-flex.large", "c7i.large", "m5.large", "m5.xlarge")
	base := NodePool{
		Name: "default",
		Requirements: []compat.Requirement{
			{Key: compat.LabelInstanceFamily, Operator: compat.Exists, MinValues: 2},
			{Key: compat.LabelZone, Operator: compat.In, Values: []string{"us-east-1a", "us-east-1b", "us-east-1c"}, MinValues: 3},
		},
		NodeClassRef: NodeClassRef{Name: "default"},
	}
	pools, err := flexPolicy().NodePools(catalog, base)
	if err != nil {
		t.Fatal(err)
	}
	for _, np := range pools {
		if diff := cmp.Diff(base.Requirements, np.Requirements[:len(base.Requirements)]); diff != "" {
			t.Errorf("NodePool %s minValues (-want +got):\n%s", np.Name, diff)
		}
	}
	// Three families in the rest tier, two in flex: 3 fails for flex only.
	base.Requirements[0].MinValues = 3
	_, err = flexPolicy().NodePools(catalog, base)
	var te *TierError
	if !errors.As(err, &te) || te.Tier != "flex" || !strings.Contains(te.Reason, compat.LabelInstanceFamily) {
		t.Errorf("NodePools() error = %v; want a *TierError for tier flex naming %s", err, compat.LabelInstanceFamily)
	}
}

// richBase is a base NodePool as read from a cluster: every field set,
// with what the API server and kubectl wrote about it.
func richBase(t *testing.T) NodePool {
	t.Helper()
	// As the API server holds it, not a manifest to apply: read with
	// UnmarshalJSON, which keeps what the server wrote.
	np, err := decodeStored([]byte(`
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
  labels: {team: web}
  annotations:
    example.com/owner: web-team
    kubectl.kubernetes.io/last-applied-configuration: "{}"
  uid: 0b2f1c8e-6a51-4f0e-9d43-2a5d8c1e7f90
  resourceVersion: "42"
  generation: 7
  creationTimestamp: "2026-03-02T10:15:00Z"
  managedFields: [{manager: kubectl, operation: Update}]
  finalizers: [example.com/cleanup]
spec:
  limits: {cpu: "1000", memory: 1000Gi}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 5m
    budgets: [{nodes: "10%"}, {nodes: "0", schedule: "0 9 * * mon-fri", duration: 8h, reasons: [Drifted]}]
  template:
    metadata:
      labels: {example.com/app: web}
      annotations: {example.com/purpose: web}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
      - {key: karpenter.k8s.aws/instance-family, operator: Exists, minValues: 2}
      taints: [{key: example.com/web, effect: NoSchedule}]
      startupTaints: [{key: example.com/agent, effect: NoExecute}]
      expireAfter: 336h
      terminationGracePeriod: 24h
`))
	if err != nil {
		t.Fatal(err)
	}
	return np
}

// TestNodePoolsCarryBase: each generated NodePool is the base with its own
// name, weight and generated requirements, and nothing else changed but
// what the API server and kubectl wrote about the base itself.
func TestNodePoolsCarryBase(t *testing.T) {
	catalog := mkTypes(t, "c7i-flex.large", "m7i-flex.large", "c7i.large", "m5.large", "m6g.large")
	base := richBase(t)
	pools, err := flexPolicy().NodePools(catalog, base)
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, flexPolicy(), catalog, pools)
	want := base
	want.ObjectAnnotations = map[string]string{"example.com/owner": "web-team"}
	want.Unknown = map[string]any{"/metadata/finalizers": []any{"example.com/cleanup"}}
	for _, np := range pools {
		got := np
		got.Name, got.Weight, got.Requirements = want.Name, want.Weight, got.Requirements[:len(base.Requirements)]
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("NodePool %s differs from its base beyond name, weight and requirements (-want +got):\n%s", np.Name, diff)
		}
		if diff := cmp.Diff(base.Requirements, np.Requirements[:len(base.Requirements)]); diff != "" {
			t.Errorf("NodePool %s does not start with the base's requirements (-want +got):\n%s", np.Name, diff)
		}
		y, err := np.EncodeYAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeNodePool(y)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(np, back); diff != "" {
			t.Errorf("NodePool %s round trip mismatch (-want +got):\n%s", np.Name, diff)
		}
	}
	if base.Unknown["/metadata/uid"] == nil || base.ObjectAnnotations[lastApplied] == "" {
		t.Errorf("NodePools changed its base: %v, %v", base.Unknown, base.ObjectAnnotations)
	}
	// Nothing is shared: changing a generated NodePool's nested values
	// leaves the base and the other NodePools alone.
	pools[0].Disruption.Budgets[1].Reasons[0] = Empty
	pools[0].Limits["cpu"] = "1"
	pools[0].Unknown["/metadata/finalizers"].([]any)[0] = "example.com/other"
	for _, np := range []NodePool{base, pools[1]} {
		if np.Disruption.Budgets[1].Reasons[0] != Drifted || np.Limits["cpu"] != "1000" ||
			np.Unknown["/metadata/finalizers"].([]any)[0] != "example.com/cleanup" {
			t.Errorf("changing one NodePool changed another: %+v", np)
		}
	}
}
