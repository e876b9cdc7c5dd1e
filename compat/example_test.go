package compat_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// An amd64 AMI and an arm64 instance type: the error names the key, both
// sides and what would fix it.
func ExampleRequirements_Compatible() {
	instanceType := compat.MustRequirements(
		compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{"arm64"}},
	)
	ami := compat.MustRequirements(
		compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{"amd64"}},
	)
	err := instanceType.Compatible(ami)
	fmt.Println(err)
	var ie *compat.IncompatibleError
	if errors.As(err, &ie) {
		fmt.Println("key:", ie.Key)
	}
	// Output:
	// compat: kubernetes.io/arch: instance side has In [arm64]; required side has In [amd64]: no value satisfies both; to accept this instance, the requirement must allow kubernetes.io/arch In [arm64]
	// key: kubernetes.io/arch
}

// Intersections keep every constraint, and List states the result in
// canonical form.
func ExampleRequirements_Intersect() {
	nodePool := compat.MustRequirements(
		compat.Requirement{Key: compat.LabelInstanceCPU, Operator: compat.Gt, Values: []string{"3"}},
		compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{"amd64", "arm64"}},
	)
	pod := compat.MustRequirements(
		compat.Requirement{Key: compat.LabelInstanceCPU, Operator: compat.Lt, Values: []string{"17"}},
		compat.Requirement{Key: compat.LabelArch, Operator: compat.NotIn, Values: []string{"arm64"}},
	)
	for _, r := range nodePool.Intersect(pod).List() {
		fmt.Println(r)
	}
	// Output:
	// karpenter.k8s.aws/instance-cpu Gte 4
	// karpenter.k8s.aws/instance-cpu Lte 16
	// kubernetes.io/arch In [amd64]
}

// AMI requirements as an EC2NodeClass status states them.
var (
	gpuAMI = compat.MustRequirements(
		compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{"amd64"}},
		compat.Requirement{Key: compat.LabelInstanceGPUCount, Operator: compat.Exists},
	)
	standardAMI = compat.MustRequirements(
		compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{"amd64"}},
		compat.Requirement{Key: compat.LabelInstanceGPUCount, Operator: compat.DoesNotExist},
		compat.Requirement{Key: compat.LabelInstanceAcceleratorCount, Operator: compat.DoesNotExist},
	)
)

// The #7925 case: an m5.large node's labels carry no GPU keys, so its
// requirements say "no GPU", and the strict comparison keeps it off the
// NVIDIA AMI and on the standard one.
func ExampleFromNodeLabels() {
	node := compat.FromNodeLabels(map[string]string{
		compat.LabelInstanceType: "m5.large",
		compat.LabelArch:         "amd64",
		compat.LabelOS:           "linux",
	})
	fmt.Println("nvidia:", node.Compatible(gpuAMI))
	fmt.Println("standard:", node.Compatible(standardAMI))
	// Output:
	// nvidia: compat: karpenter.k8s.aws/instance-gpu-count: instance side has DoesNotExist; required side has Exists: the instance side has no such label; only DoesNotExist or NotIn on karpenter.k8s.aws/instance-gpu-count accept an instance without the label
	// standard: <nil>
}

