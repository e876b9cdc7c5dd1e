package ec2fake

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// benchBackend holds n images shaped like real ones (tags, a block device
// mapping); about 22% match benchQuery.
func benchBackend(b *testing.B, n int) *Backend {
	b.Helper()
	be := New(Options{Now: func() time.Time { return testNow }})
	images := make([]ec2types.Image, n)
	for i := range images {
		family := []string{"al2023", "bottlerocket"}[i%2]
		arch := []ec2types.ArchitectureValues{"x86_64", "arm64"}[(i/2)%2]
		state := ec2types.ImageStateAvailable
		if i%10 == 0 {
			state = ec2types.ImageStatePending
		}
		images[i] = ec2types.Image{
			ImageId:      aws.String(fmt.Sprintf("ami-%017x", i+1)),
			Name:         aws.String(fmt.Sprintf("bench-%s-%s-%05d", family, arch, i)),
			Architecture: arch, State: state, Public: aws.Bool(false), ImageType: "machine", VirtualizationType: "hvm",
			CreationDate: aws.String(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000Z")),
			Tags:         []ec2types.Tag{{Key: aws.String("team"), Value: aws.String("platform")}, {Key: aws.String("release"), Value: aws.String(fmt.Sprint(i))}},
			BlockDeviceMappings: []ec2types.BlockDeviceMapping{{DeviceName: aws.String("/dev/xvda"),
				Ebs: &ec2types.EbsBlockDevice{VolumeSize: aws.Int32(20), VolumeType: "gp3", DeleteOnTermination: aws.Bool(true)}}},
		}
	}
	if err := be.Load(images, nil); err != nil {
		b.Fatal(err)
	}
	return be
}

func benchQuery() *ec2.DescribeImagesInput {
	return &ec2.DescribeImagesInput{
		Owners:     []string{"self"},
		MaxResults: aws.Int32(1000),
		Filters: []ec2types.Filter{
			filter("name", "bench-al2023-*"),
			filter("architecture", "x86_64"),
			filter("state", "available"),
		},
	}
}

// BenchmarkDescribeImages measures one 1000-image page out of 10,000 images
// with three filters, in process and through the SDK client over HTTP.
func BenchmarkDescribeImages(b *testing.B) {
	be := benchBackend(b, 10_000)
	ctx := context.Background()
	b.Run("in-process/page=1000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := be.DescribeImages(ctx, benchQuery())
			if err != nil || len(out.Images) != 1000 {
				b.Fatalf("%d images, %v", len(out.Images), err)
			}
		}
	})
	b.Run("http/page=1000", func(b *testing.B) {
		srv := NewServer(be)
		defer srv.Close()
		client := NewClient(srv.URL)
		b.ReportAllocs()
		for b.Loop() {
			out, err := client.DescribeImages(ctx, benchQuery())
			if err != nil || len(out.Images) != 1000 {
				b.Fatalf("%d images, %v", len(out.Images), err)
			}
		}
	})
	b.Run("in-process/all-pages", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			pager := ec2.NewDescribeImagesPaginator(be, benchQuery())
			for pager.HasMorePages() {
				if _, err := pager.NextPage(ctx); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func BenchmarkPatternMatch(b *testing.B) {
	name := "amazon-eks-node-al2023-x86_64-nvidia-1.31-v20250403"
	for _, pat := range []string{"amazon-eks-node-al2023-*", "*-nvidia-?.3?-v2025*", name} {
		p := compilePattern(pat)
		b.Run(pat, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.match(name)
			}
		})
	}
}
