package amiselect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAliasParameters pins the SSM parameters an alias reads to
// Karpenter's, aws/karpenter-provider-aws @1d927085dd81a9df9301e613f371dac5b4d16bfe:
// pkg/providers/amifamily/al2.go:45-60 (three images; latest reads
// "recommended"), al2023.go:48-88 (five arch/variant pairs, the release
// name as the leaf), bottlerocket.go:44-53 (the version with its "v"
// trimmed, "latest" for latest; arm64 spelled arm64) and windows.go:51-54
// (ami-windows-latest, Core only).
func TestAliasParameters(t *testing.T) {
	const eks = "/aws/service/eks/optimized-ami/"
	tests := []struct {
		alias, k8s string
		want       []string
	}{
		{"al2@latest", "1.32", []string{
			eks + "1.32/amazon-linux-2/recommended/image_id",
			eks + "1.32/amazon-linux-2-arm64/recommended/image_id",
			eks + "1.32/amazon-linux-2-gpu/recommended/image_id",
		}},
		{"al2@v20250403", "1.31", []string{
			eks + "1.31/amazon-linux-2/amazon-eks-node-1.31-v20250403/image_id",
			eks + "1.31/amazon-linux-2-arm64/amazon-eks-arm64-node-1.31-v20250403/image_id",
			eks + "1.31/amazon-linux-2-gpu/amazon-eks-gpu-node-1.31-v20250403/image_id",
		}},
		{"al2023@latest", "1.33", []string{
			eks + "1.33/amazon-linux-2023/x86_64/standard/recommended/image_id",
			eks + "1.33/amazon-linux-2023/x86_64/nvidia/recommended/image_id",
			eks + "1.33/amazon-linux-2023/x86_64/neuron/recommended/image_id",
			eks + "1.33/amazon-linux-2023/arm64/standard/recommended/image_id",
			eks + "1.33/amazon-linux-2023/arm64/nvidia/recommended/image_id",
		}},
		{"al2023@v20251105", "1.34", []string{
			eks + "1.34/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.34-v20251105/image_id",
			eks + "1.34/amazon-linux-2023/x86_64/nvidia/amazon-eks-node-al2023-x86_64-nvidia-1.34-v20251105/image_id",
			eks + "1.34/amazon-linux-2023/x86_64/neuron/amazon-eks-node-al2023-x86_64-neuron-1.34-v20251105/image_id",
			eks + "1.34/amazon-linux-2023/arm64/standard/amazon-eks-node-al2023-arm64-standard-1.34-v20251105/image_id",
			eks + "1.34/amazon-linux-2023/arm64/nvidia/amazon-eks-node-al2023-arm64-nvidia-1.34-v20251105/image_id",
		}},
		{"bottlerocket@latest", "1.33", []string{
			"/aws/service/bottlerocket/aws-k8s-1.33/x86_64/latest/image_id",
			"/aws/service/bottlerocket/aws-k8s-1.33/arm64/latest/image_id",
			"/aws/service/bottlerocket/aws-k8s-1.33-nvidia/x86_64/latest/image_id",
			"/aws/service/bottlerocket/aws-k8s-1.33-nvidia/arm64/latest/image_id",
		}},
		{"bottlerocket@v1.49.0", "1.33", []string{
			"/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.49.0/image_id",
			"/aws/service/bottlerocket/aws-k8s-1.33/arm64/1.49.0/image_id",
			"/aws/service/bottlerocket/aws-k8s-1.33-nvidia/x86_64/1.49.0/image_id",
			"/aws/service/bottlerocket/aws-k8s-1.33-nvidia/arm64/1.49.0/image_id",
		}},
		{"bottlerocket@1.49.0", "1.33", []string{
			"/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.49.0/image_id",
			"/aws/service/bottlerocket/aws-k8s-1.33/arm64/1.49.0/image_id",
			"/aws/service/bottlerocket/aws-k8s-1.33-nvidia/x86_64/1.49.0/image_id",
			"/aws/service/bottlerocket/aws-k8s-1.33-nvidia/arm64/1.49.0/image_id",
		}},
		{"windows2019@latest", "1.32", []string{"/aws/service/ami-windows-latest/Windows_Server-2019-English-Core-EKS_Optimized-1.32/image_id"}},
		{"windows2022@latest", "1.33", []string{"/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.33/image_id"}},
		{"windows2025@latest", "1.35", []string{"/aws/service/ami-windows-latest/Windows_Server-2025-English-Core-EKS_Optimized-1.35/image_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.alias+"/"+tt.k8s, func(t *testing.T) {
			k8s, err := parseMinorVersion(tt.k8s)
			if err != nil {
				t.Fatal(err)
			}
			spec, err := parseAlias(tt.alias, tt.k8s, k8s)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, aliasParameters(spec, tt.k8s)); diff != "" {
				t.Errorf("aliasParameters mismatch (-want +got):\n%s", diff)
			}
			if n := len(aliasParameters(spec, tt.k8s)); n > maxGetParameters {
				t.Errorf("%d parameters do not fit one GetParameters call", n)
			}
		})
	}
}
