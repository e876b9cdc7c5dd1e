package eksname

import (
	"strings"

	"github.com/ec2select/ec2select/compat"
)

// The variants an image name can state, numbered as amimap.Variant numbers
// them (amimap's tests check that they agree).
const (
	Standard uint8 = 1 + iota // no GPU and no accelerator
	NVIDIA                    // an NVIDIA GPU
	Neuron                    // an AWS Inferentia or Trainium device
)

// Recognized is what an AMI's name says about it.
type Recognized struct {
	Family compat.AMIFamily
	// Variants lists the variants the image serves (Standard, NVIDIA,
	// Neuron): up to two, because AL2's accelerated image and
	// Bottlerocket's x86_64 image each serve two. N is how many are set;
	// zero means the image gets arch-only requirements (Custom, Windows).
	Variants [2]uint8
	N        int
	// Release is the family's release version in the name ("v20250403",
	// "v1.26.2", "2025.04.08").
	Release string
}

// Recognize reads an image name against the families' public naming (see
// amimap's package documentation) and checks that the architecture the
// name states is the image's (kube name). A name that follows no family,
// or whose architecture disagrees, is Custom. It allocates nothing: Select
// reads every image's name with it.
func Recognize(name, arch string) Recognized {
	var r Recognized
	switch {
	case strings.HasPrefix(name, "amazon-eks-"):
		r = recognizeEKS(name[len("amazon-eks-"):], arch)
	case strings.HasPrefix(name, "bottlerocket-aws-k8s-"):
		r = recognizeBottlerocket(name[len("bottlerocket-aws-k8s-"):], arch)
	case strings.HasPrefix(name, "Windows_Server-"):
		r = recognizeWindows(name[len("Windows_Server-"):], arch)
	}
	if r.Family == "" {
		return Recognized{Family: compat.Custom}
	}
	return r
}

func one(f compat.AMIFamily, v uint8) Recognized {
	return Recognized{Family: f, Variants: [2]uint8{v}, N: 1}
}
func two(f compat.AMIFamily, v, w uint8) Recognized {
	return Recognized{Family: f, Variants: [2]uint8{v, w}, N: 2}
}

// recognizeEKS reads the rest of an "amazon-eks-" name:
//
//	node-{k8s}-v{YYYYMMDD}                           AL2 x86_64 standard
//	arm64-node-{k8s}-v{YYYYMMDD}                     AL2 arm64 standard
//	gpu-node-{k8s}-v{YYYYMMDD}                       AL2 x86_64 nvidia + neuron
//	node-al2023-{x86_64|arm64}-{variant}-{k8s}-v{YYYYMMDD}
func recognizeEKS(rest, arch string) Recognized {
	r := recognizeEKSName(rest, arch)
	if r.Family != "" {
		// Every EKS name the recognizer accepts ends in "-v{YYYYMMDD}".
		r.Release = rest[len(rest)-len("v20060102"):]
	}
	return r
}

func recognizeEKSName(rest, arch string) Recognized {
	switch {
	case strings.HasPrefix(rest, "node-al2023-"):
		rest = rest[len("node-al2023-"):]
		nameArch, rest, ok := strings.Cut(rest, "-")
		if !ok || !archNamed(nameArch, arch, "x86_64", "arm64") {
			return Recognized{}
		}
		variant, rest, ok := strings.Cut(rest, "-")
		if !ok || !IsK8sThenDate(rest) {
			return Recognized{}
		}
		switch variant {
		case "standard":
			return one(compat.AL2023, Standard)
		case "nvidia":
			return one(compat.AL2023, NVIDIA)
		case "neuron":
			return one(compat.AL2023, Neuron)
		}
	case strings.HasPrefix(rest, "node-"):
		if arch == compat.ArchAMD64 && IsK8sThenDate(rest[len("node-"):]) {
			return one(compat.AL2, Standard)
		}
	case strings.HasPrefix(rest, "arm64-node-"):
		if arch == compat.ArchARM64 && IsK8sThenDate(rest[len("arm64-node-"):]) {
			return one(compat.AL2, Standard)
		}
	case strings.HasPrefix(rest, "gpu-node-"):
		if arch == compat.ArchAMD64 && IsK8sThenDate(rest[len("gpu-node-"):]) {
			return two(compat.AL2, NVIDIA, Neuron)
		}
	}
	return Recognized{}
}

