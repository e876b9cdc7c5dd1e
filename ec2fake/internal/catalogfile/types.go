package catalogfile

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/ec2select/ec2select/ec2fake/internal/sdkfield"
)

// TypeColumns names the columns of an instance-types file, in order. The
// generator writes them as the header row and the decoder checks it, so a
// file written for another layout fails loudly instead of shifting facts.
var TypeColumns = []string{
	"name", "archs", "vcpus", "cores", "threads", "memory_mib",
	"cpu_manufacturer", "clock_ghz", "hypervisor", "bare_metal", "current_generation", "burstable",
	"usage_classes", "ebs_optimized", "ebs_max_mbps", "ebs_baseline_mbps",
	"instance_storage_gb", "instance_storage_nvme", "encryption_in_transit", "ena",
	"max_enis", "ipv4_per_eni", "ipv6_per_eni", "ipv6_supported", "network_cards", "default_card", "efa_interfaces",
	"gpus", "neuron_devices", "inference_accelerators",
}

// EncodeType writes one instance type as a row (no trailing newline).
// Fields the row has no column for are dropped; see the package doc.
func EncodeType(t ec2types.InstanceTypeInfo) string {
	var p ec2types.ProcessorInfo
	if t.ProcessorInfo != nil {
		p = *t.ProcessorInfo
	}
	var v ec2types.VCpuInfo
	if t.VCpuInfo != nil {
		v = *t.VCpuInfo
	}
	var mem *int64
	if t.MemoryInfo != nil {
		mem = t.MemoryInfo.SizeInMiB
	}
	row := []string{
		string(t.InstanceType), joinEnum(p.SupportedArchitectures), i32(v.DefaultVCpus), i32(v.DefaultCores),
		i32(v.DefaultThreadsPerCore), i64(mem), str(p.Manufacturer), f64(p.SustainedClockSpeedInGhz),
		string(t.Hypervisor), boolean(t.BareMetal), boolean(t.CurrentGeneration), boolean(t.BurstablePerformanceSupported),
		joinEnum(t.SupportedUsageClasses),
	}
	row = append(row, encodeEBS(t.EbsInfo)...)
	row = append(row, encodeStorage(t.InstanceStorageInfo)...)
	row = append(row, encodeNetwork(t.NetworkInfo)...)
	row = append(row, encodeGPUs(t.GpuInfo), encodeNeuron(t.NeuronInfo), encodeInference(t.InferenceAcceleratorInfo))
	return strings.Join(row, "\t")
}

func encodeEBS(e *ec2types.EbsInfo) []string {
	if e == nil {
		return []string{"", "", ""}
	}
	var max, base *int32
	if o := e.EbsOptimizedInfo; o != nil {
		max, base = o.MaximumBandwidthInMbps, o.BaselineBandwidthInMbps
	}
	return []string{string(e.EbsOptimizedSupport), i32(max), i32(base)}
}

func encodeStorage(s *ec2types.InstanceStorageInfo) []string {
	if s == nil {
		return []string{"", ""}
	}
	return []string{i64(s.TotalSizeInGB), string(s.NvmeSupport)}
}

func encodeNetwork(n *ec2types.NetworkInfo) []string {
	if n == nil {
		return []string{"", "", "", "", "", "", "", "", ""}
	}
	cards := make([]string, len(n.NetworkCards))
	for i, c := range n.NetworkCards {
		cards[i] = i32(c.NetworkCardIndex) + ":" + i32(c.MaximumNetworkInterfaces) + ":" + f64(c.BaselineBandwidthInGbps)
	}
	efa := ""
	if n.EfaInfo != nil {
		efa = i32(n.EfaInfo.MaximumEfaInterfaces)
	}
	return []string{boolean(n.EncryptionInTransitSupported), string(n.EnaSupport), i32(n.MaximumNetworkInterfaces),
		i32(n.Ipv4AddressesPerInterface), i32(n.Ipv6AddressesPerInterface), boolean(n.Ipv6Supported),
		strings.Join(cards, ","), i32(n.DefaultNetworkCardIndex), efa}
}

