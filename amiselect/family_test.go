package amiselect

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
)

func TestRecognize(t *testing.T) {
	type result struct {
		Family   compat.AMIFamily
		Variants []Variant
		Release  string
	}
	amd, arm := compat.ArchAMD64, compat.ArchARM64
	tests := []struct {
		name, arch string
		want       result
	}{
		{"amazon-eks-node-1.32-v20250403", amd, result{compat.AL2, []Variant{Standard}, "v20250403"}},
		{"amazon-eks-arm64-node-1.32-v20250403", arm, result{compat.AL2, []Variant{Standard}, "v20250403"}},
		{"amazon-eks-gpu-node-1.32-v20250403", amd, result{compat.AL2, []Variant{NVIDIA, Neuron}, "v20250403"}},
		{"amazon-eks-node-al2023-x86_64-standard-1.32-v20250403", amd, result{compat.AL2023, []Variant{Standard}, "v20250403"}},
		{"amazon-eks-node-al2023-x86_64-nvidia-1.32-v20250403", amd, result{compat.AL2023, []Variant{NVIDIA}, "v20250403"}},
		{"amazon-eks-node-al2023-x86_64-neuron-1.32-v20250403", amd, result{compat.AL2023, []Variant{Neuron}, "v20250403"}},
		{"amazon-eks-node-al2023-arm64-standard-1.32-v20250403", arm, result{compat.AL2023, []Variant{Standard}, "v20250403"}},
		{"amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403", arm, result{compat.AL2023, []Variant{NVIDIA}, "v20250403"}},
		{"bottlerocket-aws-k8s-1.32-x86_64-v1.49.0-713f44ce", amd, result{compat.Bottlerocket, []Variant{Standard, Neuron}, "v1.49.0"}},
		{"bottlerocket-aws-k8s-1.32-aarch64-v1.49.0-713f44ce", arm, result{compat.Bottlerocket, []Variant{Standard}, "v1.49.0"}},
		{"bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.49.0-713f44ce", amd, result{compat.Bottlerocket, []Variant{NVIDIA}, "v1.49.0"}},
		{"bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.49.0-713f44ce", arm, result{compat.Bottlerocket, []Variant{NVIDIA}, "v1.49.0"}},
		{"bottlerocket-aws-k8s-1.32-fips-x86_64-v1.49.0-713f44ce", amd, result{compat.Bottlerocket, []Variant{Standard}, "v1.49.0"}},
		{"bottlerocket-aws-k8s-1.32-fips-aarch64-v1.49.0-713f44ce", arm, result{compat.Bottlerocket, []Variant{Standard}, "v1.49.0"}},
		{"Windows_Server-2019-English-Core-EKS_Optimized-1.32-2025.04.14", amd, result{compat.Windows2019, nil, "2025.04.14"}},
		{"Windows_Server-2022-English-Full-EKS_Optimized-1.31-2025.03.12", amd, result{compat.Windows2022, nil, "2025.03.12"}},
		{"Windows_Server-2025-English-Core-EKS_Optimized-1.35-2026.04.18", amd, result{compat.Windows2025, nil, "2026.04.18"}},
		{"Windows_Server-2025-English-Core-EKS_Optimized-1.35-2026-01-22", amd, result{compat.Windows2025, nil, "2026-01-22"}},

		// The architecture in the name must be the image's.
		{"amazon-eks-node-1.32-v20250403", arm, result{}},
		{"amazon-eks-arm64-node-1.32-v20250403", amd, result{}},
		{"amazon-eks-gpu-node-1.32-v20250403", arm, result{}},
		{"amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403", amd, result{}},
		{"bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.49.0-713f44ce", amd, result{}},
		{"Windows_Server-2022-English-Core-EKS_Optimized-1.32-2025.04.14", arm, result{}},

		// Near misses are custom.
		{"team-base-al2023-20250301", amd, result{}},
		{"amazon-eks-node-1.32-v20250403-hardened", amd, result{}},
		{"amazon-eks-node-1.32-20250403", amd, result{}},
		{"amazon-eks-node-01.32-v20250403", amd, result{}},
		{"amazon-eks-node-al2023-x86_64-fips-1.32-v20250403", amd, result{}},
		{"amazon-eks-node-al2023-x86_64-standard-1.32", amd, result{}},
		{"bottlerocket-aws-k8s-1.32-fips-nvidia-x86_64-v1.49.0-713f44ce", amd, result{}},
		{"bottlerocket-aws-k8s-1.32-x86_64-v1.49-713f44ce", amd, result{}},
		{"bottlerocket-aws-k8s-1.32-x86_64-v1.49.0", amd, result{}},
		{"bottlerocket-aws-ecs-2-x86_64-v1.49.0-713f44ce", amd, result{}},
		{"Windows_Server-2016-English-Core-EKS_Optimized-1.32-2025.04.14", amd, result{}},
		{"Windows_Server-2022-English-Core-Base-2025.04.14", amd, result{}},
		{"Windows_Server-2022-English-Core-EKS_Optimized-1.32-latest", amd, result{}},
		{"Windows_Server-2022-English-Core-EKS_Optimized-1.32-2025.04-14", amd, result{}},
		{"", amd, result{}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.arch, func(t *testing.T) {
			if tt.want.Family == "" {
				tt.want.Family = compat.Custom // the rows above leave it out
			}
			r := recognize(tt.name, tt.arch)
			got := result{Family: r.family, Release: r.release}
			if r.n > 0 {
				got.Variants = r.variants[:r.n]
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("recognize(%q, %q) mismatch (-want +got):\n%s", tt.name, tt.arch, diff)
			}
		})
	}
}

// TestRequirementsFor pins each requirement set to the facts of
// reference/requirements.md §3.
func TestRequirementsFor(t *testing.T) {
	arch := func(a string) compat.Requirement {
		return compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{a}}
	}
	tests := []struct {
		key  setKey
		want []compat.Requirement
	}{
		{setKey{arch: "amd64"}, []compat.Requirement{arch("amd64")}},
		{setKey{variant: Standard, arch: "arm64"}, append(Standard.Requirements().List(), arch("arm64"))},
		{setKey{variant: NVIDIA, arch: "arm64"}, append(NVIDIA.Requirements().List(), arch("arm64"))},
		{setKey{variant: Neuron, arch: "amd64"}, append(Neuron.Requirements().List(), arch("amd64"))},
		{setKey{arch: "amd64", build: compat.WindowsBuild2022}, []compat.Requirement{
			arch("amd64"),
			{Key: compat.LabelOS, Operator: compat.In, Values: []string{"windows"}},
			{Key: compat.LabelWindowsBuild, Operator: compat.In, Values: []string{compat.WindowsBuild2022}},
		}},
	}
	for _, tt := range tests {
		want := compat.MustRequirements(tt.want...)
		if got := requirementsFor(tt.key); !got.Equal(want) {
			t.Errorf("requirementsFor(%+v) = %v, want %v", tt.key, got, want)
		}
	}
}

func TestVariantAndFamilyStrings(t *testing.T) {
	got := []string{Unspecified.String(), Standard.String(), NVIDIA.String(), Neuron.String(), Variant(9).String(),
		AMI{ID: "ami-1", Family: compat.Custom}.String(), AMI{ID: "ami-2", Family: compat.AL2}.String()}
	want := []string{"unspecified", "standard", "nvidia", "neuron", "Variant(9)", "ami-1 (custom )", "ami-2 (al2 )"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("strings mismatch (-want +got):\n%s", diff)
	}
}
