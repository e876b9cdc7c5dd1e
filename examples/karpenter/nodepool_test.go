package karpenter_test

import (
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/karpenter"
	"github.com/ec2select/ec2select/userdata"
	"github.com/ec2select/ec2select/weighting"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// A NodePool built with Karpenter's Go types survives the trip through
// weighting: same spec, metadata and TypeMeta filled in.
func TestNodePoolRoundTrip(t *testing.T) {
	np := nodePool()
	wnp, err := karpenter.NodePoolFromKarpenter(np)
	if err != nil {
		t.Fatal(err)
	}
	if wnp.Name != "general" || wnp.Weight != 10 {
		t.Errorf("decoded name %q weight %d", wnp.Name, wnp.Weight)
	}
	wantFamily := compat.Requirement{Key: "karpenter.k8s.aws/instance-family", Operator: compat.Exists, MinValues: 3}
	if diff := cmp.Diff(wantFamily, wnp.Requirements[2]); diff != "" {
		t.Errorf("instance-family requirement (-want +got):\n%s", diff)
	}
	wantTaints := []userdata.Taint{{Key: "example.com/dedicated", Value: "platform", Effect: userdata.NoSchedule}}
	if diff := cmp.Diff(wantTaints, wnp.Taints); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	back, err := karpenter.NodePoolToKarpenter(wnp)
	if err != nil {
		t.Fatal(err)
	}
	want := np.DeepCopy()
	want.APIVersion, want.Kind = "karpenter.sh/v1", "NodePool"
	if diff := cmp.Diff(want, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// Fields Karpenter keeps and weighting does not interpret (status, a
// NodePool's uid) come back as Karpenter wrote them, except status,
// which is Karpenter's to write.
func TestNodePoolRoundTripKeepsServerFields(t *testing.T) {
	np := nodePool()
	np.UID = "3f1e0c2a-8d0b-4c55-9c52-1d1c4bbf8e1f"
	np.ResourceVersion = "4711"
	np.Status.Resources = corev1.ResourceList{corev1.ResourceCPU: np.Spec.Limits[corev1.ResourceCPU]}
	wnp, err := karpenter.NodePoolFromKarpenter(np)
	if err != nil {
		t.Fatal(err)
	}
	back, err := karpenter.NodePoolToKarpenter(wnp)
	if err != nil {
		t.Fatal(err)
	}
	if back.UID != np.UID || back.ResourceVersion != np.ResourceVersion {
		t.Errorf("uid %q resourceVersion %q, want %q %q", back.UID, back.ResourceVersion, np.UID, np.ResourceVersion)
	}
	if back.Status.Resources != nil {
		t.Errorf("status came back: %v", back.Status)
	}
}

func TestNodePoolFromKarpenterRejects(t *testing.T) {
	np := nodePool()
	np.Spec.Template.Spec.Taints = append(np.Spec.Template.Spec.Taints, corev1.Taint{Key: "bad", Effect: "Sometimes"})
	_, err := karpenter.NodePoolFromKarpenter(np)
	if err == nil || !strings.Contains(err.Error(), "karpenter: NodePool general:") || !strings.Contains(err.Error(), "Sometimes") {
		t.Fatalf("error = %v, want one naming the NodePool and the effect", err)
	}
}

// The weighted tiers generated from a Karpenter NodePool come back as
// Karpenter NodePools: the base's disruption, limits and taints kept, each
// tier's weight and families set.
func TestWeightedNodePoolsToKarpenter(t *testing.T) {
	base, err := karpenter.NodePoolFromKarpenter(nodePool())
	if err != nil {
		t.Fatal(err)
	}
	base.Weight = 0 // each generated NodePool takes its tier's weight
	_, infos := ec2fake.DefaultCatalog()
	catalog := make([]compat.InstanceType, 0, len(infos))
	for _, info := range infos {
		it, err := compat.InstanceTypeFromEC2(info)
		if err != nil {
			continue // mac and other types no EKS node runs on, which Karpenter filters out too
		}
		catalog = append(catalog, it)
	}
	policy := weighting.Policy{Tiers: []weighting.Tier{
		{Name: "graviton", Weight: 50, Families: []string{"m7g", "c7g", "c6gn"}},
		{Name: "intel", Weight: 20, Families: []string{"m7i", "c7i", "m6i"}},
	}}
	pools, err := policy.NodePools(catalog, base)
	if err != nil {
		t.Fatal(err)
	}
	if len(pools) != 2 {
		t.Fatalf("got %d NodePools, want 2", len(pools))
	}
	wantFamilies := map[string][]string{"general-graviton": {"c6gn", "c7g", "m7g"}, "general-intel": {"c7i", "m6i", "m7i"}}
	for _, p := range pools {
		kp, err := karpenter.NodePoolToKarpenter(p)
		if err != nil {
			t.Fatal(err)
		}
		if kp.Spec.Weight == nil || *kp.Spec.Weight != p.Weight {
			t.Errorf("%s: weight %v, want %d", kp.Name, kp.Spec.Weight, p.Weight)
		}
		if diff := cmp.Diff(nodePool().Spec.Disruption, kp.Spec.Disruption); diff != "" {
			t.Errorf("%s: disruption (-want +got):\n%s", kp.Name, diff)
		}
		if diff := cmp.Diff(nodePool().Spec.Template.Spec.Taints, kp.Spec.Template.Spec.Taints); diff != "" {
			t.Errorf("%s: taints (-want +got):\n%s", kp.Name, diff)
		}
		reqs, err := karpenter.RequirementsFromKarpenter(kp.Spec.Template.Spec.Requirements)
		if err != nil {
			t.Fatalf("%s: %v", kp.Name, err)
		}
		fam, _ := reqs.Get("karpenter.k8s.aws/instance-family")
		want := []compat.Requirement{{Key: "karpenter.k8s.aws/instance-family", Operator: compat.In, Values: wantFamilies[kp.Name], MinValues: 3}}
		if diff := cmp.Diff(want, fam); diff != "" {
			t.Errorf("%s: instance-family (-want +got):\n%s", kp.Name, diff)
		}
	}
}

// A field a newer Karpenter added, kept by weighting in Unknown, has no
// place in v1.14's Go type: the conversion says so rather than drop it.
func TestNodePoolToKarpenterRefusesUnknownFields(t *testing.T) {
	wnp, err := karpenter.NodePoolFromKarpenter(nodePool())
	if err != nil {
		t.Fatal(err)
	}
	wnp.Unknown = map[string]any{"/spec/template/spec/nodeRepairPolicy": "Aggressive"}
	_, err = karpenter.NodePoolToKarpenter(wnp)
	if err == nil || !strings.Contains(err.Error(), "nodeRepairPolicy") {
		t.Fatalf("error = %v, want one naming nodeRepairPolicy", err)
	}
}