// recognizeBottlerocket reads the rest of a "bottlerocket-aws-k8s-" name:
//
//	{k8s}[-nvidia|-fips|-nvidia-fips]-{x86_64|aarch64}-v{X.Y.Z}-{commit}
//
// The x86_64 standard image also serves Neuron devices. The FIPS flavour
// is standard: it has no GPU drivers. (Aliases never select it.)
func recognizeBottlerocket(rest, arch string) Recognized {
	k8s, rest, ok := strings.Cut(rest, "-")
	if !ok || !IsK8sVersion(k8s) {
		return Recognized{}
	}
	nvidia, fips := false, false
	switch {
	case strings.HasPrefix(rest, "nvidia-fips-"): // aws-k8s-X.Y-nvidia-fips, from 1.35 (bottlerocket #4737)
		nvidia, fips, rest = true, true, rest[len("nvidia-fips-"):]
	case strings.HasPrefix(rest, "nvidia-"):
		nvidia, rest = true, rest[len("nvidia-"):]
	case strings.HasPrefix(rest, "fips-"):
		fips, rest = true, rest[len("fips-"):]
	}
	nameArch, rest, ok := strings.Cut(rest, "-")
	if !ok || !archNamed(nameArch, arch, "x86_64", "aarch64") {
		return Recognized{}
	}
	version, commit, ok := strings.Cut(rest, "-")
	if !ok || !strings.HasPrefix(version, "v") || !IsSemver(version[1:]) || !IsAlnum(commit) {
		return Recognized{}
	}
	var r Recognized
	switch {
	case nvidia:
		r = one(compat.Bottlerocket, NVIDIA)
	case arch == compat.ArchAMD64 && !fips:
		r = two(compat.Bottlerocket, Standard, Neuron)
	default:
		r = one(compat.Bottlerocket, Standard)
	}
	r.Release = version
	return r
}

// recognizeWindows reads the rest of a "Windows_Server-" name:
//
//	{2019|2022|2025}-English-{Core|Full}-EKS_Optimized-{k8s}-{YYYY.MM.DD}
//
// The release date may also use dashes: mistaking a Windows AMI for a
// custom one would offer it to Linux-only types. Windows AMIs are x86_64
// only and have no variants.
func recognizeWindows(rest, arch string) Recognized {
	year, rest, ok := strings.Cut(rest, "-")
	if !ok || arch != compat.ArchAMD64 {
		return Recognized{}
	}
	var f compat.AMIFamily
	switch year {
	case "2019":
		f = compat.Windows2019
	case "2022":
		f = compat.Windows2022
	case "2025":
		f = compat.Windows2025
	default:
		return Recognized{}
	}
	switch {
	case strings.HasPrefix(rest, "English-Core-EKS_Optimized-"):
		rest = rest[len("English-Core-EKS_Optimized-"):]
	case strings.HasPrefix(rest, "English-Full-EKS_Optimized-"):
		rest = rest[len("English-Full-EKS_Optimized-"):]
	default:
		return Recognized{}
	}
	k8s, date, ok := strings.Cut(rest, "-")
	if !ok || !IsK8sVersion(k8s) || !IsDate(date) {
		return Recognized{}
	}
	return Recognized{Family: f, Release: date}
}

// archNamed reports whether the architecture spelled in a name (amd as the
// family spells x86_64, arm as it spells arm64) is the image's.
func archNamed(nameArch, arch, amd, arm string) bool {
	switch nameArch {
	case amd:
		return arch == compat.ArchAMD64
	case arm:
		return arch == compat.ArchARM64
	}
	return false
}
