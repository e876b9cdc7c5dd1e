package amimap

import (
	"strconv"

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
