package facts

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/ec2select/ec2select/compat"
)

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

// Append appends to dst t's digest for the keys in ks and returns the
// extended slice: two instance types with equal digests for the same
// KeySet have equal requirements on those keys, so both are compatible, or
// neither, with any requirements that constrain only those keys. It
// allocates nothing when dst has room.
//
// The digest is each key's fact in turn (see fact): the string's length as
// a uvarint, its bytes, and the number as a varint. Every field delimits
// itself and the keys come in a fixed order, so for one KeySet equal bytes
// mean equal facts. Bytes rather than a struct of every fact keep it
// short: a few dozen bytes for an AMI's keys, cheap to compare and to hash.
func Append(dst []byte, t *compat.InstanceType, ks KeySet) []byte {
	for b := ks.bits; b != 0; b &= b - 1 {
		str, num := fact(t, bits.TrailingZeros32(b))
		dst = binary.AppendUvarint(dst, uint64(len(str)))
		dst = append(dst, str...)
		dst = binary.AppendVarint(dst, num)
	}
	return dst
}

// fact returns the fields compat reads for instanceKeys[i]: a string, a
// number, or for the GPU and accelerator counts and GPU memory, the number
// and whether the device exists ("device" or "").
func fact(t *compat.InstanceType, i int) (string, int64) {
	switch i {
	case kInstanceType:
		return t.Name, 0
	case kArch:
		return t.Arch, 0
	case kInstanceCategory:
		return t.Category, 0
	case kInstanceFamily:
		return t.Family, 0
	case kInstanceSize:
		return t.Size, 0
	case kInstanceHypervisor:
		return t.Hypervisor, 0
	case kInstanceCPUManufacturer:
		return t.CPUManufacturer, 0
	case kInstanceGPUManufacturer:
		return t.GPUManufacturer, 0
	case kInstanceGPUName:
		return t.GPUName, 0
	case kInstanceAcceleratorManufacturer:
		return t.AcceleratorManufacturer, 0
	case kInstanceAcceleratorName:
		return t.AcceleratorName, 0
	case kInstanceTenancy:
		return t.Tenancy, 0
	case kOS, kWindowsBuild:
		return "", boolNumber(slices.Contains(t.OS, compat.OSWindows))
	case kInstanceGeneration:
		return "", int64(t.Generation)
	case kInstanceCPU:
		return "", int64(t.VCPU)
	case kInstanceMemory:
		return "", t.MemoryMiB
	case kInstanceCPUClockSpeedMHz:
		return "", int64(t.CPUClockSpeedMHz)
	case kInstanceEncryptionInTransit:
		return "", boolNumber(t.EncryptionInTransit)
	case kInstanceCapabilityFlex:
		return "", boolNumber(t.Flex)
	case kInstanceLocalNVMe:
		return "", t.LocalNVMeGB
	case kInstanceNetworkBandwidth:
		return "", int64(t.NetworkBandwidthMbps)
	case kInstanceEBSBandwidth:
		return "", int64(t.EBSBandwidthMbps)
	case kInstanceGPUCount:
		return device(t.HasGPU()), int64(t.GPUCount)
	case kInstanceGPUMemory:
		return device(t.HasGPU()), t.GPUMemoryMiB
	case kInstanceAcceleratorCount:
		return device(t.HasAccelerator()), int64(t.AcceleratorCount)
	}
	return "", 0
}

func boolNumber(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func device(has bool) string {
	if has {
		return "device"
	}
	return ""
}
