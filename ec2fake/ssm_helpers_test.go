package ec2fake

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
)

// ssmImage is one image of the SSM fixture; IDs are given so that the
// tables can name them.
type ssmImage struct {
	id, name string
	arch     ec2types.ArchitectureValues
	created  string
	state    ec2types.ImageState // "" = available
	owner    string              // "" = Amazon (public, alias amazon)
}

// The SSM fixture: Amazon images of every family, several releases each,
// independent of the embedded catalog so the tables below pin behaviour,
// not catalog contents.
var ssmImages = []ssmImage{
	{"ami-a12023000000000a1", "amazon-eks-node-al2023-x86_64-standard-1.33-v20251002", "x86_64", "2025-10-02T10:00:00.000Z", "", ""},
	{"ami-a12023000000000a2", "amazon-eks-node-al2023-x86_64-standard-1.33-v20251105", "x86_64", "2025-11-05T10:00:00.000Z", "", ""},
	{"ami-a12023000000000a3", "amazon-eks-node-al2023-x86_64-standard-1.33-v20251203", "x86_64", "2025-12-03T10:00:00.000Z", "pending", ""}, // not yet a release
	{"ami-a12023000000000a4", "amazon-eks-node-al2023-arm64-nvidia-1.33-v20251105", "arm64", "2025-11-05T11:00:00.000Z", "", ""},
	{"ami-a12023000000000a5", "amazon-eks-node-al2023-x86_64-neuron-1.34-v20251105", "x86_64", "2025-11-05T12:00:00.000Z", "", ""},
	{"ami-a12023000000000a6", "amazon-eks-node-al2023-arm64-standard-1.33-v20251105", "x86_64", "2025-11-05T12:00:00.000Z", "", ""}, // architecture contradicts the name
	{"ami-a10002000000000b1", "amazon-eks-node-1.32-v20251002", "x86_64", "2025-10-02T09:00:00.000Z", "", ""},
	{"ami-a10002000000000b2", "amazon-eks-arm64-node-1.32-v20251002", "arm64", "2025-10-02T09:00:00.000Z", "", ""},
	{"ami-a10002000000000b3", "amazon-eks-gpu-node-1.32-v20251002", "x86_64", "2025-10-02T09:00:00.000Z", "", ""},
	{"ami-a10002000000000b4", "amazon-eks-node-1.32-v20250915", "x86_64", "2025-09-15T09:00:00.000Z", "", ""},
	{"ami-b0771e000000000c1", "bottlerocket-aws-k8s-1.33-x86_64-v1.9.0-aaaaaaaa", "x86_64", "2025-09-01T00:00:00.000Z", "", ""},
	{"ami-b0771e000000000c2", "bottlerocket-aws-k8s-1.33-x86_64-v1.10.0-bbbbbbbb", "x86_64", "2025-08-01T00:00:00.000Z", "", ""}, // newer release, older date
	{"ami-b0771e000000000c3", "bottlerocket-aws-k8s-1.33-aarch64-v1.10.0-bbbbbbbb", "arm64", "2025-08-01T00:00:00.000Z", "", ""},
	{"ami-b0771e000000000c4", "bottlerocket-aws-k8s-1.33-nvidia-x86_64-v1.10.0-bbbbbbbb", "x86_64", "2025-08-01T00:05:00.000Z", "", ""},
	{"ami-b0771e000000000c5", "bottlerocket-aws-k8s-1.33-fips-aarch64-v1.10.0-bbbbbbbb", "arm64", "2025-08-01T00:05:00.000Z", "", ""},
	{"ami-b0771e000000000c6", "bottlerocket-aws-k8s-1.33-x86_64-v1.11.0-cccccccc", "x86_64", "2025-10-01T00:00:00.000Z", "disabled", ""},
	{"ami-3191d0000000000d1", "Windows_Server-2022-English-Core-EKS_Optimized-1.33-2025.10.14", "x86_64", "2025-10-14T00:00:00.000Z", "", ""},
	{"ami-3191d0000000000d2", "Windows_Server-2022-English-Core-EKS_Optimized-1.33-2025.11.12", "x86_64", "2025-11-12T00:00:00.000Z", "", ""},
	{"ami-3191d0000000000d3", "Windows_Server-2025-English-Full-EKS_Optimized-1.33-2025.11.12", "x86_64", "2025-11-12T00:00:00.000Z", "", ""},
	// A copy in the caller's account with an Amazon name: no public parameter.
	{"ami-5e1f00000000000e1", "amazon-eks-node-al2023-x86_64-standard-1.33-v20251231", "x86_64", "2025-12-31T00:00:00.000Z", "", DefaultAccountID},
}

