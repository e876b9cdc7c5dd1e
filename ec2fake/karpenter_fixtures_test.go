package ec2fake_test

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/ec2fake"
)

// A fork's test can load Karpenter's fixture images as its suite writes
// them (karpenter-provider-aws v1.14.1 pkg/providers/amifamily/
// suite_test.go:77-130: "ami-id-amd64" and friends) and a parameter in the
// shape its fake SSM hands out (pkg/fake/ssmapi.go:70), then resolve id and
// ssmParameter terms through real SDK clients: amiselect, like Karpenter
// (pkg/providers/amifamily/ami.go:111), looks IDs up with the image-id
// filter.
func TestKarpenterFixtureIDsResolve(t *testing.T) {
	b := ec2fake.New(ec2fake.Options{})
	for _, img := range []ec2types.Image{
		{ImageId: aws.String("ami-id-amd64"), Name: aws.String("amd64-ami"), Architecture: "x86_64", CreationDate: aws.String("2022-08-15T12:00:00Z")},
		{ImageId: aws.String("ami-id-arm64"), Name: aws.String("arm64-ami"), Architecture: "arm64", CreationDate: aws.String("2022-08-10T12:00:00Z")},
		{ImageId: aws.String("ami-Q7mZ2kP9xL4tR8vB"), Name: aws.String("from-ssm"), Architecture: "x86_64", CreationDate: aws.String("2022-08-01T12:00:00Z")},
	} {
		if err := b.PutImage(img); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.PutParameter("/karpenter/test/image", "ami-Q7mZ2kP9xL4tR8vB"); err != nil {
		t.Fatal(err)
	}
	srv := ec2fake.NewServer(b)
	defer srv.Close()
	ec2c, ssmc := ec2fake.NewClient(srv.URL), ec2fake.NewSSMClient(srv.URL)
	for _, tc := range []struct {
		name  string
		terms []amiselect.Term
		want  []string
	}{
		{"id terms", []amiselect.Term{{ID: "ami-id-amd64"}, {ID: "ami-id-arm64"}}, []string{"ami-id-amd64", "ami-id-arm64"}},
		{"ssmParameter term", []amiselect.Term{{SSMParameter: "/karpenter/test/image"}}, []string{"ami-Q7mZ2kP9xL4tR8vB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sel, err := amiselect.Resolve(context.Background(), ec2c, tc.terms, amiselect.Options{SSM: ssmc})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range sel.AMIs {
				got = append(got, a.ID)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("selected AMIs (-want +got):\n%s", diff)
			}
		})
	}
}
