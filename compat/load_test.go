package compat_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// fakeEC2 serves the catalog over HTTP to a real *ec2.Client.
func fakeEC2(t *testing.T) (*ec2fake.Backend, *ec2.Client) {
	t.Helper()
	b := ec2fake.NewWithCatalog(ec2fake.Options{})
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	return b, ec2fake.NewClient(srv.URL)
}

// typeCalls returns the DescribeInstanceTypes requests b answered.
func typeCalls(b *ec2fake.Backend) []*ec2.DescribeInstanceTypesInput {
	var out []*ec2.DescribeInstanceTypesInput
	for _, c := range b.Calls() {
		if c.Operation == ec2fake.OpDescribeInstanceTypes {
			out = append(out, c.Input.(*ec2.DescribeInstanceTypesInput))
		}
	}
	return out
}

func names(types []compat.InstanceType) []string {
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = t.Name
	}
	return out
}

// TestLoadInstanceTypesCatalog: every page is read (EC2 pages by 100), and
// the result is the catalog converted one by one, sorted by name, with
// the two Mac types skipped and why.
func TestLoadInstanceTypesCatalog(t *testing.T) {
	b, client := fakeEC2(t)
	types, skipped, err := compat.LoadInstanceTypes(context.Background(), client, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, infos := ec2fake.DefaultCatalog()
	var want []compat.InstanceType
	var wantSkipped []string
	for _, info := range infos {
		if it, err := compat.InstanceTypeFromEC2(info); err != nil {
			wantSkipped = append(wantSkipped, string(info.InstanceType))
		} else {
			want = append(want, it)
		}
	}
	slices.SortFunc(want, func(a, b compat.InstanceType) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(wantSkipped)
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
	var gotSkipped []string
	for _, s := range skipped {
		gotSkipped = append(gotSkipped, s.Name)
		if s.Err == nil || !strings.Contains(s.Err.Error(), s.Name) {
			t.Errorf("skipped %s with reason %v; want InstanceTypeFromEC2's, naming the type", s.Name, s.Err)
		}
	}
	if diff := cmp.Diff([]string{"mac1.metal", "mac2.metal"}, gotSkipped); diff != "" || !slices.Equal(wantSkipped, gotSkipped) {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if calls, want := len(typeCalls(b)), (len(infos)+99)/100; calls != want {
		t.Errorf("%d DescribeInstanceTypes calls for %d types; want %d pages of 100", calls, len(infos), want)
	}
}

// TestLoadInstanceTypesSelects: names and filters pass through; more than
// 100 names go in batches of 100 (EC2 refuses more in one request), and
// the input is left as it was.
func TestLoadInstanceTypesSelects(t *testing.T) {
	_, infos := ec2fake.DefaultCatalog()
	var all []ec2types.InstanceType
	for _, info := range infos {
		all = append(all, info.InstanceType)
	}
	slices.Reverse(all) // so batches come back out of order
	tests := []struct {
		name  string
		in    *ec2.DescribeInstanceTypesInput
		want  func(compat.InstanceType) bool
		calls int
	}{
		{"three names", &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"m5.large", "g5g.xlarge", "c7i-flex.large"}},
			func(it compat.InstanceType) bool {
				return slices.Contains([]string{"m5.large", "g5g.xlarge", "c7i-flex.large"}, it.Name)
			}, 1},
		{"250 names", &ec2.DescribeInstanceTypesInput{InstanceTypes: all[:250]},
			func(it compat.InstanceType) bool { return slices.Contains(all[:250], ec2types.InstanceType(it.Name)) }, 3},
		{"a filter", &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{{Name: aws.String("processor-info.supported-architecture"), Values: []string{"arm64"}}}},
			func(it compat.InstanceType) bool { return it.Arch == compat.ArchARM64 }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, client := fakeEC2(t)
			before := fmt.Sprint(tt.in.InstanceTypes, len(tt.in.Filters))
			types, _, err := compat.LoadInstanceTypes(context.Background(), client, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(tt.in.InstanceTypes, len(tt.in.Filters)) != before {
				t.Error("LoadInstanceTypes modified its input")
			}
			var want []string
			for _, info := range infos {
				if it, err := compat.InstanceTypeFromEC2(info); err == nil && tt.want(it) {
					want = append(want, it.Name)
				}
			}
			slices.Sort(want)
			if diff := cmp.Diff(want, names(types)); diff != "" || len(want) == 0 {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			calls := typeCalls(b)
			for _, c := range calls {
				if len(c.InstanceTypes) > 100 {
					t.Errorf("a request names %d types; EC2 takes at most 100", len(c.InstanceTypes))
				}
			}
			if tt.calls > 0 && len(calls) != tt.calls {
				t.Errorf("%d calls; want %d", len(calls), tt.calls)
			}
		})
	}
}

// pageFault fails every DescribeInstanceTypes call after the first: the
// fake answers the first page, then EC2's throttling error, which the SDK
// retries and gives up on.
type pageFault struct {
	*ec2.Client
	backend *ec2fake.Backend
	calls   int
}

func (p *pageFault) DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	if p.calls++; p.calls == 2 {
		if err := p.backend.InjectFault(ec2fake.Fault{Operation: ec2fake.OpDescribeInstanceTypes, Code: ec2fake.CodeRequestLimitExceeded}); err != nil {
			return nil, err
		}
	}
	return p.Client.DescribeInstanceTypes(ctx, in, opts...)
}

// TestLoadInstanceTypesFailedPage: a page that fails fails the call, with
// nothing returned and the SDK's error inside.
func TestLoadInstanceTypesFailedPage(t *testing.T) {
	b, client := fakeEC2(t)
	types, skipped, err := compat.LoadInstanceTypes(context.Background(), &pageFault{Client: client, backend: b}, nil)
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != ec2fake.CodeRequestLimitExceeded {
		t.Fatalf("err = %v; want the SDK's %s", err, ec2fake.CodeRequestLimitExceeded)
	}
	if !strings.HasPrefix(err.Error(), "compat: describing instance types, page 2: ") {
		t.Errorf("err = %q; want it to name the page", err)
	}
	if types != nil || skipped != nil {
		t.Errorf("a failed call returned %d types and %d skipped; want none", len(types), len(skipped))
	}
	if calls := typeCalls(b); len(calls) != 1+3 || calls[1].NextToken == nil {
		t.Errorf("%d calls; want the first page and three attempts at the second", len(calls))
	}
}

func TestLoadInstanceTypesErrors(t *testing.T) {
	_, client := fakeEC2(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := compat.LoadInstanceTypes(ctx, client, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: err = %v; want context.Canceled", err)
	}
	if _, _, err := compat.LoadInstanceTypes(context.Background(), nil, nil); err == nil || !strings.HasPrefix(err.Error(), "compat: ") {
		t.Errorf("nil client: err = %v; want a compat error", err)
	}
	_, _, err := compat.LoadInstanceTypes(context.Background(), client, &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"m5.large", "m5.nonesuch"}})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != ec2fake.CodeInvalidInstanceType {
		t.Errorf("unknown name: err = %v; want EC2's %s", err, ec2fake.CodeInvalidInstanceType)
	}
}
