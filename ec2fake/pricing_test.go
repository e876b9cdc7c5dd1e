package ec2fake_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
	"github.com/aws/smithy-go"

	"github.com/ec2select/ec2select/ec2fake"
)

func filter(kind pricingtypes.FilterType, field, value string) pricingtypes.Filter {
	return pricingtypes.Filter{Type: kind, Field: aws.String(field), Value: aws.String(value)}
}

func productTypes(t *testing.T, c pricing.GetProductsAPIClient, filters ...pricingtypes.Filter) []string {
	t.Helper()
	var types []string
	pages := pricing.NewGetProductsPaginator(c, &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), Filters: filters, MaxResults: aws.Int32(7)})
	for pages.HasMorePages() {
		out, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range out.PriceList {
			var doc struct {
				Product struct{ Attributes map[string]string }
			}
			if err := json.Unmarshal([]byte(d), &doc); err != nil {
				t.Fatal(err)
			}
			types = append(types, doc.Product.Attributes["regionCode"]+" "+doc.Product.Attributes["instanceType"])
		}
	}
	return types
}

// Filter types and case rules, in process and over HTTP alike.
func TestGetProductsFilters(t *testing.T) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{})
	srv := ec2fake.NewServer(b)
	defer srv.Close()
	for name, c := range map[string]pricing.GetProductsAPIClient{"in process": b, "HTTP": ec2fake.NewPricingClient(srv.URL)} {
		t.Run(name, func(t *testing.T) {
			tests := []struct {
				name    string
				filters []pricingtypes.Filter
				want    int
			}{
				// Field names and TERM_MATCH values ignore case: Karpenter
				// sends serviceCode/Linux/Used, instance-selector
				// ServiceCode/linux/used (reference offerings-and-prices.md 3d).
				{"term match ignores case", []pricingtypes.Filter{filter("TERM_MATCH", "REGIONCODE", "US-EAST-1"), filter("TERM_MATCH", "instanceType", "M5.LARGE")}, 1},
				{"equals is exact", []pricingtypes.Filter{filter("EQUALS", "regionCode", "US-EAST-1")}, 0},
				{"equals", []pricingtypes.Filter{filter("EQUALS", "instanceType", "m5.large")}, 4},
				{"contains", []pricingtypes.Filter{filter("EQUALS", "regionCode", "us-east-1"), filter("CONTAINS", "instanceType", "m5.2x")}, 1},
				{"any of", []pricingtypes.Filter{filter("EQUALS", "regionCode", "us-east-1"), filter("ANY_OF", "instanceType", "m5.large, m5.xlarge,nope.large")}, 2},
				{"none of", []pricingtypes.Filter{filter("EQUALS", "instanceType", "m5.large"), filter("NONE_OF", "regionCode", "us-east-1,cn-north-1")}, 2},
				{"missing field matches nothing", []pricingtypes.Filter{filter("EQUALS", "volumeType", "gp3")}, 0},
				{"bare metal product", []pricingtypes.Filter{filter("TERM_MATCH", "productFamily", "Compute Instance (bare metal)"), filter("TERM_MATCH", "instanceType", "m5.metal")}, 4},
			}
			for _, tc := range tests {
				if got := productTypes(t, c, tc.filters...); len(got) != tc.want {
					t.Errorf("%s: %d products %v; want %d", tc.name, len(got), got, tc.want)
				}
			}
		})
	}
}

func TestGetProductsErrors(t *testing.T) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{})
	srv := ec2fake.NewServer(b)
	defer srv.Close()
	c := ec2fake.NewPricingClient(srv.URL)
	ctx := context.Background()
	var notFound *pricingtypes.NotFoundException
	if _, err := c.GetProducts(ctx, &pricing.GetProductsInput{ServiceCode: aws.String("AmazonS3")}); !errors.As(err, &notFound) {
		t.Errorf("unknown service: %v", err)
	}
	var invalid *pricingtypes.InvalidParameterException
	if _, err := c.GetProducts(ctx, &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), Filters: []pricingtypes.Filter{filter("LIKE", "x", "y")}}); !errors.As(err, &invalid) {
		t.Errorf("unknown filter type: %v", err)
	}
	if _, err := c.GetProducts(ctx, &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), MaxResults: aws.Int32(101)}); !errors.As(err, &invalid) {
		t.Errorf("MaxResults 101: %v", err)
	}
	var badToken *pricingtypes.InvalidNextTokenException
	if _, err := c.GetProducts(ctx, &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), NextToken: aws.String("nope")}); !errors.As(err, &badToken) {
		t.Errorf("made-up token: %v", err)
	}
	// A token from another request (other filters) is refused.
	out, err := c.GetProducts(ctx, &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), MaxResults: aws.Int32(1)})
	if err != nil || out.NextToken == nil {
		t.Fatal(err)
	}
	if _, err := c.GetProducts(ctx, &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), NextToken: out.NextToken,
		Filters: []pricingtypes.Filter{filter("TERM_MATCH", "regionCode", "us-east-1")}}); !errors.As(err, &badToken) {
		t.Errorf("token from another request: %v", err)
	}
	// An SCP that denies the Price List (karpenter-provider-aws #3522).
	if err := b.InjectFault(ec2fake.Fault{Operation: ec2fake.OpGetProducts, Code: ec2fake.CodeAccessDeniedException, Times: 1}); err != nil {
		t.Fatal(err)
	}
	// (pricing v1.40.8, the floor, decodes it as a generic API error with
	// that code; later releases as *pricingtypes.AccessDeniedException.)
	var denied smithy.APIError
	if _, err := c.GetProducts(ctx, &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2")}); !errors.As(err, &denied) || denied.ErrorCode() != "AccessDeniedException" {
		t.Errorf("injected AccessDeniedException: %v", err)
	}
	if _, err := b.GetProducts(ctx, &pricing.GetProductsInput{}); err == nil {
		t.Error("no ServiceCode accepted in process")
	}
	services, err := c.DescribeServices(ctx, &pricing.DescribeServicesInput{ServiceCode: aws.String("AmazonEC2")})
	if err != nil || len(services.Services) != 1 || !strings.Contains(strings.Join(services.Services[0].AttributeNames, ","), "instanceType") {
		t.Errorf("DescribeServices: %+v, %v", services, err)
	}
	var regions []string
	pages := pricing.NewGetAttributeValuesPaginator(c, &pricing.GetAttributeValuesInput{ServiceCode: aws.String("AmazonEC2"), AttributeName: aws.String("regionCode"), MaxResults: aws.Int32(3)})
	for pages.HasMorePages() {
		out, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range out.AttributeValues {
			regions = append(regions, aws.ToString(v.Value))
		}
	}
	if strings.Join(regions, ",") != "cn-north-1,us-east-1,us-gov-east-1,us-gov-west-1" {
		t.Errorf("GetAttributeValues regionCode: %v", regions)
	}
}

