package amimap

import (
	"slices"
	"strings"

	"github.com/ec2select/ec2select/amiselect/internal/eksname"
	"github.com/ec2select/ec2select/compat"
)

// Identity is what an autoscaler's view of a node group says about the
// image its nodes boot: an EKS managed node group's amiType
// ([IdentifyAMIType]), an image's name ([IdentifyImageName]), or the SSM
// parameter a launch template resolves its image from
// ([IdentifySSMParameter]). The family decides the boot software, and so
// max pods and reservations (package capacity); the variants decide the
// instance types the image serves ([Variant.Requirements]).
type Identity struct {
	// Family is the AMI family; "" when Unknown is set.
	Family compat.AMIFamily
	// Variants are the variants the image serves: one, or two for AL2's
	// accelerated image (NVIDIA and Neuron) and Bottlerocket's x86_64
	// standard image (Standard and Neuron); none for Windows.
	Variants []Variant
	// Arch is the architecture (kube name) the input states; "" when it
	// states none.
	Arch string
	// KubernetesVersion ("1.32") and Release ("v20250403", "v1.39.1",
	// "2025.04.08") are what the input states; "" when it states none.
	KubernetesVersion, Release string
	// Unknown says why the input identifies no EKS-optimized image (a
	// custom image, amiType CUSTOM, a parameter outside AWS's public
	// ones); empty when it does. A node of an unknown image boots as the
	// image decides: estimate it as compat.Custom, or with the family you
	// know it to be.
	Unknown string
}

// IdentifyImageName reads an AMI name as the families name their images
// (the recognizer Select applies; the package documentation lists the
// patterns), with the architecture the name states.
func IdentifyImageName(image string) Identity {
	for _, arch := range []string{compat.ArchAMD64, compat.ArchARM64} {
		if id := Recognize(image, arch); id.Unknown == "" {
			return id
		}
	}
	return Identity{Unknown: "the name " + quote(image) + " follows no EKS-optimized family's naming (a custom image)"}
}

// Recognize reads the name of an image of architecture arch (kube name)
// as Select does: Unknown when the name follows no family's naming or
// states another architecture than the image's.
func Recognize(image, arch string) Identity {
	r := eksname.Recognize(image, arch)
	if r.Family == compat.Custom {
		return Identity{Unknown: "the name " + quote(image) + " of an " + arch + " image follows no EKS-optimized family's naming"}
	}
	var variants []Variant // nil, not empty, for Windows
	for _, v := range r.Variants[:r.N] {
		variants = append(variants, Variant(v))
	}
	return Identity{Family: r.Family, Variants: variants, Arch: arch, Release: r.Release, KubernetesVersion: k8sVersionOf(image)}
}

