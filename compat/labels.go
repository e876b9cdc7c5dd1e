package compat

// Well-known label keys from Kubernetes and Karpenter core.
const (
	LabelInstanceType   = "node.kubernetes.io/instance-type"
	LabelArch           = "kubernetes.io/arch"
	LabelOS             = "kubernetes.io/os"
	LabelWindowsBuild   = "node.kubernetes.io/windows-build"
	LabelZone           = "topology.kubernetes.io/zone"
	LabelRegion         = "topology.kubernetes.io/region"
	LabelNodePool       = "karpenter.sh/nodepool"
	LabelCapacityType   = "karpenter.sh/capacity-type"
	LabelHostname       = "kubernetes.io/hostname"
	LabelAWSZoneID      = "topology.k8s.aws/zone-id"
	labelBetaArch       = "beta.kubernetes.io/arch"
	labelBetaOS         = "beta.kubernetes.io/os"
	labelBetaType       = "beta.kubernetes.io/instance-type"
	labelBetaZone       = "failure-domain.beta.kubernetes.io/zone"
	labelBetaRegion     = "failure-domain.beta.kubernetes.io/region"
	awsLabelGroupPrefix = "karpenter.k8s.aws/"
)

// Well-known label keys from Karpenter's AWS provider (group karpenter.k8s.aws).
// Integer-valued keys may be used with Gt, Lt, Gte and Lte.
const (
	LabelInstanceCategory                 = "karpenter.k8s.aws/instance-category"
	LabelInstanceFamily                   = "karpenter.k8s.aws/instance-family"
	LabelInstanceGeneration               = "karpenter.k8s.aws/instance-generation" // integer
	LabelInstanceSize                     = "karpenter.k8s.aws/instance-size"
	LabelInstanceCPU                      = "karpenter.k8s.aws/instance-cpu" // integer
	LabelInstanceCPUManufacturer          = "karpenter.k8s.aws/instance-cpu-manufacturer"
	LabelInstanceCPUClockSpeedMHz         = "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz" // integer
	LabelInstanceMemory                   = "karpenter.k8s.aws/instance-memory"                        // integer, MiB
	LabelInstanceHypervisor               = "karpenter.k8s.aws/instance-hypervisor"
	LabelInstanceEncryptionInTransit      = "karpenter.k8s.aws/instance-encryption-in-transit-supported"
	LabelInstanceCapabilityFlex           = "karpenter.k8s.aws/instance-capability-flex"
	LabelInstanceLocalNVMe                = "karpenter.k8s.aws/instance-local-nvme"        // integer, GB
	LabelInstanceNetworkBandwidth         = "karpenter.k8s.aws/instance-network-bandwidth" // integer, Mbps
	LabelInstanceEBSBandwidth             = "karpenter.k8s.aws/instance-ebs-bandwidth"     // integer, Mbps
	LabelInstanceGPUCount                 = "karpenter.k8s.aws/instance-gpu-count"         // integer
	LabelInstanceGPUName                  = "karpenter.k8s.aws/instance-gpu-name"
	LabelInstanceGPUManufacturer          = "karpenter.k8s.aws/instance-gpu-manufacturer"
	LabelInstanceGPUMemory                = "karpenter.k8s.aws/instance-gpu-memory"        // integer, MiB per GPU
	LabelInstanceAcceleratorCount         = "karpenter.k8s.aws/instance-accelerator-count" // integer
	LabelInstanceAcceleratorName          = "karpenter.k8s.aws/instance-accelerator-name"
	LabelInstanceAcceleratorManufacturer  = "karpenter.k8s.aws/instance-accelerator-manufacturer"
	LabelInstanceTenancy                  = "karpenter.k8s.aws/instance-tenancy"
	LabelNitroSandbox                     = "karpenter.k8s.aws/nitro-sandbox"
	LabelCapacityReservationID            = "karpenter.k8s.aws/capacity-reservation-id"
	LabelCapacityReservationType          = "karpenter.k8s.aws/capacity-reservation-type"
	LabelCapacityReservationInterruptible = "karpenter.k8s.aws/capacity-reservation-interruptible"
	LabelPlacementGroupID                 = "karpenter.k8s.aws/placement-group-id"
	LabelPlacementGroupPartition          = "karpenter.k8s.aws/placement-group-partition" // integer
)

// normalizeKey maps deprecated beta keys to their stable names, as the
// kubelet and Karpenter do.
func normalizeKey(key string) string {
	switch key {
	case labelBetaArch:
		return LabelArch
	case labelBetaOS:
		return LabelOS
	case labelBetaType:
		return LabelInstanceType
	case labelBetaZone:
		return LabelZone
	case labelBetaRegion:
		return LabelRegion
	}
	return key
}

// betaKey returns the deprecated alias of a stable key, or "".
func betaKey(key string) string {
	switch key {
	case LabelArch:
		return labelBetaArch
	case LabelOS:
		return labelBetaOS
	case LabelInstanceType:
		return labelBetaType
	case LabelZone:
		return labelBetaZone
	case LabelRegion:
		return labelBetaRegion
	}
	return ""
}

// WellKnownLabels returns the keys that AllowUndefinedWellKnown accepts when
// undefined: Kubernetes', Karpenter core's and the AWS provider's well-known
// labels, sorted. The slice is a fresh copy.
func WellKnownLabels() []string {
	keys := make([]string, 0, len(wellKnown.rows))
	for i := range wellKnown.rows {
		keys = append(keys, wellKnown.rows[i].label)
	}
	return keys
}

// InstanceLabels returns the well-known keys that describe an instance type
// itself, sorted: every one is defined by [InstanceType.Requirements], and
// [FromNodeLabels] makes each one a node lacks DoesNotExist, except
// [LabelInstanceTenancy] (a node without that label has a tenancy; it just
// does not say which). The slice is a fresh copy.
func InstanceLabels() []string {
	keys := make([]string, 0, wellKnown.instances)
	for i := range wellKnown.rows {
		if wellKnown.rows[i].instance() {
			keys = append(keys, wellKnown.rows[i].label)
		}
	}
	return keys
}
