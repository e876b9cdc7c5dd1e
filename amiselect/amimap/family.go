package amimap

import (
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/amiselect/internal/eksname"
	"github.com/ec2select/ec2select/compat"
)

// Variant is the accelerator stack an EKS AMI carries, which decides the
// instance types it can serve. The zero value is Unspecified: nothing is
// known about the image's drivers (a custom AMI), or the family has no
// variants (Windows), so its requirements constrain no accelerator key.
type Variant uint8

// The variants.
const (
	Unspecified Variant = iota
	Standard            // no GPU and no accelerator
	NVIDIA              // an NVIDIA GPU
	Neuron              // an AWS Inferentia or Trainium device
)

// String returns "standard", "nvidia", "neuron" or "unspecified".
func (v Variant) String() string {
	switch v {
	case Standard:
		return "standard"
	case NVIDIA:
		return "nvidia"
	case Neuron:
		return "neuron"
	case Unspecified:
		return "unspecified"
	}
	return "Variant(" + strconv.Itoa(int(v)) + ")"
}

// familyName returns the name an AMI's family goes by in this package's
// descriptions: its alias name ("al2023"), or "custom".
func familyName(f compat.AMIFamily) string {
	if a := f.Alias(); a != "" {
		return a
	}
	return "custom"
}

// Requirements returns what an AMI of the variant asks of an instance
// type, without the architecture. Standard and the GPU and accelerator
// keys are Karpenter's (karpenter-provider-aws
// pkg/providers/amifamily/types.go), so an EC2NodeClass status Karpenter
// wrote compares the same way; NVIDIA also requires an NVIDIA GPU, because
// "instance-gpu-count Exists" alone accepts AMD and Habana GPUs, which the
// NVIDIA driver does not run; Neuron likewise an AWS accelerator.
// Fractional-GPU types (g6f, reported with a GPU count of 0) still match
// NVIDIA: their count is defined. Unspecified constrains nothing.
func (v Variant) Requirements() compat.Requirements {
	req := func(key string, op compat.Operator, values ...string) compat.Requirement {
		return compat.Requirement{Key: key, Operator: op, Values: values}
	}
	switch v {
	case Standard:
		return compat.MustRequirements(req(compat.LabelInstanceGPUCount, compat.DoesNotExist), req(compat.LabelInstanceAcceleratorCount, compat.DoesNotExist))
	case NVIDIA:
		return compat.MustRequirements(req(compat.LabelInstanceGPUCount, compat.Exists), req(compat.LabelInstanceGPUManufacturer, compat.In, "nvidia"))
	case Neuron:
		return compat.MustRequirements(req(compat.LabelInstanceAcceleratorCount, compat.Exists), req(compat.LabelInstanceAcceleratorManufacturer, compat.In, "aws"))
	}
	return compat.Requirements{}
}

// recognized is what an AMI's name says about it.
type recognized struct {
	family compat.AMIFamily
	// variants lists the variants the image serves: up to two, because
	// AL2's accelerated image and Bottlerocket's x86_64 image each serve
	// two. n is how many are set; zero means the image gets arch-only
	// requirements (Custom, Windows).
	variants [2]Variant
	n        int
	// release is the family's release version in the name ("v20250403",
	// "v1.26.2", "2025.04.08").
	release string
}

// recognize reads an image name against the families' public naming (see
// the package documentation) and checks that the architecture the name
// states is the image's (kube name). A name that follows no family, or
// whose architecture disagrees, is Custom.
func recognize(name, arch string) recognized {
	var r recognized
	switch {
	case strings.HasPrefix(name, "amazon-eks-"):
		r = recognizeEKS(name[len("amazon-eks-"):], arch)
	case strings.HasPrefix(name, "bottlerocket-aws-k8s-"):
		r = recognizeBottlerocket(name[len("bottlerocket-aws-k8s-"):], arch)
	case strings.HasPrefix(name, "Windows_Server-"):
		r = recognizeWindows(name[len("Windows_Server-"):], arch)
	}
	if r.family == "" {
		return recognized{family: compat.Custom}
	}
	return r
}

func one(f compat.AMIFamily, v Variant) recognized {
	return recognized{family: f, variants: [2]Variant{v}, n: 1}
}
func two(f compat.AMIFamily, v, w Variant) recognized {
	return recognized{family: f, variants: [2]Variant{v, w}, n: 2}
}

