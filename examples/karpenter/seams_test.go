package karpenter_test

import (
	"context"
	"encoding/base64"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/patrickmn/go-cache"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	netutils "k8s.io/utils/net"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/karpenter"
	"github.com/ec2select/ec2select/userdata"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/controllers/nodeclass"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	"github.com/aws/karpenter-provider-aws/pkg/providers/ssm"
)

// TestCustomEmptyUserDataAsKarpenter: an EC2NodeClass of the Custom
// family without userData. Karpenter's resolver gives it a launch
// template whose userData is empty (bootstrap.Custom.Script: base64 of
// "", pkg/providers/amifamily/bootstrap/custom.go, v1.14.1); UserDataConfig
// and Render give the same empty userData, without AllowUnresolved, and
// the report says the AMI must join by itself.
func TestCustomEmptyUserDataAsKarpenter(t *testing.T) {
	t.Parallel()
	status := karpenterStatus(t, "al2023")
	nc := nodeClassWith(v1.AMISelectorTerm{ID: status[0].ID})
	nc.Spec.AMIFamily = ptr(v1.AMIFamilyCustom)
	nc.Status.AMIs = status
	claim := resolverClaim()
	offered := karpenterTypes(awsFakeInfos(t), "al2023", v1.KubeletConfiguration{})
	opts := &amifamily.Options{
		ClusterName: "test-cluster", ClusterEndpoint: "https://test-cluster", CABundle: ptr(brCA),
		NodeClassName: nc.Name, AMISelectorTerms: nc.Spec.AMISelectorTerms, AMIs: status,
		Labels: createAMIOptionsLabels(v1.AMIFamilyCustom, claim, karpv1.CapacityTypeOnDemand),
	}
	templates, err := amifamily.NewDefaultResolver("us-west-2").Resolve(nc, claim, offered, karpv1.CapacityTypeOnDemand, "default", opts, "", 0)
	if err != nil || len(templates) == 0 {
		t.Fatalf("Karpenter's Resolve = %d templates, %v", len(templates), err)
	}
	for _, lt := range templates {
		script, err := lt.UserData.Script(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		theirs, _ := base64.StdEncoding.DecodeString(script)
		group, err := karpenter.ResolverGroup(nc, lt.AMIID, int(lt.InstanceTypes[0].Capacity.Pods().Value()), lt.InstanceTypes)
		if err != nil {
			t.Fatal(err)
		}
		fam, cfg, err := karpenter.UserDataConfig(nc, claim, karpv1.CapacityTypeOnDemand, karpenter.Cluster{Name: "test-cluster", Endpoint: "https://test-cluster", CABundle: brCA}, group)
		if err != nil || fam != compat.Custom {
			t.Fatalf("UserDataConfig = %v, %v", fam, err)
		}
		ours, report, err := userdata.RenderWithReport(fam, cfg)
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		if string(ours) != string(theirs) || len(ours) != 0 {
			t.Errorf("userData: Karpenter %q, Render %q", theirs, ours)
		}
		if report.Verdict != userdata.Unresolved || !strings.Contains(report.Reason, "the AMI must join the cluster by itself") {
			t.Errorf("report = %v %q; want Unresolved saying the AMI must join by itself", report.Verdict, report.Reason)
		}
	}
}

// gateProvider is an amifamily.Provider whose List fails as a fork's does
// on an alias the cluster's version rules out.
type gateProvider struct{ err error }

func (p gateProvider) List(context.Context, *v1.EC2NodeClass) (amifamily.AMIs, error) {
	return nil, p.err
}

// asKarpenterGate is the fork's conversion in amifamily.DefaultProvider.List:
//
//	var gate *amiselect.UnsupportedVersionError
//	switch {
//	case errors.As(err, &gate) && gate.Family == compat.AL2:
//		return nil, &AL2DeprecationError{error: err}
//	case errors.As(err, &gate):
//		return nil, &WS2025UnsupportedVersionError{error: err}
//	}
//
// Only amifamily can set those types' embedded error; outside it the test
// sets the same field through reflect.
func asKarpenterGate(err error) error {
	var gate *amiselect.UnsupportedVersionError
	if !errors.As(err, &gate) {
		return err
	}
	var out error = &amifamily.WS2025UnsupportedVersionError{}
	if gate.Family == compat.AL2 {
		out = &amifamily.AL2DeprecationError{}
	}
	field := reflect.ValueOf(out).Elem().Field(0)
	reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem().Set(reflect.ValueOf(&err).Elem())
	return out
}

// TestVersionGatesAsKarpenterStatus: ListAMIs refuses AL2 on Kubernetes
// 1.33 and Windows Server 2025 on 1.34 with a typed error; converted as
// the fork's amifamily does, Karpenter's EC2NodeClass AMI reconciler
// (pkg/controllers/nodeclass/ami.go:50-58, v1.14.1) recognises it exactly
// as it recognises its own provider's: AMIsReady False with reason
// UnsupportedAlias, and a terminal error. Unconverted, it does not, which
// is why the fork converts.
func TestVersionGatesAsKarpenterStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ alias, k8s string }{{"al2@latest", "1.33"}, {"windows2025@latest", "1.34"}} {
		t.Run(tc.alias, func(t *testing.T) {
			ec2api, ssmapi := karpenterAPIs(suiteImages(), nil)
			reason := func(p amifamily.Provider) (string, bool) {
				nc := nodeClassWith(v1.AMISelectorTerm{Alias: tc.alias})
				_, err := nodeclass.NewAMIReconciler(clock.RealClock{}, p).Reconcile(context.Background(), nc)
				cond := nc.StatusConditions().Get(v1.ConditionTypeAMIsReady)
				if err == nil || cond == nil {
					return "", false
				}
				return cond.Reason, errors.Is(err, reconcileTerminal)
			}
			c := cache.New(time.Hour, time.Hour)
			theirs := amifamily.NewDefaultProvider(clock.RealClock{}, fixedVersion(tc.k8s), ssm.NewDefaultProvider(ssmapi, c), ec2api, c)
			wantReason, wantTerminal := reason(theirs)
			if wantReason != "UnsupportedAlias" || !wantTerminal {
				t.Fatalf("Karpenter's own provider: reason %q, terminal %v", wantReason, wantTerminal)
			}
			_, err := karpenter.ListAMIs(context.Background(), ec2api, ssmapi, nodeClassWith(v1.AMISelectorTerm{Alias: tc.alias}), tc.k8s, nil)
			if !errors.Is(err, amiselect.ErrUnsupportedKubernetesVersion) {
				t.Fatalf("ListAMIs: %v; want ErrUnsupportedKubernetesVersion", err)
			}
			if got, terminal := reason(gateProvider{asKarpenterGate(err)}); got != wantReason || !terminal {
				t.Errorf("converted: reason %q, terminal %v; want %q as Karpenter's", got, terminal, wantReason)
			}
			if got, terminal := reason(gateProvider{err}); got == wantReason || terminal {
				t.Errorf("unconverted: reason %q, terminal %v; Karpenter cannot know amiselect's type", got, terminal)
			}
		})
	}
}

