package compat

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
)

// info builds a DescribeInstanceTypes result with the fields conversion
// reads; options fill in the rest.
func info(name string, arch ec2types.ArchitectureType, vcpu int32, mib int64, opts ...func(*ec2types.InstanceTypeInfo)) ec2types.InstanceTypeInfo {
	i := ec2types.InstanceTypeInfo{
		InstanceType:                 ec2types.InstanceType(name),
		ProcessorInfo:                &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{arch}},
		VCpuInfo:                     &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(vcpu)},
		MemoryInfo:                   &ec2types.MemoryInfo{SizeInMiB: aws.Int64(mib)},
		Hypervisor:                   ec2types.InstanceTypeHypervisorNitro,
		BareMetal:                    aws.Bool(false),
		SupportedVirtualizationTypes: []ec2types.VirtualizationType{ec2types.VirtualizationTypeHvm},
		NetworkInfo:                  &ec2types.NetworkInfo{EncryptionInTransitSupported: aws.Bool(false)},
	}
	for _, o := range opts {
		o(&i)
	}
	return i
}

func gpus(name, maker string, count int32, mib int32) func(*ec2types.InstanceTypeInfo) {
	return func(i *ec2types.InstanceTypeInfo) {
		i.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{
			Name: aws.String(name), Manufacturer: aws.String(maker), Count: aws.Int32(count),
			MemoryInfo: &ec2types.GpuDeviceMemoryInfo{SizeInMiB: aws.Int32(mib)},
		}}}
	}
}

func neuron(name string, count int32) func(*ec2types.InstanceTypeInfo) {
	return func(i *ec2types.InstanceTypeInfo) {
		i.NeuronInfo = &ec2types.NeuronInfo{NeuronDevices: []ec2types.NeuronDeviceInfo{{
			Name: aws.String(name), Count: aws.Int32(count), CoreInfo: &ec2types.NeuronDeviceCoreInfo{Count: aws.Int32(2)},
		}}}
	}
}

func mustType(t *testing.T, i ec2types.InstanceTypeInfo) InstanceType {
	t.Helper()
	it, err := InstanceTypeFromEC2(i)
	if err != nil {
		t.Fatalf("InstanceTypeFromEC2(%s): %v", i.InstanceType, err)
	}
	return it
}

// catalog is a small set of instance types covering each kind of
// accelerator, with their published specs.
func catalog(t *testing.T) map[string]InstanceType {
	t.Helper()
	x86, arm := ec2types.ArchitectureTypeX8664, ec2types.ArchitectureTypeArm64
	infos := []ec2types.InstanceTypeInfo{
		info("m5.large", x86, 2, 8192),
		info("m6g.large", arm, 2, 8192),
		info("g4dn.xlarge", x86, 4, 16384, gpus("T4", "NVIDIA", 1, 16384)),
		info("g5.xlarge", x86, 4, 16384, gpus("A10G", "NVIDIA", 1, 24576)),
		info("p5.48xlarge", x86, 192, 2097152, gpus("H100", "NVIDIA", 8, 81920)),
		// EC2 reports a fractional GPU with a count of 0 (#8368).
		info("g6f.large", x86, 2, 8192, gpus("L4", "NVIDIA", 0, 2861)),
		info("g5g.xlarge", arm, 4, 8192, gpus("T4g", "NVIDIA", 1, 16384)),
		info("g4ad.xlarge", x86, 4, 16384, gpus("Radeon Pro V520", "AMD", 1, 8192)),
		info("dl1.24xlarge", x86, 96, 786432, gpus("Gaudi HL-205", "Habana", 8, 32768)),
		info("inf1.xlarge", x86, 4, 8192, func(i *ec2types.InstanceTypeInfo) {
			i.InferenceAcceleratorInfo = &ec2types.InferenceAcceleratorInfo{Accelerators: []ec2types.InferenceDeviceInfo{{
				Name: aws.String("Inferentia"), Manufacturer: aws.String("AWS"), Count: aws.Int32(1),
			}}}
		}),
		info("inf2.xlarge", x86, 4, 16384, neuron("Inferentia2", 1)),
		info("trn1.2xlarge", x86, 8, 32768, neuron("Trainium", 1)),
	}
	out := map[string]InstanceType{}
	for _, i := range infos {
		out[string(i.InstanceType)] = mustType(t, i)
	}
	return out
}

