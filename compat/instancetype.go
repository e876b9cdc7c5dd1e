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

// Tenancies, the values of karpenter.k8s.aws/instance-tenancy: the two
// Karpenter launches with and accepts in requirements (EC2's "host" it
// does not use).
const (
	TenancyDefault   = "default"
	TenancyDedicated = "dedicated"
)

// Windows Server builds, the values of node.kubernetes.io/windows-build.
const (
	WindowsBuild2019 = "10.0.17763"
	WindowsBuild2022 = "10.0.20348"
	WindowsBuild2025 = "10.0.26100"
)

// InstanceType is the facts about one EC2 instance type that selection
// needs: plain values, not Kubernetes objects. Build one with
// [InstanceTypeFromEC2], from its labels with [InstanceTypeFromLabels], or
// by hand in tests.
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
	CPUClockSpeedMHz     int    // sustained clock; 0 when not published, labeled "0" as Karpenter does
	LocalNVMeGB          int64  // total instance-store NVMe; 0 when none
	NetworkBandwidthMbps int    // baseline, Karpenter's figure (see InstanceTypeFromEC2); 0 when unknown
	EBSBandwidthMbps     int    // maximum EBS-optimized; 0 when not EBS-optimized by default
	EncryptionInTransit  bool

	// Network is the type's network interface limits, from which max pods
	// and pod ENIs are computed. They are not labels.
	Network Network
	// InstanceStoreGB is the total size of the type's instance-store
	// volumes, NVMe or not; 0 when it has none. It is what a RAID0 of them
	// gives the node's ephemeral storage.
	InstanceStoreGB int64

	// Tenancy is "" for an instance type, which Karpenter offers with
	// either tenancy (instance-tenancy In [default dedicated]), or
	// TenancyDefault or TenancyDedicated for the type of one instance, whose
	// node is labeled with it.
	Tenancy string
}

// Network is an instance type's network interface limits as
// DescribeInstanceTypes states them (NetworkInfo), plus the trunking facts
// EC2 does not publish there. A zero field means EC2 did not say (or the
// type has none of it).
type Network struct {
	// Interfaces is NetworkInfo.MaximumNetworkInterfaces: every network
	// card's interfaces together.
	Interfaces int
	// IPv4PerInterface and IPv6PerInterface are the addresses one interface
	// takes (Ipv4AddressesPerInterface, Ipv6AddressesPerInterface).
	IPv4PerInterface int
	IPv6PerInterface int
	IPv6             bool // Ipv6Supported
	// DefaultCard is DefaultNetworkCardIndex, the card the primary
	// interface is on; Cards lists every card by index, ascending.
	DefaultCard int
	Cards       []NetworkCard
	// EFAInterfaces is EfaInfo.MaximumEfaInterfaces; 0 without EFA.
	EFAInterfaces int
	// BranchInterfaces is how many branch interfaces (pod ENIs, for
	// security groups for pods) the type's trunk interface carries; 0 when
	// the type does not support trunking. EC2's DescribeInstanceTypes does
	// not say: it comes from the VPC resource controller's limits.
	BranchInterfaces int
}

// NetworkCard is one network card of an instance type.
type NetworkCard struct {
	Index      int // NetworkCardIndex
	Interfaces int // MaximumNetworkInterfaces on this card
}

// DefaultCardInterfaces is the number of interfaces the default network
// card takes: what the ENI max-pods formula counts, since pods' addresses
// come from interfaces on that card. When EC2 lists no cards it is
// Interfaces, which then counts one card.
func (n Network) DefaultCardInterfaces() int {
	for _, c := range n.Cards {
		if c.Index == n.DefaultCard {
			return c.Interfaces
		}
	}
	if len(n.Cards) == 0 {
		return n.Interfaces
	}
	return 0
}

// HasGPU reports whether t has a GPU, including fractional GPUs that EC2
// reports with a count of 0.
func (t *InstanceType) HasGPU() bool {
	return t.GPUCount > 0 || t.GPUManufacturer != "" || t.GPUName != ""
}

// HasAccelerator reports whether t has an inference accelerator or Neuron
// device.
func (t *InstanceType) HasAccelerator() bool {
	return t.AcceleratorCount > 0 || t.AcceleratorManufacturer != "" || t.AcceleratorName != ""
}

// Requirements returns the requirements of a node of this type, with every
// instance label (see [InstanceLabels]) defined: In its value, or
// DoesNotExist where the type has no such property, so a type without a GPU
// is DoesNotExist on instance-gpu-count rather than silent about it. Every
// node of the type satisfies them, whichever OS it runs: os lists each OS
// the type supports, and windows-build is DoesNotExist on a type without
// Windows support and NotIn [""] (absent, or any build) on one with it.
func (t *InstanceType) Requirements() Requirements {
	entries := make([]entry, 0, wellKnown.instances)
	values := make([]value, 0, wellKnown.instances+2) // os and tenancy may take two
	for wk := range wellKnown.rows {
		if r := &wellKnown.rows[wk]; r.instance() {
			var e entry
			e, values = r.entry(t, wk, values)
			entries = append(entries, e)
		}
	}
	return indexed(entries) // the table is sorted, so entries are too
}

