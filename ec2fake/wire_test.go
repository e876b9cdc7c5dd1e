package ec2fake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/google/go-cmp/cmp"
)

// DescribeInstanceTypes takes at most 100 InstanceType.N values (API
// reference, DescribeInstanceTypes, InstanceTypes: "Maximum number of 100
// items").
func TestDescribeInstanceTypesAtMost100(t *testing.T) {
	b := New(Options{})
	var names []ec2types.InstanceType
	for i := range 101 {
		name := ec2types.InstanceType(fmt.Sprintf("m%d.large", i+1))
		if err := b.PutInstanceType(ec2types.InstanceTypeInfo{InstanceType: name}); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	p := newPair(t, b)
	out, err := describeTypesBoth(t, p, &ec2.DescribeInstanceTypesInput{InstanceTypes: names[:100]})
	if err != nil || len(out.InstanceTypes) != 100 || out.NextToken != nil {
		t.Fatalf("100 names: error %v, %d types, token %v; want all 100 in one page", err, len(out.InstanceTypes), out.NextToken)
	}
	_, err = describeTypesBoth(t, p, &ec2.DescribeInstanceTypesInput{InstanceTypes: names})
	want := &errInfo{Code: CodeInvalidParameterValue, Status: 400,
		Message: "The request names 101 instance types; InstanceTypes may hold at most 100. Describe them in batches of 100."}
	if diff := cmp.Diff(want, err); diff != "" {
		t.Errorf("101 names (-want +got):\n%s", diff)
	}
}

// disableFixture: the caller's own public and private images and another
// account's public one.
func disableFixture(t *testing.T) *Backend {
	t.Helper()
	b := New(Options{Now: func() time.Time { return testNow }})
	for _, img := range []ec2types.Image{
		{ImageId: aws.String("ami-00000000000000d01"), Name: aws.String("own-public"), Public: aws.Bool(true), Architecture: "x86_64"},
		{ImageId: aws.String("ami-00000000000000d02"), Name: aws.String("own-private"), Public: aws.Bool(false), Architecture: "x86_64"},
		{ImageId: aws.String("ami-00000000000000d03"), Name: aws.String("theirs-public"), OwnerId: aws.String(otherAccount), Public: aws.Bool(true), Architecture: "x86_64"},
		{ImageId: aws.String("ami-00000000000000d04"), Name: aws.String("theirs-private"), OwnerId: aws.String(otherAccount), Public: aws.Bool(false), Architecture: "x86_64"},
	} {
		if err := b.PutImage(img); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// DisableImage (API reference): "If an AMI was public or previously shared,
// it is made private"; "Only the AMI owner can disable an AMI"; a disabled
// AMI "does not appear in DescribeImages API calls by default". Each case
// runs on two identical backends, one in process and one through a real
// *ec2.Client over HTTP, which must agree.
func TestDisableImage(t *testing.T) {
	type view struct {
		State  ec2types.ImageState
		Public bool
		Listed bool // by DescribeImages with IncludeDisabled
	}
	tests := []struct {
		name    string
		in      *ec2.DisableImageInput
		wantErr *errInfo
		want    view // of the image afterwards
	}{
		{"own public image becomes private", &ec2.DisableImageInput{ImageId: aws.String("ami-00000000000000d01")}, nil, view{"disabled", false, true}},
		{"own private image", &ec2.DisableImageInput{ImageId: aws.String("ami-00000000000000d02")}, nil, view{"disabled", false, true}},
		{"another account's public image", &ec2.DisableImageInput{ImageId: aws.String("ami-00000000000000d03")},
			&errInfo{Code: CodeAuthFailure, Message: "Not authorized for image:ami-00000000000000d03", Status: 400}, view{"available", true, true}},
		{"another account's private image is not found", &ec2.DisableImageInput{ImageId: aws.String("ami-00000000000000d04")},
			&errInfo{Code: CodeInvalidAMIIDNotFound, Message: "The image id '[ami-00000000000000d04]' does not exist", Status: 400}, view{"available", false, false}},
		{"dry run changes nothing", &ec2.DisableImageInput{ImageId: aws.String("ami-00000000000000d01"), DryRun: aws.Bool(true)},
			&errInfo{Code: CodeDryRunOperation, Message: dryRunMessage, Status: 412}, view{"available", true, true}},
		{"malformed", &ec2.DisableImageInput{ImageId: aws.String("image-1")},
			&errInfo{Code: CodeInvalidAMIIDMalformed, Message: `Invalid id: "image-1" (expecting "ami-...")`, Status: 400}, view{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			local := disableFixture(t)
			remote := newPair(t, disableFixture(t))
			ctx := context.Background()
			_, lerr := local.DisableImage(ctx, cloneInput(tc.in))
			rout, rerr := remote.client.DisableImage(ctx, cloneInput(tc.in))
			if diff := cmp.Diff(describeErr(lerr), describeErr(rerr)); diff != "" {
				t.Fatalf("in-process and HTTP errors differ (-in-process +http):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantErr, describeErr(rerr)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if rerr == nil && !aws.ToBool(rout.Return) {
				t.Errorf("Return = false on success")
			}
			if tc.want == (view{}) {
				return
			}
			for _, b := range []*Backend{local, remote.b} {
				img, _ := b.Image(*tc.in.ImageId)
				out, err := b.DescribeImages(ctx, &ec2.DescribeImagesInput{IncludeDisabled: aws.Bool(true), Filters: []ec2types.Filter{filter("image-id", *tc.in.ImageId)}})
				if err != nil {
					t.Fatal(err)
				}
				got := view{img.State, aws.ToBool(img.Public), len(out.Images) == 1}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("image afterwards (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// An image cannot be loaded disabled and public: EC2 never holds one.
// Loading refuses it (rather than making it private) so that what a test
// reads back is what it put. A disabled image of another account is never
// shown, not even with IncludeDisabled.
func TestDisabledImagesArePrivate(t *testing.T) {
	b := New(Options{})
	err := b.PutImage(ec2types.Image{ImageId: aws.String("ami-00000000000000e01"), State: "disabled", Public: aws.Bool(true)})
	want := "ec2fake: PutImage: image ami-00000000000000e01 is disabled and public, which EC2 never holds (DisableImage makes an AMI private); set Public to false or State to available"
	if err == nil || err.Error() != want {
		t.Fatalf("PutImage(disabled, public) = %v; want %s", err, want)
	}
	if err := b.Load([]ec2types.Image{{ImageId: aws.String("ami-00000000000000e01"), State: "disabled", Public: aws.Bool(true)}}, nil); err == nil {
		t.Fatal("Load accepted a disabled public image")
	}
	if _, ok := b.Image("ami-00000000000000e01"); ok {
		t.Fatal("the refused image was stored")
	}
	if err := b.PutImage(ec2types.Image{ImageId: aws.String("ami-00000000000000e02"), OwnerId: aws.String(otherAccount), State: "disabled", Public: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	p := newPair(t, b)
	out, ierr := describeImagesBoth(t, p, &ec2.DescribeImagesInput{IncludeDisabled: aws.Bool(true), Owners: []string{otherAccount}})
	if ierr != nil || len(out.Images) != 0 {
		t.Errorf("another account's disabled image: %v, %d images; want none", ierr, len(out.Images))
	}
}

// editBody rewrites the form body a real *ec2.Client sends, to make it
// send what the SDK itself never would.
func editBody(edit func(string) string) func(*ec2.Options) {
	return func(o *ec2.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("editBody", func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				req := in.Request.(*smithyhttp.Request)
				body, err := io.ReadAll(req.GetStream())
				if err != nil {
					return middleware.FinalizeOutput{}, middleware.Metadata{}, err
				}
				edited := edit(string(body))
				req, err = req.SetStream(strings.NewReader(edited))
				if err != nil {
					return middleware.FinalizeOutput{}, middleware.Metadata{}, err
				}
				req.ContentLength = int64(len(edited))
				in.Request = req
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
		})
	}
}

// Errors raised before an operation runs carry a request ID, like every
// other EC2 error.
func TestPreOperationErrorsCarryRequestID(t *testing.T) {
	p := newPair(t, New(Options{}))
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
		want errInfo
	}{
		{"unknown parameter", func() error {
			_, err := p.client.DescribeImages(ctx, &ec2.DescribeImagesInput{}, editBody(func(s string) string { return s + "&Bogus=1" }))
			return err
		}, errInfo{Code: CodeUnknownParameter, Message: "The parameter Bogus is not recognized", Status: 400}},
		{"unparsable value", func() error {
			_, err := p.client.DescribeImages(ctx, &ec2.DescribeImagesInput{MaxResults: aws.Int32(10)}, editBody(func(s string) string { return strings.Replace(s, "MaxResults=10", "MaxResults=ten", 1) }))
			return err
		}, errInfo{Code: CodeInvalidParameterValue, Message: "Value (ten) for parameter MaxResults is invalid. Expected an integer.", Status: 400}},
		{"unknown action", func() error {
			_, err := p.client.DescribeInstances(ctx, &ec2.DescribeInstancesInput{})
			return err
		}, errInfo{Code: CodeInvalidAction, Message: "The action DescribeInstances is not valid for this web service; ec2fake implements DescribeImages, DescribeInstanceTypes, DisableImage, DescribeSpotPriceHistory, DescribeAvailabilityZones, DescribeInstanceTypeOfferings, DescribeCapacityReservations, DescribeSubnets, CreateFleet.", Status: 400}},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if diff := cmp.Diff(&tc.want, describeErr(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			var re *awshttp.ResponseError
			if !errors.As(err, &re) || re.ServiceRequestID() == "" {
				t.Fatalf("no request ID in %v", err)
			}
			if seen[re.ServiceRequestID()] {
				t.Errorf("request ID %s reused", re.ServiceRequestID())
			}
			seen[re.ServiceRequestID()] = true
		})
	}
}
