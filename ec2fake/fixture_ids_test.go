package ec2fake

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// karpenterFixtureIDs are image IDs Karpenter's tests load into its fake
// EC2: the amifamily suite's (karpenter-provider-aws v1.14.1,
// pkg/providers/amifamily/suite_test.go:77-80) and one in the shape its
// fake SSM makes, "ami-" and 16 mixed-case alphanumerics
// (pkg/fake/ssmapi.go:70); with two IDs as EC2 issues them, in ID order.
var karpenterFixtureIDs = []string{"ami-0123456789abcdef0", "ami-12345678", "ami-aB3dE5gH7jK9mN1p",
	"ami-id-amd64", "ami-id-amd64-nvidia", "ami-id-arm64", "ami-id-arm64-nvidia"}

func imageIDs(images []ec2types.Image) []string {
	var out []string
	for _, img := range images {
		out = append(out, *img.ImageId)
	}
	return out
}

func karpenterFixtureBackend(t *testing.T) *Backend {
	t.Helper()
	b := New(Options{Now: func() time.Time { return testNow }})
	for i, id := range karpenterFixtureIDs {
		img := ec2types.Image{ImageId: aws.String(id), Name: aws.String(fmt.Sprintf("fixture-%d", i)), Architecture: "x86_64",
			CreationDate: aws.String("2025-01-01T00:00:00.000Z")}
		if err := b.PutImage(img); err != nil {
			t.Fatalf("PutImage(%s): %v", id, err)
		}
	}
	return b
}

// Queries stay as strict as EC2's while the images carry fixture IDs:
//   - the image-id filter finds them (EC2 validates no filter value; it is
//     how karpenter-provider-aws v1.14.1 pkg/providers/amifamily/ami.go:111
//     and amiselect query id terms), and pages through them;
//   - ImageIds and DisableImage refuse an ID EC2 would not issue with
//     InvalidAMIID.Malformed, as EC2 checks an ID's form before looking it
//     up, even though the backend holds an image of that ID.
func TestFixtureIDsQueries(t *testing.T) {
	p := newPair(t, karpenterFixtureBackend(t))
	out, err := describeImagesBoth(t, p, &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("image-id", "ami-id-amd64", "ami-aB3dE5gH7jK9mN1p")}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ami-aB3dE5gH7jK9mN1p", "ami-id-amd64"}, imageIDs(out.Images)); diff != "" {
		t.Errorf("image-id filter (-want +got):\n%s", diff)
	}
	var all []string
	in := &ec2.DescribeImagesInput{MaxResults: aws.Int32(5), Filters: []ec2types.Filter{filter("name", "fixture-*")}}
	for pages := 0; ; pages++ {
		out, err := describeImagesBoth(t, p, in)
		if err != nil || pages > 1 {
			t.Fatalf("page %d: %v", pages, err)
		}
		all = append(all, imageIDs(out.Images)...)
		if out.NextToken == nil {
			break
		}
		in.NextToken = out.NextToken
	}
	if diff := cmp.Diff(karpenterFixtureIDs, all); diff != "" {
		t.Errorf("paged IDs, in ID order (-want +got):\n%s", diff)
	}
	for _, id := range []string{"ami-id-amd64", "ami-aB3dE5gH7jK9mN1p"} {
		_, err := describeImagesBoth(t, p, &ec2.DescribeImagesInput{ImageIds: []string{id}})
		want := &errInfo{Code: CodeInvalidAMIIDMalformed, Message: fmt.Sprintf(`Invalid id: "%s" (expecting "ami-...")`, id), Status: 400}
		if diff := cmp.Diff(want, err); diff != "" {
			t.Errorf("ImageIds [%s] (-want +got):\n%s", id, diff)
		}
		_, lerr := p.b.DisableImage(context.Background(), &ec2.DisableImageInput{ImageId: aws.String(id)})
		_, rerr := p.client.DisableImage(context.Background(), &ec2.DisableImageInput{ImageId: aws.String(id)})
		for _, got := range []*errInfo{describeErr(lerr), describeErr(rerr)} {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("DisableImage %s (-want +got):\n%s", id, diff)
			}
		}
	}
	if img, ok := p.b.Image("ami-id-amd64"); !ok || img.State != ec2types.ImageStateAvailable {
		t.Errorf("the refused DisableImage changed the image: %v, %v", img.State, ok)
	}
}

