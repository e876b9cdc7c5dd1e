package compat

import "slices"

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

// keyInfo describes one well-known key.
type keyInfo struct {
	key string
	// instance marks the keys that describe an instance type itself, every
	// one of which InstanceType.Requirements defines.
	instance bool
	// absentWhenUnlabeled marks the instance keys that FromNodeLabels turns
	// into DoesNotExist when a node lacks them: a node without the label has
	// no such property. Tenancy is not one: every instance has a tenancy,
	// and a node without the label (one Karpenter launched before it labeled
	// tenancy, or one it did not launch) simply does not say which.
	absentWhenUnlabeled bool
}

// Positions in the wellKnown table, in its (sorted) order.
const (
	wkCapacityReservationID = iota
	wkCapacityReservationInterruptible
	wkCapacityReservationType
	wkInstanceAcceleratorCount
	wkInstanceAcceleratorManufacturer
	wkInstanceAcceleratorName
	wkInstanceCapabilityFlex
	wkInstanceCategory
	wkInstanceCPU
	wkInstanceCPUManufacturer
	wkInstanceCPUClockSpeedMHz
	wkInstanceEBSBandwidth
	wkInstanceEncryptionInTransit
	wkInstanceFamily
	wkInstanceGeneration
	wkInstanceGPUCount
	wkInstanceGPUManufacturer
	wkInstanceGPUMemory
	wkInstanceGPUName
	wkInstanceHypervisor
	wkInstanceLocalNVMe
	wkInstanceMemory
	wkInstanceNetworkBandwidth
	wkInstanceSize
	wkInstanceTenancy
	wkNitroSandbox
	wkPlacementGroupID
	wkPlacementGroupPartition
	wkCapacityType
	wkNodePool
	wkArch
	wkOS
	wkInstanceType
	wkWindowsBuild
	wkAWSZoneID
	wkRegion
	wkZone
	numWellKnown
)

// wellKnown is the fixed table of well-known keys, sorted by key (a test
// checks). Positions in it index Requirements' constant-time lookup, and
// its order lets InstanceType.Requirements emit keys already sorted. It is
// never mutated.
var wellKnown = [numWellKnown]keyInfo{
	wkCapacityReservationID:            {LabelCapacityReservationID, false, false},
	wkCapacityReservationInterruptible: {LabelCapacityReservationInterruptible, false, false},
	wkCapacityReservationType:          {LabelCapacityReservationType, false, false},
	wkInstanceAcceleratorCount:         {LabelInstanceAcceleratorCount, true, true},
	wkInstanceAcceleratorManufacturer:  {LabelInstanceAcceleratorManufacturer, true, true},
	wkInstanceAcceleratorName:          {LabelInstanceAcceleratorName, true, true},
	wkInstanceCapabilityFlex:           {LabelInstanceCapabilityFlex, true, true},
	wkInstanceCategory:                 {LabelInstanceCategory, true, true},
	wkInstanceCPU:                      {LabelInstanceCPU, true, true},
	wkInstanceCPUManufacturer:          {LabelInstanceCPUManufacturer, true, true},
	wkInstanceCPUClockSpeedMHz:         {LabelInstanceCPUClockSpeedMHz, true, true},
	wkInstanceEBSBandwidth:             {LabelInstanceEBSBandwidth, true, true},
	wkInstanceEncryptionInTransit:      {LabelInstanceEncryptionInTransit, true, true},
	wkInstanceFamily:                   {LabelInstanceFamily, true, true},
	wkInstanceGeneration:               {LabelInstanceGeneration, true, true},
	wkInstanceGPUCount:                 {LabelInstanceGPUCount, true, true},
	wkInstanceGPUManufacturer:          {LabelInstanceGPUManufacturer, true, true},
	wkInstanceGPUMemory:                {LabelInstanceGPUMemory, true, true},
	wkInstanceGPUName:                  {LabelInstanceGPUName, true, true},
	wkInstanceHypervisor:               {LabelInstanceHypervisor, true, true},
	wkInstanceLocalNVMe:                {LabelInstanceLocalNVMe, true, true},
	wkInstanceMemory:                   {LabelInstanceMemory, true, true},
	wkInstanceNetworkBandwidth:         {LabelInstanceNetworkBandwidth, true, true},
	wkInstanceSize:                     {LabelInstanceSize, true, true},
	wkInstanceTenancy:                  {LabelInstanceTenancy, true, false},
	wkNitroSandbox:                     {LabelNitroSandbox, false, false},
	wkPlacementGroupID:                 {LabelPlacementGroupID, false, false},
	wkPlacementGroupPartition:          {LabelPlacementGroupPartition, false, false},
	wkCapacityType:                     {LabelCapacityType, false, false},
	wkNodePool:                         {LabelNodePool, false, false},
	wkArch:                             {LabelArch, true, true},
	wkOS:                               {LabelOS, true, true},
	wkInstanceType:                     {LabelInstanceType, true, true},
	wkWindowsBuild:                     {LabelWindowsBuild, true, true},
	wkAWSZoneID:                        {LabelAWSZoneID, false, false},
	wkRegion:                           {LabelRegion, false, false},
	wkZone:                             {LabelZone, false, false},
}

