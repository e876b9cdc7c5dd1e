package ec2fake

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
)

func TestDescribeInstanceTypes(t *testing.T) {
	flexSizes := []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge"}
	var c7iFlex []string
	for _, s := range flexSizes {
		c7iFlex = append(c7iFlex, "c7i-flex."+s)
	}
	slices.Sort(c7iFlex)
	tests := []struct {
		name      string
		in        *ec2.DescribeInstanceTypesInput
		want      []string // in answer order (sorted by name)
		wantCount int
		wantErr   *errInfo
	}{
		{name: "by name", in: &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"m5.large", "g5g.xlarge", "m5.large"}},
			want: []string{"g5g.xlarge", "m5.large"}},
		{name: "unknown name", in: &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"m5.large", "m5.huge", "x9.nano", "m5.huge"}},
			wantErr: &errInfo{Code: CodeInvalidInstanceType, Message: "The following supplied instance types do not exist: [m5.huge, x9.nano]", Status: 400}},
		{name: "instance-type with star", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("instance-type", "c7i-flex.*")}}, want: c7iFlex},
		{name: "instance-type with question mark", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("instance-type", "g6f.?xlarge")}},
			want: []string{"g6f.2xlarge", "g6f.4xlarge", "g6f.xlarge"}},
		{name: "architecture", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("processor-info.supported-architecture", "x86_64_mac", "arm64_mac")}},
			want: []string{"mac1.metal", "mac2.metal"}},
		{name: "i386", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("processor-info.supported-architecture", "i386")}},
			want: []string{"t2.medium", "t2.micro", "t2.nano"}},
		{name: "bare metal arm64", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("bare-metal", "true"), filter("processor-info.supported-architecture", "arm64")}},
			want: []string{"a1.metal", "c6g.metal", "c7g.metal", "g5g.metal", "m6g.metal", "m7g.metal", "r6g.metal", "r7g.metal"}},
		{name: "current generation", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("current-generation", "false")}}, want: []string{}},
		{name: "burstable", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("burstable-performance-supported", "true"), filter("instance-type", "t2.*")}},
			want: []string{"t2.medium", "t2.micro", "t2.nano", "t2.xlarge"}},
		{name: "clock speed", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("processor-info.sustained-clock-speed-in-ghz", "2.3"), filter("instance-type", "a1.*")}}, wantCount: 6},
		{name: "memory", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("memory-info.size-in-mib", "512")}},
			want: []string{"t2.nano", "t3.nano", "t4g.nano"}},
		{name: "vcpus and hypervisor", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("vcpu-info.default-vcpus", "1"), filter("hypervisor", "nitro")}},
			want: []string{"a1.medium", "r6g.medium"}},
		{name: "usage class", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("supported-usage-class", "spot"), filter("instance-type", "mac*")}}, want: []string{}},
		{name: "encryption in transit", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("network-info.encryption-in-transit-supported", "true"), filter("instance-type", "m5.*", "m6i.large")}},
			want: []string{"m6i.large"}},
		{name: "instance storage", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("instance-storage-info.total-size-in-gb", "30400")}},
			want: []string{"p5.48xlarge"}},
		{name: "EFA", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("network-info.efa-info.maximum-efa-interfaces", "32")}},
			want: []string{"p5.48xlarge"}},
		{name: "unknown filter", in: &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("processor-info.manufacturer", "AWS")}},
			wantErr: &errInfo{Code: CodeInvalidParameterValue, Message: "The filter 'processor-info.manufacturer' is invalid", Status: 400}},
		{name: "MaxResults too small", in: &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(4)},
			wantErr: &errInfo{Code: CodeInvalidParameterValue, Message: "Value ( 4 ) for parameter maxResults is invalid. Expecting a value greater than 5.", Status: 400}},
		{name: "MaxResults too large", in: &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(101)},
			wantErr: &errInfo{Code: CodeInvalidParameterValue, Message: "Value ( 101 ) for parameter maxResults is invalid. Expecting a value less than or equal to 100.", Status: 400}},
		{name: "garbage token", in: &ec2.DescribeInstanceTypesInput{NextToken: aws.String("AAAA")},
			wantErr: &errInfo{Code: CodeInvalidParameterValue, Message: "The NextToken is invalid", Status: 400}},
		{name: "DryRun", in: &ec2.DescribeInstanceTypesInput{DryRun: aws.Bool(true)},
			wantErr: &errInfo{Code: CodeDryRunOperation, Message: "Request would have succeeded, but DryRun flag is set.", Status: 412}},
		{name: "default page is 100", in: &ec2.DescribeInstanceTypesInput{}, wantCount: 100},
	}
	p := newPair(t, newFixture(t))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, gotErr := describeTypesBoth(t, p, tc.in)
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Fatalf("error mismatch (-want +got):\n%s", diff)
			}
			if gotErr != nil {
				return
			}
			got := typeNames(out.InstanceTypes)
			if tc.wantCount > 0 {
				if len(got) != tc.wantCount {
					t.Fatalf("got %d instance types, want %d: %v", len(got), tc.wantCount, got)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("instance types mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInstanceTypePagesReturnEveryTypeExactlyOnce(t *testing.T) {
	p := newPair(t, newFixture(t))
	_, types := firstWaveCatalog(t)
	var want []string
	for _, info := range types {
		want = append(want, string(info.InstanceType))
	}
	slices.Sort(want)
	walk := func(client ec2.DescribeInstanceTypesAPIClient, in *ec2.DescribeInstanceTypesInput) []string {
		t.Helper()
		pager := ec2.NewDescribeInstanceTypesPaginator(client, in, func(o *ec2.DescribeInstanceTypesPaginatorOptions) { o.StopOnDuplicateToken = true })
		var got []string
		for pager.HasMorePages() {
			page, err := pager.NextPage(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, typeNames(page.InstanceTypes)...)
		}
		return got
	}
	for size := int32(minMaxResults); size <= maxTypesMaxResults; size++ {
		if got := walk(p.b, &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(size)}); !slices.Equal(got, want) {
			t.Fatalf("MaxResults %d: got %d types; want each of the %d once, in name order", size, len(got), len(want))
		}
	}
	for _, in := range []*ec2.DescribeInstanceTypesInput{{}, {MaxResults: aws.Int32(13)}} {
		if got := walk(p.client, in); !slices.Equal(got, want) {
			t.Fatalf("over HTTP: got %d types; want %d", len(got), len(want))
		}
	}
	// Filtered and named walks.
	in := &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(5), Filters: []ec2types.Filter{filter("instance-type", "*flex*")}}
	if got := walk(p.client, in); len(got) != 14 || !strings.HasPrefix(got[0], "c7i-flex.") {
		t.Errorf("flex walk = %v; want the 14 flex types", got)
	}
}