// A fork holds Karpenter's instance types as labels; they convert back to
// facts.
func ExampleInstanceTypeFromLabels() {
	it, err := compat.InstanceTypeFromLabels(map[string]string{
		compat.LabelInstanceType:                "g5.xlarge",
		compat.LabelArch:                        "amd64",
		compat.LabelInstanceCPU:                 "4",
		compat.LabelInstanceMemory:              "16384",
		compat.LabelInstanceGPUCount:            "1",
		compat.LabelInstanceGPUManufacturer:     "nvidia",
		compat.LabelInstanceGPUName:             "a10g",
		compat.LabelInstanceNetworkBandwidth:    "2500",
		compat.LabelInstanceTenancy:             "dedicated",
		compat.LabelInstanceHypervisor:          "nitro",
		compat.LabelInstanceEncryptionInTransit: "true",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(it.Family, it.Generation, it.GPUCount, it.GPUName, it.NetworkBandwidthMbps, it.Tenancy)
	fmt.Println("gpu AMI:", it.Compatible(gpuAMI) == nil)

	_, err = compat.InstanceTypeFromLabels(map[string]string{compat.LabelInstanceType: "g5.xlarge", compat.LabelArch: "x86_64"})
	fmt.Println(err)
	// Output:
	// g5 5 1 a10g 2500 dedicated
	// gpu AMI: true
	// compat: label kubernetes.io/arch="x86_64": want one of amd64, arm64
}

// A NodePool asking for three instance families, checked against the
// cheapest types first.
func ExampleRequirements_SatisfiesMinValues() {
	nodePool := compat.MustRequirements(compat.Requirement{
		Key: compat.LabelInstanceFamily, Operator: compat.In, Values: []string{"c5", "m5", "r5"}, MinValues: 3,
	})
	types := []compat.InstanceType{
		{Name: "c5.large", Family: "c5"}, {Name: "m5.large", Family: "m5"}, {Name: "c5.xlarge", Family: "c5"},
	}
	needed, err := nodePool.SatisfiesMinValues(types)
	fmt.Println(needed, err)
	types = append(types, compat.InstanceType{Name: "r5.large", Family: "r5"})
	needed, err = nodePool.SatisfiesMinValues(types)
	fmt.Println(needed, err)
	// Output:
	// 3 compat: minValues not met by 3 instance types: karpenter.k8s.aws/instance-family has 2 distinct values [c5 m5], needs 3 (1 short); allow more instance types or values, or lower minValues
	// 4 <nil>
}

func ExampleInstanceTypeFromEC2() {
	it, err := compat.InstanceTypeFromEC2(ec2types.InstanceTypeInfo{
		InstanceType:  "g6f.large",
		ProcessorInfo: &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{"x86_64"}},
		VCpuInfo:      &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(2)},
		MemoryInfo:    &ec2types.MemoryInfo{SizeInMiB: aws.Int64(8192)},
		// EC2 reports the fractional L4 of a g6f with a count of 0.
		GpuInfo: &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{
			Name: aws.String("L4"), Manufacturer: aws.String("NVIDIA"), Count: aws.Int32(0),
		}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(it.Family, it.Generation, it.Size, it.Arch, it.HasGPU())
	fmt.Println("gpu AMI:", it.Compatible(gpuAMI) == nil)
	fmt.Println("standard AMI:", it.Compatible(standardAMI) == nil)

	_, err = compat.InstanceTypeFromEC2(ec2types.InstanceTypeInfo{
		InstanceType:  "mac2.metal",
		ProcessorInfo: &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{"arm64_mac"}},
	})
	fmt.Println(err)
	// Output:
	// g6f 6 large amd64 true
	// gpu AMI: true
	// standard AMI: false
	// compat: instance type mac2.metal: architectures [arm64_mac] are not supported; only x86_64 (amd64) and arm64 run EKS nodes
}

// A pod asking for a misspelt key: the error says which key was meant.
func ExampleIncompatibleError() {
	node := compat.FromNodeLabels(map[string]string{compat.LabelInstanceType: "m5.large", compat.LabelZone: "us-east-1a"})
	pod := compat.MustRequirements(compat.Requirement{Key: "topology.kubernetes.io/zon", Operator: compat.In, Values: []string{"us-east-1a"}})
	var ie *compat.IncompatibleError
	if errors.As(node.Compatible(pod), &ie) {
		fmt.Println(ie.TypoOf)
		fmt.Println(ie)
	}
	// Output:
	// topology.kubernetes.io/zone
	// compat: topology.kubernetes.io/zon: instance side does not define it (typo of "topology.kubernetes.io/zone"?); required side has In [us-east-1a]: a missing label cannot satisfy it; if you meant topology.kubernetes.io/zone, use that key; otherwise define topology.kubernetes.io/zon on the instance side, require it with DoesNotExist or NotIn to accept instances without it, or compare with AllowUndefined("topology.kubernetes.io/zon")
}

// Karpenter core's fake instance types carry only a name, an architecture
// and OSes (kubernetes-sigs/karpenter v1.14.1 6e7eab7a0f48,
// pkg/cloudprovider/fake/instancetype.go:163-166): they convert, and the
// notes say what their labels leave unknown.
func ExampleReadInstanceTypeLabels() {
	it, notes, err := compat.ReadInstanceTypeLabels(map[string]string{
		compat.LabelInstanceType: "default-instance-type",
		compat.LabelArch:         "arm64",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(it.Name, it.Arch, it.OS)
	for _, n := range notes {
		fmt.Println(n)
	}
	// Output:
	// default-instance-type arm64 [linux]
	// compat: no label karpenter.k8s.aws/instance-capability-flex: the fact is unknown and left at its zero value
	// compat: no label karpenter.k8s.aws/instance-category: the fact is unknown and left at its zero value
	// compat: no label karpenter.k8s.aws/instance-cpu: the fact is unknown and left at its zero value
	// compat: no label karpenter.k8s.aws/instance-cpu-manufacturer: the fact is unknown and left at its zero value
	// compat: no label karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz: the fact is unknown and left at its zero value
	// compat: no label karpenter.k8s.aws/instance-encryption-in-transit-supported: the fact is unknown and left at its zero value
	// compat: no label karpenter.k8s.aws/instance-family: the fact is unknown and left at its zero value
	// compat: no label karpenter.k8s.aws/instance-generation: the fact is unknown and left at its zero value
	// compat: no label karpenter.k8s.aws/instance-hypervisor: the fact is unknown and left at its zero value
	// compat: no label karpenter.k8s.aws/instance-memory: the fact is unknown and left at its zero value
	// compat: no label karpenter.k8s.aws/instance-size: the fact is unknown and left at its zero value
	// compat: label node.kubernetes.io/instance-type="default-instance-type": not an EC2 name (family.size, such as m5.large), so only their own labels give the category, family, size, generation and capability-flex
}

func ExampleLoadInstanceTypes() {
	srv := ec2fake.NewServer(ec2fake.NewWithCatalog(ec2fake.Options{}))
	defer srv.Close()
	client := ec2fake.NewClient(srv.URL) // or ec2.NewFromConfig(cfg)

	types, skipped, err := compat.LoadInstanceTypes(context.Background(), client, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(types), "types, from", types[0].Name, "to", types[len(types)-1].Name)
	for _, s := range skipped {
		fmt.Println("skipped:", s.Err)
	}
	// Output:
	// 1364 types, from a1.2xlarge to z1d.xlarge
	// skipped: compat: instance type mac1.metal: architectures [x86_64_mac] are not supported; only x86_64 (amd64) and arm64 run EKS nodes
	// skipped: compat: instance type mac2.metal: architectures [arm64_mac] are not supported; only x86_64 (amd64) and arm64 run EKS nodes
}