// TestVariantsAreGPUAndArchAware: standard, NVIDIA and Neuron AMIs, per
// architecture, compared strictly with each kind of instance type.
func TestVariantsAreGPUAndArchAware(t *testing.T) {
	type ami struct{ Variant, Arch string }
	amis := map[ami]Requirements{}
	for variant, reqs := range map[string]Requirements{"standard": standardVariant(), "nvidia": nvidiaVariant(), "neuron": neuronVariant()} {
		for _, arch := range []string{ArchAMD64, ArchARM64} {
			amis[ami{variant, arch}] = reqs.Intersect(MustRequirements(req(LabelArch, In, arch)))
		}
	}
	want := map[string][]ami{
		"m5.large":     {{"standard", ArchAMD64}},
		"m6g.large":    {{"standard", ArchARM64}},
		"g4dn.xlarge":  {{"nvidia", ArchAMD64}},
		"g5.xlarge":    {{"nvidia", ArchAMD64}},
		"p5.48xlarge":  {{"nvidia", ArchAMD64}},
		"g6f.large":    {{"nvidia", ArchAMD64}},
		"g5g.xlarge":   {{"nvidia", ArchARM64}},
		"g4ad.xlarge":  nil, // AMD: not the NVIDIA driver, and not standard
		"dl1.24xlarge": nil, // Habana likewise
		"inf1.xlarge":  {{"neuron", ArchAMD64}},
		"inf2.xlarge":  {{"neuron", ArchAMD64}},
		"trn1.2xlarge": {{"neuron", ArchAMD64}},
	}
	for name, it := range catalog(t) {
		var got []ami
		for a, reqs := range amis {
			if it.Requirements().Compatible(reqs) == nil {
				got = append(got, a)
			}
		}
		slices.SortFunc(got, func(a, b ami) int { return strings.Compare(a.Variant+a.Arch, b.Variant+b.Arch) })
		if diff := cmp.Diff(want[name], got); diff != "" {
			t.Errorf("%s: compatible AMIs mismatch (-want +got):\n%s", name, diff)
		}
	}
}

// TestKarpenterStyleAMIRequirements: the requirements Karpenter writes to
// an EC2NodeClass status still behave as written against our instance
// types, including Karpenter's own gap on AMD GPUs.
func TestKarpenterStyleAMIRequirements(t *testing.T) {
	standard := MustRequirements(req(LabelArch, In, ArchAMD64), req(gpuKey, DoesNotExist), req(LabelInstanceAcceleratorCount, DoesNotExist))
	nvidia := MustRequirements(req(LabelArch, In, ArchAMD64), req(gpuKey, Exists))
	neuronAMI := MustRequirements(req(LabelArch, In, ArchAMD64), req(LabelInstanceAcceleratorCount, Exists))
	types := catalog(t)
	tests := []struct {
		it   string
		ami  Requirements
		want bool
	}{
		{"m5.large", standard, true},
		{"m5.large", nvidia, false},
		{"g4dn.xlarge", standard, false},
		{"g4dn.xlarge", nvidia, true},
		{"g6f.large", nvidia, true},
		{"g6f.large", standard, false},
		{"inf2.xlarge", neuronAMI, true},
		{"inf2.xlarge", standard, false},
		{"m6g.large", standard, false},
		// Karpenter's "gpu-count Exists" cannot tell AMD from NVIDIA;
		// nvidiaVariant can (see TestVariantsAreGPUAndArchAware).
		{"g4ad.xlarge", nvidia, true},
	}
	for _, tt := range tests {
		it := types[tt.it]
		if got := it.Requirements().Compatible(tt.ami) == nil; got != tt.want {
			t.Errorf("%s against %v: compatible = %v; want %v", tt.it, tt.ami, got, tt.want)
		}
	}
}

