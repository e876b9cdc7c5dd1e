package ec2fake_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/smithy-go"
	"github.com/ec2select/ec2select/ec2fake"
)

// A fixed clock keeps deprecation decisions independent of the wall clock.
func fixedClock() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

func names(images []ec2types.Image) []string {
	var out []string
	for _, img := range images {
		out = append(out, fmt.Sprintf("%s (%s, %s)", *img.Name, img.Architecture, img.State))
	}
	slices.Sort(out)
	return out
}

// Describe images by name pattern, in process. '?' matches zero or one
// character, as in EC2.
func Example() {
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: fixedClock})
	out, err := b.DescribeImages(context.Background(), &ec2.DescribeImagesInput{
		Owners: []string{"amazon"},
		Filters: []ec2types.Filter{
			{Name: aws.String("name"), Values: []string{"amazon-eks-node-al2023-arm64-*-1.32-v2025040?"}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range names(out.Images) {
		fmt.Println(n)
	}
	// Output:
	// amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403 (arm64, available)
	// amazon-eks-node-al2023-arm64-standard-1.32-v20250403 (arm64, available)
}

// The same query through a real *ec2.Client over HTTP, paging with the
// SDK's paginator. The catalog's custom family shows why a selector must
// check the state: the newest image is still being built.
func Example_http() {
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: fixedClock})
	srv := ec2fake.NewServer(b)
	defer srv.Close()
	client := ec2fake.NewClient(srv.URL)

	pager := ec2.NewDescribeImagesPaginator(client, &ec2.DescribeImagesInput{
		Owners:     []string{"self"},
		MaxResults: aws.Int32(5),
		Filters:    []ec2types.Filter{{Name: aws.String("name"), Values: []string{"team-base-al2023-*"}}},
	}, func(o *ec2.DescribeImagesPaginatorOptions) { o.StopOnDuplicateToken = true })
	var all []ec2types.Image
	for pager.HasMorePages() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			fmt.Println(err)
			return
		}
		all = append(all, page.Images...)
	}
	for _, n := range names(all) {
		fmt.Println(n)
	}
	// Output:
	// team-base-al2023-20250301 (x86_64, available)
	// team-base-al2023-20250315 (x86_64, available)
	// team-base-al2023-20250401 (x86_64, pending)
	// team-base-al2023-arm64-20250310 (arm64, available)
	// team-base-al2023-broken (x86_64, available)
}

