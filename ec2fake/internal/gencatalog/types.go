package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/ec2fake/internal/karpenterpage"
	"github.com/ec2select/ec2select/ec2fake/internal/sdkfield"
)

const labelPrefix = "karpenter.k8s.aws/instance-"

// ec2Spelling maps a lower-kebab label value back to the name
// DescribeInstanceTypes reports, which Karpenter lower-kebab-cases into
// the label (hack/docs/instancetypes_gen; pkg/providers/instancetype/
// types.go, lowerKabobCase). Spellings come from DescribeInstanceTypes
// output in karpenter-provider-aws pkg/fake/zz_generated.describe_instance_types.go
// and the EC2 accelerated-computing specifications. A value missing here
// stops the generator rather than guessing.
var ec2Spelling = map[string]string{
	// CPU and GPU manufacturers
	"intel": "Intel", "amd": "AMD", "aws": "AWS", "nvidia": "NVIDIA", "qualcomm": "Qualcomm",
	// GPUs
	"a100": "A100", "a10g": "A10G", "b200": "B200", "b300": "B300", "h100": "H100", "h200": "H200",
	"l4": "L4", "l40s": "L40S", "radeon-pro-v520": "Radeon Pro V520", "rtx-pro-4500": "RTX PRO 4500",
	"rtx-pro-server-6000": "RTX PRO Server 6000", "t4": "T4", "t4g": "T4g", "v100": "V100",
	// Accelerators
	"inferentia": "Inferentia", "inferentia2": "Inferentia2", "trainium": "Trainium", "trainium2": "Trainium2",
	"qualcomm-ai100": "Qualcomm AI100",
}

// neuronCore is what DescribeInstanceTypes reports per Neuron device that
// the page does not show: the NeuronCore version and the device memory
// (inf2 and trn1 as in Karpenter's fake DescribeInstanceTypes output; inf1
// and trn2 from the EC2 accelerated-computing specifications). The core
// count comes from the page (aws.amazon.com/neuroncore ÷ aws.amazon.com/neuron).
var neuronCore = map[string]struct{ version, memMiB int32 }{
	"Inferentia": {1, 8192}, "Inferentia2": {2, 32768}, "Trainium": {2, 32768}, "Trainium2": {3, 98304},
}

func spell(label string) (string, error) {
	s, ok := ec2Spelling[label]
	if !ok {
		return "", fmt.Errorf("no EC2 spelling known for label value %q; add it to ec2Spelling", label)
	}
	return s, nil
}

// buildTypes turns the page's types into DescribeInstanceTypes facts,
// layered over base (the first-wave catalog) for the facts the page does
// not show, and appends base types the page lacks. net is EC2's network
// answer per type, which every type must have.
func buildTypes(page []karpenterpage.Type, base map[string]ec2types.InstanceTypeInfo, net map[string]ec2types.NetworkInfo) ([]ec2types.InstanceTypeInfo, error) {
	fullGPU := fullGPUMemory(page)
	var out []ec2types.InstanceTypeInfo
	onPage := map[string]bool{}
	for _, p := range page {
		onPage[p.Name] = true
		b, hasBase := base[p.Name]
		n, ok := net[p.Name]
		if !ok {
			return nil, fmt.Errorf("%s: no recorded network limits; add its DescribeInstanceTypes NetworkInfo to the -network file", p.Name)
		}
		t, err := fromPage(p, b, hasBase, n, fullGPU)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		out = append(out, t)
	}
	for name, b := range base {
		if onPage[name] {
			continue
		}
		n, ok := net[name]
		if !ok {
			return nil, fmt.Errorf("%s: no recorded network limits; add its DescribeInstanceTypes NetworkInfo to the -network file", name)
		}
		out = append(out, withNetwork(b, n))
	}
	slices.SortFunc(out, func(a, b ec2types.InstanceTypeInfo) int {
		return strings.Compare(string(a.InstanceType), string(b.InstanceType))
	})
	return out, nil
}