// fixtureDescription gives AL2 and AL2023 images the description
// amazon-eks-ami's templates write, with patch version 5, so that they
// publish release_version.
func fixtureDescription(name string) *string {
	p, ok := parseAMIParameters(name)
	if !ok || p.family != familyEKS {
		return nil
	}
	return aws.String("EKS-optimized Kubernetes node based on Amazon Linux 2023, (k8s: " + p.k8s + ".5, containerd: 2.*)")
}

// fataler is what the fixture needs of *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

func newSSMFixture(t fataler) *Backend {
	t.Helper()
	b := New(Options{Now: func() time.Time { return testNow }})
	for _, si := range ssmImages {
		img := ec2types.Image{ImageId: aws.String(si.id), Name: aws.String(si.name), Architecture: si.arch, CreationDate: aws.String(si.created), State: si.state, ImageType: "machine",
			Description: fixtureDescription(si.name)}
		if si.owner == "" {
			img.OwnerId, img.ImageOwnerAlias, img.Public = aws.String(EKSOwnerID), aws.String("amazon"), aws.Bool(si.state != "disabled")
		} else {
			img.OwnerId, img.Public = aws.String(si.owner), aws.Bool(false)
		}
		if err := b.PutImage(img); err != nil {
			t.Fatalf("fixture PutImage(%s): %v", si.id, err)
		}
	}
	if err := b.PutParameter("/team/base-ami", "ami-5e1f00000000000e1"); err != nil {
		t.Fatalf("fixture PutParameter: %v", err)
	}
	if err := b.PutParameter("/team/base-ami", "ami-5e1f00000000000e1"); err != nil { // version 2
		t.Fatalf("fixture PutParameter: %v", err)
	}
	if err := b.PutParameter("/team/gpu/base-ami", "ami-a12023000000000a4"); err != nil {
		t.Fatalf("fixture PutParameter: %v", err)
	}
	if err := b.PutParameter("flat-ami", "ami-a10002000000000b1"); err != nil {
		t.Fatalf("fixture PutParameter: %v", err)
	}
	return b
}

// ssmPair is a backend with its HTTP server and SDK client.
type ssmPair struct {
	b      *Backend
	client *ssm.Client
}

func newSSMPair(t testing.TB, b *Backend) ssmPair {
	t.Helper()
	srv := NewServer(b)
	t.Cleanup(srv.Close)
	return ssmPair{b: b, client: NewSSMClient(srv.URL)}
}

// ssmErr is what a test compares about an SSM error: code, message, HTTP
// status and the Go type the SDK gave it.
type ssmErr struct {
	Code, Message, Type string
	Status              int
}

// laterSSMErrors are the codes ec2fake's SSM answers that ssm releases
// after the module's floor model as types of their own.
var laterSSMErrors = map[string]bool{CodeValidationException: true, CodeAccessDeniedException: true}

func describeSSMErr(err error) *ssmErr {
	if err == nil {
		return nil
	}
	e := &ssmErr{Code: "<not an API error: " + err.Error() + ">"}
	if info := describeErr(err); info != nil {
		e.Code, e.Message, e.Status = info.Code, info.Message, info.Status
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		e.Type = fmt.Sprintf("%T", apiErr)
		// An SDK release that does not model the code for the operation
		// gives a generic error with the same code (ssm v1.67.5, the
		// floor, decodes these so): the answer on the wire is the same.
		if _, generic := apiErr.(*smithy.GenericAPIError); generic && laterSSMErrors[apiErr.ErrorCode()] {
			e.Type = "*types." + apiErr.ErrorCode()
		}
	}
	return e
}

// both runs an SSM operation in process and through the SDK client over
// HTTP, fails the test unless both give the same answer and error, and
// returns the in-process answer.
func both[I, O any](t *testing.T, local, remote func(context.Context, *I, ...func(*ssm.Options)) (*O, error), in *I) (*O, *ssmErr) {
	t.Helper()
	ctx := context.Background()
	lout, lerr := local(ctx, cloneInput(in))
	rout, rerr := remote(ctx, cloneInput(in))
	if diff := cmp.Diff(describeSSMErr(lerr), describeSSMErr(rerr)); diff != "" {
		t.Fatalf("in-process and HTTP errors differ (-in-process +http):\n%s", diff)
	}
	if lerr != nil {
		return nil, describeSSMErr(lerr)
	}
	if diff := cmp.Diff(lout, rout, ignoreUnexported, cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".ResultMetadata"
	}, cmp.Ignore())); diff != "" {
		t.Fatalf("in-process and HTTP answers differ (-in-process +http):\n%s", diff)
	}
	return lout, nil
}

// allParameterNames lists every parameter the backend holds, public and
// the account's own, sorted.
func allParameterNames(b *Backend) []string {
	var all []string
	for _, p := range b.publicParameters().sorted {
		all = append(all, p.name)
	}
	b.mu.RLock()
	all = append(all, b.paramNames...)
	b.mu.RUnlock()
	slices.Sort(all)
	return all
}
