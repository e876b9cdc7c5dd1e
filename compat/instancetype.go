package compat

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/internal/validation"
)

// Kubernetes architecture and operating-system names.
const (
	ArchAMD64 = "amd64"
	ArchARM64 = "arm64"
	OSLinux   = "linux"
	OSWindows = "windows"
)

// Windows Server builds, the values of node.kubernetes.io/windows-build.
const (
	WindowsBuild2019 = "10.0.17763"
	WindowsBuild2022 = "10.0.20348"
	WindowsBuild2025 = "10.0.26100"
)

// InstanceType is the facts about one EC2 instance type that selection
// needs: plain values, not Kubernetes objects. Build one with
// [InstanceTypeFromEC2], or by hand in tests.
//
// A GPU is present when GPUCount > 0 or GPUManufacturer or GPUName is set:
// EC2 reports a GPU count of 0 for fractional-GPU types such as g6f
// (karpenter-provider-aws #8368), and they are GPU types all the same.
// Accelerators likewise.
type InstanceType struct {
	Name       string // "c7i-flex.large"
	Family     string // "c7i-flex"
	Category   string // "c"
	Size       string // "large"
	Generation int    // 7
	Arch       string // "amd64" or "arm64"

	VCPU      int
	MemoryMiB int64

	// GPUs, summed over GPU models. When an instance type has several
	// models that differ, GPUName and GPUMemoryMiB are empty (there is no
	// single value to label) and GPUManufacturer is set only if shared.
	GPUCount        int
	GPUManufacturer string // lower-kebab-case: "nvidia", "amd", "habana"
	GPUName         string // lower-kebab-case: "t4", "a10g", "radeon-pro-v520"
	GPUMemoryMiB    int64  // per GPU

	// Inference accelerators and AWS Neuron devices (manufacturer "aws").
	AcceleratorCount        int
	AcceleratorManufacturer string
	AcceleratorName         string

	Flex       bool   // a flex family ("c7i-flex"): no C-states, baseline CPU
	BareMetal  bool   // a .metal size
	Hypervisor string // "nitro", "xen", or "" for bare metal

	// OS lists the operating systems the type runs: linux, and windows for
	// x86 types that support Windows Server. Empty means linux.
	OS []string

	CPUManufacturer      string // lower-kebab-case: "intel", "amd", "aws"
	CPUClockSpeedMHz     int    // sustained clock; 0 when not published
	LocalNVMeGB          int64  // total instance-store NVMe; 0 when none
	NetworkBandwidthMbps int    // baseline; 0 when not published
	EBSBandwidthMbps     int    // maximum EBS-optimized; 0 when not EBS-optimized by default
	EncryptionInTransit  bool
}

// HasGPU reports whether t has a GPU, including fractional GPUs that EC2
// reports with a count of 0.
func (t InstanceType) HasGPU() bool {
	return t.GPUCount > 0 || t.GPUManufacturer != "" || t.GPUName != ""
}

// HasAccelerator reports whether t has an inference accelerator or Neuron
// device.
func (t InstanceType) HasAccelerator() bool {
	return t.AcceleratorCount > 0 || t.AcceleratorManufacturer != "" || t.AcceleratorName != ""
}