// reconcileTerminal matches controller-runtime's TerminalError.
var reconcileTerminal = terminalError()

// TestClusterDNSAsTheKubeletReads: Render refuses, in AL2 and AL2023, each
// ClusterDNS entry the kubelet's own parser drops (k8s.io/utils/net
// ParseIPSloppy, which pkg/kubelet/kubelet.go@v1.35.3 L576-584 applies to
// every clusterDNS entry), and accepts each it reads, on every shape of
// userdata's table and the kubelet's flag syntax (--cluster-dns is a
// comma-separated list, so a comma is two entries and never one).
func TestClusterDNSAsTheKubeletReads(t *testing.T) {
	t.Parallel()
	entries := []string{
		"10.100.0.10", "fd00::a", "FD00::A", "::ffff:10.100.0.10", "010.100.000.010", "test", " 10.100.0.10",
		"10.100.0.10 ", "10.100.0.10\t", "10.100.0.10\u00a0", "10.100.0.10\u2028", "10.100.0.10a\u2028b", "10.100.0.10é",
		"１０.１００.０.１０", "10．100.0.10", "١٠.100.0.10", "fe80::1%eth0", "fd00::a%1", "[fd00::a]", "10.100.0.10/32",
		"10.100.0.300", "0x0a.100.0.10", "+10.100.0.10", `"10.100.0.10"`, "10.100.0.10:53", "1.2.3.4.5", "::", "0.0.0.0",
	}
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023} {
		for _, e := range entries {
			cfg := userdata.Config{ClusterName: "c", APIServerEndpoint: "https://c.example.com", CABundle: brCA, ClusterCIDR: "10.100.0.0/16"}
			cfg.Kubelet.ClusterDNS = []string{e}
			_, err := userdata.Render(f, cfg)
			if reads := netutils.ParseIPSloppy(e) != nil; reads != (err == nil) {
				t.Errorf("%v %q: the kubelet reads an address: %v; Render: %v", f, e, reads, err)
			}
		}
	}
}