// fullGPUMemory maps a GPU name to its memory on types with whole GPUs,
// from which a fractional type's partition size follows.
func fullGPUMemory(page []karpenterpage.Type) map[string]int64 {
	full := map[string]int64{}
	for _, p := range page {
		n, _ := strconv.ParseInt(p.Labels[labelPrefix+"gpu-count"], 10, 64)
		mem, _ := strconv.ParseInt(p.Labels[labelPrefix+"gpu-memory"], 10, 64)
		if name := p.Labels[labelPrefix+"gpu-name"]; n > 0 && mem > full[name] {
			full[name] = mem
		}
	}
	return full
}

// facts reads labels and resources, remembering the first bad number.
type facts struct {
	p   karpenterpage.Type
	err error
}

func (f *facts) label(key string) (string, bool) {
	v, ok := f.p.Labels[labelPrefix+key]
	return v, ok
}

func (f *facts) num(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("%q is not an integer", s)
	}
	return n
}

// labelNum returns a numeric label, or nil when the page omits it.
func (f *facts) labelNum(key string) *int64 {
	v, ok := f.label(key)
	if !ok {
		return nil
	}
	return aws.Int64(f.num(v))
}

func fromPage(p karpenterpage.Type, b ec2types.InstanceTypeInfo, hasBase bool, net ec2types.NetworkInfo, fullGPU map[string]int64) (ec2types.InstanceTypeInfo, error) {
	f := &facts{p: p}
	t := ec2types.InstanceTypeInfo{InstanceType: ec2types.InstanceType(p.Name)}
	if err := setProcessor(f, &t, b); err != nil {
		return t, err
	}
	setBaseOnly(&t, b, hasBase, p.Name)
	setStorage(f, &t, b)
	setNetwork(f, &t, net)
	if err := setGPU(f, &t, fullGPU); err != nil {
		return t, err
	}
	if err := setAccelerator(f, &t); err != nil {
		return t, err
	}
	return t, f.err
}

func setProcessor(f *facts, t *ec2types.InstanceTypeInfo, b ec2types.InstanceTypeInfo) error {
	arch := map[string]ec2types.ArchitectureType{"amd64": "x86_64", "arm64": "arm64"}[f.p.Labels["kubernetes.io/arch"]]
	if arch == "" {
		return fmt.Errorf("kubernetes.io/arch %q is not amd64 or arm64", f.p.Labels["kubernetes.io/arch"])
	}
	archs := []ec2types.ArchitectureType{arch}
	// The page shows only the architecture Kubernetes names; keep i386
	// where the first-wave catalog recorded it beside x86_64.
	if b.ProcessorInfo != nil && slices.Contains(b.ProcessorInfo.SupportedArchitectures, arch) {
		archs = slices.Clone(b.ProcessorInfo.SupportedArchitectures)
	}
	mfrLabel, _ := f.label("cpu-manufacturer")
	mfr, err := spell(mfrLabel)
	if err != nil {
		return err
	}
	t.ProcessorInfo = &ec2types.ProcessorInfo{SupportedArchitectures: archs, Manufacturer: aws.String(mfr)}
	if mhz := f.labelNum("cpu-sustained-clock-speed-mhz"); mhz != nil && *mhz > 0 {
		t.ProcessorInfo.SustainedClockSpeedInGhz = aws.Float64(float64(*mhz) / 1000)
	}
	cpu, mem := f.labelNum("cpu"), f.labelNum("memory")
	if cpu == nil || mem == nil {
		return fmt.Errorf("instance-cpu or instance-memory label missing")
	}
	t.VCpuInfo = &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(int32(*cpu))}
	if v := b.VCpuInfo; v != nil && aws.ToInt32(v.DefaultVCpus) == int32(*cpu) {
		t.VCpuInfo.DefaultCores, t.VCpuInfo.DefaultThreadsPerCore = v.DefaultCores, v.DefaultThreadsPerCore
	}
	t.MemoryInfo = &ec2types.MemoryInfo{SizeInMiB: mem}
	hv, _ := f.label("hypervisor")
	t.Hypervisor = ec2types.InstanceTypeHypervisor(hv)
	size, _ := f.label("size")
	t.BareMetal = aws.Bool(strings.HasPrefix(size, "metal"))
	if (hv == "") != *t.BareMetal {
		return fmt.Errorf("hypervisor %q disagrees with size %q", hv, size)
	}
	return nil
}