// Two throttles, then an answer: the SDK's own retryer gets through.
func ExampleBackend_InjectFault() {
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: fixedClock})
	_ = b.InjectFault(ec2fake.Fault{Operation: ec2fake.OpDescribeInstanceTypes, Code: ec2fake.CodeRequestLimitExceeded, Times: 2})
	srv := ec2fake.NewServer(b)
	defer srv.Close()

	out, err := ec2fake.NewClient(srv.URL).DescribeInstanceTypes(context.Background(), &ec2.DescribeInstanceTypesInput{
		InstanceTypes: []ec2types.InstanceType{"c7i-flex.large"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	info := out.InstanceTypes[0]
	fmt.Println(info.InstanceType, *info.VCpuInfo.DefaultVCpus, "vCPU", *info.MemoryInfo.SizeInMiB, "MiB")
	for _, c := range b.Calls() {
		var apiErr smithy.APIError
		if errors.As(c.Err, &apiErr) {
			fmt.Println(c.Operation, apiErr.ErrorCode())
		} else {
			fmt.Println(c.Operation, "ok")
		}
	}
	// Output:
	// c7i-flex.large 2 vCPU 4096 MiB
	// DescribeInstanceTypes RequestLimitExceeded
	// DescribeInstanceTypes RequestLimitExceeded
	// DescribeInstanceTypes ok
}

// Errors carry EC2's codes, in process as over HTTP.
func ExampleBackend_DescribeImages_errors() {
	b := ec2fake.New(ec2fake.Options{})
	for _, in := range []*ec2.DescribeImagesInput{
		{ImageIds: []string{"ami-nope"}},
		{ImageIds: []string{"ami-0123456789abcdef0"}},
		{Filters: []ec2types.Filter{{Name: aws.String("image-name"), Values: []string{"x"}}}},
		{MaxResults: aws.Int32(3)},
	} {
		_, err := b.DescribeImages(context.Background(), in)
		var apiErr smithy.APIError
		if errors.As(err, &apiErr) {
			fmt.Printf("%s: %s\n", apiErr.ErrorCode(), apiErr.ErrorMessage())
		}
	}
	// Output:
	// InvalidAMIID.Malformed: Invalid id: "ami-nope" (expecting "ami-...")
	// InvalidAMIID.NotFound: The image id '[ami-0123456789abcdef0]' does not exist
	// InvalidParameterValue: The filter 'image-name' is invalid
	// InvalidParameterValue: Value ( 3 ) for parameter maxResults is invalid. Expecting a value greater than 5.
}

// Stage a Packer build: the image is pending, then available.
func ExampleBackend_SetImageState() {
	b := ec2fake.New(ec2fake.Options{})
	_ = b.PutImage(ec2types.Image{ImageId: aws.String("ami-0123456789abcdef0"), Name: aws.String("build-42"), State: ec2types.ImageStatePending})
	available := &ec2.DescribeImagesInput{Filters: []ec2types.Filter{{Name: aws.String("state"), Values: []string{"available"}}}}

	out, _ := b.DescribeImages(context.Background(), available)
	fmt.Println(len(out.Images), "available")
	_ = b.SetImageState("ami-0123456789abcdef0", ec2types.ImageStateAvailable)
	out, _ = b.DescribeImages(context.Background(), available)
	fmt.Println(len(out.Images), "available")
	// Output:
	// 0 available
	// 1 available
}

// Resolve an EKS AMI alias the way Karpenter does, through SSM public
// parameters, with a real *ssm.Client over HTTP. The parameters are derived
// from the Amazon images the backend holds.
func Example_ssm() {
	b := ec2fake.New(ec2fake.Options{Now: fixedClock})
	for _, img := range []struct{ id, name string }{
		{"ami-0a2023000000000a1", "amazon-eks-node-al2023-x86_64-standard-1.34-v20251002"},
		{"ami-0a2023000000000a2", "amazon-eks-node-al2023-x86_64-standard-1.34-v20251105"},
	} {
		err := b.PutImage(ec2types.Image{ImageId: aws.String(img.id), Name: aws.String(img.name), Architecture: "x86_64",
			OwnerId: aws.String(ec2fake.EKSOwnerID), ImageOwnerAlias: aws.String("amazon"), Public: aws.Bool(true)})
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	srv := ec2fake.NewServer(b)
	defer srv.Close()
	client := ec2fake.NewSSMClient(srv.URL)

	out, err := client.GetParameter(context.Background(), &ssm.GetParameterInput{
		Name: aws.String("/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/standard/recommended/image_id"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("recommended:", *out.Parameter.Value)

	_, err = client.GetParameter(context.Background(), &ssm.GetParameterInput{Name: aws.String("/aws/service/eks/optimized-ami/1.34/amazon-linux-2/recommended/image_id")})
	var notFound *ssmtypes.ParameterNotFound
	fmt.Println("AL2 for 1.34:", errors.As(err, &notFound))
	// Output:
	// recommended: ami-0a2023000000000a2
	// AL2 for 1.34: true
}

// Load the full release history to check a manifest that pins a release:
// bottlerocket@v1.39.1 (karpenter-blueprints' multi-ebs.yaml) exists for
// Kubernetes 1.33, and its public parameters name the same images.
func ExampleFullCatalog() {
	b := ec2fake.New(ec2fake.Options{})
	if err := b.Load(ec2fake.FullCatalog()); err != nil {
		fmt.Println(err)
		return
	}
	out, err := b.DescribeImages(context.Background(), &ec2.DescribeImagesInput{
		Owners:  []string{"amazon"},
		Filters: []ec2types.Filter{{Name: aws.String("name"), Values: []string{"bottlerocket-aws-k8s-1.33-*-v1.39.1-*"}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(out.Images), "images, among them:")
	for _, n := range names(out.Images)[:2] {
		fmt.Println(" ", n)
	}
	p, err := b.GetParameter(context.Background(), &ssm.GetParameterInput{Name: aws.String("/aws/service/bottlerocket/aws-k8s-1.33/arm64/1.39.1/image_version")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("image_version:", *p.Parameter.Value)
	// Output:
	// 6 images, among them:
	//   bottlerocket-aws-k8s-1.33-aarch64-v1.39.1-fe9ebb75 (arm64, available)
	//   bottlerocket-aws-k8s-1.33-fips-aarch64-v1.39.1-fe9ebb75 (arm64, available)
	// image_version: 1.39.1-fe9ebb75
}

// Put, read back, list and delete a parameter with a real *ssm.Client, as
// a test of code that writes the AMI an EC2NodeClass ssmParameter term
// reads. A client that signs for a region sees that region in ARNs.
func Example_ssmWrite() {
	b := ec2fake.New(ec2fake.Options{Now: fixedClock, Region: "eu-west-1"})
	srv := ec2fake.NewServer(b)
	defer srv.Close()
	client := ec2fake.NewSSMClient(srv.URL) // unsigned: answered for Options.Region
	ctx := context.Background()

	for range 2 {
		_, err := client.PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String("/team/golden-ami"), Value: aws.String("ami-12345678"), Type: ssmtypes.ParameterTypeString})
		var exists *ssmtypes.ParameterAlreadyExists
		if errors.As(err, &exists) {
			fmt.Println("second put without Overwrite:", exists.ErrorCode())
		}
	}
	list, err := client.DescribeParameters(ctx, &ssm.DescribeParametersInput{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range list.Parameters {
		fmt.Println(*m.Name, *m.ARN, m.Version)
	}
	if _, err := client.DeleteParameter(ctx, &ssm.DeleteParameterInput{Name: aws.String("/team/golden-ami")}); err != nil {
		fmt.Println(err)
		return
	}
	_, err = client.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/team/golden-ami")})
	var notFound *ssmtypes.ParameterNotFound
	if errors.As(err, &notFound) {
		fmt.Println("after delete:", *notFound.Message)
	}
	// Output:
	// second put without Overwrite: ParameterAlreadyExists
	// /team/golden-ami arn:aws:ssm:eu-west-1:111122223333:parameter/team/golden-ami 1
	// after delete: Parameter /team/golden-ami not found.
}
