package amiselect_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// catalogAliases lists, from the catalog's own image names, every alias
// family with every Kubernetes version it has images for, and the newest
// release of each (to pin): whatever versions the catalog holds.
func catalogAliases(t *testing.T) []struct{ family, k8s, release string } {
	t.Helper()
	images, _ := ec2fake.DefaultCatalog()
	k8sIn := regexp.MustCompile(`-(1\.\d+)-`)
	newest := map[[2]string]amiselect.AMI{}
	for _, img := range images {
		// One image at a time: Select keeps one image per requirement set,
		// and every Kubernetes version is wanted.
		sel := amiselect.Select([]ec2types.Image{img}, amiselect.SelectOptions{Now: func() time.Time { return july }})
		if len(sel.AMIs) == 0 || sel.AMIs[0].Family == compat.Custom || sel.AMIs[0].Deprecated {
			continue
		}
		a := sel.AMIs[0]
		m := k8sIn.FindStringSubmatch(a.Name)
		if m == nil {
			t.Fatalf("catalog image %q names no Kubernetes version", a.Name)
		}
		k := [2]string{a.Family.Alias(), m[1]}
		if old, ok := newest[k]; !ok || a.Created.After(old.Created) {
			newest[k] = a
		}
	}
	var out []struct{ family, k8s, release string }
	for k, a := range newest {
		out = append(out, struct{ family, k8s, release string }{k[0], k[1], a.Release})
	}
	slices.SortFunc(out, func(a, b struct{ family, k8s, release string }) int {
		if a.family != b.family {
			return strings.Compare(a.family, b.family)
		}
		return strings.Compare(a.k8s, b.k8s)
	})
	if len(out) < 6 {
		t.Fatalf("the catalog has only %d alias × version pairs", len(out))
	}
	return out
}

// TestCompareAliasSourcesCatalog runs the agreement check over HTTP, with
// a real *ec2.Client and a real *ssm.Client against one ec2fake server,
// for every alias family and Kubernetes version the catalog holds, at
// latest and pinned to the newest release: the catalog's public
// parameters name the newest release, as AWS's do once it recommends it,
// so name and SSM must agree on every set, or explain why not.
func TestCompareAliasSourcesCatalog(t *testing.T) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return july }})
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	ec2c, ssmc := ec2fake.NewClient(srv.URL), ec2fake.NewSSMClient(srv.URL)
	compared := 0
	for _, a := range catalogAliases(t) {
		versions := []string{"latest"}
		if !slices.Contains([]string{"windows2019", "windows2022", "windows2025"}, a.family) {
			versions = append(versions, a.release)
		}
		for _, v := range versions {
			alias := a.family + "@" + v
			t.Run(alias+"/"+a.k8s, func(t *testing.T) {
				opts := options(a.k8s)
				opts.SSM = ssmc
				if _, err := amiselect.Queries([]amiselect.Term{{Alias: alias}}, opts.Query); err != nil {
					t.Skipf("not an alias for Kubernetes %s: %v", a.k8s, err) // al2 after 1.32, windows2025 before 1.35
				}
				ds, err := amiselect.CompareAliasSources(context.Background(), ec2c, alias, opts)
				if err != nil {
					t.Fatalf("CompareAliasSources: %v", err)
				}
				for _, d := range ds {
					t.Errorf("%s %s: by name %s, through SSM %s: %s", d.Arch, d.Variant, d.ByName, d.BySSM, d.Reason)
				}
				opts.Aliases = amiselect.AliasBySSM
				sel, err := amiselect.Resolve(context.Background(), ec2c, []amiselect.Term{{Alias: alias}}, opts)
				if err != nil || len(sel.AMIs) == 0 {
					t.Fatalf("through SSM: %d AMIs, err %v", len(sel.AMIs), err)
				}
				compared++
			})
		}
	}
	if compared == 0 {
		t.Fatal("no alias was compared")
	}
}