// A parameter put through the Go API may hold a fixture ID, as Karpenter's
// fake SSM hands out; GetParameter returns it over the wire. SSM's own
// PutParameter with data type aws:ec2:image keeps SSM's check (an AMI ID
// as EC2 issues it), so over the wire only a text parameter can hold one.
func TestFixtureIDsInParameters(t *testing.T) {
	b := karpenterFixtureBackend(t)
	if err := b.PutParameter("/karpenter/fixture/image_id", "ami-aB3dE5gH7jK9mN1p"); err != nil {
		t.Fatal(err)
	}
	p := newSSMPair(t, b)
	out, err := both(t, p.b.GetParameter, p.client.GetParameter, &ssm.GetParameterInput{Name: aws.String("/karpenter/fixture/image_id")})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(out.Parameter.Value); got != "ami-aB3dE5gH7jK9mN1p" {
		t.Errorf("GetParameter value %q", got)
	}
	_, perr := p.client.PutParameter(context.Background(), &ssm.PutParameterInput{Name: aws.String("/karpenter/typed"),
		Value: aws.String("ami-id-amd64"), Type: "String", DataType: aws.String("aws:ec2:image")})
	want := &ssmErr{Code: CodeValidationException, Type: "*types.ValidationException", Status: 400,
		Message: "Parameter value ami-id-amd64 is not valid for data type aws:ec2:image: use a String parameter holding an AMI ID (ami- followed by 8 or 17 hexadecimal digits)."}
	if diff := cmp.Diff(want, describeSSMErr(perr)); diff != "" {
		t.Errorf("PutParameter aws:ec2:image ami-id-amd64 over the wire (-want +got):\n%s", diff)
	}
}

// naiveFixtureID is the rule PutImage states, written out: "ami-", then
// one or more ASCII letters, digits or hyphens.
func naiveFixtureID(id string) bool {
	rest, ok := strings.CutPrefix(id, "ami-")
	if !ok || rest == "" {
		return false
	}
	for _, r := range rest {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// TestFixtureIDProperty: PutImage accepts exactly the IDs of its rule, and
// an accepted ID, given as an image-id filter value, finds that image and
// no other, whatever else the backend holds.
func TestFixtureIDProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SampledFrom([]rune("amiAMI-09zZ*?\\ é_"))
		ids := rapid.SliceOfNDistinct(rapid.Custom(func(t *rapid.T) string {
			prefix := rapid.SampledFrom([]string{"ami-", "ami-", "ami-", "ami", "AMI-", ""}).Draw(t, "prefix")
			return prefix + string(rapid.SliceOfN(alphabet, 0, 6).Draw(t, "rest"))
		}), 1, 6, rapid.ID).Draw(t, "ids")
		b := New(Options{})
		var stored []string
		for _, id := range ids {
			err := b.PutImage(ec2types.Image{ImageId: aws.String(id)})
			if want := naiveFixtureID(id); (err == nil) != want {
				t.Fatalf("PutImage(%q) = %v; the rule says %v", id, err, want)
			}
			if err == nil {
				stored = append(stored, id)
			}
		}
		for _, id := range stored {
			out, err := b.DescribeImages(context.Background(), &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("image-id", id)}})
			if err != nil {
				t.Fatal(err)
			}
			if got := imageIDs(out.Images); !slices.Equal(got, []string{id}) {
				t.Fatalf("image-id filter %q found %v", id, got)
			}
		}
	})
}