// setBaseOnly copies the facts the page never shows from the first-wave
// catalog, and otherwise derives usage classes: every type on the page
// is sold on demand, and all but the high-memory (u-) families also as
// Spot.
func setBaseOnly(t *ec2types.InstanceTypeInfo, b ec2types.InstanceTypeInfo, hasBase bool, name string) {
	if hasBase {
		t.SupportedUsageClasses = slices.Clone(b.SupportedUsageClasses)
		t.CurrentGeneration, t.BurstablePerformanceSupported = b.CurrentGeneration, b.BurstablePerformanceSupported
		return
	}
	t.SupportedUsageClasses = []ec2types.UsageClassType{"on-demand", "spot"}
	if strings.HasPrefix(name, "u-") || strings.HasPrefix(name, "u7i") {
		t.SupportedUsageClasses = t.SupportedUsageClasses[:1]
	}
}

func setStorage(f *facts, t *ec2types.InstanceTypeInfo, b ec2types.InstanceTypeInfo) {
	if ebs := f.labelNum("ebs-bandwidth"); ebs != nil {
		t.EbsInfo = &ec2types.EbsInfo{EbsOptimizedSupport: ec2types.EbsOptimizedSupportDefault,
			EbsOptimizedInfo: &ec2types.EbsOptimizedInfo{MaximumBandwidthInMbps: aws.Int32(int32(*ebs))}}
		if e := b.EbsInfo; e != nil && e.EbsOptimizedInfo != nil && aws.ToInt32(e.EbsOptimizedInfo.MaximumBandwidthInMbps) == int32(*ebs) {
			t.EbsInfo.EbsOptimizedInfo.BaselineBandwidthInMbps = e.EbsOptimizedInfo.BaselineBandwidthInMbps
		}
	}
	if gb := f.labelNum("local-nvme"); gb != nil {
		t.InstanceStorageInfo = &ec2types.InstanceStorageInfo{TotalSizeInGB: gb, NvmeSupport: ec2types.EphemeralNvmeSupportRequired}
		if s := b.InstanceStorageInfo; s != nil && s.NvmeSupport != "" && s.NvmeSupport != ec2types.EphemeralNvmeSupportUnsupported {
			t.InstanceStorageInfo.NvmeSupport = s.NvmeSupport
		}
	}
}

// setNetwork takes the interface limits and ENA support from EC2's
// answer (net) and the rest from the page: encryption in transit, EFA
// interfaces and the baseline bandwidth, spread over the cards.
func setNetwork(f *facts, t *ec2types.InstanceTypeInfo, net ec2types.NetworkInfo) {
	n := ec2Limits(net)
	eit, _ := f.label("encryption-in-transit-supported")
	n.EncryptionInTransitSupported = aws.Bool(eit == "true")
	if mbps := f.labelNum("network-bandwidth"); mbps != nil {
		spreadBandwidth(n.NetworkCards, net, *mbps)
	}
	if efa, ok := f.p.Resources["vpc.amazonaws.com/efa"]; ok {
		n.EfaInfo = &ec2types.EfaInfo{MaximumEfaInterfaces: aws.Int32(int32(f.num(efa)))}
	}
	t.NetworkInfo = n
}

// withNetwork gives a first-wave type the page lacks EC2's network answer
// whole: its limits, EFA, encryption in transit and per-card bandwidth.
func withNetwork(b ec2types.InstanceTypeInfo, net ec2types.NetworkInfo) ec2types.InstanceTypeInfo {
	n := ec2Limits(net)
	n.EncryptionInTransitSupported, n.EfaInfo = net.EncryptionInTransitSupported, net.EfaInfo
	for i := range n.NetworkCards {
		n.NetworkCards[i].BaselineBandwidthInGbps = net.NetworkCards[i].BaselineBandwidthInGbps
	}
	b.NetworkInfo = n
	return b
}

