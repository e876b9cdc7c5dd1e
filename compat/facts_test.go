package compat

import (
	"testing"

	"pgregory.net/rapid"
)

// genInstanceType draws instance types from few values per fact, so that
// two draws often agree on some facts and not others.
func genInstanceType() *rapid.Generator[InstanceType] {
	return rapid.Custom(func(t *rapid.T) InstanceType {
		s := func(name string, vs ...string) string { return rapid.SampledFrom(vs).Draw(t, name) }
		i := func(name string) int { return rapid.IntRange(0, 2).Draw(t, name) }
		return InstanceType{
			Name: s("name", "a.large", "b.large"), Family: s("family", "", "m5"), Category: s("category", "", "m"), Size: s("size", "", "large"),
			Generation: i("generation"), Arch: s("arch", "", ArchAMD64, ArchARM64), VCPU: i("vcpu"), MemoryMiB: int64(i("memory")),
			GPUCount: i("gpus"), GPUManufacturer: s("gpuMaker", "", "nvidia", "amd"), GPUName: s("gpuName", "", "t4"), GPUMemoryMiB: int64(i("gpuMemory")),
			AcceleratorCount: i("accelerators"), AcceleratorManufacturer: s("accMaker", "", "aws"), AcceleratorName: s("accName", "", "inferentia2"),
			Flex: rapid.Bool().Draw(t, "flex"), BareMetal: rapid.Bool().Draw(t, "metal"), Hypervisor: s("hypervisor", "", "nitro"),
			OS:              rapid.SampledFrom([][]string{nil, {OSLinux}, {OSLinux, OSWindows}}).Draw(t, "os"),
			CPUManufacturer: s("cpuMaker", "", "intel"), CPUClockSpeedMHz: i("clock"), LocalNVMeGB: int64(i("nvme")),
			NetworkBandwidthMbps: i("network"), EBSBandwidthMbps: i("ebs"), EncryptionInTransit: rapid.Bool().Draw(t, "encryption"),
		}
	})
}

// perturb returns a with a few facts taken from other: pairs that differ in
// little are the ones that test a digest.
func perturb(t *rapid.T, a, other InstanceType) InstanceType {
	b := a
	for _, field := range rapid.SliceOfN(rapid.IntRange(0, 11), 1, 2).Draw(t, "fields") {
		switch field {
		case 0:
			b.GPUCount = other.GPUCount
		case 1:
			b.GPUManufacturer = other.GPUManufacturer
		case 2:
			b.GPUName = other.GPUName
		case 3:
			b.GPUMemoryMiB = other.GPUMemoryMiB
		case 4:
			b.AcceleratorCount = other.AcceleratorCount
		case 5:
			b.AcceleratorManufacturer = other.AcceleratorManufacturer
		case 6:
			b.AcceleratorName = other.AcceleratorName
		case 7:
			b.OS = other.OS
		case 8:
			b.Arch = other.Arch
		case 9:
			b.Hypervisor, b.BareMetal = other.Hypervisor, other.BareMetal
		case 10:
			b.Generation, b.VCPU, b.MemoryMiB = other.Generation, other.VCPU, other.MemoryMiB
		default:
			b = other
		}
	}
	return b
}

// TestFactsOnDecidesRequirements: equal Facts on a key imply equal
// requirements on it — the promise Map-like callers rely on. Each key
// copies a fixed set of fields, so Facts equal on several keys are equal on
// each of them, and checking keys one at a time suffices.
func TestFactsOnDecidesRequirements(t *testing.T) {
	all := append(InstanceLabels(), LabelZone, "example.com/team", "beta.kubernetes.io/arch")
	rapid.Check(t, func(t *rapid.T) {
		a := genInstanceType().Draw(t, "a")
		b := perturb(t, a, genInstanceType().Draw(t, "other"))
		ra, rb := a.Requirements(), b.Requirements()
		for _, k := range all {
			on := KeysOf(MustRequirements(Requirement{Key: k, Operator: Exists}))
			if a.FactsOn(on) != b.FactsOn(on) {
				continue
			}
			ga, _ := ra.Get(k)
			gb, _ := rb.Get(k)
			if len(ga) != len(gb) {
				t.Fatalf("equal Facts on %s, but %v vs %v", k, ga, gb)
			}
			for i := range ga {
				if ga[i].String() != gb[i].String() {
					t.Fatalf("equal Facts on %s, but %v vs %v", k, ga, gb)
				}
			}
		}
	})
}

func TestKeysOf(t *testing.T) {
	if numWellKnown > 64 {
		t.Fatalf("%d well-known keys do not fit KeySet's 64 bits", numWellKnown)
	}
	r := MustRequirements(req(LabelArch, In, ArchAMD64), req(LabelZone, In, "a"), req("example.com/x", Exists))
	got := KeysOf(r, StandardVariant(), Requirements{})
	want := KeySet{bits: 1<<wkArch | 1<<wkInstanceGPUCount | 1<<wkInstanceAcceleratorCount}
	if got != want {
		t.Errorf("KeysOf = %b; want %b (instance keys only)", got.bits, want.bits)
	}
	std := StandardVariant()
	if n := testing.AllocsPerRun(100, func() { KeysOf(r, std) }); n != 0 {
		t.Errorf("KeysOf allocates %v times", n)
	}
}