// amiTypes are EKS's managed node group AMI types (aws-sdk-go-v2
// service/eks v1.105.6 types/enums.go, AMITypes; the EKS API reference,
// Nodegroup amiType), with the family, architecture and variants each
// launches. The FIPS Bottlerocket types run Bottlerocket's FIPS variant,
// which has the standard variant's drivers.
var amiTypes = map[string]Identity{
	"AL2_x86_64":                      {Family: compat.AL2, Arch: compat.ArchAMD64, Variants: []Variant{Standard}},
	"AL2_x86_64_GPU":                  {Family: compat.AL2, Arch: compat.ArchAMD64, Variants: []Variant{NVIDIA, Neuron}},
	"AL2_ARM_64":                      {Family: compat.AL2, Arch: compat.ArchARM64, Variants: []Variant{Standard}},
	"AL2023_x86_64_STANDARD":          {Family: compat.AL2023, Arch: compat.ArchAMD64, Variants: []Variant{Standard}},
	"AL2023_ARM_64_STANDARD":          {Family: compat.AL2023, Arch: compat.ArchARM64, Variants: []Variant{Standard}},
	"AL2023_x86_64_NEURON":            {Family: compat.AL2023, Arch: compat.ArchAMD64, Variants: []Variant{Neuron}},
	"AL2023_x86_64_NVIDIA":            {Family: compat.AL2023, Arch: compat.ArchAMD64, Variants: []Variant{NVIDIA}},
	"AL2023_ARM_64_NVIDIA":            {Family: compat.AL2023, Arch: compat.ArchARM64, Variants: []Variant{NVIDIA}},
	"BOTTLEROCKET_x86_64":             {Family: compat.Bottlerocket, Arch: compat.ArchAMD64, Variants: []Variant{Standard, Neuron}},
	"BOTTLEROCKET_ARM_64":             {Family: compat.Bottlerocket, Arch: compat.ArchARM64, Variants: []Variant{Standard}},
	"BOTTLEROCKET_x86_64_FIPS":        {Family: compat.Bottlerocket, Arch: compat.ArchAMD64, Variants: []Variant{Standard}},
	"BOTTLEROCKET_ARM_64_FIPS":        {Family: compat.Bottlerocket, Arch: compat.ArchARM64, Variants: []Variant{Standard}},
	"BOTTLEROCKET_x86_64_NVIDIA":      {Family: compat.Bottlerocket, Arch: compat.ArchAMD64, Variants: []Variant{NVIDIA}},
	"BOTTLEROCKET_ARM_64_NVIDIA":      {Family: compat.Bottlerocket, Arch: compat.ArchARM64, Variants: []Variant{NVIDIA}},
	"BOTTLEROCKET_x86_64_NVIDIA_FIPS": {Family: compat.Bottlerocket, Arch: compat.ArchAMD64, Variants: []Variant{NVIDIA}},
	"BOTTLEROCKET_ARM_64_NVIDIA_FIPS": {Family: compat.Bottlerocket, Arch: compat.ArchARM64, Variants: []Variant{NVIDIA}},
	"WINDOWS_CORE_2019_x86_64":        {Family: compat.Windows2019, Arch: compat.ArchAMD64},
	"WINDOWS_FULL_2019_x86_64":        {Family: compat.Windows2019, Arch: compat.ArchAMD64},
	"WINDOWS_CORE_2022_x86_64":        {Family: compat.Windows2022, Arch: compat.ArchAMD64},
	"WINDOWS_FULL_2022_x86_64":        {Family: compat.Windows2022, Arch: compat.ArchAMD64},
	"WINDOWS_CORE_2025_x86_64":        {Family: compat.Windows2025, Arch: compat.ArchAMD64},
	"WINDOWS_FULL_2025_x86_64":        {Family: compat.Windows2025, Arch: compat.ArchAMD64},
}

// AMITypes returns every EKS amiType IdentifyAMIType knows, CUSTOM
// included, sorted.
func AMITypes() []string {
	out := []string{"CUSTOM"}
	for t := range amiTypes {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// IdentifyAMIType reads an EKS managed node group's amiType, as the EKS API
// spells it ("AL2023_x86_64_STANDARD"). CUSTOM, and a type newer than this
// table, are Unknown: a CUSTOM group's image is its launch template's,
// which IdentifyImageName or IdentifySSMParameter reads.
func IdentifyAMIType(amiType string) Identity {
	if id, ok := amiTypes[amiType]; ok {
		id.Variants = slices.Clone(id.Variants)
		return id
	}
	if amiType == "CUSTOM" {
		return Identity{Unknown: "amiType CUSTOM: the node group's launch template names the image; identify it by its name or SSM parameter"}
	}
	return Identity{Unknown: "amiType " + quote(amiType) + " is not one EKS defines (aws-sdk-go-v2 service/eks v1.105.6 AMITypes)"}
}

// IdentifySSMParameter reads the name of one of AWS's public parameters
// for EKS-optimized images, as a launch template's image ID names it
// ("resolve:ssm:" and a ":version" or ":label" suffix are allowed) or as
// it stands:
//
//	/aws/service/eks/optimized-ami/K/amazon-linux-2{,-arm64,-gpu}/{recommended,NAME}/image_id
//	/aws/service/eks/optimized-ami/K/amazon-linux-2023/ARCH/VARIANT/{recommended,NAME}/image_id
//	/aws/service/bottlerocket/aws-k8s-K{,-nvidia,-fips}/{x86_64,arm64}/{latest,VERSION}/image_id
//	/aws/service/ami-windows-latest/Windows_Server-YEAR-English-{Core,Full}-EKS_Optimized-K/image_id
//
// Any other name (a parameter of your own) is Unknown: its value decides.
func IdentifySSMParameter(name string) Identity {
	p := strings.TrimPrefix(name, "resolve:ssm:")
	if i := strings.LastIndexByte(p, ':'); i >= 0 {
		p = p[:i] // a version or label selector
	}
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(p, "/aws/service/"), "/image_id"), "/")
	var id Identity
	switch {
	case !strings.HasPrefix(p, "/aws/service/") || !strings.HasSuffix(p, "/image_id"):
	case parts[0] == "eks" && len(parts) >= 5 && parts[1] == "optimized-ami":
		id = eksParameter(parts[2], parts[3:])
	case parts[0] == "bottlerocket" && len(parts) == 4:
		id = bottlerocketParameter(parts[1], parts[2], parts[3])
	case parts[0] == "ami-windows-latest" && len(parts) == 2:
		id = IdentifyImageName(parts[1] + "-2006.01.02")
		id.Release = ""
	}
	if id.Family == "" {
		return Identity{Unknown: "the SSM parameter " + quote(name) + " is not one of AWS's public parameters for EKS-optimized images"}
	}
	return id
}

