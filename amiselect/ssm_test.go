package amiselect_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/ec2fake"
)

// parameters is a small in-test parameter store with SSM's two read
// calls: GetParameter fails with ParameterNotFound for an unknown name,
// GetParameters lists unknown names in InvalidParameters, as the SSM API
// reference describes. fault, when set, fails every call.
type parameters struct {
	values map[string]string
	fault  error
	calls  []string
}

func (p *parameters) GetParameter(_ context.Context, in *ssm.GetParameterInput, _ ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	name := aws.ToString(in.Name)
	p.calls = append(p.calls, "GetParameter "+name)
	if p.fault != nil {
		return nil, p.fault
	}
	v, ok := p.values[name]
	if !ok {
		return nil, &ssmtypes.ParameterNotFound{Message: aws.String("parameter " + name + " not found")}
	}
	return &ssm.GetParameterOutput{Parameter: &ssmtypes.Parameter{Name: aws.String(name), Value: aws.String(v)}}, nil
}

func (p *parameters) GetParameters(_ context.Context, in *ssm.GetParametersInput, _ ...func(*ssm.Options)) (*ssm.GetParametersOutput, error) {
	p.calls = append(p.calls, "GetParameters "+strings.Join(in.Names, " "))
	if p.fault != nil {
		return nil, p.fault
	}
	out := &ssm.GetParametersOutput{}
	for _, name := range in.Names {
		if v, ok := p.values[name]; ok {
			out.Parameters = append(out.Parameters, ssmtypes.Parameter{Name: aws.String(name), Value: aws.String(v)})
		} else {
			out.InvalidParameters = append(out.InvalidParameters, name)
		}
	}
	return out, nil
}

// al2023Release returns the five AL2023 images of one release for
// Kubernetes 1.32, with ids "ami-0<tag>000001" to "ami-0<tag>000005".
func al2023Release(tag, release, created string) []ec2types.Image {
	var out []ec2types.Image
	for i, av := range [][2]string{{"x86_64", "standard"}, {"x86_64", "nvidia"}, {"x86_64", "neuron"}, {"arm64", "standard"}, {"arm64", "nvidia"}} {
		out = append(out, ec2types.Image{
			ImageId:         aws.String("ami-0" + tag + "00000" + string(rune('1'+i))),
			Name:            aws.String("amazon-eks-node-al2023-" + av[0] + "-" + av[1] + "-1.32-" + release),
			Architecture:    ec2types.ArchitectureValues(av[0]),
			State:           ec2types.ImageStateAvailable,
			CreationDate:    aws.String(created),
			OwnerId:         aws.String("602401143452"),
			ImageOwnerAlias: aws.String("amazon"),
			Public:          aws.Bool(true),
		})
	}
	return out
}

// ssmWorld is a fake EC2 holding two AL2023 releases (v20250317 as
// ami-0a000001..5, v20250403 as ami-0b000001..5) and a team image, reached in
// process and over HTTP, and a parameter store whose "recommended"
// parameters name the older release, as AWS does while it withholds a
// new release.
func ssmWorld(t *testing.T) (map[string]ec2.DescribeImagesAPIClient, *parameters) {
	t.Helper()
	b := ec2fake.New(ec2fake.Options{Now: func() time.Time { return july }})
	images := append(al2023Release("a", "v20250317", "2025-03-17T16:40:40.000Z"), al2023Release("b", "v20250403", "2025-04-03T16:40:40.000Z")...)
	images = append(images, ec2types.Image{
		ImageId: aws.String("ami-0eea0001"), Name: aws.String("team-base-2025"), Architecture: ec2types.ArchitectureValuesX8664,
		State: ec2types.ImageStateAvailable, CreationDate: aws.String("2025-05-01T00:00:00Z"), // owned by the caller
	})
	for _, img := range images {
		if err := b.PutImage(img); err != nil {
			t.Fatal(err)
		}
	}
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	const base = "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/"
	store := &parameters{values: map[string]string{
		"/team/ami":        "ami-0eea0001",
		"/team/not-an-ami": "resolve:ssm:/elsewhere",
		base + "x86_64/standard/recommended/image_id": "ami-0a000001",
		base + "x86_64/nvidia/recommended/image_id":   "ami-0a000002",
		base + "x86_64/neuron/recommended/image_id":   "ami-0a000003",
		base + "arm64/standard/recommended/image_id":  "ami-0a000004",
		// arm64/nvidia has no parameter: AWS publishes none for the release.
		base + "x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.32-v20250403/image_id": "ami-0b000001",
	}}
	return map[string]ec2.DescribeImagesAPIClient{"in-process": b, "http": ec2fake.NewClient(srv.URL)}, store
}