func setGPU(f *facts, t *ec2types.InstanceTypeInfo, fullGPU map[string]int64) error {
	name, ok := f.label("gpu-name")
	if !ok {
		return nil
	}
	mfrLabel, _ := f.label("gpu-manufacturer")
	mfr, err := spell(mfrLabel)
	if err != nil {
		return err
	}
	gpuName, err := spell(name)
	if err != nil {
		return err
	}
	count, mem := f.labelNum("gpu-count"), f.labelNum("gpu-memory")
	if count == nil || mem == nil {
		return fmt.Errorf("GPU %s without count or memory", name)
	}
	d := ec2types.GpuDeviceInfo{Name: aws.String(gpuName), Manufacturer: aws.String(mfr), Count: aws.Int32(int32(*count)),
		MemoryInfo: &ec2types.GpuDeviceMemoryInfo{SizeInMiB: aws.Int32(int32(*mem))}}
	if *count == 0 {
		// A fractional GPU: EC2 reports count 0, one logical GPU, and the
		// share of the whole GPU (karpenter-provider-aws #8368).
		full := fullGPU[name]
		if full == 0 {
			return fmt.Errorf("fractional %s GPU, but no type has a whole one to size the partition", name)
		}
		if !sdkfield.Set(&d, "LogicalGpuCount", aws.Int32(1)) ||
			!sdkfield.Set(&d, "GpuPartitionSize", aws.Float64(float64(*mem)/float64(full))) {
			return fmt.Errorf("fractional %s GPU: %s", name, sdkTooOld())
		}
	}
	t.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{d}}
	return nil
}

// setAccelerator follows Karpenter's reading in reverse: manufacturer
// "aws" labels come from NeuronInfo, others from InferenceAcceleratorInfo.
// inf1 reports its Inferentia chips in both.
func setAccelerator(f *facts, t *ec2types.InstanceTypeInfo) error {
	label, ok := f.label("accelerator-name")
	if !ok {
		return nil
	}
	name, err := spell(label)
	if err != nil {
		return err
	}
	mfrLabel, _ := f.label("accelerator-manufacturer")
	count := f.labelNum("accelerator-count")
	if count == nil {
		return fmt.Errorf("accelerator %s without a count", label)
	}
	if mfrLabel != "aws" {
		mfr, err := spell(mfrLabel)
		if err != nil {
			return err
		}
		t.InferenceAcceleratorInfo = &ec2types.InferenceAcceleratorInfo{Accelerators: []ec2types.InferenceDeviceInfo{
			{Name: aws.String(name), Manufacturer: aws.String(mfr), Count: aws.Int32(int32(*count))}}}
		return nil
	}
	core, ok := neuronCore[name]
	if !ok {
		//lint:ignore ST1005 Neuron is a proper noun (AWS Neuron)
		return fmt.Errorf("Neuron device %s: core version and memory unknown; add it to neuronCore", name)
	}
	dev := ec2types.NeuronDeviceInfo{Name: aws.String(name), Count: aws.Int32(int32(*count)),
		MemoryInfo: &ec2types.NeuronDeviceMemoryInfo{SizeInMiB: aws.Int32(core.memMiB)},
		CoreInfo:   &ec2types.NeuronDeviceCoreInfo{Version: aws.Int32(core.version)}}
	if cores, ok := f.p.Resources["aws.amazon.com/neuroncore"]; ok && *count > 0 {
		dev.CoreInfo.Count = aws.Int32(int32(f.num(cores) / *count))
	}
	t.NeuronInfo = &ec2types.NeuronInfo{NeuronDevices: []ec2types.NeuronDeviceInfo{dev}}
	if name == "Inferentia" {
		t.InferenceAcceleratorInfo = &ec2types.InferenceAcceleratorInfo{Accelerators: []ec2types.InferenceDeviceInfo{
			{Name: aws.String(name), Manufacturer: aws.String("AWS"), Count: aws.Int32(int32(*count))}}}
	}
	return nil
}
