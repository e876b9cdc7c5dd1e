package karpenter_test

import (
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/karpenter"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

func ptr[T any](v T) *T { return &v }

func TestRequirementsRoundTrip(t *testing.T) {
	in := []karpv1.NodeSelectorRequirementWithMinValues{
		{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}},
		{Key: "karpenter.k8s.aws/instance-family", Operator: corev1.NodeSelectorOpIn, Values: []string{"c7i", "m7i", "r7i"}, MinValues: ptr(2)},
		{Key: "karpenter.k8s.aws/instance-generation", Operator: karpv1.NodeSelectorOpGte, Values: []string{"6"}},
		{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"spot"}},
	}
	reqs, err := karpenter.RequirementsFromKarpenter(in)
	if err != nil {
		t.Fatal(err)
	}
	fam, ok := reqs.Get("karpenter.k8s.aws/instance-family")
	if !ok || len(fam) != 1 || fam[0].MinValues != 2 {
		t.Fatalf("instance-family lost its minValues: %v", fam)
	}
	back, err := karpenter.RequirementsFromKarpenter(karpenter.RequirementsToKarpenter(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equal(reqs) {
		t.Errorf("round trip changed the set:\nwant %v\ngot  %v", reqs, back)
	}
	if diff := cmp.Diff(reqs.List(), back.List()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if !reqs.Matches(map[string]string{
		corev1.LabelArchStable:                  "arm64",
		"karpenter.k8s.aws/instance-family":     "c7i",
		"karpenter.k8s.aws/instance-generation": "7",
	}) {
		t.Error("a c7i arm64 on-demand node should match")
	}
}

func TestRequirementsFromKarpenterRejects(t *testing.T) {
	tests := []struct {
		name string
		in   karpv1.NodeSelectorRequirementWithMinValues
		want string
	}{
		{"minValues zero", karpv1.NodeSelectorRequirementWithMinValues{Key: "a", Operator: corev1.NodeSelectorOpIn, Values: []string{"x"}, MinValues: ptr(0)}, "minValues 0"},
		{"minValues 51", karpv1.NodeSelectorRequirementWithMinValues{Key: "a", Operator: corev1.NodeSelectorOpIn, Values: []string{"x"}, MinValues: ptr(51)}, "minValues 51"},
		{"unknown operator", karpv1.NodeSelectorRequirementWithMinValues{Key: "a", Operator: "Near", Values: []string{"x"}}, "Near"},
		{"Gt with two values", karpv1.NodeSelectorRequirementWithMinValues{Key: "a", Operator: corev1.NodeSelectorOpGt, Values: []string{"1", "2"}}, "karpenter: requirements:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := karpenter.RequirementsFromKarpenter([]karpv1.NodeSelectorRequirementWithMinValues{tc.in})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestRequirementsFromNodeSelector(t *testing.T) {
	reqs, err := karpenter.RequirementsFromNodeSelector([]corev1.NodeSelectorRequirement{
		{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"m7g.large"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := compat.MustRequirements(compat.Requirement{Key: corev1.LabelInstanceTypeStable, Operator: compat.In, Values: []string{"m7g.large"}})
	if !reqs.Equal(want) {
		t.Errorf("got %v, want %v", reqs, want)
	}
}