func ids(sel amiselect.Selection) []string {
	var out []string
	for _, a := range sel.AMIs {
		out = append(out, a.ID+" "+a.Arch+" "+a.Variant.String())
	}
	return out
}

func TestResolveThroughSSM(t *testing.T) {
	tests := []struct {
		name    string
		terms   []amiselect.Term
		aliases amiselect.AliasSource
		want    []string
		calls   []string
	}{
		{
			name:  "an ssmParameter term joins the id terms",
			terms: []amiselect.Term{{Name: "amazon-eks-node-al2023-arm64-standard-1.32-*"}, {SSMParameter: "/team/ami"}},
			want:  []string{"ami-0eea0001 amd64 unspecified", "ami-0b000004 arm64 standard"},
			calls: []string{"GetParameter /team/ami"},
		},
		{
			name:  "by name, latest is the newest release and SSM is not read",
			terms: []amiselect.Term{{Alias: "al2023@latest"}},
			want:  []string{"ami-0b000001 amd64 standard", "ami-0b000002 amd64 nvidia", "ami-0b000003 amd64 neuron", "ami-0b000004 arm64 standard", "ami-0b000005 arm64 nvidia"},
		},
		{
			name:    "through SSM, latest is what SSM recommends, and a variant without a parameter is absent",
			terms:   []amiselect.Term{{Alias: "al2023@latest"}},
			aliases: amiselect.AliasBySSM,
			want:    []string{"ami-0a000001 amd64 standard", "ami-0a000002 amd64 nvidia", "ami-0a000003 amd64 neuron", "ami-0a000004 arm64 standard"},
			calls: []string{"GetParameters " +
				"/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id " +
				"/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/nvidia/recommended/image_id " +
				"/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/neuron/recommended/image_id " +
				"/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/arm64/standard/recommended/image_id " +
				"/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/arm64/nvidia/recommended/image_id"},
		},
		{
			name:    "through SSM, a pinned release reads the release's own parameters",
			terms:   []amiselect.Term{{Alias: "al2023@v20250403"}},
			aliases: amiselect.AliasBySSM,
			want:    []string{"ami-0b000001 amd64 standard"},
		},
	}
	for _, tt := range tests {
		for _, via := range []string{"in-process", "http"} {
			t.Run(tt.name+"/"+via, func(t *testing.T) {
				cs, store := ssmWorld(t)
				opts := options("1.32")
				opts.SSM, opts.Aliases = store, tt.aliases
				sel, err := amiselect.Resolve(context.Background(), cs[via], tt.terms, opts)
				if err != nil {
					t.Fatalf("Resolve: %v", err)
				}
				if diff := cmp.Diff(tt.want, ids(sel)); diff != "" {
					t.Errorf("AMIs mismatch (-want +got):\n%s", diff)
				}
				if tt.calls != nil {
					if diff := cmp.Diff(tt.calls, store.calls); diff != "" {
						t.Errorf("SSM calls mismatch (-want +got):\n%s", diff)
					}
				}
				if tt.aliases == amiselect.AliasByName && !slices.ContainsFunc(tt.terms, func(t amiselect.Term) bool { return t.SSMParameter != "" }) && len(store.calls) > 0 {
					t.Errorf("SSM was read: %v", store.calls)
				}
			})
		}
	}
}

