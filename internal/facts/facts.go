// Package facts digests the facts behind an instance type's requirements
// on some keys into a comparable value, so that a caller comparing many
// instance types with the same requirements (amiselect.Map) compares each
// distinct kind of type once.
//
// The digest reads compat.InstanceType's fields exactly as
// compat.InstanceType.Requirements turns them into requirements;
// TestDigestDecidesRequirements holds the two together. Everything here is
// safe for concurrent use; the zero KeySet is empty.
package facts

import (
	"math/bits"
	"slices"

	"github.com/ec2select/ec2select/compat"
)

// Digest is a comparable digest of the facts behind an instance type's
// requirements on some keys: two instance types with equal Digests for the
// same KeySet have equal requirements on those keys, so both are
// compatible, or neither, with any requirements that constrain only those
// keys.
type Digest struct {
	name, arch, category, family, size, hypervisor, cpuMaker  string
	gpuMaker, gpuName, acceleratorMaker, acceleratorName      string
	tenancy                                                   string
	generation, vcpu, clock, network, ebs, gpus, accelerators int
	memory, nvme, gpuMemory                                   int64
	windows, encryption, flex, gpu, accelerator               bool
}

// KeySet is a set of instance keys (compat.InstanceLabels): no instance
// type defines any other key, so other keys cannot tell two types apart.
type KeySet struct {
	bits uint32 // bit i: instanceKeys[i]
}

// instanceKeys is compat.InstanceLabels(), sorted; a test checks.
var instanceKeys = [...]string{
	compat.LabelInstanceAcceleratorCount,
	compat.LabelInstanceAcceleratorManufacturer,
	compat.LabelInstanceAcceleratorName,
	compat.LabelInstanceCapabilityFlex,
	compat.LabelInstanceCategory,
	compat.LabelInstanceCPU,
	compat.LabelInstanceCPUManufacturer,
	compat.LabelInstanceCPUClockSpeedMHz,
	compat.LabelInstanceEBSBandwidth,
	compat.LabelInstanceEncryptionInTransit,
	compat.LabelInstanceFamily,
	compat.LabelInstanceGeneration,
	compat.LabelInstanceGPUCount,
	compat.LabelInstanceGPUManufacturer,
	compat.LabelInstanceGPUMemory,
	compat.LabelInstanceGPUName,
	compat.LabelInstanceHypervisor,
	compat.LabelInstanceLocalNVMe,
	compat.LabelInstanceMemory,
	compat.LabelInstanceNetworkBandwidth,
	compat.LabelInstanceSize,
	compat.LabelInstanceTenancy,
	compat.LabelArch,
	compat.LabelOS,
	compat.LabelInstanceType,
	compat.LabelWindowsBuild,
}

// KeysOf returns the set of instance keys rs constrain. It allocates
// nothing.
func KeysOf(rs ...compat.Requirements) KeySet {
	var ks KeySet
	for i, k := range instanceKeys {
		for _, r := range rs {
			if r.Has(k) {
				ks.bits |= 1 << i
				break
			}
		}
	}
	return ks
}

// On returns t's Digest for the keys in ks. It allocates nothing.
func On(t *compat.InstanceType, ks KeySet) Digest {
	var d Digest
	for b := ks.bits; b != 0; b &= b - 1 {
		d.add(t, bits.TrailingZeros32(b))
	}
	return d
}

// add copies into d the fields compat reads for instanceKeys[i].
func (d *Digest) add(t *compat.InstanceType, i int) {
	switch instanceKeys[i] {
	case compat.LabelInstanceType:
		d.name = t.Name
	case compat.LabelArch:
		d.arch = t.Arch
	case compat.LabelOS, compat.LabelWindowsBuild:
		d.windows = slices.Contains(t.OS, compat.OSWindows)
	case compat.LabelInstanceCategory:
		d.category = t.Category
	case compat.LabelInstanceFamily:
		d.family = t.Family
	case compat.LabelInstanceSize:
		d.size = t.Size
	case compat.LabelInstanceGeneration:
		d.generation = t.Generation
	case compat.LabelInstanceCPU:
		d.vcpu = t.VCPU
	case compat.LabelInstanceMemory:
		d.memory = t.MemoryMiB
	case compat.LabelInstanceHypervisor:
		d.hypervisor = t.Hypervisor
	case compat.LabelInstanceCPUManufacturer:
		d.cpuMaker = t.CPUManufacturer
	case compat.LabelInstanceCPUClockSpeedMHz:
		d.clock = t.CPUClockSpeedMHz
	case compat.LabelInstanceEncryptionInTransit:
		d.encryption = t.EncryptionInTransit
	case compat.LabelInstanceCapabilityFlex:
		d.flex = t.Flex
	case compat.LabelInstanceLocalNVMe:
		d.nvme = t.LocalNVMeGB
	case compat.LabelInstanceNetworkBandwidth:
		d.network = t.NetworkBandwidthMbps
	case compat.LabelInstanceEBSBandwidth:
		d.ebs = t.EBSBandwidthMbps
	case compat.LabelInstanceTenancy:
		d.tenancy = t.Tenancy
	default:
		d.addDevice(t, instanceKeys[i])
	}
}

func (d *Digest) addDevice(t *compat.InstanceType, key string) {
	switch key {
	case compat.LabelInstanceGPUCount:
		d.gpus, d.gpu = t.GPUCount, t.HasGPU()
	case compat.LabelInstanceGPUManufacturer:
		d.gpuMaker = t.GPUManufacturer
	case compat.LabelInstanceGPUName:
		d.gpuName = t.GPUName
	case compat.LabelInstanceGPUMemory:
		d.gpuMemory, d.gpu = t.GPUMemoryMiB, t.HasGPU()
	case compat.LabelInstanceAcceleratorCount:
		d.accelerators, d.accelerator = t.AcceleratorCount, t.HasAccelerator()
	case compat.LabelInstanceAcceleratorManufacturer:
		d.acceleratorMaker = t.AcceleratorManufacturer
	case compat.LabelInstanceAcceleratorName:
		d.acceleratorName = t.AcceleratorName
	}
}