// TestResolveSSMParameterOverHTTP: an ssmParameter term through a real
// *ssm.Client, next to a name term; a missing parameter fails the resolve
// with the SDK's typed ParameterNotFound inside.
func TestResolveSSMParameterOverHTTP(t *testing.T) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return july }})
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	ec2c := ec2fake.NewClient(srv.URL)
	byName, err := amiselect.Resolve(context.Background(), ec2c, []amiselect.Term{{Alias: "bottlerocket@latest"}}, options("1.32"))
	if err != nil || len(byName.AMIs) == 0 {
		t.Fatalf("by name: %v, %v", byName.AMIs, err)
	}
	want := byName.AMIs[0]
	if err := b.PutParameter("/team/golden-ami", want.ID); err != nil {
		t.Fatal(err)
	}
	opts := options("")
	opts.SSM = ec2fake.NewSSMClient(srv.URL)
	sel, err := amiselect.Resolve(context.Background(), ec2c, []amiselect.Term{{SSMParameter: "/team/golden-ami"}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range sel.AMIs {
		got = append(got, a.ID)
	}
	if diff := cmp.Diff([]string{want.ID}, slices.Compact(got)); diff != "" {
		t.Errorf("AMIs mismatch (-want +got):\n%s", diff)
	}

	_, err = amiselect.Resolve(context.Background(), ec2c, []amiselect.Term{{SSMParameter: "/team/typo"}}, opts)
	var nf *ssmtypes.ParameterNotFound
	if !errors.As(err, &nf) {
		t.Errorf("err = %v, want a ParameterNotFound inside", err)
	}
}

// getParameterOnly is the SSM interface Karpenter's providers hold,
// GetParameter alone (aws/karpenter-provider-aws pkg/aws/sdk.go:68-70
// @v1.14.1), here over a real *ssm.Client.
type getParameterOnly struct{ c *ssm.Client }

func (g getParameterOnly) GetParameter(ctx context.Context, in *ssm.GetParameterInput, optFns ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	return g.c.GetParameter(ctx, in, optFns...)
}

// TestResolveWithGetParameterOnly: an alias resolves through SSM the same
// with a client that offers only GetParameter (one call per public
// parameter, a missing one skipped) as with one that batches
// (GetParameters, one call).
func TestResolveWithGetParameterOnly(t *testing.T) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return july }})
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	ec2c, ssmc := ec2fake.NewClient(srv.URL), ec2fake.NewSSMClient(srv.URL)
	if _, ok := amiselect.SSMClient(getParameterOnly{ssmc}).(amiselect.SSMBatchClient); ok {
		t.Fatal("the adapter offers GetParameters")
	}
	tests := []struct {
		alias, k8s string
		parameters int
	}{
		{"al2023@latest", "1.32", 5},
		{"al2023@v20250317", "1.31", 5}, // no arm64 NVIDIA parameter for that release
		{"bottlerocket@latest", "1.32", 4},
		{"al2@latest", "1.32", 3},
	}
	for _, tt := range tests {
		t.Run(tt.alias, func(t *testing.T) {
			opts := options(tt.k8s)
			opts.Aliases = amiselect.AliasBySSM
			resolve := func(c amiselect.SSMClient) ([]string, map[string]int) {
				before := len(b.Calls())
				opts.SSM = c
				sel, err := amiselect.Resolve(context.Background(), ec2c, []amiselect.Term{{Alias: tt.alias}}, opts)
				if err != nil {
					t.Fatalf("Resolve: %v", err)
				}
				ops := map[string]int{}
				for _, c := range b.Calls()[before:] {
					ops[c.Operation]++
				}
				return ids(sel), ops
			}
			batched, batchOps := resolve(ssmc)
			single, singleOps := resolve(getParameterOnly{ssmc})
			if diff := cmp.Diff(batched, single); diff != "" {
				t.Errorf("GetParameter alone selects differently (-GetParameters +GetParameter):\n%s", diff)
			}
			if want := map[string]int{ec2fake.OpGetParameters: 1, ec2fake.OpDescribeImages: 1}; !cmp.Equal(want, batchOps) {
				t.Errorf("batched calls = %v, want %v", batchOps, want)
			}
			if want := map[string]int{ec2fake.OpGetParameter: tt.parameters, ec2fake.OpDescribeImages: 1}; !cmp.Equal(want, singleOps) {
				t.Errorf("GetParameter-only calls = %v, want %v", singleOps, want)
			}
		})
	}
}

// TestResolveSkipMissingParameters: with SkipMissingParameters, a term
// whose parameter SSM does not have matches nothing, as in Karpenter
// (pkg/providers/amifamily/ami.go:123-127 @v1.14.1), and the Selection
// records which; the other terms select as before. Over a real
// *ssm.Client.
func TestResolveSkipMissingParameters(t *testing.T) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return july }})
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	ec2c := ec2fake.NewClient(srv.URL)
	if err := b.PutParameter("/team/golden-ami", ec2fake.ImageTeamBaseArm64); err != nil {
		t.Fatal(err)
	}
	opts := options("")
	opts.SSM, opts.SkipMissingParameters = ec2fake.NewSSMClient(srv.URL), true

	sel, err := amiselect.Resolve(context.Background(), ec2c,
		[]amiselect.Term{{SSMParameter: "/team/typo"}, {ID: ec2fake.ImageTeamBaseAvailable}, {SSMParameter: "/team/golden-ami"}}, opts)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	var got []string
	for _, a := range sel.AMIs {
		got = append(got, a.ID)
	}
	if diff := cmp.Diff([]string{ec2fake.ImageTeamBaseArm64, ec2fake.ImageTeamBaseAvailable}, got); diff != "" {
		t.Errorf("AMIs mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]amiselect.MissingParameter{{Term: 0, Parameter: "/team/typo"}}, sel.MissingParameters); diff != "" {
		t.Errorf("MissingParameters mismatch (-want +got):\n%s", diff)
	}

	// Every term missing: nothing selected, nothing described, no error.
	before := len(b.Calls())
	sel, err = amiselect.Resolve(context.Background(), ec2c, []amiselect.Term{{SSMParameter: "/team/typo"}, {SSMParameter: "/team/gone"}}, opts)
	if err != nil || len(sel.AMIs) != 0 || len(sel.MissingParameters) != 2 {
		t.Fatalf("all missing: AMIs %v, missing %v, err %v", sel.AMIs, sel.MissingParameters, err)
	}
	for _, c := range b.Calls()[before:] {
		if c.Operation == ec2fake.OpDescribeImages {
			t.Errorf("DescribeImages called with no image to describe: %+v", c.Input)
		}
	}

	// The default stays strict.
	opts.SkipMissingParameters = false
	if _, err := amiselect.Resolve(context.Background(), ec2c, []amiselect.Term{{SSMParameter: "/team/typo"}}, opts); err == nil {
		t.Error("a missing parameter resolved without SkipMissingParameters")
	}
}
