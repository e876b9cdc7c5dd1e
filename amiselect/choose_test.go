package amiselect_test

import (
	"fmt"
	"testing"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
)

// An m5.large gets the standard AMI although the NVIDIA one comes first,
// whether Choose is asked about the type's facts or about the labels of a
// node of the type.
func ExampleChoose() {
	amd64 := compat.MustRequirements(compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{"amd64"}})
	amis := []amiselect.AMI{
		{ID: "ami-0nvidia", Requirements: amiselect.NVIDIA.Requirements().Intersect(amd64)},
		{ID: "ami-0standard", Requirements: amiselect.Standard.Requirements().Intersect(amd64)},
	}
	m5 := compat.InstanceType{Name: "m5.large", Family: "m5", Category: "m", Generation: 5, Size: "large", Arch: "amd64", VCPU: 2, MemoryMiB: 8192}
	fmt.Println(amis[amiselect.Choose(&m5, amis)].ID)
	fmt.Println(amis[amiselect.Choose(compat.FromNodeLabels(m5.Labels()), amis)].ID)
	fmt.Println(amiselect.Choose(&m5, amis[:1]))
	// Output:
	// ami-0standard
	// ami-0standard
	// -1
}

// TestChooseIsFirstStrictMatch pins Choose to the first AMI the candidate
// satisfies strictly: a node whose labels say nothing about GPUs (built
// with FromLabels, not FromNodeLabels) does not match the NVIDIA AMI's
// "instance-gpu-count Exists", as Karpenter's lenient comparison did
// (karpenter-provider-aws #7925).
func TestChooseIsFirstStrictMatch(t *testing.T) {
	amd64 := compat.MustRequirements(compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{"amd64"}})
	arm64 := compat.MustRequirements(compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{"arm64"}})
	amis := []amiselect.AMI{
		{ID: "nvidia", Requirements: amiselect.NVIDIA.Requirements().Intersect(amd64)},
		{ID: "arm", Requirements: amiselect.Standard.Requirements().Intersect(arm64)},
		{ID: "std", Requirements: amiselect.Standard.Requirements().Intersect(amd64)},
		{ID: "std-again", Requirements: amiselect.Standard.Requirements().Intersect(amd64)},
	}
	labels := map[string]string{compat.LabelArch: "amd64", compat.LabelInstanceType: "m5.large"}
	tests := []struct {
		name string
		c    amiselect.Candidate
		amis []amiselect.AMI
		want int
	}{
		{"node labels", compat.FromNodeLabels(labels), amis, 2},
		{"labels without GPU keys", compat.FromLabels(labels), amis, 2},
		{"nothing fits", compat.FromNodeLabels(labels), amis[:2], -1},
		{"no AMIs", compat.FromNodeLabels(labels), nil, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := amiselect.Choose(tc.c, tc.amis); got != tc.want {
				t.Errorf("Choose = %d; want %d", got, tc.want)
			}
		})
	}
}
