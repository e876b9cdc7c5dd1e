package compat

// StandardVariant returns the requirements a standard (non-accelerated)
// EKS AMI carries: no GPU and no accelerator. They are Karpenter's, so an
// EC2NodeClass status written by Karpenter compares the same way.
func StandardVariant() Requirements {
	return MustRequirements(
		Requirement{Key: LabelInstanceGPUCount, Operator: DoesNotExist},
		Requirement{Key: LabelInstanceAcceleratorCount, Operator: DoesNotExist},
	)
}

// NVIDIAVariant returns the requirements an NVIDIA EKS AMI carries: a GPU
// made by NVIDIA. Karpenter's "instance-gpu-count Exists" alone also
// accepts AMD and Habana GPUs, which the NVIDIA driver does not run; the
// manufacturer closes that gap. Fractional-GPU types (g6f, reported with a
// GPU count of 0) still match, because their count is defined.
func NVIDIAVariant() Requirements {
	return MustRequirements(
		Requirement{Key: LabelInstanceGPUCount, Operator: Exists},
		Requirement{Key: LabelInstanceGPUManufacturer, Operator: In, Values: []string{"nvidia"}},
	)
}

// NeuronVariant returns the requirements an AWS Neuron EKS AMI carries: an
// accelerator made by AWS (Inferentia or Trainium).
func NeuronVariant() Requirements {
	return MustRequirements(
		Requirement{Key: LabelInstanceAcceleratorCount, Operator: Exists},
		Requirement{Key: LabelInstanceAcceleratorManufacturer, Operator: In, Values: []string{"aws"}},
	)
}