// TestResolveThroughSSMFails: any SSM failure fails the whole resolve,
// with an error naming the term and the fix, and nothing selected.
func TestResolveThroughSSMFails(t *testing.T) {
	throttled := &smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate exceeded"}
	tests := []struct {
		name    string
		terms   []amiselect.Term
		aliases amiselect.AliasSource
		noSSM   bool
		fault   error
		want    string
		check   func(error) bool
	}{
		{
			name:  "a missing parameter",
			terms: []amiselect.Term{{Name: "team-*"}, {SSMParameter: "/team/typo"}},
			want:  `amiselect: term 1: SSM parameter "/team/typo" does not exist; check its name and the region, remove the term, or set Options.SkipMissingParameters to let it match nothing, as Karpenter does`,
			check: func(err error) bool { var nf *ssmtypes.ParameterNotFound; return errors.As(err, &nf) },
		},
		{
			name:  "a parameter that holds no AMI id",
			terms: []amiselect.Term{{SSMParameter: "/team/not-an-ami"}},
			want:  `amiselect: term 0: SSM parameter "/team/not-an-ami" holds "resolve:ssm:/elsewhere", not an AMI id`,
		},
		{
			name:  "a throttled read",
			terms: []amiselect.Term{{SSMParameter: "/team/ami"}},
			fault: throttled,
			want:  `amiselect: term 0: reading SSM parameter "/team/ami": api error ThrottlingException: Rate exceeded`,
			check: func(err error) bool {
				var api smithy.APIError
				return errors.As(err, &api) && api.ErrorCode() == "ThrottlingException"
			},
		},
		{
			name:    "a throttled alias",
			terms:   []amiselect.Term{{Alias: "al2023@latest"}},
			aliases: amiselect.AliasBySSM,
			fault:   throttled,
			want:    `amiselect: term 0 (alias "al2023@latest" through SSM): reading 5 public parameters: api error ThrottlingException`,
			check:   func(err error) bool { var api smithy.APIError; return errors.As(err, &api) },
		},
		{
			name:    "an alias release SSM does not have",
			terms:   []amiselect.Term{{Alias: "al2023@v20990101"}},
			aliases: amiselect.AliasBySSM,
			want:    `amiselect: term 0 (alias "al2023@v20990101" through SSM): SSM has none of its 5 public parameters (such as "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.32-v20990101/image_id"); check that the release exists for Kubernetes 1.32, or resolve the alias by name`,
		},
		{
			name:  "no SSM client",
			terms: []amiselect.Term{{SSMParameter: "/team/ami"}},
			noSSM: true,
			want:  "amiselect: the terms read SSM parameters but Options.SSM is nil",
		},
		{
			name:    "no SSM client for an alias through SSM",
			terms:   []amiselect.Term{{Alias: "bottlerocket@latest"}},
			aliases: amiselect.AliasBySSM,
			noSSM:   true,
			want:    "amiselect: the terms read SSM parameters but Options.SSM is nil",
		},
		{
			name:  "an ssmParameter term with a name",
			terms: []amiselect.Term{{SSMParameter: "/team/ami", Name: "team-*"}},
			want:  `amiselect: term 0: ssmParameter "/team/ami" cannot be combined with id, name, owner or tags`,
		},
	}
	cs, _ := ssmWorld(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, store := ssmWorld(t)
			store.fault = tt.fault
			opts := options("1.32")
			opts.Aliases = tt.aliases
			if !tt.noSSM {
				opts.SSM = store
			}
			sel, err := amiselect.Resolve(context.Background(), cs["http"], tt.terms, opts)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant prefix %s", err, tt.want)
			}
			if tt.check != nil && !tt.check(err) {
				t.Errorf("err %v does not wrap the SDK's error", err)
			}
			if sel.AMIs != nil || sel.Rejected != nil || sel.Superseded() != nil {
				t.Errorf("a failed resolve returned %+v", sel)
			}
		})
	}
}

