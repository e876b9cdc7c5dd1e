package karpenter_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/karpenter"
	"github.com/ec2select/ec2select/userdata"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
)

// A Bottlerocket EC2NodeClass with a full-ish spec.kubelet, RAID0 and
// user settings, as a user writes it.
func ec2NodeClass() *v1.EC2NodeClass {
	raid0 := v1.InstanceStorePolicyRAID0
	return &v1.EC2NodeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.k8s.aws/v1", Kind: "EC2NodeClass"},
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: v1.EC2NodeClassSpec{
			AMISelectorTerms: []v1.AMISelectorTerm{{Alias: "bottlerocket@latest"}},
			Role:             "KarpenterNodeRole-demo",
			Kubelet: &v1.KubeletConfiguration{
				MaxPods:                     ptr[int32](58),
				SystemReserved:              map[string]string{"cpu": "100m", "memory": "100Mi"},
				KubeReserved:                map[string]string{"memory": "300Mi"},
				EvictionHard:                map[string]string{"memory.available": "5%"},
				EvictionSoft:                map[string]string{"memory.available": "500Mi"},
				EvictionSoftGracePeriod:     map[string]metav1.Duration{"memory.available": {Duration: time.Minute}},
				ImageGCHighThresholdPercent: ptr[int32](85),
				ImageGCLowThresholdPercent:  ptr[int32](60),
			},
			InstanceStorePolicy: &raid0,
			UserData:            ptr("[settings.host-containers.admin]\nenabled = true\n"),
		},
	}
}

func nodePool() *karpv1.NodePool {
	return &karpv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "general", Labels: map[string]string{"team": "platform"}},
		Spec: karpv1.NodePoolSpec{
			Template: karpv1.NodeClaimTemplate{
				ObjectMeta: karpv1.ObjectMeta{Labels: map[string]string{"example.com/pool": "general"}},
				Spec: karpv1.NodeClaimTemplateSpec{
					NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
					Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
						{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}},
						{Key: "karpenter.k8s.aws/instance-category", Operator: corev1.NodeSelectorOpIn, Values: []string{"c", "m", "g"}},
						{Key: "karpenter.k8s.aws/instance-family", Operator: corev1.NodeSelectorOpExists, MinValues: ptr(3)},
						{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}},
					},
					Taints:        []corev1.Taint{{Key: "example.com/dedicated", Value: "platform", Effect: corev1.TaintEffectNoSchedule}},
					StartupTaints: []corev1.Taint{{Key: "example.com/agent-not-ready", Effect: corev1.TaintEffectNoExecute}},
					ExpireAfter:   karpv1.MustParseNillableDuration("336h"),
				},
			},
			Disruption: karpv1.Disruption{
				ConsolidationPolicy: karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized,
				ConsolidateAfter:    karpv1.MustParseNillableDuration("1m"),
				Budgets:             []karpv1.Budget{{Nodes: "10%"}},
			},
			Limits: karpv1.Limits{corev1.ResourceCPU: resource.MustParse("1000")},
			Weight: ptr[int32](10),
		},
	}
}

// karpenterInstanceType builds an instance type shaped as Karpenter's
// provider offers it (instancetype.NewInstanceType): one pinned
// requirement per fact, zones and capacity types with several values, and
// memory capacity estimated as the published memory less
// VM_MEMORY_OVERHEAD_PERCENT (7.5%). The facts come from compat's reading
// of the EC2 description, so that the flow runs on ec2fake's catalog;
// fixtures_capacity_test.go builds types with Karpenter's own
// NewInstanceType.
func karpenterInstanceType(t *testing.T, info ec2types.InstanceTypeInfo) *cloudprovider.InstanceType {
	t.Helper()
	ct, err := compat.InstanceTypeFromEC2(info)
	if err != nil {
		t.Fatal(err)
	}
	reqs := scheduling.NewLabelRequirements(ct.Labels())
	reqs.Add(
		scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "us-west-2a", "us-west-2b", "us-west-2c"),
		scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeOnDemand, karpv1.CapacityTypeSpot),
	)
	if ct.GPUCount == 0 {
		reqs.Add(scheduling.NewRequirement("karpenter.k8s.aws/instance-gpu-count", corev1.NodeSelectorOpDoesNotExist))
	}
	mem := ct.MemoryMiB * 1024 * 1024
	return &cloudprovider.InstanceType{
		Name:         ct.Name,
		Requirements: reqs,
		Capacity: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewQuantity(int64(ct.VCPU), resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(mem-mem*75/1000, resource.BinarySI),
		},
	}
}