// Requirements returns the requirements of a node of this type, with every
// instance label (see [InstanceLabels]) defined: In its value, or
// DoesNotExist where the type has no such property, so a type without a GPU
// is DoesNotExist on instance-gpu-count rather than silent about it. The
// os and windows-build keys list every value the type supports.
func (t InstanceType) Requirements() Requirements {
	b := newFactBuilder()
	b.str(LabelInstanceType, t.Name)
	b.str(LabelArch, t.Arch)
	osList := t.OS
	if len(osList) == 0 {
		osList = []string{OSLinux}
	}
	b.set(LabelOS, osList...)
	if slices.Contains(osList, OSWindows) {
		b.set(LabelWindowsBuild, WindowsBuild2019, WindowsBuild2022, WindowsBuild2025)
	} else {
		b.set(LabelWindowsBuild)
	}
	b.str(LabelInstanceCategory, t.Category)
	b.str(LabelInstanceFamily, t.Family)
	b.str(LabelInstanceSize, t.Size)
	b.num(LabelInstanceGeneration, int64(t.Generation), t.Generation > 0)
	b.num(LabelInstanceCPU, int64(t.VCPU), true)
	b.num(LabelInstanceMemory, t.MemoryMiB, true)
	b.set(LabelInstanceHypervisor, t.Hypervisor) // "" on bare metal, as Karpenter labels it
	b.str(LabelInstanceCPUManufacturer, t.CPUManufacturer)
	b.num(LabelInstanceCPUClockSpeedMHz, int64(t.CPUClockSpeedMHz), t.CPUClockSpeedMHz > 0)
	b.set(LabelInstanceEncryptionInTransit, strconv.FormatBool(t.EncryptionInTransit))
	b.set(LabelInstanceCapabilityFlex, strconv.FormatBool(t.Flex))
	b.num(LabelInstanceLocalNVMe, t.LocalNVMeGB, t.LocalNVMeGB > 0)
	b.num(LabelInstanceNetworkBandwidth, int64(t.NetworkBandwidthMbps), t.NetworkBandwidthMbps > 0)
	b.num(LabelInstanceEBSBandwidth, int64(t.EBSBandwidthMbps), t.EBSBandwidthMbps > 0)
	gpu := t.HasGPU()
	b.num(LabelInstanceGPUCount, int64(t.GPUCount), gpu)
	b.str(LabelInstanceGPUManufacturer, t.GPUManufacturer)
	b.str(LabelInstanceGPUName, t.GPUName)
	b.num(LabelInstanceGPUMemory, t.GPUMemoryMiB, gpu && t.GPUMemoryMiB > 0)
	b.num(LabelInstanceAcceleratorCount, int64(t.AcceleratorCount), t.HasAccelerator())
	b.str(LabelInstanceAcceleratorManufacturer, t.AcceleratorManufacturer)
	b.str(LabelInstanceAcceleratorName, t.AcceleratorName)
	return fromEntries(b.entries)
}

// Labels returns the well-known labels a node of this type carries: each
// requirement of [InstanceType.Requirements] that pins exactly one value.
// Keys and value formats are Karpenter's.
func (t InstanceType) Labels() map[string]string {
	labels := make(map[string]string, numWellKnown)
	for _, e := range t.Requirements().entries() {
		if !e.complement && len(e.values) == 1 {
			labels[e.key] = e.values[0].s
		}
	}
	return labels
}

// factBuilder collects an instance type's entries. The facts are trusted
// (they come from EC2 or a caller's own struct), so they skip validation.
type factBuilder struct{ entries []entry }

func newFactBuilder() *factBuilder {
	return &factBuilder{entries: make([]entry, 0, numWellKnown)}
}

// set adds key In values, or DoesNotExist when there are none.
func (b *factBuilder) set(key string, values ...string) {
	e := entry{key: key, wk: wellKnownIndex(key), absent: len(values) == 0}
	if len(values) > 0 {
		e.values = sortedValues(values)
	}
	b.entries = append(b.entries, e)
}

// str adds key In [v], or DoesNotExist when v is empty.
func (b *factBuilder) str(key, v string) {
	if v == "" {
		b.set(key)
		return
	}
	b.set(key, v)
}

// num adds key In [n] when known, else DoesNotExist.
func (b *factBuilder) num(key string, n int64, known bool) {
	if !known {
		b.set(key)
		return
	}
	b.set(key, strconv.FormatInt(n, 10))
}

// InstanceTypeName is what an instance type's name says about it.
type InstanceTypeName struct {
	Family     string // "c7i-flex", "u-6tb1", "mac2-m2pro"
	Category   string // "c", "u", "mac"
	Generation int    // 7, 1, 2
	Size       string // "large", "metal"
}

