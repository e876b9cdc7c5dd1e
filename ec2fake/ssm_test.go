package ec2fake

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/google/go-cmp/cmp"
)

// The parameter paths are AWS's, as the software that reads them spells
// them:
//
//   - AL2023: karpenter-provider-aws pkg/providers/amifamily/al2023.go
//     lines 82-88 (recommended, or amazon-eks-node-al2023-ARCH-VARIANT-K-VERSION
//     under .../amazon-linux-2023/ARCH/VARIANT/) at commit
//     1d927085dd81a9df9301e613f371dac5b4d16bfe; variants x86_64
//     standard/nvidia/neuron and arm64 standard/nvidia from the EKS user
//     guide, "Retrieve recommended Amazon Linux AMI IDs".
//   - AL2: al2.go lines 46-60 at the same commit (amazon-linux-2,
//     amazon-linux-2-arm64, amazon-linux-2-gpu; the release name is the
//     image name).
//   - Bottlerocket: bottlerocket.go lines 45-52 at the same commit (variant
//     aws-k8s-K or aws-k8s-K-nvidia, architecture x86_64 or arm64, the
//     version without its "v"); bottlerocket-os/bottlerocket QUICKSTART-EKS.md
//     lines 98-105 at 91632ff50cafaae1d5b3710a8f799141b5966595 ("latest", or
//     a version such as 1.11.0; arm64 "also known as aarch64"); "-fips" from
//     the EKS user guide, "Retrieve recommended Bottlerocket AMI IDs".
//   - Windows: windows.go line 52 at the same commit (latest only; no
//     per-release parameter).
func TestParseAMIParameters(t *testing.T) {
	tests := []struct {
		name string
		want *amiParameters // nil: no parameters
	}{
		{"amazon-eks-node-al2023-x86_64-standard-1.33-v20251105", &amiParameters{
			series:  "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id",
			release: "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.33-v20251105/image_id",
			arch:    "x86_64", version: []int{20251105}}},
		{"amazon-eks-node-al2023-arm64-nvidia-1.34-v20251105", &amiParameters{
			series:  "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/arm64/nvidia/recommended/image_id",
			release: "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/arm64/nvidia/amazon-eks-node-al2023-arm64-nvidia-1.34-v20251105/image_id",
			arch:    "arm64", version: []int{20251105}}},
		{"amazon-eks-node-al2023-x86_64-neuron-1.33-v20251105", &amiParameters{
			series:  "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/neuron/recommended/image_id",
			release: "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/neuron/amazon-eks-node-al2023-x86_64-neuron-1.33-v20251105/image_id",
			arch:    "x86_64", version: []int{20251105}}},
		{"amazon-eks-node-1.32-v20251002", &amiParameters{
			series:  "/aws/service/eks/optimized-ami/1.32/amazon-linux-2/recommended/image_id",
			release: "/aws/service/eks/optimized-ami/1.32/amazon-linux-2/amazon-eks-node-1.32-v20251002/image_id",
			arch:    "x86_64", version: []int{20251002}}},
		{"amazon-eks-arm64-node-1.32-v20251002", &amiParameters{
			series:  "/aws/service/eks/optimized-ami/1.32/amazon-linux-2-arm64/recommended/image_id",
			release: "/aws/service/eks/optimized-ami/1.32/amazon-linux-2-arm64/amazon-eks-arm64-node-1.32-v20251002/image_id",
			arch:    "arm64", version: []int{20251002}}},
		{"amazon-eks-gpu-node-1.32-v20251002", &amiParameters{
			series:  "/aws/service/eks/optimized-ami/1.32/amazon-linux-2-gpu/recommended/image_id",
			release: "/aws/service/eks/optimized-ami/1.32/amazon-linux-2-gpu/amazon-eks-gpu-node-1.32-v20251002/image_id",
			arch:    "x86_64", version: []int{20251002}}},
		{"bottlerocket-aws-k8s-1.33-x86_64-v1.10.0-bbbbbbbb", &amiParameters{
			series: "/aws/service/bottlerocket/aws-k8s-1.33/x86_64/latest/image_id", release: "/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.10.0/image_id",
			arch: "x86_64", version: []int{1, 10, 0}}},
		{"bottlerocket-aws-k8s-1.33-nvidia-aarch64-v1.49.0-713f44ce", &amiParameters{
			series: "/aws/service/bottlerocket/aws-k8s-1.33-nvidia/arm64/latest/image_id", release: "/aws/service/bottlerocket/aws-k8s-1.33-nvidia/arm64/1.49.0/image_id",
			arch: "arm64", version: []int{1, 49, 0}}},
		{"bottlerocket-aws-k8s-1.33-fips-x86_64-v1.49.0-713f44ce", &amiParameters{
			series: "/aws/service/bottlerocket/aws-k8s-1.33-fips/x86_64/latest/image_id", release: "/aws/service/bottlerocket/aws-k8s-1.33-fips/x86_64/1.49.0/image_id",
			arch: "x86_64", version: []int{1, 49, 0}}},
		{"Windows_Server-2019-English-Core-EKS_Optimized-1.31-2025.04.14", &amiParameters{
			series: "/aws/service/ami-windows-latest/Windows_Server-2019-English-Core-EKS_Optimized-1.31/image_id", arch: "x86_64", version: []int{2025, 4, 14}}},
		{"Windows_Server-2025-English-Full-EKS_Optimized-1.34-2025.11.12", &amiParameters{
			series: "/aws/service/ami-windows-latest/Windows_Server-2025-English-Full-EKS_Optimized-1.34/image_id", arch: "x86_64", version: []int{2025, 11, 12}}},
		// No parameters: not an EKS AMI, or a shape AWS does not publish.
		{"amazon-eks-arm64-gpu-node-1.32-v20251002", nil}, // there is no AL2 arm64 GPU AMI
		{"amazon-eks-node-al2023-x86_64-gpu-1.33-v20251105", nil},
		{"amazon-eks-node-al2023-x86_64-standard-1.33-20251105", nil},
		{"bottlerocket-aws-k8s-1.33-x86_64-v1.10.0", nil},
		{"bottlerocket-aws-k8s-1.33-metal-x86_64-v1.10.0-bbbbbbbb", nil},
		{"bottlerocket-aws-ecs-2-x86_64-v1.10.0-bbbbbbbb", nil},
		{"Windows_Server-2022-English-Core-Base-2025.11.12", nil},
		{"team-base-al2023-20250301", nil},
		{"", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseAMIParameters(tc.name)
			var gotp *amiParameters
			if ok {
				gotp = &got
			}
			if diff := cmp.Diff(tc.want, gotp, cmp.AllowUnexported(amiParameters{})); diff != "" {
				t.Errorf("parseAMIParameters(%q) (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}

func param(name, value string, version int64, modified string) ssmtypes.Parameter {
	p := ssmtypes.Parameter{Name: aws.String(name), Value: aws.String(value), Version: version, Type: ssmtypes.ParameterTypeString, DataType: aws.String("text")}
	if strings.HasPrefix(name, "/aws/") {
		p.ARN = aws.String("arn:aws:ssm:us-east-1::parameter" + name)
	} else {
		p.ARN = aws.String("arn:aws:ssm:us-east-1:" + DefaultAccountID + ":parameter/" + strings.TrimPrefix(name, "/"))
	}
	if modified != "" {
		ts, _ := time.Parse(time.RFC3339, modified)
		p.LastModifiedDate = &ts
	}
	return p
}

const (
	al2023Std133  = "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"
	al2Std132     = "/aws/service/eks/optimized-ami/1.32/amazon-linux-2/recommended/image_id"
	brX86133      = "/aws/service/bottlerocket/aws-k8s-1.33/x86_64/latest/image_id"
	win2022Core   = "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.33/image_id"
	fixtureCustom = "2026-01-15T12:00:00Z" // testNow, when PutParameter ran
)

func TestGetParameter(t *testing.T) {
	p := newSSMPair(t, newSSMFixture(t))
	tests := []struct {
		name    string
		in      *ssm.GetParameterInput
		want    *ssmtypes.Parameter
		wantErr *ssmErr
	}{
		// recommended/latest = newest available release; the pending
		// v20251203 build is not one yet.
		{"AL2023 recommended", &ssm.GetParameterInput{Name: aws.String(al2023Std133)},
			ptr(param(al2023Std133, "ami-a12023000000000a2", 2, "2025-11-05T10:00:00Z")), nil},
		{"AL2023 release", &ssm.GetParameterInput{Name: aws.String("/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.33-v20251002/image_id")},
			ptr(param("/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.33-v20251002/image_id", "ami-a12023000000000a1", 1, "2025-10-02T10:00:00Z")), nil},
		{"AL2 recommended", &ssm.GetParameterInput{Name: aws.String(al2Std132)},
			ptr(param(al2Std132, "ami-a10002000000000b1", 2, "2025-10-02T09:00:00Z")), nil},
		// 1.10.0 is newer than 1.9.0 although built earlier; 1.11.0 is disabled.
		{"Bottlerocket latest", &ssm.GetParameterInput{Name: aws.String(brX86133)},
			ptr(param(brX86133, "ami-b0771e000000000c2", 2, "2025-08-01T00:00:00Z")), nil},
		{"Windows latest", &ssm.GetParameterInput{Name: aws.String(win2022Core)},
			ptr(param(win2022Core, "ami-3191d0000000000d2", 2, "2025-11-12T00:00:00Z")), nil},
		{"spaces around the name are trimmed", &ssm.GetParameterInput{Name: aws.String("  " + win2022Core + " ")},
			ptr(param(win2022Core, "ami-3191d0000000000d2", 2, "2025-11-12T00:00:00Z")), nil},
		{"custom, overwritten once", &ssm.GetParameterInput{Name: aws.String("/team/base-ami")},
			ptr(param("/team/base-ami", "ami-5e1f00000000000e1", 2, fixtureCustom)), nil},
		{"custom without hierarchy", &ssm.GetParameterInput{Name: aws.String("flat-ami")},
			ptr(param("flat-ami", "ami-a10002000000000b1", 1, fixtureCustom)), nil},
		{"version selector", &ssm.GetParameterInput{Name: aws.String("/team/base-ami:2")},
			ptr(withSelector(param("/team/base-ami", "ami-5e1f00000000000e1", 2, fixtureCustom), ":2")), nil},
		// Not published: a wrong-architecture image, an image in the
		// caller's account, a disabled release, AL2 arm64 GPU.
		{"architecture contradicts name", &ssm.GetParameterInput{Name: aws.String("/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/standard/recommended/image_id")},
			nil, &ssmErr{Code: CodeParameterNotFound, Type: "*types.ParameterNotFound", Status: 400}},
		{"disabled release", &ssm.GetParameterInput{Name: aws.String("/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.11.0/image_id")},
			nil, &ssmErr{Code: CodeParameterNotFound, Type: "*types.ParameterNotFound", Status: 400}},
		{"old version", &ssm.GetParameterInput{Name: aws.String("/team/base-ami:1")},
			nil, &ssmErr{Code: CodeParameterVersionNotFound, Message: "Systems Manager could not find version 1 of /team/base-ami. Verify the version and try again.", Type: "*types.ParameterVersionNotFound", Status: 400}},
		{"empty name", &ssm.GetParameterInput{Name: aws.String("")},
			nil, &ssmErr{Code: CodeValidationException, Message: "1 validation error detected: Value '' at 'name' failed to satisfy constraint: Member must have length greater than or equal to 1", Type: "*types.ValidationException", Status: 400}},
		{"space inside", &ssm.GetParameterInput{Name: aws.String("/team/base ami")},
			nil, &ssmErr{Code: CodeValidationException, Message: "Parameter name: can't contain spaces: '/team/base ami'.", Type: "*types.ValidationException", Status: 400}},
		{"label", &ssm.GetParameterInput{Name: aws.String("/team/base-ami:prod")},
			nil, &ssmErr{Code: CodeUnsupported, Message: `Parameter labels ("prod") are valid in SSM but ec2fake does not model them; use a version number or none.`, Type: "*smithy.GenericAPIError", Status: 400}},
		{"nil name", &ssm.GetParameterInput{},
			nil, &ssmErr{Code: "<not an API error: operation error SSM: GetParameter, 1 validation error(s) found.\n- missing required field, GetParameterInput.Name.\n>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := both(t, p.b.GetParameter, p.client.GetParameter, tc.in)
			if diff := cmp.Diff(tc.wantErr, err); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, out.Parameter, ignoreUnexported); diff != "" {
				t.Errorf("parameter (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func withSelector(p ssmtypes.Parameter, s string) ssmtypes.Parameter {
	p.Selector = aws.String(s)
	return p
}

func TestGetParameters(t *testing.T) {
	p := newSSMPair(t, newSSMFixture(t))
	tests := []struct {
		name        string
		names       []string
		wantFound   []string // names, in answer order
		wantInvalid []string
		wantErr     *ssmErr
	}{
		{"found and missing, in request order, duplicates once", []string{win2022Core, "/nope", al2023Std133, win2022Core, "/team/base-ami:7"},
			[]string{win2022Core, al2023Std133}, []string{"/nope", "/team/base-ami:7"}, nil},
		{"none found is not an error", []string{"/nope"}, []string{}, []string{"/nope"}, nil},
		{"ten names", []string{"/a1", "/a2", "/a3", "/a4", "/a5", "/a6", "/a7", "/a8", "/a9", brX86133}, []string{brX86133},
			[]string{"/a1", "/a2", "/a3", "/a4", "/a5", "/a6", "/a7", "/a8", "/a9"}, nil},
		{"eleven names", []string{"/a1", "/a2", "/a3", "/a4", "/a5", "/a6", "/a7", "/a8", "/a9", "/a10", "/a11"}, nil, nil,
			&ssmErr{Code: CodeValidationException, Type: "*types.ValidationException", Status: 400,
				Message: "1 validation error detected: Value '[/a1, /a2, /a3, /a4, /a5, /a6, /a7, /a8, /a9, /a10, /a11]' at 'names' failed to satisfy constraint: Member must have length less than or equal to 10"}},
		{"empty list", []string{}, nil, nil,
			&ssmErr{Code: CodeValidationException, Type: "*types.ValidationException", Status: 400,
				Message: "1 validation error detected: Value '[]' at 'names' failed to satisfy constraint: Member must have length greater than or equal to 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := both(t, p.b.GetParameters, p.client.GetParameters, &ssm.GetParametersInput{Names: tc.names})
			if diff := cmp.Diff(tc.wantErr, err); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			found := []string{}
			for _, prm := range out.Parameters {
				found = append(found, *prm.Name)
			}
			if diff := cmp.Diff(tc.wantFound, found); diff != "" {
				t.Errorf("Parameters (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantInvalid, out.InvalidParameters); diff != "" {
				t.Errorf("InvalidParameters (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGetParametersByPath(t *testing.T) {
	p := newSSMPair(t, newSSMFixture(t))
	tests := []struct {
		name      string
		in        *ssm.GetParametersByPathInput
		wantNames []string // every page, in order
		wantErr   *ssmErr
	}{
		{"one level", &ssm.GetParametersByPathInput{Path: aws.String("/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended")},
			[]string{al2023Std133}, nil},
		{"nothing directly below", &ssm.GetParametersByPathInput{Path: aws.String("/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard")},
			[]string{}, nil},
		{"recursive, trailing slash", &ssm.GetParametersByPathInput{Path: aws.String("/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/"), Recursive: aws.Bool(true)},
			[]string{
				"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.33-v20251002/image_id",
				"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.33-v20251105/image_id",
				al2023Std133,
			}, nil},
		{"Bottlerocket 1.33, pages of 3", &ssm.GetParametersByPathInput{Path: aws.String("/aws/service/bottlerocket"), Recursive: aws.Bool(true), MaxResults: aws.Int32(3)},
			[]string{
				"/aws/service/bottlerocket/aws-k8s-1.33-fips/arm64/1.10.0/image_id",
				"/aws/service/bottlerocket/aws-k8s-1.33-fips/arm64/latest/image_id",
				"/aws/service/bottlerocket/aws-k8s-1.33-nvidia/x86_64/1.10.0/image_id",
				"/aws/service/bottlerocket/aws-k8s-1.33-nvidia/x86_64/latest/image_id",
				"/aws/service/bottlerocket/aws-k8s-1.33/arm64/1.10.0/image_id",
				"/aws/service/bottlerocket/aws-k8s-1.33/arm64/latest/image_id",
				"/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.10.0/image_id",
				"/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.9.0/image_id",
				brX86133,
			}, nil},
		{"the account's own", &ssm.GetParametersByPathInput{Path: aws.String("/team"), Recursive: aws.Bool(true)},
			[]string{"/team/base-ami", "/team/gpu/base-ami"}, nil},
		{"root lists only the account's own hierarchy", &ssm.GetParametersByPathInput{Path: aws.String("/"), Recursive: aws.Bool(true)},
			[]string{"/team/base-ami", "/team/gpu/base-ami"}, nil},
		{"not a path", &ssm.GetParametersByPathInput{Path: aws.String("team")}, nil,
			&ssmErr{Code: CodeValidationException, Type: "*types.ValidationException", Status: 400,
				Message: `The path "team" is not valid: a path begins with a forward slash (/), e.g. /aws/service/eks/optimized-ami.`}},
		{"empty level", &ssm.GetParametersByPathInput{Path: aws.String("/team//gpu")}, nil,
			&ssmErr{Code: CodeValidationException, Type: "*types.ValidationException", Status: 400,
				Message: `The path "/team//gpu" is not valid: each level holds letters, digits, "_", "." or "-".`}},
		{"MaxResults 11", &ssm.GetParametersByPathInput{Path: aws.String("/team"), MaxResults: aws.Int32(11)}, nil,
			&ssmErr{Code: CodeValidationException, Type: "*types.ValidationException", Status: 400,
				Message: "1 validation error detected: Value '11' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 10"}},
		{"MaxResults 0", &ssm.GetParametersByPathInput{Path: aws.String("/team"), MaxResults: aws.Int32(0)}, nil,
			&ssmErr{Code: CodeValidationException, Type: "*types.ValidationException", Status: 400,
				Message: "1 validation error detected: Value '0' at 'maxResults' failed to satisfy constraint: Member must have value greater than or equal to 1"}},
		{"made-up token", &ssm.GetParametersByPathInput{Path: aws.String("/team"), NextToken: aws.String("bm90IGEgdG9rZW4")}, nil,
			&ssmErr{Code: CodeInvalidNextToken, Type: "*types.InvalidNextToken", Status: 400, Message: invalidSSMTokenMessage}},
		{"filters", &ssm.GetParametersByPathInput{Path: aws.String("/team"), ParameterFilters: []ssmtypes.ParameterStringFilter{{Key: aws.String("Type"), Values: []string{"String"}}}}, nil,
			&ssmErr{Code: CodeUnsupported, Type: "*smithy.GenericAPIError", Status: 400, Message: "ParameterFilters are valid in SSM but ec2fake does not model them; filter the answer yourself."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := cloneInput(tc.in)
			names := []string{}
			for page := 0; ; page++ {
				out, err := both(t, p.b.GetParametersByPath, p.client.GetParametersByPath, in)
				if diff := cmp.Diff(tc.wantErr, err); diff != "" {
					t.Fatalf("page %d: error (-want +got):\n%s", page, diff)
				}
				if err != nil {
					return
				}
				if limit := int(aws.ToInt32(in.MaxResults)); limit > 0 && len(out.Parameters) > limit {
					t.Fatalf("page %d has %d parameters; MaxResults is %d", page, len(out.Parameters), limit)
				}
				for _, prm := range out.Parameters {
					names = append(names, *prm.Name)
				}
				if out.NextToken == nil {
					break
				}
				in.NextToken = out.NextToken
			}
			if diff := cmp.Diff(tc.wantNames, names); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTokenOfAnotherPathIsRefused(t *testing.T) {
	b := newSSMFixture(t)
	ctx := context.Background()
	out, err := b.GetParametersByPath(ctx, &ssm.GetParametersByPathInput{Path: aws.String("/aws/service/bottlerocket"), Recursive: aws.Bool(true), MaxResults: aws.Int32(2)})
	if err != nil || out.NextToken == nil {
		t.Fatalf("first page: %v, token %v", err, out)
	}
	for _, in := range []*ssm.GetParametersByPathInput{
		{Path: aws.String("/aws/service/eks"), Recursive: aws.Bool(true), NextToken: out.NextToken},
		{Path: aws.String("/aws/service/bottlerocket"), NextToken: out.NextToken}, // not recursive
	} {
		_, err := b.GetParametersByPath(ctx, in)
		if diff := cmp.Diff(&ssmErr{Code: CodeInvalidNextToken, Type: "*types.InvalidNextToken", Status: 400, Message: invalidSSMTokenMessage}, describeSSMErr(err)); diff != "" {
			t.Errorf("token reused on %s recursive=%v (-want +got):\n%s", *in.Path, aws.ToBool(in.Recursive), diff)
		}
	}
}

// Parameters follow the images: a new release moves recommended, a
// deleted one drops its parameter.
func TestParametersFollowImages(t *testing.T) {
	b := newSSMFixture(t)
	ctx := context.Background()
	value := func() string {
		out, err := b.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(al2023Std133)})
		if err != nil {
			return err.Error()
		}
		return *out.Parameter.Value
	}
	steps := []struct {
		name   string
		change func() error
		want   string
	}{
		{"as loaded", func() error { return nil }, "ami-a12023000000000a2"},
		{"pending build finishes", func() error { return b.SetImageState("ami-a12023000000000a3", "available") }, "ami-a12023000000000a3"},
		{"newest deleted", func() error { return b.DeleteImage("ami-a12023000000000a3") }, "ami-a12023000000000a2"},
		{"disabled", func() error { return b.SetImageState("ami-a12023000000000a2", "disabled") }, "ami-a12023000000000a1"},
	}
	for _, s := range steps {
		if err := s.change(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := value(); got != s.want {
			t.Errorf("%s: recommended = %s, want %s", s.name, got, s.want)
		}
	}
}

func TestPutParameterRejects(t *testing.T) {
	tests := []struct{ name, param, value, want string }{
		{"reserved aws", "/aws/service/x", "ami-12345678", `ec2fake: PutParameter("/aws/service/x"): names beginning with "aws" or "ssm" are reserved; public parameters are derived from the Amazon images loaded`},
		{"reserved ssm any case", "SSM-thing", "ami-12345678", `ec2fake: PutParameter("SSM-thing"): names beginning with "aws" or "ssm" are reserved; public parameters are derived from the Amazon images loaded`},
		{"slash without leading slash", "team/ami", "ami-12345678", `ec2fake: PutParameter("team/ami"): name may hold only letters, digits, "._-" and, after a leading "/", "/" between levels`},
		{"space", "/team/my ami", "ami-12345678", `ec2fake: PutParameter("/team/my ami"): name may hold only letters, digits, "._-" and, after a leading "/", "/" between levels`},
		{"empty", "", "ami-12345678", `ec2fake: PutParameter(""): name must be 1-1011 characters`},
		{"too deep", strings.Repeat("/a", 16), "ami-12345678", `ec2fake: PutParameter("` + strings.Repeat("/a", 16) + `"): name has more than 15 levels`},
		{"value not an AMI", "/team/ami", "ubuntu", `ec2fake: PutParameter("/team/ami"): value "ubuntu" is not an AMI ID; use "ami-" followed by 8 or 17 lowercase hex digits`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := New(Options{})
			err := b.PutParameter(tc.param, tc.value)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("PutParameter(%q, %q) = %v; want %s", tc.param, tc.value, err, tc.want)
			}
			if _, gerr := b.GetParameter(context.Background(), &ssm.GetParameterInput{Name: aws.String(tc.param)}); describeSSMErr(gerr) == nil {
				t.Errorf("the rejected parameter was stored")
			}
		})
	}
}

// Every Amazon image of the embedded catalog that AWS would publish
// parameters for is reachable through them: its release parameter names
// it, or (Windows) its series parameter names its newest release.
func TestDefaultCatalogParameters(t *testing.T) {
	b := NewWithCatalog(Options{Now: func() time.Time { return testNow }})
	images, _ := DefaultCatalog()
	ctx := context.Background()
	published := 0
	for _, img := range images {
		if aws.ToString(img.ImageOwnerAlias) != "amazon" || !aws.ToBool(img.Public) || img.State != "available" {
			continue
		}
		p, ok := publishesParameters(&img)
		if !ok {
			t.Errorf("Amazon image %s (%s) matches no public parameter family", *img.ImageId, aws.ToString(img.Name))
			continue
		}
		published++
		name := p.release
		if name == "" {
			name = p.series
		}
		out, err := b.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(name)})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if p.release != "" && *out.Parameter.Value != *img.ImageId {
			t.Errorf("%s = %s; want %s", name, *out.Parameter.Value, *img.ImageId)
		}
	}
	if published == 0 {
		t.Fatal("the catalog has no Amazon image with public parameters")
	}
	all := map[string]bool{}
	in := &ssm.GetParametersByPathInput{Path: aws.String("/aws/service"), Recursive: aws.Bool(true)}
	pager := ssm.NewGetParametersByPathPaginator(b, in, func(o *ssm.GetParametersByPathPaginatorOptions) { o.StopOnDuplicateToken = true })
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, prm := range page.Parameters {
			if all[*prm.Name] {
				t.Fatalf("%s listed twice", *prm.Name)
			}
			all[*prm.Name] = true
		}
	}
	if len(all) < published {
		t.Errorf("%d parameters listed under /aws/service for %d published images", len(all), published)
	}
	if !slices.ContainsFunc(images, func(img ec2types.Image) bool { return aws.ToString(img.Name) != "" }) {
		t.Fatal("catalog has no named images")
	}
}

// Faults and the call log cover SSM: the SDK's retryer retries SSM's
// ThrottlingException (HTTP 400), so two throttles then an answer succeed.
func TestSSMFaultsRetriedAndLogged(t *testing.T) {
	p := newSSMPair(t, newSSMFixture(t))
	if err := p.b.InjectFault(Fault{Operation: OpGetParameter, Code: "ThrottlingException", Message: "Rate exceeded", Times: 2}); err != nil {
		t.Fatal(err)
	}
	out, err := p.client.GetParameter(context.Background(), &ssm.GetParameterInput{Name: aws.String(win2022Core)})
	if err != nil || *out.Parameter.Value != "ami-3191d0000000000d2" {
		t.Fatalf("GetParameter after two throttles: %v", err)
	}
	var got []string
	for _, c := range p.b.Calls() {
		got = append(got, c.Operation+" "+aws.ToString(c.Input.(*ssm.GetParameterInput).Name)+" "+fmtErrCode(c.Err))
	}
	want := []string{
		"GetParameter " + win2022Core + " ThrottlingException/400",
		"GetParameter " + win2022Core + " ThrottlingException/400",
		"GetParameter " + win2022Core + " ok",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("call log (-want +got):\n%s", diff)
	}
}

func fmtErrCode(err error) string {
	if err == nil {
		return "ok"
	}
	e := describeSSMErr(err)
	return e.Code + "/" + fmt.Sprint(e.Status)
}
