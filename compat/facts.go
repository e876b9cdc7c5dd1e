package compat

import (
	"math/bits"
	"slices"
)

// Facts is a comparable digest of the facts behind an instance type's
// requirements on some keys: two instance types with equal Facts for the
// same keys have equal requirements on those keys, so both are compatible,
// or neither, with any requirements that constrain only those keys. Map-like
// callers use it to compare each distinct kind of instance type once.
type Facts struct {
	name, arch, category, family, size, hypervisor, cpuMaker  string
	gpuMaker, gpuName, acceleratorMaker, acceleratorName      string
	generation, vcpu, clock, network, ebs, gpus, accelerators int
	memory, nvme, gpuMemory                                   int64
	windows, encryption, flex, gpu, accelerator               bool
}

// KeySet is a set of keys prepared for [InstanceType.FactsOn]. Only the
// instance labels (see [InstanceLabels]) in it count: no instance type
// defines any other key, so other keys cannot tell two types apart. The
// zero KeySet is empty.
type KeySet struct {
	bits uint64 // bit i: wellKnown[i]
}

// KeysOf returns the set of keys rs constrain. It allocates nothing.
func KeysOf(rs ...Requirements) KeySet {
	var ks KeySet
	for _, r := range rs {
		for i := range r.entries() {
			if wk := r.s.entries[i].wk; wk >= 0 && wellKnown[wk].instance {
				ks.bits |= 1 << wk
			}
		}
	}
	return ks
}

// FactsOn returns t's Facts for the keys in ks. It allocates nothing.
func (t InstanceType) FactsOn(ks KeySet) Facts {
	var f Facts
	for b := ks.bits; b != 0; b &= b - 1 {
		t.addFacts(&f, bits.TrailingZeros64(b))
	}
	return f
}

// addFacts copies into f the fields fact reads for wk. It must read exactly
// what fact reads; TestFactsOnDecidesRequirements holds the two together.
func (t *InstanceType) addFacts(f *Facts, wk int) {
	switch wk {
	case wkInstanceType:
		f.name = t.Name
	case wkArch:
		f.arch = t.Arch
	case wkOS, wkWindowsBuild:
		f.windows = slices.Contains(t.OS, OSWindows)
	case wkInstanceCategory:
		f.category = t.Category
	case wkInstanceFamily:
		f.family = t.Family
	case wkInstanceSize:
		f.size = t.Size
	case wkInstanceGeneration:
		f.generation = t.Generation
	case wkInstanceCPU:
		f.vcpu = t.VCPU
	case wkInstanceMemory:
		f.memory = t.MemoryMiB
	case wkInstanceHypervisor:
		f.hypervisor = t.Hypervisor
	case wkInstanceCPUManufacturer:
		f.cpuMaker = t.CPUManufacturer
	case wkInstanceCPUClockSpeedMHz:
		f.clock = t.CPUClockSpeedMHz
	case wkInstanceEncryptionInTransit:
		f.encryption = t.EncryptionInTransit
	case wkInstanceCapabilityFlex:
		f.flex = t.Flex
	case wkInstanceLocalNVMe:
		f.nvme = t.LocalNVMeGB
	case wkInstanceNetworkBandwidth:
		f.network = t.NetworkBandwidthMbps
	case wkInstanceEBSBandwidth:
		f.ebs = t.EBSBandwidthMbps
	case wkInstanceGPUCount:
		f.gpus, f.gpu = t.GPUCount, t.HasGPU()
	case wkInstanceGPUManufacturer:
		f.gpuMaker = t.GPUManufacturer
	case wkInstanceGPUName:
		f.gpuName = t.GPUName
	case wkInstanceGPUMemory:
		f.gpuMemory, f.gpu = t.GPUMemoryMiB, t.HasGPU()
	case wkInstanceAcceleratorCount:
		f.accelerators, f.accelerator = t.AcceleratorCount, t.HasAccelerator()
	case wkInstanceAcceleratorManufacturer:
		f.acceleratorMaker = t.AcceleratorManufacturer
	case wkInstanceAcceleratorName:
		f.acceleratorName = t.AcceleratorName
	}
}