// TestQueriesRefusesSSMParameter: Queries cannot know the image an
// ssmParameter names, so it says to use Resolve.
func TestQueriesRefusesSSMParameter(t *testing.T) {
	_, err := amiselect.Queries([]amiselect.Term{{ID: "ami-0abc"}, {SSMParameter: "/team/ami"}}, amiselect.QueryOptions{})
	want := `amiselect: term 1: ssmParameter "/team/ami" names an SSM parameter, whose value only Resolve can read; call Resolve with Options.SSM set`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// TestCompareAliasSources: while SSM recommends the older release, every
// set differs, and the reason says so; where SSM has no parameter, the
// difference says that instead.
func TestCompareAliasSources(t *testing.T) {
	type diff struct{ Arch, Variant, ByName, BySSM, Reason string }
	older := func(n string) string {
		return "SSM recommends an older release (v20250317, ami-0a00000" + n + ") than the newest available by name (v20250403, ami-0b00000" + n + ")"
	}
	want := []diff{
		{"amd64", "standard", "ami-0b000001", "ami-0a000001", older("1")},
		{"amd64", "nvidia", "ami-0b000002", "ami-0a000002", older("2")},
		{"amd64", "neuron", "ami-0b000003", "ami-0a000003", older("3")},
		{"arm64", "standard", "ami-0b000004", "ami-0a000004", older("4")},
		{"arm64", "nvidia", "ami-0b000005", "", "SSM publishes no parameter for the arm64 nvidia image; by name, v20250403, ami-0b000005"},
	}
	for _, via := range []string{"in-process", "http"} {
		t.Run(via, func(t *testing.T) {
			cs, store := ssmWorld(t)
			opts := options("1.32")
			opts.SSM = store
			ds, err := amiselect.CompareAliasSources(context.Background(), cs[via], "al2023@latest", opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []diff
			for _, d := range ds {
				got = append(got, diff{d.Arch, d.Variant.String(), d.ByName.ID, d.BySSM.ID, d.Reason})
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("differences mismatch (-want +got):\n%s", d)
			}

			// Once SSM recommends what the names find, they agree.
			const base = "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/"
			for i, av := range []string{"x86_64/standard", "x86_64/nvidia", "x86_64/neuron", "arm64/standard", "arm64/nvidia"} {
				store.values[base+av+"/recommended/image_id"] = "ami-0b00000" + string(rune('1'+i))
			}
			ds, err = amiselect.CompareAliasSources(context.Background(), cs[via], "al2023@latest", opts)
			if err != nil || len(ds) != 0 {
				t.Errorf("after SSM caught up: differences %v, err %v", ds, err)
			}
		})
	}
	if _, err := amiselect.CompareAliasSources(context.Background(), ec2fake.New(ec2fake.Options{}), "al2023@latest", options("1.32")); err == nil {
		t.Error("CompareAliasSources without Options.SSM succeeded")
	}
}

// notFoundAs answers every GetParameter with the error given: how a
// client that is not the SDK's (Karpenter's fake SSM, an adapter over its
// caching provider) may spell SSM's ParameterNotFound.
type notFoundAs struct{ err error }

func (n notFoundAs) GetParameter(context.Context, *ssm.GetParameterInput, ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	return nil, n.err
}

// TestSSMParameterNotFoundByCode: a missing parameter is recognized by
// SSM's error code, typed or not, as Karpenter recognizes it
// (aws/karpenter-provider-aws pkg/errors/errors.go:47,71-79 @v1.14.1);
// any other failure still fails the resolve when missing parameters are
// skipped.
func TestSSMParameterNotFoundByCode(t *testing.T) {
	cs, _ := ssmWorld(t)
	terms := []amiselect.Term{{SSMParameter: "/team/ami"}}
	for _, tt := range []struct {
		name    string
		err     error
		missing bool
	}{
		{"typed", &ssmtypes.ParameterNotFound{Message: aws.String("no")}, true},
		{"generic with the code", fmt.Errorf("getting ssm parameter, %w", &smithy.GenericAPIError{Code: "ParameterNotFound"}), true},
		{"throttled", &smithy.GenericAPIError{Code: "ThrottlingException"}, false},
		{"not an API error", errors.New("parameter not found"), false}, // Karpenter's fake: its IsNotFound says no too
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := options("")
			opts.SSM, opts.SkipMissingParameters = notFoundAs{tt.err}, true
			sel, err := amiselect.Resolve(context.Background(), cs["in-process"], terms, opts)
			if tt.missing {
				want := []amiselect.MissingParameter{{Term: 0, Parameter: "/team/ami"}}
				if err != nil || !cmp.Equal(want, sel.MissingParameters) {
					t.Errorf("Resolve = %v, %v; want %v missing", sel.MissingParameters, err, want)
				}
				return
			}
			if err == nil || !errors.Is(err, tt.err) {
				t.Errorf("err = %v, want one wrapping %v", err, tt.err)
			}
		})
	}
}

// TestSSMParameterValueAsKarpenterReads: a parameter's value names an
// image when it starts with "ami-" (pkg/providers/amifamily/ami.go:129
// @v1.14.1), mixed case included, as Karpenter's fake SSM makes them
// (pkg/fake/ssmapi.go: "ami-" and 16 random alphanumerics); the value goes
// into the image-id filter as it is.
func TestSSMParameterValueAsKarpenterReads(t *testing.T) {
	b := ec2fake.New(ec2fake.Options{Now: func() time.Time { return july }})
	store := &parameters{values: map[string]string{"/karpenter/ami": "ami-XbT4q0ZkRw7LmN2p", "/karpenter/id": "ami-id-amd64"}}
	opts := options("")
	opts.SSM = store
	for name, value := range store.values {
		if _, err := amiselect.Resolve(context.Background(), b, []amiselect.Term{{SSMParameter: name}}, opts); err != nil {
			t.Errorf("%s = %q: %v", name, value, err)
		}
		calls := b.Calls()
		in, ok := calls[len(calls)-1].Input.(*ec2.DescribeImagesInput)
		if !ok || aws.ToString(in.Filters[0].Name) != "image-id" || !slices.Equal(in.Filters[0].Values, []string{value}) {
			t.Errorf("%s: the request is %+v, want an image-id filter on %q", name, calls[len(calls)-1].Input, value)
		}
	}
}