// TestFromNodeLabelsStrict is #7925's root cause, fixed: a node's labels, not
// the NodeClaim's loose requirements, decide which AMI variant it runs.
func TestFromNodeLabelsStrict(t *testing.T) {
	types := catalog(t)
	node := func(name string) Requirements {
		it := types[name]
		labels := it.Labels()
		labels[LabelZone] = "us-east-1a"
		labels[LabelCapacityType] = "on-demand"
		labels[LabelNodePool] = "default"
		labels[LabelHostname] = "ip-10-0-0-1"
		return FromNodeLabels(labels)
	}
	nvidia := nvidiaVariant().Intersect(MustRequirements(req(LabelArch, In, ArchAMD64)))
	standard := standardVariant().Intersect(MustRequirements(req(LabelArch, In, ArchAMD64)))
	karpenterNVIDIA := MustRequirements(req(LabelArch, In, ArchAMD64), req(gpuKey, Exists))

	if err := node("m5.large").Compatible(nvidia); err == nil {
		t.Error("a non-GPU node must be incompatible with an NVIDIA AMI")
	}
	if err := node("m5.large").Compatible(karpenterNVIDIA); err == nil {
		t.Error("a non-GPU node must be incompatible with Karpenter's NVIDIA requirements")
	}
	if err := node("m5.large").Compatible(standard); err != nil {
		t.Errorf("a non-GPU node must be compatible with a standard AMI: %v", err)
	}
	for _, gpu := range []string{"g4dn.xlarge", "g6f.large"} {
		if err := node(gpu).Compatible(standard); err == nil {
			t.Errorf("GPU node %s must be incompatible with a standard AMI", gpu)
		}
		if err := node(gpu).Compatible(nvidia); err != nil {
			t.Errorf("GPU node %s must be compatible with an NVIDIA AMI: %v", gpu, err)
		}
	}
	// The lenient comparison Karpenter used before #7923 gets this wrong
	// with NodeClaim-style requirements that lack GPU keys.
	loose := MustRequirements(req(LabelArch, In, ArchAMD64), req(LabelInstanceType, In, "m5.large"))
	if err := loose.Compatible(karpenterNVIDIA, AllowUndefinedWellKnown()); err != nil {
		t.Errorf("expected the lenient comparison to (wrongly) pass: %v", err)
	}
}

