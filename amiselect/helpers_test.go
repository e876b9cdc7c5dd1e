package amiselect

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/compat"
)

// Instance types built by hand from their published specs, enough to
// cover every AMI variant and both architectures.
var (
	m5Large = compat.InstanceType{
		Name: "m5.large", Family: "m5", Category: "m", Size: "large", Generation: 5, Arch: compat.ArchAMD64,
		VCPU: 2, MemoryMiB: 8192, Hypervisor: "nitro", OS: []string{compat.OSLinux, compat.OSWindows},
		CPUManufacturer: "intel",
	}
	m6gLarge = compat.InstanceType{
		Name: "m6g.large", Family: "m6g", Category: "m", Size: "large", Generation: 6, Arch: compat.ArchARM64,
		VCPU: 2, MemoryMiB: 8192, Hypervisor: "nitro", OS: []string{compat.OSLinux}, CPUManufacturer: "aws",
	}
	c7iFlexLarge = compat.InstanceType{
		Name: "c7i-flex.large", Family: "c7i-flex", Category: "c", Size: "large", Generation: 7, Arch: compat.ArchAMD64,
		VCPU: 2, MemoryMiB: 4096, Hypervisor: "nitro", Flex: true, OS: []string{compat.OSLinux, compat.OSWindows},
		CPUManufacturer: "intel",
	}
	g4dnXLarge = compat.InstanceType{
		Name: "g4dn.xlarge", Family: "g4dn", Category: "g", Size: "xlarge", Generation: 4, Arch: compat.ArchAMD64,
		VCPU: 4, MemoryMiB: 16384, Hypervisor: "nitro", OS: []string{compat.OSLinux, compat.OSWindows},
		GPUCount: 1, GPUManufacturer: "nvidia", GPUName: "t4", GPUMemoryMiB: 16384, CPUManufacturer: "intel",
	}
	g5gXLarge = compat.InstanceType{
		Name: "g5g.xlarge", Family: "g5g", Category: "g", Size: "xlarge", Generation: 5, Arch: compat.ArchARM64,
		VCPU: 4, MemoryMiB: 8192, Hypervisor: "nitro", OS: []string{compat.OSLinux},
		GPUCount: 1, GPUManufacturer: "nvidia", GPUName: "t4g", GPUMemoryMiB: 16384, CPUManufacturer: "aws",
	}
	g5g2XLarge = compat.InstanceType{
		Name: "g5g.2xlarge", Family: "g5g", Category: "g", Size: "2xlarge", Generation: 5, Arch: compat.ArchARM64,
		VCPU: 8, MemoryMiB: 16384, Hypervisor: "nitro", OS: []string{compat.OSLinux},
		GPUCount: 1, GPUManufacturer: "nvidia", GPUName: "t4g", GPUMemoryMiB: 16384, CPUManufacturer: "aws",
	}
	inf2XLarge = compat.InstanceType{
		Name: "inf2.xlarge", Family: "inf2", Category: "inf", Size: "xlarge", Generation: 2, Arch: compat.ArchAMD64,
		VCPU: 4, MemoryMiB: 16384, Hypervisor: "nitro", OS: []string{compat.OSLinux},
		AcceleratorCount: 1, AcceleratorManufacturer: "aws", AcceleratorName: "inferentia2", CPUManufacturer: "amd",
	}
	g4adXLarge = compat.InstanceType{
		Name: "g4ad.xlarge", Family: "g4ad", Category: "g", Size: "xlarge", Generation: 4, Arch: compat.ArchAMD64,
		VCPU: 4, MemoryMiB: 16384, Hypervisor: "nitro", OS: []string{compat.OSLinux, compat.OSWindows},
		GPUCount: 1, GPUManufacturer: "amd", GPUName: "radeon-pro-v520", GPUMemoryMiB: 8192, CPUManufacturer: "amd",
	}
)

// image builds an available DescribeImages result.
func image(id, name, arch, created string) ec2types.Image {
	return ec2types.Image{
		ImageId:      aws.String(id),
		Name:         aws.String(name),
		Architecture: ec2types.ArchitectureValues(arch),
		CreationDate: aws.String(created),
		State:        ec2types.ImageStateAvailable,
	}
}

