package facts

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
)

// genInstanceType draws instance types from few values per fact, so that
// two draws often agree on some facts and not others.
func genInstanceType() *rapid.Generator[compat.InstanceType] {
	return rapid.Custom(func(t *rapid.T) compat.InstanceType {
		s := func(name string, vs ...string) string { return rapid.SampledFrom(vs).Draw(t, name) }
		i := func(name string) int { return rapid.IntRange(0, 2).Draw(t, name) }
		return compat.InstanceType{
			Name: s("name", "a.large", "b.large"), Family: s("family", "", "m5"), Category: s("category", "", "m"), Size: s("size", "", "large"),
			Generation: i("generation"), Arch: s("arch", "", compat.ArchAMD64, compat.ArchARM64), VCPU: i("vcpu"), MemoryMiB: int64(i("memory")),
			GPUCount: i("gpus"), GPUManufacturer: s("gpuMaker", "", "nvidia", "amd"), GPUName: s("gpuName", "", "t4"), GPUMemoryMiB: int64(i("gpuMemory")),
			AcceleratorCount: i("accelerators"), AcceleratorManufacturer: s("accMaker", "", "aws"), AcceleratorName: s("accName", "", "inferentia2"),
			Flex: rapid.Bool().Draw(t, "flex"), BareMetal: rapid.Bool().Draw(t, "metal"), Hypervisor: s("hypervisor", "", "nitro"),
			OS:              rapid.SampledFrom([][]string{nil, {compat.OSLinux}, {compat.OSLinux, compat.OSWindows}}).Draw(t, "os"),
			CPUManufacturer: s("cpuMaker", "", "intel"), CPUClockSpeedMHz: i("clock"), LocalNVMeGB: int64(i("nvme")),
			NetworkBandwidthMbps: i("network"), EBSBandwidthMbps: i("ebs"), EncryptionInTransit: rapid.Bool().Draw(t, "encryption"),
			Tenancy: s("tenancy", "", compat.TenancyDefault, compat.TenancyDedicated),
		}
	})
}

// perturb returns a with a few facts taken from other: pairs that differ in
// little are the ones that test a digest.
func perturb(t *rapid.T, a, other compat.InstanceType) compat.InstanceType {
	b := a
	for _, field := range rapid.SliceOfN(rapid.IntRange(0, 12), 1, 2).Draw(t, "fields") {
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
		case 11:
			b.Tenancy = other.Tenancy
		default:
			b = other
		}
	}
	return b
}

// TestDigestDecidesRequirements: equal digests on a key imply equal
// requirements on it, the promise Map relies on. Each key copies a fixed
// set of fields, so digests equal on several keys are equal on each of
// them, and checking keys one at a time suffices.
func TestDigestDecidesRequirements(t *testing.T) {
	all := append(compat.InstanceLabels(), compat.LabelZone, "example.com/team", "beta.kubernetes.io/arch")
	rapid.Check(t, func(t *rapid.T) {
		a := genInstanceType().Draw(t, "a")
		b := perturb(t, a, genInstanceType().Draw(t, "other"))
		ra, rb := a.Requirements(), b.Requirements()
		for _, k := range all {
			on := KeysOf(compat.MustRequirements(compat.Requirement{Key: k, Operator: compat.Exists}))
			if !bytes.Equal(Append(nil, &a, on), Append(nil, &b, on)) {
				continue
			}
			ga, _ := ra.Get(k)
			gb, _ := rb.Get(k)
			if diff := cmp.Diff(ga, gb); diff != "" {
				t.Fatalf("equal digests on %s, but requirements differ (-a +b):\n%s", k, diff)
			}
		}
	})
}

func TestInstanceKeys(t *testing.T) {
	if diff := cmp.Diff(compat.InstanceLabels(), instanceKeys[:]); diff != "" {
		t.Errorf("instanceKeys is not compat.InstanceLabels() (-want +got):\n%s", diff)
	}
	if len(instanceKeys) > 32 {
		t.Errorf("%d instance keys do not fit KeySet's 32 bits", len(instanceKeys))
	}
}

func TestKeysOf(t *testing.T) {
	r := compat.MustRequirements(
		compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchAMD64}},
		compat.Requirement{Key: compat.LabelZone, Operator: compat.In, Values: []string{"a"}},
		compat.Requirement{Key: "example.com/x", Operator: compat.Exists},
	)
	gpu := compat.MustRequirements(compat.Requirement{Key: compat.LabelInstanceGPUCount, Operator: compat.DoesNotExist})
	got := KeysOf(r, gpu, compat.Requirements{})
	want := KeysOf(compat.MustRequirements(
		compat.Requirement{Key: compat.LabelArch, Operator: compat.Exists},
		compat.Requirement{Key: compat.LabelInstanceGPUCount, Operator: compat.Exists},
	))
	if got != want || got == (KeySet{}) {
		t.Errorf("KeysOf = %b; want %b (instance keys only)", got.bits, want.bits)
	}
	if n := testing.AllocsPerRun(100, func() { KeysOf(r, gpu) }); n != 0 {
		t.Errorf("KeysOf allocates %v times", n)
	}
	it := compat.InstanceType{Name: "m5.large", Arch: compat.ArchAMD64}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { Append(buf[:0], &it, got) }); n != 0 {
		t.Errorf("Append allocates %v times", n)
	}
}

// TestAppendDelimitsStrings: without the length before each string, these
// two would digest alike ("a\x00b" then "" against "a" then "b\x00", each
// string followed by a zero number).
func TestAppendDelimitsStrings(t *testing.T) {
	ks := KeysOf(compat.MustRequirements(
		compat.Requirement{Key: compat.LabelInstanceAcceleratorManufacturer, Operator: compat.Exists},
		compat.Requirement{Key: compat.LabelInstanceAcceleratorName, Operator: compat.Exists},
	))
	a := compat.InstanceType{AcceleratorManufacturer: "a\x00b"}
	b := compat.InstanceType{AcceleratorManufacturer: "a", AcceleratorName: "b\x00"}
	if bytes.Equal(Append(nil, &a, ks), Append(nil, &b, ks)) {
		t.Errorf("different facts digest alike: %q", Append(nil, &a, ks))
	}
}