func TestLabels(t *testing.T) {
	x86 := ec2types.ArchitectureTypeX8664
	m5 := info("m5.large", x86, 2, 8192, func(i *ec2types.InstanceTypeInfo) {
		i.ProcessorInfo.Manufacturer = aws.String("Intel")
		i.ProcessorInfo.SustainedClockSpeedInGhz = aws.Float64(3.1)
		i.EbsInfo = &ec2types.EbsInfo{EbsOptimizedSupport: ec2types.EbsOptimizedSupportDefault, EbsOptimizedInfo: &ec2types.EbsOptimizedInfo{MaximumBandwidthInMbps: aws.Int32(4750)}}
		i.NetworkInfo.NetworkCards = []ec2types.NetworkCardInfo{{BaselineBandwidthInGbps: aws.Float64(0.75)}}
	})
	g4dn := info("g4dn.xlarge", x86, 4, 16384, gpus("T4", "NVIDIA", 1, 16384), func(i *ec2types.InstanceTypeInfo) {
		i.InstanceStorageInfo = &ec2types.InstanceStorageInfo{TotalSizeInGB: aws.Int64(125), NvmeSupport: ec2types.EphemeralNvmeSupportRequired}
		i.NetworkInfo.EncryptionInTransitSupported = aws.Bool(true)
	})
	metal := info("c7i-flex.large", x86, 2, 4096, func(i *ec2types.InstanceTypeInfo) {
		i.Hypervisor = ""
		i.BareMetal = aws.Bool(true)
	})
	tests := []struct {
		in   ec2types.InstanceTypeInfo
		want map[string]string
	}{
		{m5, map[string]string{
			LabelInstanceType: "m5.large", LabelArch: "amd64", LabelInstanceCategory: "m", LabelInstanceFamily: "m5",
			LabelInstanceGeneration: "5", LabelInstanceSize: "large", LabelInstanceCPU: "2", LabelInstanceMemory: "8192",
			LabelInstanceHypervisor: "nitro", LabelInstanceCPUManufacturer: "intel", LabelInstanceCPUClockSpeedMHz: "3100",
			LabelInstanceEBSBandwidth: "4750", LabelInstanceNetworkBandwidth: "750",
			LabelInstanceEncryptionInTransit: "false", LabelInstanceCapabilityFlex: "false",
		}},
		{g4dn, map[string]string{
			LabelInstanceType: "g4dn.xlarge", LabelArch: "amd64", LabelInstanceCategory: "g", LabelInstanceFamily: "g4dn",
			LabelInstanceGeneration: "4", LabelInstanceSize: "xlarge", LabelInstanceCPU: "4", LabelInstanceMemory: "16384",
			LabelInstanceHypervisor: "nitro", LabelInstanceLocalNVMe: "125",
			LabelInstanceEncryptionInTransit: "true", LabelInstanceCapabilityFlex: "false",
			LabelInstanceGPUCount: "1", LabelInstanceGPUManufacturer: "nvidia", LabelInstanceGPUName: "t4", LabelInstanceGPUMemory: "16384",
			// No clock published: Karpenter labels "0" (karpenter-provider-aws
			// bde00654cd31, pkg/providers/instancetype/types.go:300-304).
			LabelInstanceCPUClockSpeedMHz: "0",
			// Not in the EC2 info: Karpenter's bandwidth table.
			LabelInstanceNetworkBandwidth: "5000",
		}},
		{metal, map[string]string{
			LabelInstanceType: "c7i-flex.large", LabelArch: "amd64", LabelInstanceCategory: "c", LabelInstanceFamily: "c7i-flex",
			LabelInstanceGeneration: "7", LabelInstanceSize: "large", LabelInstanceCPU: "2", LabelInstanceMemory: "4096",
			LabelInstanceHypervisor: "", LabelInstanceEncryptionInTransit: "false", LabelInstanceCapabilityFlex: "true",
			LabelInstanceNetworkBandwidth: "390", LabelInstanceCPUClockSpeedMHz: "0",
		}},
	}
	for _, tt := range tests {
		it := mustType(t, tt.in)
		if diff := cmp.Diff(tt.want, it.Labels()); diff != "" {
			t.Errorf("%s: Labels() mismatch (-want +got):\n%s", tt.in.InstanceType, diff)
		}
		// Every instance key is defined, and labels agree with requirements.
		r := it.Requirements()
		for _, key := range InstanceLabels() {
			if _, ok := r.Get(key); !ok {
				t.Errorf("%s: Requirements() leaves %s undefined", it.Name, key)
			}
		}
		// A node of the type, Linux or Windows, satisfies its requirements.
		// Karpenter labels each node with its instance's tenancy.
		linux := it.Labels()
		linux[LabelOS], linux[LabelInstanceTenancy] = OSLinux, TenancyDefault
		windows := it.Labels()
		windows[LabelOS], windows[LabelWindowsBuild], windows[LabelInstanceTenancy] = OSWindows, WindowsBuild2022, TenancyDedicated
		if !r.Matches(linux) || !r.Matches(windows) {
			t.Errorf("%s: Requirements() does not match a Linux or Windows node's labels", it.Name)
		}
	}
}

