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

// Positions in instanceKeys.
const (
	kInstanceAcceleratorCount = iota
	kInstanceAcceleratorManufacturer
	kInstanceAcceleratorName
	kInstanceCapabilityFlex
	kInstanceCategory
	kInstanceCPU
	kInstanceCPUManufacturer
	kInstanceCPUClockSpeedMHz
	kInstanceEBSBandwidth
	kInstanceEncryptionInTransit
	kInstanceFamily
	kInstanceGeneration
	kInstanceGPUCount
	kInstanceGPUManufacturer
	kInstanceGPUMemory
	kInstanceGPUName
	kInstanceHypervisor
	kInstanceLocalNVMe
	kInstanceMemory
	kInstanceNetworkBandwidth
	kInstanceSize
	kInstanceTenancy
	kArch
	kOS
	kInstanceType
	kWindowsBuild
	numKeys
)

// instanceKeys is compat.InstanceLabels(), sorted; a test checks.
var instanceKeys = [numKeys]string{
	kInstanceAcceleratorCount:        compat.LabelInstanceAcceleratorCount,
	kInstanceAcceleratorManufacturer: compat.LabelInstanceAcceleratorManufacturer,
	kInstanceAcceleratorName:         compat.LabelInstanceAcceleratorName,
	kInstanceCapabilityFlex:          compat.LabelInstanceCapabilityFlex,
	kInstanceCategory:                compat.LabelInstanceCategory,
	kInstanceCPU:                     compat.LabelInstanceCPU,
	kInstanceCPUManufacturer:         compat.LabelInstanceCPUManufacturer,
	kInstanceCPUClockSpeedMHz:        compat.LabelInstanceCPUClockSpeedMHz,
	kInstanceEBSBandwidth:            compat.LabelInstanceEBSBandwidth,
	kInstanceEncryptionInTransit:     compat.LabelInstanceEncryptionInTransit,
	kInstanceFamily:                  compat.LabelInstanceFamily,
	kInstanceGeneration:              compat.LabelInstanceGeneration,
	kInstanceGPUCount:                compat.LabelInstanceGPUCount,
	kInstanceGPUManufacturer:         compat.LabelInstanceGPUManufacturer,
	kInstanceGPUMemory:               compat.LabelInstanceGPUMemory,
	kInstanceGPUName:                 compat.LabelInstanceGPUName,
	kInstanceHypervisor:              compat.LabelInstanceHypervisor,
	kInstanceLocalNVMe:               compat.LabelInstanceLocalNVMe,
	kInstanceMemory:                  compat.LabelInstanceMemory,
	kInstanceNetworkBandwidth:        compat.LabelInstanceNetworkBandwidth,
	kInstanceSize:                    compat.LabelInstanceSize,
	kInstanceTenancy:                 compat.LabelInstanceTenancy,
	kArch:                            compat.LabelArch,
	kOS:                              compat.LabelOS,
	kInstanceType:                    compat.LabelInstanceType,
	kWindowsBuild:                    compat.LabelWindowsBuild,
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
	switch i {
	case kInstanceType:
		d.name = t.Name
	case kArch:
		d.arch = t.Arch
	case kOS, kWindowsBuild:
		d.windows = slices.Contains(t.OS, compat.OSWindows)
	case kInstanceCategory:
		d.category = t.Category
	case kInstanceFamily:
		d.family = t.Family
	case kInstanceSize:
		d.size = t.Size
	case kInstanceGeneration:
		d.generation = t.Generation
	case kInstanceCPU:
		d.vcpu = t.VCPU
	case kInstanceMemory:
		d.memory = t.MemoryMiB
	case kInstanceHypervisor:
		d.hypervisor = t.Hypervisor
	case kInstanceCPUManufacturer:
		d.cpuMaker = t.CPUManufacturer
	case kInstanceCPUClockSpeedMHz:
		d.clock = t.CPUClockSpeedMHz
	case kInstanceEncryptionInTransit:
		d.encryption = t.EncryptionInTransit
	case kInstanceCapabilityFlex:
		d.flex = t.Flex
	case kInstanceLocalNVMe:
		d.nvme = t.LocalNVMeGB
	case kInstanceNetworkBandwidth:
		d.network = t.NetworkBandwidthMbps
	case kInstanceEBSBandwidth:
		d.ebs = t.EBSBandwidthMbps
	case kInstanceTenancy:
		d.tenancy = t.Tenancy
	default:
		d.addDevice(t, i)
	}
}

func (d *Digest) addDevice(t *compat.InstanceType, i int) {
	switch i {
	case kInstanceGPUCount:
		d.gpus, d.gpu = t.GPUCount, t.HasGPU()
	case kInstanceGPUManufacturer:
		d.gpuMaker = t.GPUManufacturer
	case kInstanceGPUName:
		d.gpuName = t.GPUName
	case kInstanceGPUMemory:
		d.gpuMemory, d.gpu = t.GPUMemoryMiB, t.HasGPU()
	case kInstanceAcceleratorCount:
		d.accelerators, d.accelerator = t.AcceleratorCount, t.HasAccelerator()
	case kInstanceAcceleratorManufacturer:
		d.acceleratorMaker = t.AcceleratorManufacturer
	case kInstanceAcceleratorName:
		d.acceleratorName = t.AcceleratorName
	}
}