// DescribeSpotPriceHistory: a window returns the changes in it and the
// price in force at its start (the SDK's documentation of the operation,
// api_op_DescribeSpotPriceHistory.go: "It also returns the last price
// change before the start time"); the history at an instant never changes
// as the clock moves on; pages cover it exactly once.
func TestSpotPriceHistorySemantics(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	clock := now
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return clock }})
	ctx := context.Background()
	window := func(from, to time.Time, page int32) []ec2types.SpotPrice {
		var all []ec2types.SpotPrice
		p := ec2.NewDescribeSpotPriceHistoryPaginator(b, &ec2.DescribeSpotPriceHistoryInput{InstanceTypes: []ec2types.InstanceType{"m5.large"},
			AvailabilityZone: aws.String("us-east-1a"), StartTime: aws.Time(from), EndTime: aws.Time(to), MaxResults: aws.Int32(page)})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, out.SpotPriceHistory...)
		}
		return all
	}
	week := window(now.Add(-7*24*time.Hour), now, 1000)
	if len(week) < 10 {
		t.Fatalf("a week of m5.large in us-east-1a has %d entries; the walk changes about 3 times a day", len(week))
	}
	for i := 1; i < len(week); i++ {
		if week[i].Timestamp.After(*week[i-1].Timestamp) {
			t.Fatal("entries are not newest first")
		}
	}
	if last := week[len(week)-1]; !last.Timestamp.Before(now.Add(-7*24*time.Hour)) && !last.Timestamp.Equal(now.Add(-7*24*time.Hour)) {
		t.Errorf("the oldest entry %v is not the price in force at the window's start", last.Timestamp)
	}
	if paged := window(now.Add(-7*24*time.Hour), now, 5); len(paged) != len(week) {
		t.Errorf("pages of 5 give %d entries; one page gives %d", len(paged), len(week))
	}
	clock = now.Add(48 * time.Hour)
	if later := window(now.Add(-7*24*time.Hour), now, 1000); len(later) != len(week) || *later[0].SpotPrice != *week[0].SpotPrice {
		t.Error("the history of a past window changed as the clock moved on")
	}
	clock = now
	cases := []struct {
		name string
		in   ec2.DescribeSpotPriceHistoryInput
	}{
		{"start after end", ec2.DescribeSpotPriceHistoryInput{StartTime: aws.Time(now), EndTime: aws.Time(now.Add(-time.Hour))}},
		{"zone and zone ID", ec2.DescribeSpotPriceHistoryInput{AvailabilityZone: aws.String("us-east-1a"), AvailabilityZoneId: aws.String("use1-az1")}},
		{"max results", ec2.DescribeSpotPriceHistoryInput{MaxResults: aws.Int32(1)}},
		{"unknown filter", ec2.DescribeSpotPriceHistoryInput{Filters: []ec2types.Filter{{Name: aws.String("region"), Values: []string{"x"}}}}},
	}
	for _, tc := range cases {
		var apiErr smithy.APIError
		if _, err := b.DescribeSpotPriceHistory(ctx, &tc.in); !errors.As(err, &apiErr) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	out, err := b.DescribeSpotPriceHistory(ctx, &ec2.DescribeSpotPriceHistoryInput{StartTime: aws.Time(now),
		Filters: []ec2types.Filter{{Name: aws.String("instance-type"), Values: []string{"m5.*"}}, {Name: aws.String("availability-zone-id"), Values: []string{"use1-az2"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range out.SpotPriceHistory {
		if !strings.HasPrefix(string(s.InstanceType), "m5.") || aws.ToString(s.AvailabilityZoneId) != "use1-az2" {
			t.Fatalf("filters let through %s in %s", s.InstanceType, aws.ToString(s.AvailabilityZone))
		}
	}
	if len(out.SpotPriceHistory) == 0 {
		t.Error("no m5 spot price in use1-az2")
	}
}