func encodeGPUs(g *ec2types.GpuInfo) string {
	if g == nil {
		return ""
	}
	out := make([]string, len(g.Gpus))
	for i, d := range g.Gpus {
		var mem *int32
		if d.MemoryInfo != nil {
			mem = d.MemoryInfo.SizeInMiB
		}
		logical, _ := sdkfield.Get[*int32](&d, "LogicalGpuCount")
		partition, _ := sdkfield.Get[*float64](&d, "GpuPartitionSize")
		out[i] = strings.Join([]string{str(d.Manufacturer), str(d.Name), i32(d.Count), i32(mem),
			i32(logical), f64(partition)}, ":")
	}
	return strings.Join(out, ",")
}

func encodeNeuron(n *ec2types.NeuronInfo) string {
	if n == nil {
		return ""
	}
	out := make([]string, len(n.NeuronDevices))
	for i, d := range n.NeuronDevices {
		var cores, version, mem *int32
		if d.CoreInfo != nil {
			cores, version = d.CoreInfo.Count, d.CoreInfo.Version
		}
		if d.MemoryInfo != nil {
			mem = d.MemoryInfo.SizeInMiB
		}
		out[i] = strings.Join([]string{str(d.Name), i32(d.Count), i32(cores), i32(version), i32(mem)}, ":")
	}
	return strings.Join(out, ",")
}

func encodeInference(a *ec2types.InferenceAcceleratorInfo) string {
	if a == nil {
		return ""
	}
	out := make([]string, len(a.Accelerators))
	for i, d := range a.Accelerators {
		out[i] = strings.Join([]string{str(d.Manufacturer), str(d.Name), i32(d.Count)}, ":")
	}
	return strings.Join(out, ",")
}

// DecodeTypes parses an instance-types file: '#' comment lines, the
// header row (TypeColumns), then one row per type.
func DecodeTypes(data string) ([]ec2types.InstanceTypeInfo, error) {
	rows, err := splitRows(data, TypeColumns)
	if err != nil {
		return nil, err
	}
	out := make([]ec2types.InstanceTypeInfo, 0, len(rows))
	for _, r := range rows {
		t, err := decodeType(r.fields)
		if err != nil {
			return nil, fmt.Errorf("catalogfile: line %d: %w", r.line, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func decodeType(f []string) (ec2types.InstanceTypeInfo, error) {
	var d decoder
	t := ec2types.InstanceTypeInfo{
		InstanceType: ec2types.InstanceType(d.name(f[0])),
		ProcessorInfo: &ec2types.ProcessorInfo{
			SupportedArchitectures: splitEnum[ec2types.ArchitectureType](f[1]),
			Manufacturer:           d.str(f[6]), SustainedClockSpeedInGhz: d.f64(f[7]),
		},
		VCpuInfo:                      &ec2types.VCpuInfo{DefaultVCpus: d.i32(f[2]), DefaultCores: d.i32(f[3]), DefaultThreadsPerCore: d.i32(f[4])},
		MemoryInfo:                    &ec2types.MemoryInfo{SizeInMiB: d.i64(f[5])},
		Hypervisor:                    ec2types.InstanceTypeHypervisor(f[8]),
		BareMetal:                     d.boolean(f[9]),
		CurrentGeneration:             d.boolean(f[10]),
		BurstablePerformanceSupported: d.boolean(f[11]),
		SupportedUsageClasses:         splitEnum[ec2types.UsageClassType](f[12]),
		// Every type the catalog carries runs HVM AMIs; see the package doc.
		SupportedVirtualizationTypes: []ec2types.VirtualizationType{ec2types.VirtualizationTypeHvm},
		SupportedRootDeviceTypes:     []ec2types.RootDeviceType{ec2types.RootDeviceTypeEbs},
	}
	t.EbsInfo = d.ebs(f[13], f[14], f[15])
	if f[16] != "" {
		t.InstanceStorageSupported = aws.Bool(true)
		t.InstanceStorageInfo = &ec2types.InstanceStorageInfo{TotalSizeInGB: d.i64(f[16]), NvmeSupport: ec2types.EphemeralNvmeSupport(f[17])}
	}
	t.NetworkInfo = d.network(f[18:27])
	t.GpuInfo = d.gpus(f[27])
	t.NeuronInfo = d.neuron(f[28])
	t.InferenceAcceleratorInfo = d.inference(f[29])
	return t, d.err
}
