package compat_test

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/compat"
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

// The #7925 case: an m5.large node's labels carry no GPU keys, so its
// requirements say "no GPU", and the strict comparison keeps it off the
// NVIDIA AMI and on the standard one.
func ExampleFromNodeLabels() {
	node := compat.FromNodeLabels(map[string]string{
		compat.LabelInstanceType: "m5.large",
		compat.LabelArch:         "amd64",
		compat.LabelOS:           "linux",
	})
	amd64 := compat.MustRequirements(compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{"amd64"}})
	_, nvidia := node.Conflict(compat.NVIDIAVariant().Intersect(amd64))
	_, standard := node.Conflict(compat.StandardVariant().Intersect(amd64))
	fmt.Println("conflicts with nvidia:", nvidia)
	fmt.Println("conflicts with standard:", standard)
	// Output:
	// conflicts with nvidia: true
	// conflicts with standard: false
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
	fmt.Println("nvidia AMI:", it.Compatible(compat.NVIDIAVariant()) == nil)
	fmt.Println("standard AMI:", it.Compatible(compat.StandardVariant()) == nil)

	_, err = compat.InstanceTypeFromEC2(ec2types.InstanceTypeInfo{
		InstanceType:  "mac2.metal",
		ProcessorInfo: &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{"arm64_mac"}},
	})
	fmt.Println(err)
	// Output:
	// g6f 6 large amd64 true
	// nvidia AMI: true
	// standard AMI: false
	// compat: instance type mac2.metal: architectures [arm64_mac] are not supported; only x86_64 (amd64) and arm64 run EKS nodes
}