// eksParameter reads .../optimized-ami/K/{path}/{leaf}.
func eksParameter(k8s string, rest []string) Identity {
	if !eksname.IsK8sVersion(k8s) {
		return Identity{}
	}
	id := Identity{KubernetesVersion: k8s}
	switch strings.Join(rest[:len(rest)-1], "/") {
	case "amazon-linux-2":
		id.Family, id.Arch, id.Variants = compat.AL2, compat.ArchAMD64, []Variant{Standard}
	case "amazon-linux-2-arm64":
		id.Family, id.Arch, id.Variants = compat.AL2, compat.ArchARM64, []Variant{Standard}
	case "amazon-linux-2-gpu":
		id.Family, id.Arch, id.Variants = compat.AL2, compat.ArchAMD64, []Variant{NVIDIA, Neuron}
	default:
		return al2023Parameter(k8s, rest)
	}
	id.Release = leafRelease(rest[len(rest)-1])
	return id
}

func al2023Parameter(k8s string, rest []string) Identity {
	if len(rest) != 4 || rest[0] != "amazon-linux-2023" {
		return Identity{}
	}
	name := "amazon-eks-node-al2023-" + rest[1] + "-" + rest[2] + "-" + k8s + "-v20060102"
	id := IdentifyImageName(name)
	id.Release = leafRelease(rest[3])
	return id
}

// leafRelease is the release a parameter's directory names: none for
// "recommended", the name's own for a release's directory.
func leafRelease(leaf string) string {
	if leaf == "recommended" {
		return ""
	}
	return IdentifyImageName(leaf).Release
}

// bottlerocketParameter reads .../bottlerocket/aws-k8s-K[-flavour]/ARCH.
func bottlerocketParameter(variant, arch, version string) Identity {
	rest, ok := strings.CutPrefix(variant, "aws-k8s-")
	if !ok {
		return Identity{}
	}
	nameArch := map[string]string{"x86_64": "x86_64", "arm64": "aarch64"}[arch]
	if nameArch == "" {
		return Identity{}
	}
	k8s, flavour, _ := strings.Cut(rest, "-")
	if flavour != "" {
		flavour += "-"
	}
	id := IdentifyImageName("bottlerocket-aws-k8s-" + k8s + "-" + flavour + nameArch + "-v0.0.0-0")
	id.Release = ""
	if v, _, _ := strings.Cut(version, "-"); eksname.IsSemver(v) {
		id.Release = "v" + v
	}
	return id
}

// k8sVersionOf is the first dash-separated part of an image name that is
// a Kubernetes minor version: every family names it before the release.
func k8sVersionOf(image string) string {
	for _, part := range strings.Split(image, "-") {
		if eksname.IsK8sVersion(part) {
			return part
		}
	}
	return ""
}

func quote(s string) string { return `"` + s + `"` }