// TestResolverGroupRelease: status.amis carries no release; ResolverGroup
// reads it from the image name, as Karpenter's Bottlerocket family looks
// the version up for its RAID0 setting, so UserDataConfig sets
// AMIRelease from what the resolver has.
func TestResolverGroupRelease(t *testing.T) {
	t.Parallel()
	status := karpenterStatus(t, "bottlerocket")
	nc := nodeClassWith(v1.AMISelectorTerm{Alias: "bottlerocket@latest"})
	nc.Status.AMIs = status
	g, err := karpenter.ResolverGroup(nc, status[0].ID, 29, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, cfg, err := karpenter.UserDataConfig(nc, resolverClaim(), karpv1.CapacityTypeOnDemand, karpenter.Cluster{}, g)
	if err != nil {
		t.Fatal(err)
	}
	want := status[0].Name[strings.LastIndex(status[0].Name, "-v")+1:]
	want = want[:strings.Index(want, "-")]
	if cfg.AMIRelease == "" || cfg.AMIRelease != want || g.MaxPods != 29 {
		t.Errorf("AMIRelease %q, MaxPods %d; want %q from %s", cfg.AMIRelease, g.MaxPods, want, status[0].Name)
	}
	if _, err := karpenter.ResolverGroup(nc, "ami-notinstatus", 29, nil); err == nil {
		t.Error("ResolverGroup accepted an image status.amis does not list")
	}
}

// TestCapacityInjectedCache: the capacity seams take the cache the
// provider was built with and what its call sites have. ObserveNode
// learns a node's memory under the image its type maps to, and
// LearnedMemory gives it back for that type alone, as Karpenter's
// discovered-capacity lookup does; a node on an image the type no
// longer maps to teaches nothing.
func TestCapacityInjectedCache(t *testing.T) {
	t.Parallel()
	status := karpenterStatus(t, "al2023")
	cache, err := capacity.New(capacity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	offered := karpenterTypes(awsFakeInfos(t), "al2023", v1.KubeletConfiguration{})
	var it *cloudprovider.InstanceType
	for _, o := range offered {
		if o.Name == "m5.large" {
			it = o
		}
	}
	mapped, err := karpenter.MapToInstanceTypes([]*cloudprovider.InstanceType{it}, status)
	if err != nil || len(mapped) != 1 {
		t.Fatalf("MapToInstanceTypes(m5.large) = %v, %v", mapped, err)
	}
	var image string
	for id := range mapped {
		image = id
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Labels: karpenter.PinnedLabels(it.Requirements)},
		Status:     corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("7800Mi")}},
	}
	stale := &karpv1.NodeClaim{Status: karpv1.NodeClaimStatus{ImageID: "ami-older"}}
	if learned, err := karpenter.ObserveNode(cache, node, stale, status); learned || err != nil {
		t.Errorf("ObserveNode on a stale image = %v, %v", learned, err)
	}
	if learned, err := karpenter.ObserveNode(cache, node, &karpv1.NodeClaim{Status: karpv1.NodeClaimStatus{ImageID: image}}, status); !learned || err != nil {
		t.Fatalf("ObserveNode = %v, %v", learned, err)
	}
	got, ok := karpenter.LearnedMemory(cache, it, status)
	if want := resource.MustParse("7800Mi"); !ok || got.Cmp(want) != 0 {
		t.Errorf("LearnedMemory = %v, %v; want %v", got.String(), ok, want.String())
	}
	other := &cloudprovider.InstanceType{Name: "c5.large", Requirements: scheduling.NewRequirements()}
	if _, ok := karpenter.LearnedMemory(cache, other, status); ok {
		t.Error("LearnedMemory answered for a type nothing was learned of")
	}
}

