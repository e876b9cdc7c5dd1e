package cli

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/ec2fake"
)

// Offline answers pinned releases from the full history, and Windows
// aliases for the Kubernetes versions the history records no Windows
// release for from the default catalog.
func TestOffline(t *testing.T) {
	b, err := Offline(ec2fake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		alias, k8s string
		want       []string // the selected images' names, in selection order
	}{
		// Published manifests pin these (ec2fake/catalog/README.md).
		{"al2023@v20250715", "1.33", []string{
			"amazon-eks-node-al2023-arm64-nvidia-1.33-v20250715", "amazon-eks-node-al2023-arm64-standard-1.33-v20250715",
			"amazon-eks-node-al2023-x86_64-neuron-1.33-v20250715", "amazon-eks-node-al2023-x86_64-nvidia-1.33-v20250715",
			"amazon-eks-node-al2023-x86_64-standard-1.33-v20250715"}},
		{"bottlerocket@v1.39.1", "1.33", []string{
			"bottlerocket-aws-k8s-1.33-nvidia-aarch64-v1.39.1-fe9ebb75", "bottlerocket-aws-k8s-1.33-nvidia-x86_64-v1.39.1-fe9ebb75",
			"bottlerocket-aws-k8s-1.33-aarch64-v1.39.1-fe9ebb75", "bottlerocket-aws-k8s-1.33-x86_64-v1.39.1-fe9ebb75", "bottlerocket-aws-k8s-1.33-x86_64-v1.39.1-fe9ebb75"}},
		// Not recorded for 1.36, nor in the changelog at all.
		{"al2023@v20250715", "1.36", nil},
		{"al2023@v20250801", "1.33", nil},
		// The history records Windows Server 2022 for 1.29 to 1.34: its
		// newest, 2026.01.22, and none of the default catalog's.
		{"windows2022@latest", "1.31", []string{"Windows_Server-2022-English-Core-EKS_Optimized-1.31-2026.01.22"}},
		// It records none for 1.36: the default catalog's.
		{"windows2022@latest", "1.36", []string{"Windows_Server-2022-English-Core-EKS_Optimized-1.36-2026.11.12"}},
		{"windows2025@latest", "1.36", []string{"Windows_Server-2025-English-Core-EKS_Optimized-1.36-2026.11.12"}},
	} {
		t.Run(tc.alias+" "+tc.k8s, func(t *testing.T) {
			sel, err := amiselect.Resolve(context.Background(), b, []amiselect.Term{{Alias: tc.alias}},
				amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: tc.k8s}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range sel.AMIs {
				got = append(got, a.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s for %s selects (-want +got):\n%s", tc.alias, tc.k8s, diff)
			}
		})
	}
}

// windowsGaps adds a default image only for a Windows line (version,
// edition, Kubernetes version) the history has no image of.
func TestWindowsGaps(t *testing.T) {
	img := func(name string) ec2types.Image { return ec2types.Image{Name: aws.String(name)} }
	history := []ec2types.Image{
		img("Windows_Server-2022-English-Core-EKS_Optimized-1.31-2024.11.12"),
		img("amazon-eks-node-al2023-x86_64-standard-1.36-v20260714"),
	}
	defaults := []ec2types.Image{
		img("Windows_Server-2022-English-Core-EKS_Optimized-1.31-2026.11.12"), // recorded line: left out
		img("Windows_Server-2022-English-Full-EKS_Optimized-1.31-2026.11.12"), // another edition
		img("Windows_Server-2022-English-Core-EKS_Optimized-1.36-2026.11.12"), // another version
		img("amazon-eks-node-al2023-x86_64-standard-1.36-v20251209"),          // not Windows: the history's alone
		img("Windows_Server"),
	}
	var got []string
	for _, i := range windowsGaps(history, defaults) {
		got = append(got, aws.ToString(i.Name))
	}
	want := []string{"Windows_Server-2022-English-Full-EKS_Optimized-1.31-2026.11.12", "Windows_Server-2022-English-Core-EKS_Optimized-1.36-2026.11.12"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("windowsGaps mismatch (-want +got):\n%s", diff)
	}
}

func TestOfflineKubernetesVersions(t *testing.T) {
	got := OfflineKubernetesVersions()
	got[0] = "changed"
	if OfflineKubernetesVersions()[0] != "1.29" {
		t.Error("OfflineKubernetesVersions returned shared memory")
	}
}
