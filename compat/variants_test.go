package compat

// The requirements of the EKS AMI variants, as amiselect.Variant.Requirements
// states them: Karpenter's (karpenter-provider-aws
// pkg/providers/amifamily/types.go), with the manufacturer added to NVIDIA
// and Neuron. compat's tests compare instance types with them; amiselect
// owns them.

func standardVariant() Requirements {
	return MustRequirements(req(LabelInstanceGPUCount, DoesNotExist), req(LabelInstanceAcceleratorCount, DoesNotExist))
}

func nvidiaVariant() Requirements {
	return MustRequirements(req(LabelInstanceGPUCount, Exists), req(LabelInstanceGPUManufacturer, In, "nvidia"))
}

func neuronVariant() Requirements {
	return MustRequirements(req(LabelInstanceAcceleratorCount, Exists), req(LabelInstanceAcceleratorManufacturer, In, "aws"))
}
