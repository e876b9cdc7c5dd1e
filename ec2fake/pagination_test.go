package ec2fake

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
)

// allImages pages through in with the SDK paginator and returns every image
// ID in the order received, checking page sizes on the way.
func allImages(t *testing.T, client ec2.DescribeImagesAPIClient, in *ec2.DescribeImagesInput) []string {
	t.Helper()
	pager := ec2.NewDescribeImagesPaginator(client, in, func(o *ec2.DescribeImagesPaginatorOptions) { o.StopOnDuplicateToken = true })
	var ids []string
	for pages := 0; pager.HasMorePages(); pages++ {
		if pages > 1000 {
			t.Fatal("pagination does not end")
		}
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		if in.MaxResults != nil {
			if len(page.Images) > int(*in.MaxResults) {
				t.Fatalf("page %d has %d images; MaxResults is %d", pages, len(page.Images), *in.MaxResults)
			}
			if page.NextToken != nil && len(page.Images) != int(*in.MaxResults) {
				t.Fatalf("page %d has %d images and a NextToken; only the last page may be short", pages, len(page.Images))
			}
		}
		for _, img := range page.Images {
			ids = append(ids, *img.ImageId)
		}
	}
	return ids
}

func TestImagePagesReturnEveryImageExactlyOnce(t *testing.T) {
	p := newPair(t, newFixture(t))
	base := &ec2.DescribeImagesInput{IncludeDeprecated: aws.Bool(true), IncludeDisabled: aws.Bool(true)}
	whole, err := p.b.DescribeImages(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, img := range whole.Images {
		want = append(want, *img.ImageId)
	}
	if !slices.IsSorted(want) {
		t.Fatalf("the unpaginated answer is not in image ID order: %v", want)
	}
	n := len(want)
	for size := minMaxResults; size <= n+2; size++ {
		in := clone(*base)
		in.MaxResults = aws.Int32(int32(size))
		if got := allImages(t, p.b, &in); !slices.Equal(got, want) {
			t.Fatalf("MaxResults %d: pages gave %d IDs %v; want each of the %d images once, in ID order", size, len(got), got, n)
		}
	}
	// The same walk through the real SDK client over HTTP.
	for _, size := range []int32{5, 7, int32(n - 1), int32(n), 1000} {
		in := clone(*base)
		in.MaxResults = aws.Int32(size)
		if got := allImages(t, p.client, &in); !slices.Equal(got, want) {
			t.Fatalf("over HTTP, MaxResults %d: got %v; want %v", size, got, want)
		}
	}
}

func TestImagePagesWithFilters(t *testing.T) {
	p := newPair(t, newFixture(t))
	in := &ec2.DescribeImagesInput{Owners: []string{"amazon"}, Filters: []ec2types.Filter{filter("name", "bottlerocket-*"), filter("architecture", "arm64")}}
	whole, err := p.b.DescribeImages(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Images) != 8 {
		t.Fatalf("got %d arm64 Bottlerocket images; want 8", len(whole.Images))
	}
	var want []string
	for _, img := range whole.Images {
		want = append(want, *img.ImageId)
	}
	for _, size := range []int32{5, 6, 7, 8, 9} {
		paged := clone(*in)
		paged.MaxResults = aws.Int32(size)
		if got := allImages(t, p.client, &paged); !slices.Equal(got, want) {
			t.Errorf("MaxResults %d: got %v; want %v", size, got, want)
		}
	}
}

func TestImagePagesAreDeterministic(t *testing.T) {
	b := newFixture(t)
	in := &ec2.DescribeImagesInput{MaxResults: aws.Int32(7), Filters: []ec2types.Filter{filter("name", "amazon-eks-*")}}
	first, err := b.DescribeImages(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.DescribeImages(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first.Images, second.Images, ignoreUnexported); diff != "" {
		t.Errorf("same request, different images (-first +second):\n%s", diff)
	}
	if *first.NextToken != *second.NextToken {
		t.Errorf("same request, different tokens: %q and %q", *first.NextToken, *second.NextToken)
	}
	// Another backend with the same data issues the same tokens.
	other, err := newFixture(t).DescribeImages(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if *other.NextToken != *first.NextToken {
		t.Errorf("tokens depend on the backend instance: %q and %q", *first.NextToken, *other.NextToken)
	}
}

func TestImagePagesSurviveChangesBetweenPages(t *testing.T) {
	b := New(Options{})
	put := func(id string) {
		t.Helper()
		if err := b.PutImage(ec2types.Image{ImageId: aws.String(id), Name: aws.String("img-" + id)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 10; i < 30; i++ {
		put(fmt.Sprintf("ami-%08x", i))
	}
	in := &ec2.DescribeImagesInput{MaxResults: aws.Int32(5)}
	page, err := b.DescribeImages(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, img := range page.Images {
		seen[*img.ImageId]++
	}
	// Between pages: add an image before the cursor and one after it, and
	// delete one that has not been returned yet.
	put(fmt.Sprintf("ami-%08x", 1))
	put(fmt.Sprintf("ami-%08x", 99))
	if err := b.DeleteImage(fmt.Sprintf("ami-%08x", 20)); err != nil {
		t.Fatal(err)
	}
	for page.NextToken != nil {
		next := clone(*in)
		next.NextToken = page.NextToken
		if page, err = b.DescribeImages(context.Background(), &next); err != nil {
			t.Fatal(err)
		}
		for _, img := range page.Images {
			seen[*img.ImageId]++
		}
	}
	for i := 10; i < 30; i++ {
		id := fmt.Sprintf("ami-%08x", i)
		want := 1
		if i == 20 {
			want = 0
		}
		if seen[id] != want {
			t.Errorf("image %s seen %d times; want %d", id, seen[id], want)
		}
	}
	if seen["ami-00000063"] != 1 {
		t.Errorf("image added after the cursor seen %d times; want 1", seen["ami-00000063"])
	}
	if seen["ami-00000001"] != 0 {
		t.Errorf("image added before the cursor seen %d times; want 0", seen["ami-00000001"])
	}
}

func TestImageTokensAreBoundToTheirRequest(t *testing.T) {
	p := newPair(t, newFixture(t))
	ctx := context.Background()
	in := &ec2.DescribeImagesInput{MaxResults: aws.Int32(5), Filters: []ec2types.Filter{filter("name", "amazon-eks-*")}}
	page, err := p.b.DescribeImages(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	token := *page.NextToken
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatalf("token %q is not base64url: %v", token, err)
	}
	flipped := slices.Clone(raw)
	flipped[len(flipped)/2] ^= 1
	typesPage, err := p.b.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(5)})
	if err != nil {
		t.Fatal(err)
	}
	invalid := &errInfo{Code: CodeInvalidParameterValue, Message: "The NextToken is invalid", Status: 400}
	tests := []struct {
		name    string
		in      *ec2.DescribeImagesInput
		wantErr *errInfo
	}{
		{"same request", &ec2.DescribeImagesInput{MaxResults: aws.Int32(5), NextToken: &token, Filters: []ec2types.Filter{filter("name", "amazon-eks-*")}}, nil},
		{"another page size", &ec2.DescribeImagesInput{MaxResults: aws.Int32(9), NextToken: &token, Filters: []ec2types.Filter{filter("name", "amazon-eks-*")}}, nil},
		{"equivalent filters", &ec2.DescribeImagesInput{MaxResults: aws.Int32(5), NextToken: &token, Filters: []ec2types.Filter{{Name: aws.String("name"), Values: []string{"amazon-eks-*"}}}, Owners: []string{}}, nil},
		{"other filters", &ec2.DescribeImagesInput{MaxResults: aws.Int32(5), NextToken: &token, Filters: []ec2types.Filter{filter("name", "bottlerocket-*")}}, invalid},
		{"other owners", &ec2.DescribeImagesInput{MaxResults: aws.Int32(5), NextToken: &token, Owners: []string{"self"}, Filters: []ec2types.Filter{filter("name", "amazon-eks-*")}}, invalid},
		{"other flags", &ec2.DescribeImagesInput{MaxResults: aws.Int32(5), NextToken: &token, IncludeDeprecated: aws.Bool(true), Filters: []ec2types.Filter{filter("name", "amazon-eks-*")}}, invalid},
		{"damaged token", &ec2.DescribeImagesInput{MaxResults: aws.Int32(5), NextToken: aws.String(base64.RawURLEncoding.EncodeToString(flipped)), Filters: []ec2types.Filter{filter("name", "amazon-eks-*")}}, invalid},
		{"truncated token", &ec2.DescribeImagesInput{MaxResults: aws.Int32(5), NextToken: aws.String(token[:len(token)-3]), Filters: []ec2types.Filter{filter("name", "amazon-eks-*")}}, invalid},
		{"DescribeInstanceTypes token", &ec2.DescribeImagesInput{MaxResults: aws.Int32(5), NextToken: typesPage.NextToken}, invalid},
		{"empty token means the first page", &ec2.DescribeImagesInput{MaxResults: aws.Int32(5), NextToken: aws.String("")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, got := describeImagesBoth(t, p, tc.in)
			if diff := cmp.Diff(tc.wantErr, got); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A token names the last image returned, so no token can point past the
// end or before the start: a well-formed token for a key beyond every image
// gives an empty last page, one before every image the first page.
func TestForgedTokensCannotLeaveTheRange(t *testing.T) {
	b := newFixture(t)
	in := &ec2.DescribeImagesInput{MaxResults: aws.Int32(5)}
	fp := func() uint64 {
		q, aerr := b.compileImageQuery(in)
		if aerr != nil {
			t.Fatal(aerr.message)
		}
		return q.fingerprint
	}()
	tests := []struct {
		after     string
		wantFirst string // first ID of the page; "" for an empty page
	}{
		{"ami-ffffffffffffffffff"[:21], ""},
		{"ami-00000000", "ami-006c44df43415061d"},
	}
	for _, tc := range tests {
		next := clone(*in)
		next.NextToken = aws.String(encodeToken(tokenOpImages, fp, tc.after))
		out, err := b.DescribeImages(context.Background(), &next)
		if err != nil {
			t.Fatalf("after %s: %v", tc.after, err)
		}
		got := ""
		if len(out.Images) > 0 {
			got = *out.Images[0].ImageId
		}
		if got != tc.wantFirst {
			t.Errorf("after %s: first image %q; want %q", tc.after, got, tc.wantFirst)
		}
	}
	// A token whose key is not an image ID is refused.
	bad := clone(*in)
	bad.NextToken = aws.String(encodeToken(tokenOpImages, fp, "../../etc"))
	if _, err := b.DescribeImages(context.Background(), &bad); describeErr(err) == nil || describeErr(err).Code != CodeInvalidParameterValue {
		t.Errorf("token with a non-ID key: err = %v; want %s", err, CodeInvalidParameterValue)
	}
}