func TestWindowsSupport(t *testing.T) {
	types := catalog(t)
	windows := MustRequirements(req(LabelArch, In, ArchAMD64), req(LabelOS, In, OSWindows), req(LabelWindowsBuild, In, WindowsBuild2022))
	for name, want := range map[string]bool{"m5.large": true, "g4dn.xlarge": true, "m6g.large": false, "dl1.24xlarge": false, "inf2.xlarge": false, "p5.48xlarge": false} {
		it := types[name]
		if got := it.Requirements().Compatible(windows) == nil; got != want {
			t.Errorf("%s with a Windows Server 2022 AMI: compatible = %v; want %v", name, got, want)
		}
	}
}

func TestParseInstanceTypeName(t *testing.T) {
	tests := []struct {
		in   string
		want InstanceTypeName
	}{
		{"m5.large", InstanceTypeName{"m5", "m", 5, "large"}},
		{"c7i-flex.large", InstanceTypeName{"c7i-flex", "c", 7, "large"}},
		{"u-6tb1.metal", InstanceTypeName{"u-6tb1", "u", 1, "metal"}},
		{"u7i-12tb.224xlarge", InstanceTypeName{"u7i-12tb", "u", 7, "224xlarge"}},
		{"mac2-m2pro.metal", InstanceTypeName{"mac2-m2pro", "mac", 2, "metal"}},
		{"p6-b200.48xlarge", InstanceTypeName{"p6-b200", "p", 6, "48xlarge"}},
		{"inf2.xlarge", InstanceTypeName{"inf2", "inf", 2, "xlarge"}},
		{"trn1n.32xlarge", InstanceTypeName{"trn1n", "trn", 1, "32xlarge"}},
		{"x2iezn.2xlarge", InstanceTypeName{"x2iezn", "x", 2, "2xlarge"}},
		{"gr6.4xlarge", InstanceTypeName{"gr6", "gr", 6, "4xlarge"}},
		{"t4g.nano", InstanceTypeName{"t4g", "t", 4, "nano"}},
	}
	for _, tt := range tests {
		got, err := ParseInstanceTypeName(tt.in)
		if err != nil {
			t.Errorf("ParseInstanceTypeName(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseInstanceTypeName(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, bad := range []string{"", "m5", ".large", "m5.", "5m.large", "m.large", "M5.large", "m5.large.x", "u-tb1.metal", "m5.lar ge", "m99999999999999999999.large"} {
		if _, err := ParseInstanceTypeName(bad); err == nil || !strings.Contains(err.Error(), "compat: instance type name") {
			t.Errorf("ParseInstanceTypeName(%q) = %v; want a compat error naming the input", bad, err)
		}
	}
}

func TestInstanceTypeFromEC2Errors(t *testing.T) {
	x86 := ec2types.ArchitectureTypeX8664
	tests := []struct {
		name string
		in   ec2types.InstanceTypeInfo
		want string
	}{
		{"no name", info("", x86, 2, 8192), "no InstanceType name"},
		{"mac", info("mac1.metal", ec2types.ArchitectureTypeX8664Mac, 12, 32768), "architectures [x86_64_mac] are not supported"},
		{"mac arm", info("mac2.metal", ec2types.ArchitectureTypeArm64Mac, 12, 16384), "architectures [arm64_mac] are not supported"},
		{"i386 only", info("t1.micro", ec2types.ArchitectureTypeI386, 1, 627), "architectures [i386] are not supported"},
		{"paravirtual", info("m1.small", x86, 1, 1740, func(i *ec2types.InstanceTypeInfo) {
			i.SupportedVirtualizationTypes = []ec2types.VirtualizationType{ec2types.VirtualizationTypeParavirtual}
		}), "EKS AMIs need hvm"},
		{"no processor", info("m5.large", x86, 2, 8192, func(i *ec2types.InstanceTypeInfo) { i.ProcessorInfo = nil }), "no ProcessorInfo"},
		{"no vcpu", info("m5.large", x86, 2, 8192, func(i *ec2types.InstanceTypeInfo) { i.VCpuInfo = nil }), "DefaultVCpus is missing"},
		{"no memory", info("m5.large", x86, 2, 0), "SizeInMiB is missing or not positive"},
		{"bad name", info("m5", x86, 2, 8192), "not of the form family.size"},
	}
	for _, tt := range tests {
		_, err := InstanceTypeFromEC2(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: InstanceTypeFromEC2 = %v; want an error containing %q", tt.name, err, tt.want)
		}
	}
	// i386 with x86_64 is amd64, and a zero-valued struct is an error, not a panic.
	if it := mustType(t, info("t2.micro", ec2types.ArchitectureTypeI386, 1, 1024, func(i *ec2types.InstanceTypeInfo) {
		i.ProcessorInfo.SupportedArchitectures = append(i.ProcessorInfo.SupportedArchitectures, x86)
	})); it.Arch != ArchAMD64 {
		t.Errorf("t2.micro arch = %q; want amd64", it.Arch)
	}
	if _, err := InstanceTypeFromEC2(ec2types.InstanceTypeInfo{}); err == nil {
		t.Error("InstanceTypeFromEC2(zero value) succeeded")
	}
}

func TestGPUFacts(t *testing.T) {
	x86 := ec2types.ArchitectureTypeX8664
	types := catalog(t)
	if it := types["g6f.large"]; it.GPUCount != 0 || !it.HasGPU() || it.GPUManufacturer != "nvidia" || it.GPUName != "l4" {
		t.Errorf("g6f.large = %+v; want a count-0 NVIDIA L4 that HasGPU", it)
	}
	if it := types["g4ad.xlarge"]; it.GPUName != "radeon-pro-v520" || it.GPUManufacturer != "amd" {
		t.Errorf("g4ad.xlarge GPU = %q by %q; want radeon-pro-v520 by amd", it.GPUName, it.GPUManufacturer)
	}
	if it := types["dl1.24xlarge"]; it.GPUName != "gaudi-hl-205" || it.GPUManufacturer != "habana" || it.GPUCount != 8 {
		t.Errorf("dl1.24xlarge GPU = %d %q by %q; want 8 gaudi-hl-205 by habana", it.GPUCount, it.GPUName, it.GPUManufacturer)
	}
	if it := types["inf2.xlarge"]; it.AcceleratorName != "inferentia2" || it.AcceleratorManufacturer != "aws" || it.AcceleratorCount != 1 {
		t.Errorf("inf2.xlarge accelerator = %+v", it)
	}
	// Two GPU models: counts add up; the single-valued labels are dropped
	// rather than guessed, and the shared manufacturer is kept.
	mixed := mustType(t, info("g9.mixed", x86, 8, 32768, func(i *ec2types.InstanceTypeInfo) {
		i.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{
			{Name: aws.String("A10G"), Manufacturer: aws.String("NVIDIA"), Count: aws.Int32(1), MemoryInfo: &ec2types.GpuDeviceMemoryInfo{SizeInMiB: aws.Int32(24576)}},
			{Name: aws.String("T4"), Manufacturer: aws.String("NVIDIA"), Count: aws.Int32(2), MemoryInfo: &ec2types.GpuDeviceMemoryInfo{SizeInMiB: aws.Int32(16384)}},
		}}
	}))
	if mixed.GPUCount != 3 || mixed.GPUName != "" || mixed.GPUMemoryMiB != 0 || mixed.GPUManufacturer != "nvidia" {
		t.Errorf("mixed GPUs = %d %q %d %q; want 3, \"\", 0, nvidia", mixed.GPUCount, mixed.GPUName, mixed.GPUMemoryMiB, mixed.GPUManufacturer)
	}
	if err := mixed.Requirements().Compatible(nvidiaVariant()); err != nil {
		t.Errorf("mixed NVIDIA GPUs must take the NVIDIA AMI: %v", err)
	}
	if err := mixed.Requirements().Compatible(standardVariant()); err == nil {
		t.Error("mixed NVIDIA GPUs must not take the standard AMI")
	}
	var ie *IncompatibleError
	g4ad := types["g4ad.xlarge"]
	if err := g4ad.Requirements().Compatible(nvidiaVariant()); !errors.As(err, &ie) || ie.Key != LabelInstanceGPUManufacturer {
		t.Errorf("g4ad vs NVIDIA = %v; want a conflict on %s", err, LabelInstanceGPUManufacturer)
	}
}

func TestLabelValue(t *testing.T) {
	for in, want := range map[string]string{"Radeon Pro V520": "radeon-pro-v520", " NVIDIA ": "nvidia", "Gaudi HL-205": "gaudi-hl-205", "A/B+C": "a-b-c", "**": "", "-x-": "x"} {
		if got := labelValue(in); got != want {
			t.Errorf("labelValue(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestWellKnownTable(t *testing.T) {
	// The source is kept sorted for its readers; newKeyTable sorts anyway.
	if !slices.IsSortedFunc(keyRows[:], func(a, b keyRow) int { return strings.Compare(a.label, b.label) }) {
		t.Error("keyRows must be sorted by label")
	}
	n := 0
	for i, r := range wellKnown.rows {
		if wellKnownIndex(r.label) != i {
			t.Errorf("wellKnownIndex(%q) = %d; want %d", r.label, wellKnownIndex(r.label), i)
		}
		if r.instance() != (r.get != nil) || r.instance() != (r.set != nil) {
			t.Errorf("%s: an instance key has get and set, any other key neither", r.label)
		}
		if r.instance() {
			n++
		}
	}
	if n != wellKnown.instances || len(InstanceLabels()) != n || n != 26 {
		t.Errorf("%d instance keys; the table counts %d, InstanceLabels %d, Karpenter's provider labels 26", n, wellKnown.instances, len(InstanceLabels()))
	}
	if wellKnownIndex("example.com/x") != -1 {
		t.Error("an unknown key must not be well-known")
	}
}

// TestInstanceTypeCompatibleAgrees: the lazy comparison equals building the
// requirements first, for every type and every kind of AMI and pod.
func TestInstanceTypeCompatibleAgrees(t *testing.T) {
	ins := []Requirements{
		standardVariant(), nvidiaVariant(), neuronVariant(),
		MustRequirements(req(LabelArch, In, ArchARM64)),
		MustRequirements(req(LabelOS, In, OSWindows), req(LabelWindowsBuild, In, WindowsBuild2019)),
		MustRequirements(req(LabelInstanceCPU, Gt, "3"), req(LabelInstanceMemory, Lt, "20000")),
		MustRequirements(req(LabelZone, In, "us-east-1a")),
		MustRequirements(req("example.com/team", DoesNotExist)),
		MustRequirements(req(LabelInstanceTenancy, In, TenancyDedicated)),
		MustRequirements(req(LabelInstanceTenancy, NotIn, TenancyDefault, TenancyDedicated)),
		MustRequirements(req(LabelInstanceNetworkBandwidth, Gte, "5000")),
	}
	for name, it := range catalog(t) {
		for _, in := range ins {
			for _, opts := range [][]Option{nil, {AllowUndefinedWellKnown()}} {
				wantKey, wantConflict := it.Requirements().Conflict(in, opts...)
				key, conflict := it.Conflict(in, opts...)
				if key != wantKey || conflict != wantConflict {
					t.Errorf("%s.Conflict(%v) = %q, %v; Requirements().Conflict gives %q, %v", name, in, key, conflict, wantKey, wantConflict)
				}
				if (it.Compatible(in, opts...) == nil) == conflict {
					t.Errorf("%s.Compatible(%v) disagrees with Conflict", name, in)
				}
			}
		}
	}
}

// TestInstanceTypeFromEC2Network: the interface limits come across as EC2
// states them, cards sorted by index, and the default card's interfaces are
// the card's own, not the total (p5.48xlarge: 32 cards of 2 interfaces each,
// 64 in all; the default card takes 2).
func TestInstanceTypeFromEC2Network(t *testing.T) {
	card := func(i, n int32) ec2types.NetworkCardInfo {
		return ec2types.NetworkCardInfo{NetworkCardIndex: aws.Int32(i), MaximumNetworkInterfaces: aws.Int32(n)}
	}
	tests := []struct {
		name         string
		in           *ec2types.NetworkInfo
		store        *ec2types.InstanceStorageInfo
		want         Network
		wantStore    int64
		wantDefaultN int
	}{{
		name: "m5.large: one card",
		in: &ec2types.NetworkInfo{MaximumNetworkInterfaces: aws.Int32(3), Ipv4AddressesPerInterface: aws.Int32(10),
			Ipv6AddressesPerInterface: aws.Int32(10), Ipv6Supported: aws.Bool(true), DefaultNetworkCardIndex: aws.Int32(0),
			NetworkCards: []ec2types.NetworkCardInfo{card(0, 3)}},
		want:         Network{Interfaces: 3, IPv4PerInterface: 10, IPv6PerInterface: 10, IPv6: true, Cards: []NetworkCard{{0, 3}}, BranchInterfaces: 9},
		wantDefaultN: 3,
	}, {
		name: "several cards, listed out of order, EFA",
		in: &ec2types.NetworkInfo{MaximumNetworkInterfaces: aws.Int32(6), Ipv4AddressesPerInterface: aws.Int32(50),
			DefaultNetworkCardIndex: aws.Int32(1), EfaInfo: &ec2types.EfaInfo{MaximumEfaInterfaces: aws.Int32(2)},
			NetworkCards: []ec2types.NetworkCardInfo{card(2, 2), card(0, 2), card(1, 2)}},
		store:        &ec2types.InstanceStorageInfo{TotalSizeInGB: aws.Int64(7600)},
		want:         Network{Interfaces: 6, IPv4PerInterface: 50, DefaultCard: 1, EFAInterfaces: 2, Cards: []NetworkCard{{0, 2}, {1, 2}, {2, 2}}, BranchInterfaces: 9},
		wantStore:    7600,
		wantDefaultN: 2,
	}, {
		name:         "no cards listed: the total counts as one card",
		in:           &ec2types.NetworkInfo{MaximumNetworkInterfaces: aws.Int32(4), Ipv4AddressesPerInterface: aws.Int32(15)},
		want:         Network{Interfaces: 4, IPv4PerInterface: 15, BranchInterfaces: 9},
		wantDefaultN: 4,
	}, {
		name:         "default card not among the cards: unknown",
		in:           &ec2types.NetworkInfo{MaximumNetworkInterfaces: aws.Int32(4), DefaultNetworkCardIndex: aws.Int32(3), NetworkCards: []ec2types.NetworkCardInfo{card(0, 4)}},
		want:         Network{Interfaces: 4, DefaultCard: 3, Cards: []NetworkCard{{0, 4}}, BranchInterfaces: 9},
		wantDefaultN: 0,
	}, {
		// Branch interfaces come from Karpenter's table by name
		// (vpc_limits.tsv: m5.large 9), not from NetworkInfo.
		name: "no network info",
		want: Network{BranchInterfaces: 9},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustType(t, info("m5.large", ec2types.ArchitectureTypeX8664, 2, 8192, func(i *ec2types.InstanceTypeInfo) {
				i.NetworkInfo = tt.in
				i.InstanceStorageInfo = tt.store
			}))
			if diff := cmp.Diff(tt.want, got.Network); diff != "" {
				t.Errorf("Network mismatch (-want +got):\n%s", diff)
			}
			if got.InstanceStoreGB != tt.wantStore {
				t.Errorf("InstanceStoreGB = %d, want %d", got.InstanceStoreGB, tt.wantStore)
			}
			if n := got.Network.DefaultCardInterfaces(); n != tt.wantDefaultN {
				t.Errorf("DefaultCardInterfaces() = %d, want %d", n, tt.wantDefaultN)
			}
		})
	}
}
