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
	const (
		eks = "/aws/service/eks/optimized-ami/"
		br  = "/aws/service/bottlerocket/"
		win = "/aws/service/ami-windows-latest/"
	)
	// al2Like lists what an AL2 or AL2023 image feeds: its directory's
	// recommended parameters, the JSON parent, and its release's image_id.
	al2Like := func(dir, name string) []string {
		return []string{dir + "recommended", dir + "recommended/image_id", dir + "recommended/image_name", dir + "recommended/release_version", dir + name + "/image_id"}
	}
	// bottlerocket lists image_id and image_version of latest, X.Y.Z and
	// X.Y.Z-BUILD.
	bottlerocket := func(dir, version, build string) []string {
		var out []string
		for _, d := range []string{"latest", version, version + "-" + build} {
			out = append(out, dir+d+"/image_id", dir+d+"/image_version")
		}
		return out
	}
	tests := []struct {
		name    string
		arch    ec2types.ArchitectureValues
		version []int
		want    []string // nil: no parameters
	}{
		{"amazon-eks-node-al2023-x86_64-standard-1.33-v20251105", "x86_64", []int{20251105},
			al2Like(eks+"1.33/amazon-linux-2023/x86_64/standard/", "amazon-eks-node-al2023-x86_64-standard-1.33-v20251105")},
		{"amazon-eks-node-al2023-arm64-nvidia-1.34-v20251105", "arm64", []int{20251105},
			al2Like(eks+"1.34/amazon-linux-2023/arm64/nvidia/", "amazon-eks-node-al2023-arm64-nvidia-1.34-v20251105")},
		{"amazon-eks-node-al2023-x86_64-neuron-1.33-v20251105", "x86_64", []int{20251105},
			al2Like(eks+"1.33/amazon-linux-2023/x86_64/neuron/", "amazon-eks-node-al2023-x86_64-neuron-1.33-v20251105")},
		{"amazon-eks-node-1.32-v20251002", "x86_64", []int{20251002}, al2Like(eks+"1.32/amazon-linux-2/", "amazon-eks-node-1.32-v20251002")},
		{"amazon-eks-arm64-node-1.32-v20251002", "arm64", []int{20251002}, al2Like(eks+"1.32/amazon-linux-2-arm64/", "amazon-eks-arm64-node-1.32-v20251002")},
		{"amazon-eks-gpu-node-1.32-v20251002", "x86_64", []int{20251002}, al2Like(eks+"1.32/amazon-linux-2-gpu/", "amazon-eks-gpu-node-1.32-v20251002")},
		{"bottlerocket-aws-k8s-1.33-x86_64-v1.10.0-bbbbbbbb", "x86_64", []int{1, 10, 0}, bottlerocket(br+"aws-k8s-1.33/x86_64/", "1.10.0", "bbbbbbbb")},
		{"bottlerocket-aws-k8s-1.33-nvidia-aarch64-v1.49.0-713f44ce", "arm64", []int{1, 49, 0}, bottlerocket(br+"aws-k8s-1.33-nvidia/arm64/", "1.49.0", "713f44ce")},
		{"bottlerocket-aws-k8s-1.33-fips-x86_64-v1.49.0-713f44ce", "x86_64", []int{1, 49, 0}, bottlerocket(br+"aws-k8s-1.33-fips/x86_64/", "1.49.0", "713f44ce")},
		{"Windows_Server-2019-English-Core-EKS_Optimized-1.31-2025.04.14", "x86_64", []int{2025, 4, 14},
			[]string{win + "Windows_Server-2019-English-Core-EKS_Optimized-1.31/image_id"}},
		{"Windows_Server-2025-English-Core-EKS_Optimized-1.35-2026-01-22", "x86_64", []int{2026, 1, 22},
			[]string{win + "Windows_Server-2025-English-Core-EKS_Optimized-1.35/image_id"}},
		// No parameters: not an EKS AMI, or a shape AWS does not publish.
		{"amazon-eks-arm64-gpu-node-1.32-v20251002", "", nil, nil}, // there is no AL2 arm64 GPU AMI
		{"amazon-eks-node-al2023-x86_64-gpu-1.33-v20251105", "", nil, nil},
		{"amazon-eks-node-al2023-x86_64-nvidia-560-1.31-v20241016", "", nil, nil}, // no parameter path recorded for it
		{"amazon-eks-node-al2023-x86_64-standard-1.33-20251105", "", nil, nil},
		{"bottlerocket-aws-k8s-1.33-x86_64-v1.10.0", "", nil, nil},
		{"bottlerocket-aws-k8s-1.33-metal-x86_64-v1.10.0-bbbbbbbb", "", nil, nil},
		{"bottlerocket-aws-ecs-2-x86_64-v1.10.0-bbbbbbbb", "", nil, nil},
		{"Windows_Server-2022-English-Core-Base-2025.11.12", "", nil, nil},
		{"team-base-al2023-20250301", "", nil, nil},
		{"", "", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := parseAMIParameters(tc.name)
			var got []string
			if ok {
				for _, n := range p.publishedNames("9.99.9-20250101") {
					got = append(got, n.name)
				}
				slices.Sort(got)
				if p.arch != tc.arch || !slices.Equal(p.version, tc.version) {
					t.Errorf("arch %s, version %v; want %s, %v", p.arch, p.version, tc.arch, tc.version)
				}
			}
			want := slices.Sorted(slices.Values(tc.want))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("parameters of %q (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}

// release_version comes from the description's Kubernetes version and the
// name's day (amazon-eks-ami templates/al2023/variables-default.json at
// 81fec2e8: ami_description + ", (k8s: VERSION, containerd: VERSION)").
func TestReleaseVersion(t *testing.T) {
	p, _ := parseAMIParameters("amazon-eks-node-al2023-x86_64-standard-1.32-v20250715")
	for _, tc := range []struct{ description, want string }{
		{"EKS-optimized Kubernetes node based on Amazon Linux 2023, (k8s: 1.32.3, containerd: 2.*)", "1.32.3-20250715"},
		{"EKS-optimized Kubernetes node based on Amazon Linux 2023, (k8s: 1.32.3)", "1.32.3-20250715"},
		{"EKS-optimized Kubernetes node based on Amazon Linux 2023 (k8s: 1.32, x86_64, standard)", ""}, // no patch version
		{"(k8s: 1.31.3)", ""}, // another minor version than the name's
		{"", ""},
	} {
		if got := p.releaseVersion(&tc.description); got != tc.want {
			t.Errorf("releaseVersion(%q) = %q; want %q", tc.description, got, tc.want)
		}
	}
	if got := p.releaseVersion(nil); got != "" {
		t.Errorf("releaseVersion(nil) = %q", got)
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
	al2023Dir133  = "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/"
	al2023Std133  = al2023Dir133 + "recommended/image_id"
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
			nil, notFound("/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/standard/recommended/image_id")},
		{"disabled release", &ssm.GetParameterInput{Name: aws.String("/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.11.0/image_id")},
			nil, notFound("/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.11.0/image_id")},
		{"Windows publishes no per-release parameter", &ssm.GetParameterInput{Name: aws.String("/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.33/image_name")},
			nil, notFound("/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.33/image_name")},
		{"old version", &ssm.GetParameterInput{Name: aws.String("/team/base-ami:1")},
			ptr(withSelector(param("/team/base-ami", "ami-5e1f00000000000e1", 1, fixtureCustom), ":1")), nil},
		{"version not yet written", &ssm.GetParameterInput{Name: aws.String("/team/base-ami:3")},
			nil, &ssmErr{Code: CodeParameterVersionNotFound, Message: "Systems Manager could not find version 3 of /team/base-ami. Verify the version and try again.", Type: "*types.ParameterVersionNotFound", Status: 400}},
		// A public parameter's versions are the releases it has named.
		{"public, first version", &ssm.GetParameterInput{Name: aws.String(al2023Std133 + ":1")},
			ptr(withSelector(param(al2023Std133, "ami-a12023000000000a1", 1, "2025-10-02T10:00:00Z"), ":1")), nil},
		{"public, version 3 of 2", &ssm.GetParameterInput{Name: aws.String(al2023Std133 + ":3")},
			nil, &ssmErr{Code: CodeParameterVersionNotFound, Message: "Systems Manager could not find version 3 of " + al2023Std133 + ". Verify the version and try again.", Type: "*types.ParameterVersionNotFound", Status: 400}},
		{"recommended image name", &ssm.GetParameterInput{Name: aws.String(al2023Dir133 + "recommended/image_name")},
			ptr(param(al2023Dir133+"recommended/image_name", "amazon-eks-node-al2023-x86_64-standard-1.33-v20251105", 2, "2025-11-05T10:00:00Z")), nil},
		{"recommended release version", &ssm.GetParameterInput{Name: aws.String(al2023Dir133 + "recommended/release_version")},
			ptr(param(al2023Dir133+"recommended/release_version", "1.33.5-20251105", 2, "2025-11-05T10:00:00Z")), nil},
		{"recommended, the JSON parent", &ssm.GetParameterInput{Name: aws.String(al2023Dir133 + "recommended")},
			ptr(param(al2023Dir133+"recommended", `{"schema_version":"2","image_id":"ami-a12023000000000a2","image_name":"amazon-eks-node-al2023-x86_64-standard-1.33-v20251105","release_version":"1.33.5-20251105"}`, 2, "2025-11-05T10:00:00Z")), nil},
		{"Bottlerocket image version", &ssm.GetParameterInput{Name: aws.String("/aws/service/bottlerocket/aws-k8s-1.33/x86_64/latest/image_version")},
			ptr(param("/aws/service/bottlerocket/aws-k8s-1.33/x86_64/latest/image_version", "1.10.0-bbbbbbbb", 2, "2025-08-01T00:00:00Z")), nil},
		{"Bottlerocket version with its build", &ssm.GetParameterInput{Name: aws.String("/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.9.0-aaaaaaaa/image_id")},
			ptr(param("/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.9.0-aaaaaaaa/image_id", "ami-b0771e000000000c1", 1, "2025-09-01T00:00:00Z")), nil},
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

// notFound is SSM's ParameterNotFound for name. SSM's GetParameter was seen
// answering with an empty message in 2020 (awslabs/amazon-eks-ami issue
// #531: "An error occurred (ParameterNotFound) when calling the
// GetParameter operation: ") and with "Parameter NAME not found." since
// (the text getmoto/moto moto/ssm/responses.py get_parameter uses, at
// 0af643a5); the fake gives the latter.
func notFound(name string) *ssmErr {
	return &ssmErr{Code: CodeParameterNotFound, Message: "Parameter " + name + " not found.", Type: "*types.ParameterNotFound", Status: 400}
}

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
		{"one level", &ssm.GetParametersByPathInput{Path: aws.String(al2023Dir133 + "recommended")},
			[]string{al2023Std133, al2023Dir133 + "recommended/image_name", al2023Dir133 + "recommended/release_version"}, nil},
		{"the JSON parent is one level down", &ssm.GetParametersByPathInput{Path: aws.String(al2023Dir133)},
			[]string{al2023Dir133 + "recommended"}, nil},
		{"recursive, trailing slash", &ssm.GetParametersByPathInput{Path: aws.String(al2023Dir133), Recursive: aws.Bool(true)},
			[]string{
				al2023Dir133 + "amazon-eks-node-al2023-x86_64-standard-1.33-v20251002/image_id",
				al2023Dir133 + "amazon-eks-node-al2023-x86_64-standard-1.33-v20251105/image_id",
				al2023Dir133 + "recommended",
				al2023Std133, al2023Dir133 + "recommended/image_name", al2023Dir133 + "recommended/release_version",
			}, nil},
		{"Bottlerocket 1.33 arm64, pages of 3", &ssm.GetParametersByPathInput{Path: aws.String("/aws/service/bottlerocket/aws-k8s-1.33/arm64"), Recursive: aws.Bool(true), MaxResults: aws.Int32(3)},
			[]string{
				"/aws/service/bottlerocket/aws-k8s-1.33/arm64/1.10.0-bbbbbbbb/image_id",
				"/aws/service/bottlerocket/aws-k8s-1.33/arm64/1.10.0-bbbbbbbb/image_version",
				"/aws/service/bottlerocket/aws-k8s-1.33/arm64/1.10.0/image_id",
				"/aws/service/bottlerocket/aws-k8s-1.33/arm64/1.10.0/image_version",
				"/aws/service/bottlerocket/aws-k8s-1.33/arm64/latest/image_id",
				"/aws/service/bottlerocket/aws-k8s-1.33/arm64/latest/image_version",
			}, nil},
		{"Bottlerocket variants", &ssm.GetParametersByPathInput{Path: aws.String("/aws/service/bottlerocket")},
			[]string{}, nil},
		{"the account's own", &ssm.GetParametersByPathInput{Path: aws.String("/team"), Recursive: aws.Bool(true)},
			[]string{"/team/base-ami", "/team/gpu/base-ami"}, nil},
		// "/" lists the account's parameters, those without a slash too
		// (issue #30: boto3 and moto do).
		{"root, recursive: the account's own", &ssm.GetParametersByPathInput{Path: aws.String("/"), Recursive: aws.Bool(true)},
			[]string{"/team/base-ami", "/team/gpu/base-ami", "flat-ami"}, nil},
		{"root, one level: flat names", &ssm.GetParametersByPathInput{Path: aws.String("/")},
			[]string{"flat-ami"}, nil},
		{"not a path", &ssm.GetParametersByPathInput{Path: aws.String("team")}, nil,
			&ssmErr{Code: CodeValidationException, Type: "*types.ValidationException", Status: 400, Message: msgPathRequirements}},
		{"empty level", &ssm.GetParametersByPathInput{Path: aws.String("/team//gpu")}, nil,
			&ssmErr{Code: CodeValidationException, Type: "*types.ValidationException", Status: 400, Message: msgPathRequirements}},
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
		{"value not an AMI", "/team/ami", "ubuntu", `ec2fake: PutParameter("/team/ami"): value "ubuntu" is not an AMI ID; use "ami-" followed by letters, digits or hyphens, such as "ami-0123456789abcdef0" or "ami-id-amd64"`},
		{"value with a wildcard", "/team/ami", "ami-*", `ec2fake: PutParameter("/team/ami"): value "ami-*" is not an AMI ID; use "ami-" followed by letters, digits or hyphens, such as "ami-0123456789abcdef0" or "ami-id-amd64"`},
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

// Every Amazon image of the embedded catalogs that AWS would publish
// parameters for is reachable through them: each of its release
// directories' image_id names it, or (Windows) its series parameter names
// its newest release. AL2023's nvidia-560 images (2024) have no recorded
// parameter path and publish none.
func TestCatalogParameters(t *testing.T) {
	for _, tc := range []struct {
		name    string
		catalog func() ([]ec2types.Image, []ec2types.InstanceTypeInfo)
	}{{"default", DefaultCatalog}, {"full", FullCatalog}} {
		t.Run(tc.name, func(t *testing.T) {
			images, types := tc.catalog()
			b := New(Options{Now: func() time.Time { return testNow }})
			if err := b.Load(images, types); err != nil {
				t.Fatal(err)
			}
			published := checkImageParameters(t, b, images)
			all := map[string]bool{}
			in := &ssm.GetParametersByPathInput{Path: aws.String("/aws/service"), Recursive: aws.Bool(true)}
			pager := ssm.NewGetParametersByPathPaginator(b, in, func(o *ssm.GetParametersByPathPaginatorOptions) { o.StopOnDuplicateToken = true })
			for pager.HasMorePages() {
				page, err := pager.NextPage(context.Background())
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
		})
	}
}

// checkImageParameters checks that each Amazon image's own parameters name
// it, and returns how many images publish parameters.
func checkImageParameters(t *testing.T, b *Backend, images []ec2types.Image) int {
	t.Helper()
	ctx := context.Background()
	published := 0
	for _, img := range images {
		if aws.ToString(img.ImageOwnerAlias) != "amazon" || !aws.ToBool(img.Public) || img.State != "available" {
			continue
		}
		p, ok := publishesParameters(&img)
		if !ok {
			if !strings.Contains(aws.ToString(img.Name), "-nvidia-560-") {
				t.Errorf("Amazon image %s (%s) matches no public parameter family", *img.ImageId, aws.ToString(img.Name))
			}
			continue
		}
		published++
		names := []string{p.series + "image_id"}
		if len(p.dirs) > 0 {
			names = names[:0]
			for _, d := range p.dirs {
				names = append(names, d+"image_id")
			}
		}
		for _, name := range names {
			out, err := b.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(name)})
			switch {
			case err != nil:
				t.Errorf("%s: %v", name, err)
			case len(p.dirs) > 0 && *out.Parameter.Value != *img.ImageId:
				t.Errorf("%s = %s; want %s", name, *out.Parameter.Value, *img.ImageId)
			}
		}
	}
	if published == 0 {
		t.Fatal("the catalog has no Amazon image with public parameters")
	}
	return published
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