func catalogTypes(t *testing.T, names ...string) []*cloudprovider.InstanceType {
	t.Helper()
	_, infos := ec2fake.DefaultCatalog()
	var out []*cloudprovider.InstanceType
	for _, info := range infos {
		if slices.Contains(names, string(info.InstanceType)) {
			out = append(out, karpenterInstanceType(t, info))
		}
	}
	if len(out) != len(names) {
		t.Fatalf("catalog has %d of %v", len(out), names)
	}
	return out
}

// TestFlow runs what a fork does for one EC2NodeClass and NodePool, on
// Karpenter's own types, against ec2fake over HTTP with real SDK clients.
func TestFlow(t *testing.T) {
	srv := ec2fake.NewServer(ec2fake.NewWithCatalog(ec2fake.Options{}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	nc, np := ec2NodeClass(), nodePool()

	// Selector terms → Resolve → status.amis and back.
	sel, err := amiselect.Resolve(ctx, ec2fake.NewClient(srv.URL), karpenter.TermsFromKarpenter(nc.Spec.AMISelectorTerms),
		amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: "1.32"}, SSM: ec2fake.NewSSMClient(srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	family, err := karpenter.Family(nc)
	if err != nil || family != compat.Bottlerocket {
		t.Fatalf("Family = %v, %v; want Bottlerocket", family, err)
	}
	nc.Status.AMIs = karpenter.StatusAMIs(sel.AMIs)
	fromStatus, err := karpenter.AMIsFromStatus(family, nc.Status.AMIs)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range fromStatus {
		if a.ID != sel.AMIs[i].ID || a.Arch != sel.AMIs[i].Arch || !a.Requirements.Equal(sel.AMIs[i].Requirements) {
			t.Errorf("status.amis[%d] read back as %v, want %v", i, a, sel.AMIs[i])
		}
	}

	// Karpenter's instance types, filtered by the NodePool as Karpenter's
	// scheduler filters them, then converted and mapped.
	offered := catalogTypes(t, "m7i.large", "m7g.large", "c7i.xlarge", "c6gn.large", "g5.xlarge", "g5g.xlarge", "r7i.large")
	npReqs := scheduling.NewNodeSelectorRequirementsWithMinValues(np.Spec.Template.Spec.Requirements...)
	poolReqs, err := karpenter.RequirementsFromKarpenter(np.Spec.Template.Spec.Requirements)
	if err != nil {
		t.Fatal(err)
	}
	var admitted []*cloudprovider.InstanceType
	for _, it := range offered {
		ct, err := karpenter.InstanceTypeFromKarpenter(it)
		if err != nil {
			t.Fatal(err)
		}
		karpenterSays := it.Requirements.Compatible(npReqs, scheduling.AllowUndefinedWellKnownLabels) == nil
		compatSays := ct.Requirements().Compatible(poolReqs, compat.AllowUndefinedWellKnown()) == nil
		if karpenterSays != compatSays {
			t.Errorf("%s: Karpenter says compatible=%v, compat says %v", it.Name, karpenterSays, compatSays)
		}
		if karpenterSays {
			admitted = append(admitted, it)
		}
	}
	types, err := karpenter.InstanceTypesFromKarpenter(admitted)
	if err != nil {
		t.Fatal(err)
	}
	if needed, err := poolReqs.SatisfiesMinValues(types); err != nil {
		t.Errorf("minValues: needed %d: %v", needed, err)
	}
	mapping := amiselect.Map(types, sel.AMIs)
	if err := mapping.Err(); err != nil {
		t.Fatal(err)
	}
	groups := karpenter.LaunchGroups(mapping, admitted)
	gotGroups := map[string][]string{}
	for _, g := range groups {
		for _, it := range g.InstanceTypes {
			gotGroups[g.AMIs[0].Arch+" "+g.AMIs[0].Variant.String()] = append(gotGroups[g.AMIs[0].Arch+" "+g.AMIs[0].Variant.String()], it.Name)
		}
	}
	wantGroups := map[string][]string{
		"amd64 standard": {"c7i.xlarge", "m7i.large"},
		"arm64 standard": {"c6gn.large", "m7g.large"},
		"amd64 nvidia":   {"g5.xlarge"},
		"arm64 nvidia":   {"g5g.xlarge"},
	}
	for _, v := range gotGroups {
		slices.Sort(v)
	}
	if diff := cmp.Diff(wantGroups, gotGroups); diff != "" {
		t.Errorf("launch groups (-want +got):\n%s", diff)
	}

	// userData for a NodeClaim of the pool launched in the first group.
	claim := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "general-abcde", Labels: map[string]string{"example.com/pool": "general", karpv1.NodePoolLabelKey: np.Name}},
		Spec: karpv1.NodeClaimSpec{
			Taints: np.Spec.Template.Spec.Taints, StartupTaints: np.Spec.Template.Spec.StartupTaints,
			Requirements: np.Spec.Template.Spec.Requirements,
		},
	}
	cluster := karpenter.Cluster{
		Name: "demo", Endpoint: "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com",
		CABundle: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=",
		CIDR:     "10.100.0.0/16", DNSIP: "10.100.0.10",
	}
	fam, cfg, err := karpenter.UserDataConfig(nc, claim, karpv1.CapacityTypeOnDemand, cluster, groups[0])
	if err != nil {
		t.Fatal(err)
	}
	out, err := userdata.Render(fam, cfg)
	if err != nil {
		t.Fatal(err)
	}
	report, err := userdata.Lint(fam, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if report.Verdict != userdata.Joins || report.HasErrors() {
		t.Fatalf("rendered userData does not join cleanly:\n%s\n%s", out, report)
	}
	var registered []string
	for _, rt := range report.Taints {
		registered = append(registered, rt.Taint.String())
	}
	wantTaints := []string{
		"example.com/agent-not-ready:NoExecute",
		"example.com/dedicated=platform:NoSchedule",
		"karpenter.sh/unregistered:NoExecute",
		"node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule",
	}
	if diff := cmp.Diff(wantTaints, registered); diff != "" {
		t.Errorf("registered taints (-want +got):\n%s", diff)
	}
	if got := report.Kubelet.ClusterDNS; !slices.Equal(got, []string{"10.100.0.10"}) {
		t.Errorf("kubelet clusterDNS = %v, want the discovered kube-dns IP", got)
	}
	if got := report.Kubelet.MaxPods; got == nil || *got != 58 {
		t.Errorf("kubelet maxPods = %v, want 58", got)
	}
	for _, want := range []string{"host-containers.admin", "example.com/pool", "karpenter.sh/do-not-sync-taints", "karpenter.sh/capacity-type"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("userData lacks %q:\n%s", want, out)
		}
	}

	// A node registers: the capacity controller observes it, and the next
	// offer carries what was learned as Capacity, requirements untouched.
	cache, err := capacity.New(capacity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m7g := groupType(t, groups, "m7g.large")
	claim.Status.ImageID = imageOf(t, groups, "m7g.large")
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-1-2", Labels: karpenter.PinnedLabels(m7g.Requirements)},
		Status:     corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("7824388Ki")}},
	}
	learned, err := cache.Observe(karpenter.Observation(node, claim), sel.AMIs)
	if err != nil || !learned {
		t.Fatalf("Observe = %v, %v; want learned", learned, err)
	}
	memLabel := m7g.Requirements.Get("karpenter.k8s.aws/instance-memory").Values()
	if n := karpenter.ApplyCapacity(cache.Apply(mapping), admitted); n != 1 {
		t.Errorf("ApplyCapacity changed %d types, want 1", n)
	}
	if got := m7g.Capacity[corev1.ResourceMemory]; got.Value() != 7824388*1024 {
		t.Errorf("m7g.large memory capacity = %s, want the observed 7824388Ki", got.String())
	}
	if got := m7g.Requirements.Get("karpenter.k8s.aws/instance-memory").Values(); !slices.Equal(got, memLabel) {
		t.Errorf("instance-memory requirement moved from %v to %v", memLabel, got)
	}
}

func groupType(t *testing.T, groups []karpenter.LaunchGroup, name string) *cloudprovider.InstanceType {
	t.Helper()
	for _, g := range groups {
		for _, it := range g.InstanceTypes {
			if it.Name == name {
				return it
			}
		}
	}
	t.Fatalf("%s is in no launch group", name)
	return nil
}

func imageOf(t *testing.T, groups []karpenter.LaunchGroup, name string) string {
	t.Helper()
	for _, g := range groups {
		for _, it := range g.InstanceTypes {
			if it.Name == name {
				return g.ImageID
			}
		}
	}
	t.Fatalf("%s is in no launch group", name)
	return ""
}
