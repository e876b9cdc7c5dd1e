package amimap_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/amiselect/amimap"
	"github.com/ec2select/ec2select/amiselect/internal/eksname"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// eksAMITypes is EKS's AMITypes enum as aws-sdk-go-v2 service/eks
// v1.105.6 types/enums.go lists it (23 values).
var eksAMITypes = []string{
	"AL2_x86_64", "AL2_x86_64_GPU", "AL2_ARM_64", "CUSTOM", "BOTTLEROCKET_ARM_64", "BOTTLEROCKET_x86_64",
	"BOTTLEROCKET_ARM_64_FIPS", "BOTTLEROCKET_x86_64_FIPS", "BOTTLEROCKET_ARM_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA",
	"BOTTLEROCKET_ARM_64_NVIDIA_FIPS", "BOTTLEROCKET_x86_64_NVIDIA_FIPS", "WINDOWS_CORE_2019_x86_64", "WINDOWS_FULL_2019_x86_64",
	"WINDOWS_CORE_2022_x86_64", "WINDOWS_FULL_2022_x86_64", "WINDOWS_CORE_2025_x86_64", "WINDOWS_FULL_2025_x86_64",
	"AL2023_x86_64_STANDARD", "AL2023_ARM_64_STANDARD", "AL2023_x86_64_NEURON", "AL2023_x86_64_NVIDIA", "AL2023_ARM_64_NVIDIA",
}

// TestIdentifyAMIType: every amiType EKS defines is known but CUSTOM, and
// each says what the SSM parameter EKS resolves it from says (the
// recommended parameter of each family, ec2fake's public parameters).
func TestIdentifyAMIType(t *testing.T) {
	if diff := cmp.Diff(slices.Sorted(slices.Values(eksAMITypes)), amimap.AMITypes()); diff != "" {
		t.Errorf("AMITypes() (-EKS's +ours)\n%s", diff)
	}
	// The parameter each type's image comes from (Kubernetes 1.32).
	const eks, br = "/aws/service/eks/optimized-ami/1.32/", "/aws/service/bottlerocket/aws-k8s-1.32"
	params := map[string]string{
		"AL2_x86_64": eks + "amazon-linux-2/recommended/image_id", "AL2_x86_64_GPU": eks + "amazon-linux-2-gpu/recommended/image_id",
		"AL2_ARM_64":             eks + "amazon-linux-2-arm64/recommended/image_id",
		"AL2023_x86_64_STANDARD": eks + "amazon-linux-2023/x86_64/standard/recommended/image_id", "AL2023_ARM_64_STANDARD": eks + "amazon-linux-2023/arm64/standard/recommended/image_id",
		"AL2023_x86_64_NEURON": eks + "amazon-linux-2023/x86_64/neuron/recommended/image_id", "AL2023_x86_64_NVIDIA": eks + "amazon-linux-2023/x86_64/nvidia/recommended/image_id",
		"AL2023_ARM_64_NVIDIA": eks + "amazon-linux-2023/arm64/nvidia/recommended/image_id",
		"BOTTLEROCKET_x86_64":  br + "/x86_64/latest/image_id", "BOTTLEROCKET_ARM_64": br + "/arm64/latest/image_id",
		"BOTTLEROCKET_x86_64_FIPS": br + "-fips/x86_64/latest/image_id", "BOTTLEROCKET_ARM_64_FIPS": br + "-fips/arm64/latest/image_id",
		"BOTTLEROCKET_x86_64_NVIDIA": br + "-nvidia/x86_64/latest/image_id", "BOTTLEROCKET_ARM_64_NVIDIA": br + "-nvidia/arm64/latest/image_id",
		"BOTTLEROCKET_x86_64_NVIDIA_FIPS": br + "-nvidia-fips/x86_64/latest/image_id", "BOTTLEROCKET_ARM_64_NVIDIA_FIPS": br + "-nvidia-fips/arm64/latest/image_id",
		"WINDOWS_CORE_2019_x86_64": "/aws/service/ami-windows-latest/Windows_Server-2019-English-Core-EKS_Optimized-1.32/image_id",
		"WINDOWS_FULL_2019_x86_64": "/aws/service/ami-windows-latest/Windows_Server-2019-English-Full-EKS_Optimized-1.32/image_id",
		"WINDOWS_CORE_2022_x86_64": "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.32/image_id",
		"WINDOWS_FULL_2022_x86_64": "/aws/service/ami-windows-latest/Windows_Server-2022-English-Full-EKS_Optimized-1.32/image_id",
		"WINDOWS_CORE_2025_x86_64": "/aws/service/ami-windows-latest/Windows_Server-2025-English-Core-EKS_Optimized-1.32/image_id",
		"WINDOWS_FULL_2025_x86_64": "/aws/service/ami-windows-latest/Windows_Server-2025-English-Full-EKS_Optimized-1.32/image_id",
	}
	for _, typ := range eksAMITypes {
		id := amimap.IdentifyAMIType(typ)
		if typ == "CUSTOM" {
			if id.Unknown == "" || id.Family != "" {
				t.Errorf("CUSTOM: %+v; want unknown", id)
			}
			continue
		}
		if id.Unknown != "" || id.Family == "" || id.Arch == "" {
			t.Errorf("%s: %+v", typ, id)
			continue
		}
		want := amimap.IdentifySSMParameter("resolve:ssm:" + params[typ])
		want.KubernetesVersion = ""
		if diff := cmp.Diff(want, id); diff != "" {
			t.Errorf("%s: against its parameter (-parameter +amiType)\n%s", typ, diff)
		}
	}
	if id := amimap.IdentifyAMIType("AL2025_x86_64"); id.Unknown == "" {
		t.Errorf("an unknown amiType is %+v", id)
	}
}