func withState(img ec2types.Image, s ec2types.ImageState) ec2types.Image {
	img.State = s
	return img
}

func withDeprecation(img ec2types.Image, t string) ec2types.Image {
	img.DeprecationTime = aws.String(t)
	return img
}

// fixedNow is the clock of tests that do not care about deprecation
// timing: after every creation date in them.
var fixedNow = time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)

func at(t time.Time) SelectOptions { return SelectOptions{Now: func() time.Time { return t }} }

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// bottlerocketImages are the four images of one Bottlerocket release for
// Kubernetes 1.32, NVIDIA a few minutes newer than standard, as published.
func bottlerocketImages() []ec2types.Image {
	return []ec2types.Image{
		image("ami-0b000000000000001", "bottlerocket-aws-k8s-1.32-x86_64-v1.49.0-713f44ce", "x86_64", "2025-10-07T16:20:20.000Z"),
		image("ami-0b000000000000002", "bottlerocket-aws-k8s-1.32-aarch64-v1.49.0-713f44ce", "arm64", "2025-10-07T16:21:27.000Z"),
		image("ami-0b000000000000003", "bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.49.0-713f44ce", "x86_64", "2025-10-07T16:24:48.000Z"),
		image("ami-0b000000000000004", "bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.49.0-713f44ce", "arm64", "2025-10-07T16:25:55.000Z"),
	}
}

// al2Images are one AL2 release for Kubernetes 1.32.
func al2Images() []ec2types.Image {
	return []ec2types.Image{
		image("ami-0a200000000000001", "amazon-eks-node-1.32-v20250403", "x86_64", "2025-04-03T16:31:37.000Z"),
		image("ami-0a200000000000002", "amazon-eks-arm64-node-1.32-v20250403", "arm64", "2025-04-03T16:32:44.000Z"),
		image("ami-0a200000000000003", "amazon-eks-gpu-node-1.32-v20250403", "x86_64", "2025-04-03T16:33:51.000Z"),
	}
}

// al2023Images are one AL2023 release for Kubernetes 1.32.
func al2023Images() []ec2types.Image {
	return []ec2types.Image{
		image("ami-0a230000000000001", "amazon-eks-node-al2023-x86_64-standard-1.32-v20250403", "x86_64", "2025-04-03T16:40:40.000Z"),
		image("ami-0a230000000000002", "amazon-eks-node-al2023-x86_64-nvidia-1.32-v20250403", "x86_64", "2025-04-03T16:41:47.000Z"),
		image("ami-0a230000000000003", "amazon-eks-node-al2023-x86_64-neuron-1.32-v20250403", "x86_64", "2025-04-03T16:42:54.000Z"),
		image("ami-0a230000000000004", "amazon-eks-node-al2023-arm64-standard-1.32-v20250403", "arm64", "2025-04-03T16:43:01.000Z"),
		image("ami-0a230000000000005", "amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403", "arm64", "2025-04-03T16:44:08.000Z"),
	}
}

// better reports whether a should replace b as the AMI of their common
// requirement set, without a soak: the rule of [Select] for two AMIs.
func better(a, b *AMI) bool {
	if a.Deprecated != b.Deprecated {
		return !a.Deprecated
	}
	if !a.Created.Equal(b.Created) {
		return a.Created.After(b.Created)
	}
	if a.Name != b.Name {
		return a.Name > b.Name
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	// The same image twice, its date spelt two ways ("...Z", "+01:00"):
	// either copy would do, but the result must not depend on the order.
	if a.CreationDate != b.CreationDate {
		return a.CreationDate < b.CreationDate
	}
	return laterDeprecation(a.DeprecationTime, b.DeprecationTime)
}

// laterDeprecation reports whether a DeprecationTime a comes after b, no
// DeprecationTime (zero) being the latest.
func laterDeprecation(a, b time.Time) bool {
	switch {
	case a.Equal(b):
		return false
	case a.IsZero():
		return true
	case b.IsZero():
		return false
	}
	return a.After(b)
}
