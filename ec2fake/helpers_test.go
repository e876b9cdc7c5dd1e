package ec2fake

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/google/go-cmp/cmp"
)

// testNow is the fixed clock of the test fixture: after the catalog's
// deprecated image (2025-06-01), before the future one (2030).
var testNow = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

const otherAccount = "444455556666"

// Extra images the fixture adds to the catalog.
const (
	imgCommunityDeprecated = "ami-0dec0de0000000001" // public, other owner, deprecated 2025-01-01
	imgCommunityFuture     = "ami-0dec0de0000000002" // public, other owner, deprecation in 2030
	imgOtherPrivate        = "ami-0dec0de0000000003" // private image of another account
	imgLiteral             = "ami-0dec0de0000000004" // name contains '*', '?' and '\'
	imgLiteralLookalike    = "ami-0dec0de0000000005" // name matched by the unescaped pattern only
)

// ignoreUnexported skips the SDK types' unexported marker fields; time.Time
// is compared with its Equal method.
var ignoreUnexported = cmp.FilterPath(func(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && !isExported(sf.Name())
}, cmp.Ignore())

func isExported(name string) bool { return name != "" && strings.ToUpper(name[:1]) == name[:1] }

func newFixture(t testing.TB) *Backend {
	t.Helper()
	b := newFirstWave(t, Options{})
	extras := []ec2types.Image{
		{ImageId: aws.String(imgCommunityDeprecated), Name: aws.String("community-tool-2024"), OwnerId: aws.String(otherAccount), Public: aws.Bool(true),
			Architecture: "x86_64", CreationDate: aws.String("2024-01-01T00:00:00.000Z"), DeprecationTime: aws.String("2025-01-01T00:00:00.000Z"), ImageType: "machine"},
		{ImageId: aws.String(imgCommunityFuture), Name: aws.String("community-tool-2026"), OwnerId: aws.String(otherAccount), Public: aws.Bool(true),
			Architecture: "x86_64", CreationDate: aws.String("2025-12-01T00:00:00.000Z"), DeprecationTime: aws.String("2030-01-01T00:00:00.000Z"), ImageType: "machine"},
		{ImageId: aws.String(imgOtherPrivate), Name: aws.String("community-private"), OwnerId: aws.String(otherAccount), Public: aws.Bool(false),
			Architecture: "x86_64", CreationDate: aws.String("2025-12-01T00:00:00.000Z")},
		{ImageId: aws.String(imgLiteral), Name: aws.String(`lit*eral?\`), Public: aws.Bool(false), Architecture: "arm64", CreationDate: aws.String("2025-05-05T00:00:00.000Z")},
		{ImageId: aws.String(imgLiteralLookalike), Name: aws.String(`litXYZeral\`), Public: aws.Bool(false), Architecture: "arm64", CreationDate: aws.String("2025-05-05T00:00:00.000Z")},
	}
	for _, img := range extras {
		if err := b.PutImage(img); err != nil {
			t.Fatalf("fixture PutImage(%s): %v", *img.ImageId, err)
		}
	}
	return b
}

// pair is a backend with its HTTP server and SDK client.
type pair struct {
	b      *Backend
	client *ec2.Client
}

func newPair(t testing.TB, b *Backend) pair {
	t.Helper()
	srv := NewServer(b)
	t.Cleanup(srv.Close)
	return pair{b: b, client: NewClient(srv.URL)}
}

// errInfo is what a test compares about an error: EC2 code, message and
// HTTP status.
type errInfo struct {
	Code, Message string
	Status        int
}

func describeErr(err error) *errInfo {
	if err == nil {
		return nil
	}
	info := &errInfo{Code: "<not an API error: " + err.Error() + ">"}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		info.Code, info.Message = apiErr.ErrorCode(), apiErr.ErrorMessage()
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		info.Status = re.HTTPStatusCode()
	}
	return info
}

// describeImagesBoth runs in on the backend directly and through the SDK
// client over HTTP, fails the test unless both give the same images, token
// and error, and returns the in-process answer.
func describeImagesBoth(t *testing.T, p pair, in *ec2.DescribeImagesInput) (*ec2.DescribeImagesOutput, *errInfo) {
	t.Helper()
	ctx := context.Background()
	local, lerr := p.b.DescribeImages(ctx, cloneInput(in))
	remote, rerr := p.client.DescribeImages(ctx, cloneInput(in))
	if diff := cmp.Diff(describeErr(lerr), describeErr(rerr)); diff != "" {
		t.Fatalf("in-process and HTTP errors differ (-in-process +http):\n%s", diff)
	}
	if lerr != nil {
		return nil, describeErr(lerr)
	}
	if diff := cmp.Diff(local.Images, remote.Images, ignoreUnexported); diff != "" {
		t.Fatalf("in-process and HTTP images differ (-in-process +http):\n%s", diff)
	}
	if diff := cmp.Diff(local.NextToken, remote.NextToken); diff != "" {
		t.Fatalf("in-process and HTTP tokens differ (-in-process +http):\n%s", diff)
	}
	return local, nil
}

func describeTypesBoth(t *testing.T, p pair, in *ec2.DescribeInstanceTypesInput) (*ec2.DescribeInstanceTypesOutput, *errInfo) {
	t.Helper()
	ctx := context.Background()
	local, lerr := p.b.DescribeInstanceTypes(ctx, cloneInput(in))
	remote, rerr := p.client.DescribeInstanceTypes(ctx, cloneInput(in))
	if diff := cmp.Diff(describeErr(lerr), describeErr(rerr)); diff != "" {
		t.Fatalf("in-process and HTTP errors differ (-in-process +http):\n%s", diff)
	}
	if lerr != nil {
		return nil, describeErr(lerr)
	}
	if diff := cmp.Diff(local.InstanceTypes, remote.InstanceTypes, ignoreUnexported); diff != "" {
		t.Fatalf("in-process and HTTP instance types differ (-in-process +http):\n%s", diff)
	}
	if diff := cmp.Diff(local.NextToken, remote.NextToken); diff != "" {
		t.Fatalf("in-process and HTTP tokens differ (-in-process +http):\n%s", diff)
	}
	return local, nil
}

func cloneInput[T any](in *T) *T {
	if in == nil {
		return nil
	}
	c := clone(*in)
	return &c
}

func imageNames(images []ec2types.Image) []string {
	out := make([]string, len(images))
	for i, img := range images {
		out[i] = aws.ToString(img.Name)
	}
	slices.Sort(out)
	return out
}

func typeNames(infos []ec2types.InstanceTypeInfo) []string {
	out := make([]string, len(infos))
	for i, t := range infos {
		out[i] = string(t.InstanceType)
	}
	return out
}

func filter(name string, values ...string) ec2types.Filter {
	return ec2types.Filter{Name: aws.String(name), Values: values}
}