// TestIdentifyImageName: the exported recognizer agrees with Select on
// every image of the full catalog (every recorded EKS release of every
// family): the same family, architecture and release, and the variant of
// each AMI Select makes of the image among the identity's.
func TestIdentifyImageName(t *testing.T) {
	images, _ := ec2fake.FullCatalog()
	sel := amiselect.Select(images, amiselect.SelectOptions{})
	all := sel.AMIs
	for _, s := range sel.Superseded() {
		all = append(all, s.AMI)
	}
	checked := 0
	for _, a := range all {
		id := amimap.IdentifyImageName(a.Name)
		if a.Family == compat.Custom {
			if id.Unknown == "" {
				t.Errorf("%s: custom for Select, %+v here", a.Name, id)
			}
			continue
		}
		if id.Family != a.Family || id.Arch != a.Arch || id.Release != a.Release || a.Variant != amimap.Unspecified && !slices.Contains(id.Variants, a.Variant) {
			t.Errorf("%s: %+v; Select: %s %s %s %s", a.Name, id, a.Family, a.Arch, a.Release, a.Variant)
		}
		if id.KubernetesVersion == "" || !strings.Contains(a.Name, id.KubernetesVersion) {
			t.Errorf("%s: Kubernetes version %q", a.Name, id.KubernetesVersion)
		}
		checked++
	}
	if checked < 3000 {
		t.Errorf("checked %d images; the full catalog has over 3,000", checked)
	}
}

// TestIdentifySSMParameter: every public image_id parameter ec2fake
// derives from the catalog (the paths AWS publishes) identifies the
// family, architecture and variants of the image it holds; a parameter of
// one's own is unknown.
func TestIdentifySSMParameter(t *testing.T) {
	images, types := ec2fake.DefaultCatalog()
	b := ec2fake.New(ec2fake.Options{})
	if err := b.Load(images, types); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, img := range images {
		names[aws.ToString(img.ImageId)] = aws.ToString(img.Name)
	}
	checked := 0
	p := ssm.NewGetParametersByPathPaginator(b, &ssm.GetParametersByPathInput{Path: aws.String("/aws/service/"), Recursive: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, prm := range page.Parameters {
			name := aws.ToString(prm.Name)
			if !strings.HasSuffix(name, "/image_id") {
				continue
			}
			want := amimap.IdentifyImageName(names[aws.ToString(prm.Value)])
			got := amimap.IdentifySSMParameter("resolve:ssm:" + name + ":1")
			if got.Family != want.Family || got.Arch != want.Arch || !slices.Equal(got.Variants, want.Variants) || got.KubernetesVersion != want.KubernetesVersion ||
				got.Release != "" && got.Release != want.Release {
				t.Errorf("%s: %+v; its image %s: %+v", name, got, names[aws.ToString(prm.Value)], want)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("checked %d parameters", checked)
	}
	for _, own := range []string{"/team/ami/latest", "resolve:ssm:/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/bogus/recommended/image_id", "ami-0abc"} {
		if id := amimap.IdentifySSMParameter(own); id.Unknown == "" || id.Family != "" {
			t.Errorf("%s: %+v; want unknown", own, id)
		}
	}
}

// FuzzIdentify: any text is identified or said to be unknown, never both,
// never a panic; an identified image has an architecture.
func FuzzIdentify(f *testing.F) {
	for _, s := range []string{"amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403", "AL2_x86_64",
		"resolve:ssm:/aws/service/bottlerocket/aws-k8s-1.32-nvidia/x86_64/1.39.1-fe9ebb75/image_id:3",
		"/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id", "/aws/service/image_id", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, id := range []amimap.Identity{amimap.IdentifyImageName(s), amimap.IdentifyAMIType(s), amimap.IdentifySSMParameter(s)} {
			if (id.Unknown == "") == (id.Family == "") || id.Family != "" && id.Arch == "" {
				t.Fatalf("%q: %+v", s, id)
			}
		}
	})
}

// eksname numbers the variants a name states as Variant does.
func TestVariantCodesAgree(t *testing.T) {
	for code, v := range map[uint8]amimap.Variant{eksname.Standard: amimap.Standard, eksname.NVIDIA: amimap.NVIDIA, eksname.Neuron: amimap.Neuron} {
		if amimap.Variant(code) != v {
			t.Errorf("eksname's code %d is amimap's %v, want %v", code, amimap.Variant(code), v)
		}
	}
}
