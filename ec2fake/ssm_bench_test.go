package ec2fake

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
)

// amazonImages makes n public Amazon images of every family: n/8 releases
// of 8 series each.
func amazonImages(n int) []*storedImage {
	out := make([]*storedImage, 0, n)
	for i := 0; len(out) < n; i++ {
		day := fmt.Sprintf("2025%02d%02d", 1+i/28%12, 1+i%28)
		k8s := fmt.Sprintf("1.%d", 28+i/100)
		names := []struct {
			name string
			arch ec2types.ArchitectureValues
		}{
			{"amazon-eks-node-al2023-x86_64-standard-" + k8s + "-v" + day, "x86_64"},
			{"amazon-eks-node-al2023-arm64-standard-" + k8s + "-v" + day, "arm64"},
			{"amazon-eks-node-al2023-x86_64-nvidia-" + k8s + "-v" + day, "x86_64"},
			{"amazon-eks-node-" + k8s + "-v" + day, "x86_64"},
			{fmt.Sprintf("bottlerocket-aws-k8s-%s-x86_64-v1.%d.0-abcdef01", k8s, i), "x86_64"},
			{fmt.Sprintf("bottlerocket-aws-k8s-%s-nvidia-aarch64-v1.%d.0-abcdef01", k8s, i), "arm64"},
			{fmt.Sprintf("Windows_Server-2022-English-Core-EKS_Optimized-%s-2025.%02d.%02d", k8s, 1+i/28%12, 1+i%28), "x86_64"},
			{"team-image-" + day, "x86_64"},
		}
		for j, nm := range names {
			if len(out) == n {
				break
			}
			out = append(out, &storedImage{img: ec2types.Image{
				ImageId: aws.String(fmt.Sprintf("ami-%017x", i*8+j)), Name: aws.String(nm.name), Architecture: nm.arch,
				Public: aws.Bool(true), ImageOwnerAlias: aws.String("amazon"), State: "available", CreationDate: aws.String("2025-06-01T00:00:00.000Z"),
			}})
		}
	}
	return out
}

// BenchmarkParameterIndex is the cost of the first SSM call after the
// images change.
func BenchmarkParameterIndex(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		images := amazonImages(n)
		// cold: names not parsed yet (the first SSM call); warm: a rebuild
		// after a change, names already parsed.
		b.Run(fmt.Sprintf("cold/images=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range images {
					s.paramsParsed = false
				}
				buildPublicIndex(images)
			}
		})
		b.Run(fmt.Sprintf("warm/images=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buildPublicIndex(images)
			}
		})
	}
}

func BenchmarkGetParameter(b *testing.B) {
	bk := New(Options{})
	for _, s := range amazonImages(1000) {
		if err := bk.PutImage(s.img); err != nil {
			b.Fatal(err)
		}
	}
	in := &ssm.GetParameterInput{Name: aws.String("/aws/service/eks/optimized-ami/1.29/amazon-linux-2023/x86_64/standard/recommended/image_id")}
	ctx := context.Background()
	b.Run("in-process", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := bk.GetParameter(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("http", func(b *testing.B) {
		p := newSSMPair(b, bk)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.client.GetParameter(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("in-process/by-path-page=10", func(b *testing.B) {
		in := &ssm.GetParametersByPathInput{Path: aws.String("/aws/service/bottlerocket"), Recursive: aws.Bool(true)}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := bk.GetParametersByPath(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
