//go:build karpenterbench

// This file measures Karpenter's own AMI-to-instance-type mapping beside
// amiselect.Map on the same input, for the README's benchmark table. It
// compiles Karpenter's amifamily and instancetype providers, which take
// minutes, so CI leaves it out; run it with
//
//	cd examples/karpenter
//	go test -tags karpenterbench -run '^$' -bench MapToInstanceTypes -benchmem -count 6

package karpenter_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/karpenter"
)

// benchNow is after every creation date of the bench's images.
var benchNow = time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)

// benchAMIs are amiselect's BenchmarkMap AMIs (amiselect/bench_test.go,
// benchAMIs): AL2023's five, Bottlerocket's five and a custom image per
// architecture, from the same images.
func benchAMIs(tb testing.TB) []amiselect.AMI {
	image := func(id, name, arch, created string) ec2types.Image {
		return ec2types.Image{ImageId: aws.String(id), Name: aws.String(name), Architecture: ec2types.ArchitectureValues(arch),
			CreationDate: aws.String(created), State: ec2types.ImageStateAvailable}
	}
	opts := amiselect.SelectOptions{Now: func() time.Time { return benchNow }}
	amis := amiselect.Select([]ec2types.Image{
		image("ami-0a230000000000001", "amazon-eks-node-al2023-x86_64-standard-1.32-v20250403", "x86_64", "2025-04-03T16:40:40.000Z"),
		image("ami-0a230000000000002", "amazon-eks-node-al2023-x86_64-nvidia-1.32-v20250403", "x86_64", "2025-04-03T16:41:47.000Z"),
		image("ami-0a230000000000003", "amazon-eks-node-al2023-x86_64-neuron-1.32-v20250403", "x86_64", "2025-04-03T16:42:54.000Z"),
		image("ami-0a230000000000004", "amazon-eks-node-al2023-arm64-standard-1.32-v20250403", "arm64", "2025-04-03T16:43:01.000Z"),
		image("ami-0a230000000000005", "amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403", "arm64", "2025-04-03T16:44:08.000Z"),
	}, opts).AMIs
	amis = append(amis, amiselect.Select([]ec2types.Image{
		image("ami-0b000000000000001", "bottlerocket-aws-k8s-1.32-x86_64-v1.49.0-713f44ce", "x86_64", "2025-10-07T16:20:20.000Z"),
		image("ami-0b000000000000002", "bottlerocket-aws-k8s-1.32-aarch64-v1.49.0-713f44ce", "arm64", "2025-10-07T16:21:27.000Z"),
		image("ami-0b000000000000003", "bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.49.0-713f44ce", "x86_64", "2025-10-07T16:24:48.000Z"),
		image("ami-0b000000000000004", "bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.49.0-713f44ce", "arm64", "2025-10-07T16:25:55.000Z"),
	}, opts).AMIs...)
	amis = append(amis, amiselect.Select([]ec2types.Image{
		image("ami-0c0000000000000a1", "team-base-amd64", "x86_64", "2025-01-01T00:00:00Z"),
		image("ami-0c0000000000000a2", "team-base-arm64", "arm64", "2025-01-01T00:00:00Z"),
	}, opts).AMIs...)
	if len(amis) != 12 {
		tb.Fatalf("%d AMIs, want 12", len(amis))
	}
	return amis
}

// benchTypes are amiselect's BenchmarkMap types (benchTypes there): the
// catalog's, repeated under new names ("m5.large-2") until there are n,
// both as compat converts them and as Karpenter's provider builds them
// (instancetype.NewInstanceType, for AL2023, in two zones).
func benchTypes(tb testing.TB, n int) ([]compat.InstanceType, []*cloudprovider.InstanceType) {
	_, catalog := ec2fake.DefaultCatalog()
	var infos []ec2types.InstanceTypeInfo
	var base []compat.InstanceType
	for _, info := range catalog {
		if it, err := compat.InstanceTypeFromEC2(info); err == nil {
			infos, base = append(infos, info), append(base, it)
		}
	}
	ctx := options.ToContext(context.Background(), &options.Options{VMMemoryOverheadPercent: 0.075})
	zones := []string{"us-east-1a", "us-east-1b"}
	subnets := []v1.ZoneInfo{{Zone: "us-east-1a", ZoneID: "use1-az1"}, {Zone: "us-east-1b", ZoneID: "use1-az2"}}
	ours := make([]compat.InstanceType, n)
	theirs := make([]*cloudprovider.InstanceType, n)
	for i := range n {
		info, it := infos[i%len(infos)], base[i%len(base)]
		if round := i / len(base); round > 0 {
			it.Name = fmt.Sprintf("%s-%d", it.Name, round)
			info.InstanceType = ec2types.InstanceType(it.Name)
		}
		ours[i] = it
		withNetworkCard(&info)
		theirs[i] = instancetype.NewInstanceType(ctx, info, "us-east-1", zones, subnets, nil, nil, nil, nil, nil, nil, nil, nil, nil, v1.AMIFamilyAL2023, nil)
	}
	return ours, theirs
}

// withNetworkCard gives info the network figures Karpenter's pod count
// reads unchecked (pkg/providers/instancetype/types.go:492-505) where the
// catalog's record lacks them. Mapping reads none of them.
func withNetworkCard(info *ec2types.InstanceTypeInfo) {
	n := *info.NetworkInfo
	n.DefaultNetworkCardIndex = aws.Int32(0)
	n.NetworkCards = []ec2types.NetworkCardInfo{{NetworkCardIndex: aws.Int32(0), MaximumNetworkInterfaces: aws.Int32(max(aws.ToInt32(n.MaximumNetworkInterfaces), 2))}}
	n.Ipv4AddressesPerInterface = aws.Int32(max(aws.ToInt32(n.Ipv4AddressesPerInterface), 2))
	info.NetworkInfo = &n
}

// BenchmarkMapToInstanceTypes maps 800 types onto 12 AMIs with Karpenter's
// amifamily.MapToInstanceTypes (karpenter-provider-aws v1.14.1,
// pkg/providers/amifamily/ami.go:228) and with amiselect.Map, in one
// process, so the ratio holds whatever the machine's load.
func BenchmarkMapToInstanceTypes(b *testing.B) {
	amis := benchAMIs(b)
	status := karpenter.StatusAMIs(amis)
	ours, theirs := benchTypes(b, 800)
	name := fmt.Sprintf("%dx%d", len(ours), len(amis))
	b.Run("karpenter/"+name, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			amifamily.MapToInstanceTypes(theirs, status)
		}
	})
	b.Run("amiselect/"+name, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			amiselect.Map(ours, amis)
		}
	})
}