// Compatible is t.Requirements().Compatible(in, opts...), computed without
// building t's requirements: only the keys in mentions are looked at, and
// for an AMI's requirements nothing is allocated.
//
// Compatible and Conflict take a pointer because they run in the loops of
// Map and weighting over every type, and read t through the functions of
// the table of keys, to which a copy of t would escape.
func (t *InstanceType) Compatible(in Requirements, opts ...Option) error {
	if _, conflict := t.Conflict(in, opts...); !conflict {
		return nil
	}
	return t.Requirements().Compatible(in, opts...)
}

// Conflict is t.Requirements().Conflict(in, opts...), computed without
// building t's requirements.
func (t *InstanceType) Conflict(in Requirements, opts ...Option) (key string, conflict bool) {
	for i := range in.entries() {
		e := &in.s.entries[i]
		if e.wk < 0 || !wellKnown.rows[e.wk].instance() {
			// The instance type does not define it.
			if !e.absent && !allowed(opts, e.key, e.wk) {
				return e.key, true
			}
			continue
		}
		var buf [2]value
		have, _ := wellKnown.rows[e.wk].entry(t, e.wk, buf[:0])
		if !intersects(&have, e) {
			return e.key, true
		}
	}
	return "", false
}

// Labels returns the well-known labels a node of this type carries: each
// fact of [InstanceType.Requirements] that pins exactly one value. Keys and
// value formats are Karpenter's.
func (t *InstanceType) Labels() map[string]string {
	labels := make(map[string]string, wellKnown.instances)
	for i := range wellKnown.rows {
		r := &wellKnown.rows[i]
		if !r.instance() {
			continue
		}
		if v, ok := r.pinned(r.get(t)); ok {
			labels[r.label] = v
		}
	}
	return labels
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

// isFlex reports whether a family is a flex one ("c7i-flex"), as
// Karpenter reads it from the name.
func isFlex(family string) bool { return strings.Contains(family, "-flex") }

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

// supportedOS is the operating systems EKS nodes of a type run: EC2 does
// not say, so it follows from the architecture and the family.
func supportedOS(arch, family string) []string {
	if arch == ArchAMD64 && runsWindows(family) {
		return []string{OSLinux, OSWindows}
	}
	return []string{OSLinux}
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
		Flex:       isFlex(parsed.Family),
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
	t.OS = supportedOS(t.Arch, t.Family)
	if s := info.InstanceStorageInfo; s != nil && s.NvmeSupport != ec2types.EphemeralNvmeSupportUnsupported && s.NvmeSupport != "" {
		t.LocalNVMeGB = deref(s.TotalSizeInGB)
	}
	if e := info.EbsInfo; e != nil && e.EbsOptimizedSupport == ec2types.EbsOptimizedSupportDefault && e.EbsOptimizedInfo != nil {
		t.EBSBandwidthMbps = int(deref(e.EbsOptimizedInfo.MaximumBandwidthInMbps))
	}
	if n := info.NetworkInfo; n != nil {
		t.EncryptionInTransit = deref(n.EncryptionInTransitSupported)
		t.Network = networkFromEC2(n)
	}
	if s := info.InstanceStorageInfo; s != nil {
		t.InstanceStoreGB = deref(s.TotalSizeInGB)
	}
	t.NetworkBandwidthMbps = baselineBandwidth(name, info.NetworkInfo)
	t.Network.BranchInterfaces = branchInterfaces(name)
	if info.GpuInfo != nil {
		setGPUs(&t, info.GpuInfo.Gpus)
	}
	setAccelerators(&t, info)
	return t, nil
}

// networkFromEC2 reads n's interface limits; cards are sorted by index.
func networkFromEC2(n *ec2types.NetworkInfo) Network {
	net := Network{
		Interfaces:       int(deref(n.MaximumNetworkInterfaces)),
		IPv4PerInterface: int(deref(n.Ipv4AddressesPerInterface)),
		IPv6PerInterface: int(deref(n.Ipv6AddressesPerInterface)),
		IPv6:             deref(n.Ipv6Supported),
		DefaultCard:      int(deref(n.DefaultNetworkCardIndex)),
	}
	if n.EfaInfo != nil {
		net.EFAInterfaces = int(deref(n.EfaInfo.MaximumEfaInterfaces))
	}
	for _, c := range n.NetworkCards {
		net.Cards = append(net.Cards, NetworkCard{Index: int(deref(c.NetworkCardIndex)), Interfaces: int(deref(c.MaximumNetworkInterfaces))})
	}
	slices.SortFunc(net.Cards, func(a, b NetworkCard) int { return a.Index - b.Index })
	return net
}

// baselineBandwidth is the network bandwidth Karpenter labels a type with:
// its generated table's figure, which EC2 does not state for every type
// (DescribeInstanceTypes has no baseline for m5.large; the table says 750).
// For a type newer than the table, EC2's own baseline, summed over network
// cards, stands in; where both exist they agree (a test checks the catalog).
func baselineBandwidth(name string, n *ec2types.NetworkInfo) int {
	if mbps := networkBandwidth(name); mbps > 0 {
		return mbps
	}
	if n == nil {
		return 0
	}
	var gbps float64
	for _, card := range n.NetworkCards {
		gbps += deref(card.BaselineBandwidthInGbps)
	}
	return int(math.Round(gbps * 1000))
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