// wellKnownIndex returns the position of key in the wellKnown table, or -1.
// It runs for every label a requirement set is built from; lookups
// afterwards go through the stored index, which keeps Compatible free of
// string hashing. A switch compiles to a search on length first, which is
// faster than comparing the long shared prefixes of these keys.
func wellKnownIndex(key string) int {
	switch key {
	case LabelCapacityReservationID:
		return wkCapacityReservationID
	case LabelCapacityReservationInterruptible:
		return wkCapacityReservationInterruptible
	case LabelCapacityReservationType:
		return wkCapacityReservationType
	case LabelInstanceAcceleratorCount:
		return wkInstanceAcceleratorCount
	case LabelInstanceAcceleratorManufacturer:
		return wkInstanceAcceleratorManufacturer
	case LabelInstanceAcceleratorName:
		return wkInstanceAcceleratorName
	case LabelInstanceCapabilityFlex:
		return wkInstanceCapabilityFlex
	case LabelInstanceCategory:
		return wkInstanceCategory
	case LabelInstanceCPU:
		return wkInstanceCPU
	case LabelInstanceCPUManufacturer:
		return wkInstanceCPUManufacturer
	case LabelInstanceCPUClockSpeedMHz:
		return wkInstanceCPUClockSpeedMHz
	case LabelInstanceEBSBandwidth:
		return wkInstanceEBSBandwidth
	case LabelInstanceEncryptionInTransit:
		return wkInstanceEncryptionInTransit
	case LabelInstanceFamily:
		return wkInstanceFamily
	case LabelInstanceGeneration:
		return wkInstanceGeneration
	case LabelInstanceGPUCount:
		return wkInstanceGPUCount
	case LabelInstanceGPUManufacturer:
		return wkInstanceGPUManufacturer
	case LabelInstanceGPUMemory:
		return wkInstanceGPUMemory
	case LabelInstanceGPUName:
		return wkInstanceGPUName
	case LabelInstanceHypervisor:
		return wkInstanceHypervisor
	case LabelInstanceLocalNVMe:
		return wkInstanceLocalNVMe
	case LabelInstanceMemory:
		return wkInstanceMemory
	case LabelInstanceNetworkBandwidth:
		return wkInstanceNetworkBandwidth
	case LabelInstanceSize:
		return wkInstanceSize
	case LabelInstanceTenancy:
		return wkInstanceTenancy
	case LabelNitroSandbox:
		return wkNitroSandbox
	case LabelPlacementGroupID:
		return wkPlacementGroupID
	case LabelPlacementGroupPartition:
		return wkPlacementGroupPartition
	case LabelCapacityType:
		return wkCapacityType
	case LabelNodePool:
		return wkNodePool
	case LabelArch:
		return wkArch
	case LabelOS:
		return wkOS
	case LabelInstanceType:
		return wkInstanceType
	case LabelWindowsBuild:
		return wkWindowsBuild
	case LabelAWSZoneID:
		return wkAWSZoneID
	case LabelRegion:
		return wkRegion
	case LabelZone:
		return wkZone
	}
	return -1
}

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
	keys := make([]string, 0, numWellKnown)
	for _, k := range wellKnown {
		keys = append(keys, k.key)
	}
	slices.Sort(keys)
	return keys
}

// InstanceLabels returns the well-known keys that describe an instance type
// itself, sorted: every one is defined by [InstanceType.Requirements], and
// [FromNodeLabels] makes each one a node lacks DoesNotExist, except
// [LabelInstanceTenancy] (a node without that label has a tenancy; it just
// does not say which). The slice is a fresh copy.
func InstanceLabels() []string {
	var keys []string
	for _, k := range wellKnown {
		if k.instance {
			keys = append(keys, k.key)
		}
	}
	slices.Sort(keys)
	return keys
}