// TestMapToInstanceTypesEmpty: where Karpenter's MapToInstanceTypes
// returns an empty map (no offered type), the adapter's returns an empty
// map too, with ErrNoCompatibleAMI for a call site that wants the reason.
func TestMapToInstanceTypesEmpty(t *testing.T) {
	t.Parallel()
	status := karpenterStatus(t, "al2023")
	theirs := amifamily.MapToInstanceTypes(nil, status)
	ours, err := karpenter.MapToInstanceTypes(nil, status)
	if diff := cmp.Diff(len(theirs), len(ours)); diff != "" || ours == nil || !errors.Is(err, amiselect.ErrNoCompatibleAMI) {
		t.Errorf("MapToInstanceTypes(nil) = %v, %v; Karpenter's %v", ours, err, theirs)
	}
}

// validationFallbackTypes are the instance types Karpenter's EC2NodeClass
// validation falls back to (pkg/controllers/nodeclass/validation.go:471-490,
// v1.14.1): a name and a few requirements, no instance-type requirement.
func validationFallbackTypes() []*cloudprovider.InstanceType {
	fallback := func(name, arch string) *cloudprovider.InstanceType {
		reqs := append(slices.Collect(maps.Values(amifamily.VariantStandard.Requirements())),
			scheduling.NewRequirement(corev1.LabelArchStable, corev1.NodeSelectorOpIn, arch),
			scheduling.NewRequirement(corev1.LabelOSStable, corev1.NodeSelectorOpExists),
			scheduling.NewRequirement(corev1.LabelWindowsBuild, corev1.NodeSelectorOpExists))
		return &cloudprovider.InstanceType{Name: name, Requirements: scheduling.NewRequirements(reqs...)}
	}
	return []*cloudprovider.InstanceType{fallback("m5.large", karpv1.ArchitectureAmd64), fallback("m6g.large", karpv1.ArchitectureArm64)}
}

// TestMapToInstanceTypesValidationFallback: the EC2NodeClass validation
// maps its fallback types, which carry no instance-type requirement, onto
// status.amis; the adapter reads the type's name as its label and maps
// them as Karpenter's MapToInstanceTypes does, for Linux and Windows
// classes. A type the adapter cannot read (no name, no requirements)
// maps to nothing, and the others still map, as Karpenter maps each type
// on its own; the error names it.
func TestMapToInstanceTypesValidationFallback(t *testing.T) {
	t.Parallel()
	for _, family := range []string{"al2023", "bottlerocket", "windows2022"} {
		t.Run(family, func(t *testing.T) {
			status := karpenterStatus(t, family)
			theirs := amifamily.MapToInstanceTypes(validationFallbackTypes(), status)
			ours, err := karpenter.MapToInstanceTypes(validationFallbackTypes(), status)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(namesByImage(theirs), namesByImage(ours)); diff != "" || len(ours) == 0 {
				t.Errorf("mapping (-Karpenter +adapter):\n%s", diff)
			}
		})
	}
	status := karpenterStatus(t, "al2023")
	offered := append(validationFallbackTypes(), &cloudprovider.InstanceType{Requirements: scheduling.NewRequirements()})
	ours, err := karpenter.MapToInstanceTypes(offered, status)
	if err == nil || !strings.Contains(err.Error(), corev1.LabelArchStable) {
		t.Errorf("err = %v; want one naming the unreadable type's missing label", err)
	}
	if got := namesByImage(ours); len(got) != 2 {
		t.Errorf("mapping = %v; want m5.large and m6g.large each under its image", got)
	}
}