// recognizeEKS reads the rest of an "amazon-eks-" name:
//
//	node-{k8s}-v{YYYYMMDD}                           AL2 x86_64 standard
//	arm64-node-{k8s}-v{YYYYMMDD}                     AL2 arm64 standard
//	gpu-node-{k8s}-v{YYYYMMDD}                       AL2 x86_64 nvidia + neuron
//	node-al2023-{x86_64|arm64}-{variant}-{k8s}-v{YYYYMMDD}
func recognizeEKS(rest, arch string) recognized {
	r := recognizeEKSName(rest, arch)
	if r.family != "" {
		// Every EKS name the recognizer accepts ends in "-v{YYYYMMDD}".
		r.release = rest[len(rest)-len("v20060102"):]
	}
	return r
}

func recognizeEKSName(rest, arch string) recognized {
	switch {
	case strings.HasPrefix(rest, "node-al2023-"):
		rest = rest[len("node-al2023-"):]
		nameArch, rest, ok := strings.Cut(rest, "-")
		if !ok || !archNamed(nameArch, arch, "x86_64", "arm64") {
			return recognized{}
		}
		variant, rest, ok := strings.Cut(rest, "-")
		if !ok || !eksname.IsK8sThenDate(rest) {
			return recognized{}
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
		if arch == compat.ArchAMD64 && eksname.IsK8sThenDate(rest[len("node-"):]) {
			return one(compat.AL2, Standard)
		}
	case strings.HasPrefix(rest, "arm64-node-"):
		if arch == compat.ArchARM64 && eksname.IsK8sThenDate(rest[len("arm64-node-"):]) {
			return one(compat.AL2, Standard)
		}
	case strings.HasPrefix(rest, "gpu-node-"):
		if arch == compat.ArchAMD64 && eksname.IsK8sThenDate(rest[len("gpu-node-"):]) {
			return two(compat.AL2, NVIDIA, Neuron)
		}
	}
	return recognized{}
}

// recognizeBottlerocket reads the rest of a "bottlerocket-aws-k8s-" name:
//
//	{k8s}[-nvidia|-fips|-nvidia-fips]-{x86_64|aarch64}-v{X.Y.Z}-{commit}
//
// The x86_64 standard image also serves Neuron devices. The FIPS flavour
// is standard: it has no GPU drivers. (Aliases never select it.)
func recognizeBottlerocket(rest, arch string) recognized {
	k8s, rest, ok := strings.Cut(rest, "-")
	if !ok || !eksname.IsK8sVersion(k8s) {
		return recognized{}
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
		return recognized{}
	}
	version, commit, ok := strings.Cut(rest, "-")
	if !ok || !strings.HasPrefix(version, "v") || !eksname.IsSemver(version[1:]) || !eksname.IsAlnum(commit) {
		return recognized{}
	}
	var r recognized
	switch {
	case nvidia:
		r = one(compat.Bottlerocket, NVIDIA)
	case arch == compat.ArchAMD64 && !fips:
		r = two(compat.Bottlerocket, Standard, Neuron)
	default:
		r = one(compat.Bottlerocket, Standard)
	}
	r.release = version
	return r
}

// recognizeWindows reads the rest of a "Windows_Server-" name:
//
//	{2019|2022|2025}-English-{Core|Full}-EKS_Optimized-{k8s}-{YYYY.MM.DD}
//
// The release date may also use dashes: mistaking a Windows AMI for a
// custom one would offer it to Linux-only types. Windows AMIs are x86_64
// only and have no variants.
func recognizeWindows(rest, arch string) recognized {
	year, rest, ok := strings.Cut(rest, "-")
	if !ok || arch != compat.ArchAMD64 {
		return recognized{}
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
		return recognized{}
	}
	switch {
	case strings.HasPrefix(rest, "English-Core-EKS_Optimized-"):
		rest = rest[len("English-Core-EKS_Optimized-"):]
	case strings.HasPrefix(rest, "English-Full-EKS_Optimized-"):
		rest = rest[len("English-Full-EKS_Optimized-"):]
	default:
		return recognized{}
	}
	k8s, date, ok := strings.Cut(rest, "-")
	if !ok || !eksname.IsK8sVersion(k8s) || !eksname.IsDate(date) {
		return recognized{}
	}
	return recognized{family: f, release: date}
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
