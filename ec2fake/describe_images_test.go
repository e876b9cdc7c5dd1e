package ec2fake

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
)

func names(ss ...string) []string {
	out := append([]string{}, ss...)
	slices.Sort(out)
	return out
}

func TestDescribeImages(t *testing.T) {
	al2023Arm := names(
		"amazon-eks-node-al2023-arm64-nvidia-1.31-v20250403", "amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403",
		"amazon-eks-node-al2023-arm64-standard-1.31-v20250317", "amazon-eks-node-al2023-arm64-standard-1.31-v20250403",
		"amazon-eks-node-al2023-arm64-standard-1.32-v20250317", "amazon-eks-node-al2023-arm64-standard-1.32-v20250403")
	ownVisible := names("team-base-al2023-20250301", "team-base-al2023-arm64-20250310", "team-base-al2023-20250315",
		"team-base-al2023-broken", "team-base-al2023-20250401", `lit*eral?\`, `litXYZeral\`)
	many := func(n int, v string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	manyFilters := make([]ec2types.Filter, 51)
	for i := range manyFilters {
		manyFilters[i] = filter("name", "*")
	}

	tests := []struct {
		name      string
		in        *ec2.DescribeImagesInput
		wantNames []string // sorted; ignored when wantCount > 0
		wantCount int
		wantErr   *errInfo
	}{
		// name filter and the wildcard rules
		{name: "exact name", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "amazon-eks-node-1.31-v20250317")}},
			wantNames: names("amazon-eks-node-1.31-v20250317")},
		{name: "names are case-sensitive", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "AMAZON-EKS-NODE-1.31-V20250317")}},
			wantNames: names()},
		{name: "star is any run", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "amazon-eks-node-al2023-arm64-*")}},
			wantNames: al2023Arm},
		{name: "question mark matches one character", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "bottlerocket-aws-k8s-1.3?-x86_64-v1.42.0-5ed15786")}},
			wantNames: names("bottlerocket-aws-k8s-1.31-x86_64-v1.42.0-5ed15786", "bottlerocket-aws-k8s-1.32-x86_64-v1.42.0-5ed15786")},
		{name: "question mark matches zero characters", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "amazon-eks-node-1.31-v2025031?7")}},
			wantNames: names("amazon-eks-node-1.31-v20250317")},
		{name: "question mark matches at most one character", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "amazon-eks-node-1.31-v202503?")}},
			wantNames: names()},
		{name: "escaped wildcards are literal", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", `lit\*eral\?\\`)}},
			wantNames: names(`lit*eral?\`)},
		{name: "unescaped wildcards match both", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", `lit*eral?\\`)}},
			wantNames: names(`lit*eral?\`, `litXYZeral\`)},
		{name: "values are ORed", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "amazon-eks-node-1.31-v20250317", "amazon-eks-node-1.32-v20250403")}},
			wantNames: names("amazon-eks-node-1.31-v20250317", "amazon-eks-node-1.32-v20250403")},
		{name: "filters are ANDed", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "bottlerocket-aws-k8s-1.31-*"), filter("architecture", "arm64")}},
			wantNames: names("bottlerocket-aws-k8s-1.31-aarch64-v1.42.0-5ed15786", "bottlerocket-aws-k8s-1.31-aarch64-v1.49.0-713f44ce",
				"bottlerocket-aws-k8s-1.31-nvidia-aarch64-v1.42.0-5ed15786", "bottlerocket-aws-k8s-1.31-nvidia-aarch64-v1.49.0-713f44ce")},
		{name: "a filter without values matches nothing", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{{Name: aws.String("name")}}},
			wantNames: names()},

		// the other filters
		{name: "state", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("state", "pending")}},
			wantNames: names("team-base-al2023-20250401")},
		{name: "state with wildcard", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("state", "pend*"), filter("name", "team-*")}},
			wantNames: names("team-base-al2023-20250401")},
		{name: "architecture and owner", in: &ec2.DescribeImagesInput{Owners: []string{"self"}, Filters: []ec2types.Filter{filter("architecture", "arm64")}},
			wantNames: names("team-base-al2023-arm64-20250310", `lit*eral?\`, `litXYZeral\`)},
		{name: "owner-id", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("owner-id", EKSOwnerID), filter("name", "*-1.32-*")}}, wantCount: 15},
		{name: "owner-alias", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("owner-alias", "amazon")}}, wantCount: 54},
		{name: "tag value", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("tag:team", "platform")}},
			wantNames: names("team-base-al2023-20250301", "team-base-al2023-arm64-20250310", "team-base-al2023-20250315", "team-base-al2023-broken", "team-base-al2023-20250401")},
		{name: "tag value with wildcard", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("tag:release", "2025030?")}},
			wantNames: names("team-base-al2023-20250301")},
		{name: "tag key is exact", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("tag:Team", "platform")}}, wantNames: names()},
		{name: "tag-key", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("tag-key", "builder")}}, wantNames: names("team-base-al2023-20250401")},
		{name: "is-public false", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("is-public", "false")}}, wantNames: ownVisible},
		{name: "is-public true", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("is-public", "true")}}, wantCount: 55},
		{name: "platform", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("platform", "windows")}}, wantCount: 8},
		{name: "image-type and virtualization-type", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("image-type", "machine"), filter("virtualization-type", "hvm"), filter("name", "team-*")}},
			wantNames: names("team-base-al2023-20250301", "team-base-al2023-arm64-20250310", "team-base-al2023-20250315", "team-base-al2023-broken", "team-base-al2023-20250401")},
		{name: "creation-date by day", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("creation-date", "2025-04-03T*")}}, wantCount: 16},
		{name: "a malformed creation date is text like any other", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("creation-date", "Sat Mar 22 *")}},
			wantNames: names("team-base-al2023-broken")},
		{name: "image-id filter", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("image-id", ImageTeamBaseAvailable)}}, wantNames: names("team-base-al2023-20250301")},
		{name: "block device volume size", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("block-device-mapping.volume-size", "50")}}, wantCount: 8},

		// Owners
		{name: "owners self", in: &ec2.DescribeImagesInput{Owners: []string{"self"}}, wantNames: ownVisible},
		{name: "owners amazon", in: &ec2.DescribeImagesInput{Owners: []string{"amazon"}}, wantCount: 54},
		{name: "owners by account", in: &ec2.DescribeImagesInput{Owners: []string{EKSOwnerID}}, wantCount: 30},
		{name: "owners self and amazon", in: &ec2.DescribeImagesInput{Owners: []string{"self", "amazon"}}, wantCount: 61},
		{name: "another account shows only its public images", in: &ec2.DescribeImagesInput{Owners: []string{otherAccount}},
			wantNames: names("community-tool-2026")},
		{name: "no owners shows public and own", in: &ec2.DescribeImagesInput{}, wantCount: 62},
		{name: "malformed owner", in: &ec2.DescribeImagesInput{Owners: []string{"amazonn"}},
			wantErr: &errInfo{Code: CodeInvalidUserIDMalformed, Message: "User ID 'amazonn' is invalid", Status: 400}},

		// deprecated and disabled
		{name: "deprecated public image hidden by default", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "community-*")}},
			wantNames: names("community-tool-2026")},
		{name: "IncludeDeprecated shows it", in: &ec2.DescribeImagesInput{IncludeDeprecated: aws.Bool(true), Filters: []ec2types.Filter{filter("name", "community-*")}},
			wantNames: names("community-tool-2024", "community-tool-2026")},
		{name: "asking by ID shows it", in: &ec2.DescribeImagesInput{ImageIds: []string{imgCommunityDeprecated}}, wantNames: names("community-tool-2024")},
		{name: "owners always see their deprecated images", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", "team-base-al2023-20250315")}},
			wantNames: names("team-base-al2023-20250315")},
		{name: "disabled hidden by default", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("state", "disabled")}}, wantNames: names()},
		{name: "disabled hidden even by ID", in: &ec2.DescribeImagesInput{ImageIds: []string{ImageTeamBaseDisabled}}, wantNames: names()},
		{name: "IncludeDisabled shows it", in: &ec2.DescribeImagesInput{IncludeDisabled: aws.Bool(true), Filters: []ec2types.Filter{filter("state", "disabled")}},
			wantNames: names("team-base-al2023-20250201")},

		// ImageIds
		{name: "by IDs", in: &ec2.DescribeImagesInput{ImageIds: []string{ImageTeamBasePending, ImageTeamBaseAvailable, ImageTeamBaseAvailable}},
			wantNames: names("team-base-al2023-20250301", "team-base-al2023-20250401")},
		{name: "IDs and filters", in: &ec2.DescribeImagesInput{ImageIds: []string{ImageTeamBasePending, ImageTeamBaseAvailable}, Filters: []ec2types.Filter{filter("state", "available")}},
			wantNames: names("team-base-al2023-20250301")},
		{name: "another account's private image is left out", in: &ec2.DescribeImagesInput{ImageIds: []string{imgOtherPrivate}}, wantNames: names()},
		{name: "malformed ID", in: &ec2.DescribeImagesInput{ImageIds: []string{ImageTeamBaseAvailable, "ami-xyz"}},
			wantErr: &errInfo{Code: CodeInvalidAMIIDMalformed, Message: `Invalid id: "ami-xyz" (expecting "ami-...")`, Status: 400}},
		{name: "unknown ID", in: &ec2.DescribeImagesInput{ImageIds: []string{ImageTeamBaseAvailable, "ami-0123456789abcdef0"}},
			wantErr: &errInfo{Code: CodeInvalidAMIIDNotFound, Message: "The image id '[ami-0123456789abcdef0]' does not exist", Status: 400}},
		{name: "unknown IDs", in: &ec2.DescribeImagesInput{ImageIds: []string{"ami-12345678", "ami-0123456789abcdef0"}},
			wantErr: &errInfo{Code: CodeInvalidAMIIDNotFound, Message: "The image ids '[ami-0123456789abcdef0, ami-12345678]' do not exist", Status: 400}},

		// invalid requests
		{name: "unknown filter", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("nmae", "x")}},
			wantErr: &errInfo{Code: CodeInvalidParameterValue, Message: "The filter 'nmae' is invalid", Status: 400}},
		{name: "filter names are case-sensitive", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("Name", "x")}},
			wantErr: &errInfo{Code: CodeInvalidParameterValue, Message: "The filter 'Name' is invalid", Status: 400}},
		{name: "filter without a name", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{{Values: []string{"x"}}}},
			wantErr: &errInfo{Code: CodeInvalidParameterValue, Message: "The filter 'null' is invalid", Status: 400}},
		{name: "tag filter without a key", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("tag:", "x")}},
			wantErr: &errInfo{Code: CodeInvalidParameterValue, Message: "The filter 'tag:' is invalid", Status: 400}},
		{name: "real filter the fake does not implement", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("scan-result.finding-scan-date", "*")}},
			wantErr: &errInfo{Code: CodeUnsupported, Message: "The filter 'scan-result.finding-scan-date' is valid in EC2 but not implemented by ec2fake; filter the results in your code instead.", Status: 400}},
		{name: "too many filters", in: &ec2.DescribeImagesInput{Filters: manyFilters},
			wantErr: &errInfo{Code: CodeFilterLimitExceeded, Message: "The maximum number of filters per request is 50; this request has 51.", Status: 400}},
		{name: "too many values", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", many(201, "x")...)}},
			wantErr: &errInfo{Code: CodeFilterLimitExceeded, Message: "The maximum number of filter values specified on a single call is 200", Status: 400}},
		{name: "200 values are fine", in: &ec2.DescribeImagesInput{Filters: []ec2types.Filter{filter("name", append(many(199, "x"), "team-base-al2023-20250301")...)}},
			wantNames: names("team-base-al2023-20250301")},
		{name: "MaxResults too small", in: &ec2.DescribeImagesInput{MaxResults: aws.Int32(4)},
			wantErr: &errInfo{Code: CodeInvalidParameterValue, Message: "Value ( 4 ) for parameter maxResults is invalid. Expecting a value greater than 5.", Status: 400}},
		{name: "MaxResults too large", in: &ec2.DescribeImagesInput{MaxResults: aws.Int32(1001)},
			wantErr: &errInfo{Code: CodeInvalidParameterValue, Message: "Value ( 1001 ) for parameter maxResults is invalid. Expecting a value less than or equal to 1000.", Status: 400}},
		{name: "garbage NextToken", in: &ec2.DescribeImagesInput{NextToken: aws.String("not-a-token")},
			wantErr: &errInfo{Code: CodeInvalidParameterValue, Message: "The NextToken is invalid", Status: 400}},
		{name: "ExecutableBy all", in: &ec2.DescribeImagesInput{ExecutableUsers: []string{"all"}, Filters: []ec2types.Filter{filter("name", "team-*", "community-*")}},
			wantNames: names("community-tool-2026")},
		{name: "ExecutableBy self is not modelled", in: &ec2.DescribeImagesInput{ExecutableUsers: []string{"self"}},
			wantErr: &errInfo{Code: CodeUnsupported, Message: "ExecutableBy 'self' is valid in EC2 but ec2fake does not model launch permissions; only 'all' (public images) is implemented.", Status: 400}},
		{name: "DryRun", in: &ec2.DescribeImagesInput{DryRun: aws.Bool(true), ImageIds: []string{ImageTeamBaseAvailable}},
			wantErr: &errInfo{Code: CodeDryRunOperation, Message: "Request would have succeeded, but DryRun flag is set.", Status: 412}},
		{name: "DryRun still validates", in: &ec2.DescribeImagesInput{DryRun: aws.Bool(true), ImageIds: []string{"ami-bad"}},
			wantErr: &errInfo{Code: CodeInvalidAMIIDMalformed, Message: `Invalid id: "ami-bad" (expecting "ami-...")`, Status: 400}},
		{name: "nil input", in: nil, wantCount: 62},
	}
	p := newPair(t, newFixture(t))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, gotErr := describeImagesBoth(t, p, tc.in)
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Fatalf("error mismatch (-want +got):\n%s", diff)
			}
			if gotErr != nil {
				return
			}
			got := imageNames(out.Images)
			if tc.wantCount > 0 {
				if len(got) != tc.wantCount {
					t.Fatalf("got %d images, want %d: %v", len(got), tc.wantCount, got)
				}
				return
			}
			if diff := cmp.Diff(tc.wantNames, got); diff != "" {
				t.Errorf("images mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescribeImagesAsAnotherAccount(t *testing.T) {
	// The catalog's custom images are private to DefaultAccountID: another
	// caller sees only the public ones, even when it asks by ID.
	b := newFirstWave(t, Options{AccountID: otherAccount})
	p := newPair(t, b)
	for _, in := range []*ec2.DescribeImagesInput{
		{Filters: []ec2types.Filter{filter("name", "team-*")}},
		{Owners: []string{"self"}},
		{Owners: []string{DefaultAccountID}},
		{ImageIds: []string{ImageTeamBaseAvailable, ImageTeamBasePending}},
	} {
		out, err := describeImagesBoth(t, p, in)
		if err != nil {
			t.Fatalf("DescribeImages(%+v): %v", in, err)
		}
		if got := imageNames(out.Images); len(got) != 0 {
			t.Errorf("DescribeImages(%+v) as %s = %v; want nothing", in, otherAccount, got)
		}
	}
	out, _ := describeImagesBoth(t, p, &ec2.DescribeImagesInput{})
	if len(out.Images) != 54 {
		t.Errorf("DescribeImages as %s returned %d images; want the 54 public ones", otherAccount, len(out.Images))
	}
}

func TestDescribeImagesDeprecationFollowsTheClock(t *testing.T) {
	deprecation := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	now := deprecation.Add(-time.Second)
	b := New(Options{Now: func() time.Time { return now }})
	for _, img := range []ec2types.Image{
		{ImageId: aws.String("ami-0aaaaaaaaaaaaaaa1"), Name: aws.String("theirs"), OwnerId: aws.String(otherAccount), Public: aws.Bool(true), DeprecationTime: aws.String("2026-03-01T00:00:00.000Z")},
		{ImageId: aws.String("ami-0aaaaaaaaaaaaaaa2"), Name: aws.String("mine"), DeprecationTime: aws.String("2026-03-01T00:00:00Z")},
	} {
		if err := b.PutImage(img); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		now               time.Time
		includeDeprecated bool
		want              []string
	}{
		{now: deprecation.Add(-time.Second), want: names("mine", "theirs")},
		{now: deprecation, want: names("mine")}, // deprecated once DeprecationTime <= now
		{now: deprecation.Add(time.Hour), want: names("mine")},
		{now: deprecation.Add(time.Hour), includeDeprecated: true, want: names("mine", "theirs")},
	}
	for _, tc := range tests {
		now = tc.now
		out, err := b.DescribeImages(context.Background(), &ec2.DescribeImagesInput{IncludeDeprecated: aws.Bool(tc.includeDeprecated)})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, imageNames(out.Images)); diff != "" {
			t.Errorf("at %v with IncludeDeprecated=%v (-want +got):\n%s", tc.now, tc.includeDeprecated, diff)
		}
	}
}