// ParseInstanceTypeName splits an instance type name such as
// "c7i-flex.large" into family and size, and the family into its category
// letters and generation number. The grammar, which every EC2 name follows:
//
//	name     = family "." size
//	family   = category [ "-" digits "tb" ] generation rest
//	category = lowercase letters        ("m", "inf", "mac", "u")
//	generation = digits                 ("7" in "c7i-flex", "1" in "u-6tb1")
//
// so "u-6tb1.metal" is category u, generation 1, and "mac2-m2pro.metal" is
// category mac, generation 2.
func ParseInstanceTypeName(name string) (InstanceTypeName, error) {
	family, size, ok := strings.Cut(name, ".")
	if !ok || family == "" || size == "" || strings.Contains(size, ".") {
		return InstanceTypeName{}, fmt.Errorf("compat: instance type name %q is not of the form family.size (such as \"m5.large\")", name)
	}
	i := 0
	for i < len(family) && 'a' <= family[i] && family[i] <= 'z' {
		i++
	}
	category := family[:i]
	rest := family[i:]
	// High-memory families put the memory size first: u-6tb1, u-12tb1.
	if strings.HasPrefix(rest, "-") {
		j := 1
		for j < len(rest) && isDigit(rest[j]) {
			j++
		}
		if j > 1 && strings.HasPrefix(rest[j:], "tb") {
			rest = rest[j+2:]
		}
	}
	j := 0
	for j < len(rest) && isDigit(rest[j]) {
		j++
	}
	if category == "" || j == 0 {
		return InstanceTypeName{}, fmt.Errorf("compat: instance type name %q: family %q does not start with category letters and a generation number (such as \"m5\" or \"c7i-flex\")", name, family)
	}
	gen, err := strconv.Atoi(rest[:j])
	if err != nil {
		return InstanceTypeName{}, fmt.Errorf("compat: instance type name %q: generation %q is out of range", name, rest[:j])
	}
	if err := validation.LabelValue(family); err != nil {
		return InstanceTypeName{}, fmt.Errorf("compat: instance type name %q: family %q is not a valid label value: %v", name, family, err)
	}
	if err := validation.LabelValue(size); err != nil {
		return InstanceTypeName{}, fmt.Errorf("compat: instance type name %q: size %q is not a valid label value: %v", name, size, err)
	}
	return InstanceTypeName{Family: family, Category: category, Generation: gen, Size: size}, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// kubeArch maps EC2 architecture names to Kubernetes'.
func kubeArch(a ec2types.ArchitectureType) (string, bool) {
	switch a {
	case ec2types.ArchitectureTypeX8664:
		return ArchAMD64, true
	case ec2types.ArchitectureTypeArm64:
		return ArchARM64, true
	}
	return "", false
}

// runsWindows reports whether EKS Windows AMIs run on an x86 family. The
// exceptions are accelerated families whose hardware has no Windows Server
// support (karpenter-provider-aws #7985).
func runsWindows(family string) bool {
	switch family {
	case "dl1", "f1", "f2", "inf2", "p4d", "p5", "trn1", "trn1n", "vt1":
		return false
	}
	return true
}

// InstanceTypeFromEC2 converts a DescribeInstanceTypes result. It fails,
// naming the type and the reason, for a type no EKS node can run on: no
// x86_64 or arm64 support (i386-only, or a Mac type), no HVM support, or
// missing vCPU or memory figures. It never panics on partial input.
//
// When a type supports several architectures, the first one Kubernetes
// names wins, so i386+x86_64 is amd64. GPU and accelerator names are
// lower-kebab-cased as Karpenter labels them ("Radeon Pro V520" →
// "radeon-pro-v520"); Neuron devices take manufacturer "aws".
func InstanceTypeFromEC2(info ec2types.InstanceTypeInfo) (InstanceType, error) {
	name := string(info.InstanceType)
	if name == "" {
		return InstanceType{}, fmt.Errorf("compat: instance type info has no InstanceType name")
	}
	parsed, err := ParseInstanceTypeName(name)
	if err != nil {
		return InstanceType{}, err
	}
	t := InstanceType{
		Name: name, Family: parsed.Family, Category: parsed.Category, Generation: parsed.Generation, Size: parsed.Size,
		Flex:       strings.Contains(parsed.Family, "-flex"),
		BareMetal:  deref(info.BareMetal),
		Hypervisor: string(info.Hypervisor),
	}
	if info.ProcessorInfo == nil {
		return InstanceType{}, fmt.Errorf("compat: instance type %s: no ProcessorInfo, so its architecture is unknown", name)
	}
	for _, a := range info.ProcessorInfo.SupportedArchitectures {
		if arch, ok := kubeArch(a); ok {
			t.Arch = arch
			break
		}
	}
	if t.Arch == "" {
		return InstanceType{}, fmt.Errorf("compat: instance type %s: architectures %v are not supported; only x86_64 (amd64) and arm64 run EKS nodes", name, info.ProcessorInfo.SupportedArchitectures)
	}
	if vt := info.SupportedVirtualizationTypes; len(vt) > 0 && !slices.Contains(vt, ec2types.VirtualizationTypeHvm) {
		return InstanceType{}, fmt.Errorf("compat: instance type %s: supports only %v virtualization; EKS AMIs need hvm", name, vt)
	}
	if info.VCpuInfo == nil || deref(info.VCpuInfo.DefaultVCpus) <= 0 {
		return InstanceType{}, fmt.Errorf("compat: instance type %s: VCpuInfo.DefaultVCpus is missing or not positive", name)
	}
	if info.MemoryInfo == nil || deref(info.MemoryInfo.SizeInMiB) <= 0 {
		return InstanceType{}, fmt.Errorf("compat: instance type %s: MemoryInfo.SizeInMiB is missing or not positive", name)
	}
	t.VCPU = int(*info.VCpuInfo.DefaultVCpus)
	t.MemoryMiB = *info.MemoryInfo.SizeInMiB

	t.CPUManufacturer = labelValue(deref(info.ProcessorInfo.Manufacturer))
	if ghz := deref(info.ProcessorInfo.SustainedClockSpeedInGhz); ghz > 0 {
		t.CPUClockSpeedMHz = int(math.Round(ghz * 1000))
	}
	t.OS = []string{OSLinux}
	if t.Arch == ArchAMD64 && runsWindows(t.Family) {
		t.OS = append(t.OS, OSWindows)
	}
	if s := info.InstanceStorageInfo; s != nil && s.NvmeSupport != ec2types.EphemeralNvmeSupportUnsupported && s.NvmeSupport != "" {
		t.LocalNVMeGB = deref(s.TotalSizeInGB)
	}
	if e := info.EbsInfo; e != nil && e.EbsOptimizedSupport == ec2types.EbsOptimizedSupportDefault && e.EbsOptimizedInfo != nil {
		t.EBSBandwidthMbps = int(deref(e.EbsOptimizedInfo.MaximumBandwidthInMbps))
	}
	if n := info.NetworkInfo; n != nil {
		t.EncryptionInTransit = deref(n.EncryptionInTransitSupported)
		var gbps float64
		for _, card := range n.NetworkCards {
			gbps += deref(card.BaselineBandwidthInGbps)
		}
		t.NetworkBandwidthMbps = int(math.Round(gbps * 1000))
	}
	if info.GpuInfo != nil {
		setGPUs(&t, info.GpuInfo.Gpus)
	}
	setAccelerators(&t, info)
	return t, nil
}

func setGPUs(t *InstanceType, gpus []ec2types.GpuDeviceInfo) {
	if len(gpus) == 0 {
		return
	}
	var names, makers []string
	var mems []int64
	for _, g := range gpus {
		t.GPUCount += int(deref(g.Count))
		names = append(names, labelValue(deref(g.Name)))
		makers = append(makers, labelValue(deref(g.Manufacturer)))
		if g.MemoryInfo != nil {
			mems = append(mems, int64(deref(g.MemoryInfo.SizeInMiB)))
		}
	}
	t.GPUName = shared(names)
	t.GPUManufacturer = shared(makers)
	if len(mems) == len(gpus) {
		t.GPUMemoryMiB = shared(mems)
	}
	if t.GPUManufacturer == "" && t.GPUName == "" && t.GPUCount == 0 {
		// An entry with nothing in it still says a GPU is there.
		t.GPUManufacturer = "unknown"
	}
}

func setAccelerators(t *InstanceType, info ec2types.InstanceTypeInfo) {
	if n := info.NeuronInfo; n != nil && len(n.NeuronDevices) > 0 {
		var names []string
		for _, d := range n.NeuronDevices {
			t.AcceleratorCount += int(deref(d.Count))
			names = append(names, labelValue(deref(d.Name)))
		}
		t.AcceleratorName = shared(names)
		t.AcceleratorManufacturer = "aws"
		return
	}
	if a := info.InferenceAcceleratorInfo; a != nil && len(a.Accelerators) > 0 {
		var names, makers []string
		for _, d := range a.Accelerators {
			t.AcceleratorCount += int(deref(d.Count))
			names = append(names, labelValue(deref(d.Name)))
			makers = append(makers, labelValue(deref(d.Manufacturer)))
		}
		t.AcceleratorName = shared(names)
		t.AcceleratorManufacturer = shared(makers)
		if t.AcceleratorManufacturer == "" && t.AcceleratorName == "" && t.AcceleratorCount == 0 {
			t.AcceleratorManufacturer = "unknown"
		}
	}
}

// shared returns the value every element has, or the zero value.
func shared[T comparable](vs []T) T {
	var zero T
	if len(vs) == 0 {
		return zero
	}
	for _, v := range vs[1:] {
		if v != vs[0] {
			return zero
		}
	}
	return vs[0]
}

// labelValue lower-kebab-cases an EC2 name the way Karpenter labels it
// ("Radeon Pro V520" → "radeon-pro-v520"), then makes sure the result is a
// valid label value: other characters become '-', and the ends are
// trimmed to alphanumerics. It returns "" when nothing is left.
func labelValue(s string) string {
	b := []byte(strings.ToLower(strings.TrimSpace(s)))
	for i, c := range b {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	out := strings.TrimFunc(string(b), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') })
	if len(out) > validation.MaxNameLength {
		out = strings.TrimRightFunc(out[:validation.MaxNameLength], func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') })
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
