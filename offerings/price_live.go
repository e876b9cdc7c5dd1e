package offerings

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"

	"github.com/ec2select/ec2select/internal/pricedata"
)

// PricingRegion returns the region whose Price List Query API endpoint
// serves prices for region. AWS serves the API from us-east-1, eu-central-1
// and ap-south-1 (api.pricing.REGION.amazonaws.com, "Using the AWS Price
// List Query API" in the AWS Billing User Guide), and for the China regions
// from cn-northwest-1 (api.pricing.cn-northwest-1.amazonaws.com.cn); every
// endpoint lists every region of its partition. The nearest is chosen as
// Karpenter chooses it (karpenter-provider-aws v1.14.1
// pkg/providers/pricing/pricing.go:114-128): ap-* → ap-south-1, cn-* →
// cn-northwest-1, eu-* → eu-central-1, anything else (GovCloud too, whose
// prices only the commercial endpoints list) → us-east-1. Where an SCP
// denies that region (karpenter-provider-aws #2604, #3522), build the
// client for another of the three: the answer is the same.
func PricingRegion(region string) string {
	switch {
	case strings.HasPrefix(region, "ap-"):
		return "ap-south-1"
	case strings.HasPrefix(region, "cn-"):
		return "cn-northwest-1"
	case strings.HasPrefix(region, "eu-"):
		return "eu-central-1"
	}
	return "us-east-1"
}

// PriceSources are the live clients [LoadPriceSnapshot] reads: a
// *pricing.Client (whose region [PricingRegion] chooses) and an
// *ec2.Client for the region priced. Either may be nil to skip its prices.
type PriceSources struct {
	Pricing pricing.GetProductsAPIClient
	EC2     ec2.DescribeSpotPriceHistoryAPIClient
}

// PriceLoadOptions tunes [LoadPriceSnapshot]. The zero value reads Linux
// on-demand prices the way Karpenter does and the current spot prices.
type PriceLoadOptions struct {
	// OS lists the operating systems to read; empty means Linux.
	OS []OS
	// Dedicated also reads dedicated-tenancy prices of non-metal types.
	Dedicated bool
	// SpotWindow reads the spot price history of this long a window ending
	// now, rather than the current prices only (at most 90 days, EC2's
	// limit).
	SpotWindow time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// LoadPriceSnapshot reads region's prices live and returns them as a
// snapshot, which [PriceSnapshot.WriteTo] saves and [NewPriceBook] loads.
//
// On-demand prices come from GetProducts with Karpenter's filters
// (TERM_MATCH regionCode, serviceCode AmazonEC2, preInstalledSw NA,
// operatingSystem, capacitystatus Used, marketoption OnDemand;
// pricing.go:258-291), in Karpenter's two passes (tenancy Shared with
// productFamily "Compute Instance", tenancy Dedicated with "Compute
// Instance (bare metal)"; pricing.go:210-237), plus licenseModel "No
// License required" for Windows (licence included, not BYOL), MaxResults
// 100 and every page. Spot prices come from DescribeSpotPriceHistory for
// the operating systems' product descriptions, with StartTime now (the
// price in force per type, zone and product) or now − SpotWindow, every
// page.
//
// A failed page fails the whole load: a snapshot is never partial. Errors
// wrap the SDK's, so errors.As finds smithy.APIError.
func LoadPriceSnapshot(ctx context.Context, src PriceSources, region string, opts PriceLoadOptions) (*PriceSnapshot, error) {
	if pricedataRegion(region) != nil {
		return nil, fmt.Errorf("offerings: LoadPriceSnapshot: %q is not a region name such as us-east-1", region)
	}
	if opts.SpotWindow < 0 || opts.SpotWindow > 90*24*time.Hour {
		return nil, fmt.Errorf("offerings: LoadPriceSnapshot: spot window %v: want 0 (current prices) to 90 days", opts.SpotWindow)
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	oses := opts.OS
	if len(oses) == 0 {
		oses = []OS{Linux}
	}
	at := now().UTC().Truncate(time.Second)
	t := &pricedata.Table{Sources: []pricedata.Source{{Region: region, Currency: currencyOf(region), AsOf: at, Description: describeSources(src, region)}}}
	if src.Pricing != nil {
		if err := loadOnDemand(ctx, src.Pricing, region, oses, opts.Dedicated, t); err != nil {
			return nil, err
		}
	}
	if src.EC2 != nil {
		if err := loadSpot(ctx, src.EC2, region, oses, at, opts.SpotWindow, t); err != nil {
			return nil, err
		}
	}
	t.Sort()
	return &PriceSnapshot{t: t}, nil
}

func pricedataRegion(region string) error {
	if !zoneRegion.MatchString(region) || zoneRegion.FindString(region) != region {
		return errors.New("not a region")
	}
	return nil
}

func describeSources(src PriceSources, region string) string {
	var parts []string
	if src.Pricing != nil {
		parts = append(parts, "Price List Query API GetProducts for "+region)
	}
	if src.EC2 != nil {
		parts = append(parts, "EC2 DescribeSpotPriceHistory in "+region)
	}
	if len(parts) == 0 {
		return "no live source"
	}
	return strings.Join(parts, "; ")
}

// listKey identifies a list price: a product's region, type and
// Price List attributes.
type listKey struct {
	region, instanceType, os, license, tenancy, family string
}

// onDemandPass is one GetProducts query's extra filters.
type onDemandPass struct{ tenancy, family string }

func loadOnDemand(ctx context.Context, client pricing.GetProductsAPIClient, region string, oses []OS, dedicated bool, t *pricedata.Table) error {
	passes := []onDemandPass{{"Shared", "Compute Instance"}, {"Dedicated", "Compute Instance (bare metal)"}}
	if dedicated {
		passes = append(passes, onDemandPass{"Dedicated", "Compute Instance"})
	}
	seen := map[listKey]decodedPrice{}
	for _, os := range oses {
		for _, pass := range passes {
			if err := loadPass(ctx, client, region, os, pass, seen); err != nil {
				return err
			}
		}
	}
	for k, d := range seen {
		t.OnDemand = append(t.OnDemand, pricedata.OnDemand{Region: k.region, InstanceType: k.instanceType, OS: k.os, License: k.license,
			Tenancy: k.tenancy, Family: k.family, Price: d.price, Value: d.value})
	}
	return nil
}

// KarpenterPriceFilters are the GetProducts filters Karpenter v1.14.1
// sends for a region's on-demand prices (pricing.go:258-291), before its
// two passes add tenancy and productFamily.
func KarpenterPriceFilters(region, operatingSystem string) []pricingtypes.Filter {
	term := func(field, value string) pricingtypes.Filter {
		return pricingtypes.Filter{Field: aws.String(field), Type: pricingtypes.FilterTypeTermMatch, Value: aws.String(value)}
	}
	return []pricingtypes.Filter{term("regionCode", region), term("serviceCode", "AmazonEC2"), term("preInstalledSw", "NA"),
		term("operatingSystem", operatingSystem), term("capacitystatus", "Used"), term("marketoption", "OnDemand")}
}

func loadPass(ctx context.Context, client pricing.GetProductsAPIClient, region string, os OS, pass onDemandPass, seen map[listKey]decodedPrice) error {
	osName, license := os.priceListOS()
	filters := append(KarpenterPriceFilters(region, osName),
		pricingtypes.Filter{Field: aws.String("tenancy"), Type: pricingtypes.FilterTypeTermMatch, Value: aws.String(pass.tenancy)},
		pricingtypes.Filter{Field: aws.String("productFamily"), Type: pricingtypes.FilterTypeTermMatch, Value: aws.String(pass.family)})
	if os == Windows {
		filters = append(filters, pricingtypes.Filter{Field: aws.String("licenseModel"), Type: pricingtypes.FilterTypeTermMatch, Value: aws.String(license)})
	}
	in := &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), Filters: filters, FormatVersion: aws.String("aws_v1"), MaxResults: aws.Int32(100)}
	pages := pricing.NewGetProductsPaginator(client, in, func(o *pricing.GetProductsPaginatorOptions) { o.StopOnDuplicateToken = true })
	currency := currencyOf(region)
	for pages.HasMorePages() {
		out, err := pages.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("offerings: GetProducts for %s (%s, %s, %s): %w", region, osName, pass.tenancy, pass.family, err)
		}
		for _, doc := range out.PriceList {
			d, ok, err := decodePriceListItem(doc, currency)
			if err != nil {
				return err
			}
			if !ok || d.region != region {
				continue
			}
			k := listKey{d.region, d.instanceType, d.os, d.license, d.tenancy, d.family}
			// Duplicates (AWS lists some products twice) keep the SKU that
			// sorts first, whatever the page order.
			if prev, dup := seen[k]; !dup || d.sku < prev.sku {
				seen[k] = d
			}
		}
	}
	return nil
}

func loadSpot(ctx context.Context, client ec2.DescribeSpotPriceHistoryAPIClient, region string, oses []OS, now time.Time, window time.Duration, t *pricedata.Table) error {
	var products []string
	for _, os := range oses {
		products = append(products, os.spotProducts()...)
	}
	in := &ec2.DescribeSpotPriceHistoryInput{ProductDescriptions: products, StartTime: aws.Time(now.Add(-window)), EndTime: aws.Time(now), MaxResults: aws.Int32(1000)}
	pages := ec2.NewDescribeSpotPriceHistoryPaginator(client, in, func(o *ec2.DescribeSpotPriceHistoryPaginatorOptions) { o.StopOnDuplicateToken = true })
	type entryKey struct {
		zone, instanceType, product string
		at                          time.Time
	}
	seen := map[entryKey]bool{}
	for pages.HasMorePages() {
		out, err := pages.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("offerings: DescribeSpotPriceHistory in %s: %w", region, err)
		}
		for _, sp := range out.SpotPriceHistory {
			e, ok := spotRecord(region, sp)
			k := entryKey{e.Zone, e.InstanceType, e.Product, e.Timestamp}
			if ok && !seen[k] {
				seen[k] = true
				t.Spot = append(t.Spot, e)
			}
		}
	}
	return nil
}

// spotRecord converts one history entry; entries of another region, or
// without a price or time, are skipped (Karpenter skips them too,
// pricing.go:313-338).
func spotRecord(region string, sp ec2types.SpotPrice) (pricedata.Spot, bool) {
	zone, text := aws.ToString(sp.AvailabilityZone), aws.ToString(sp.SpotPrice)
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || v < 0 || sp.Timestamp == nil || RegionOfZone(zone) != region {
		return pricedata.Spot{}, false
	}
	return pricedata.Spot{Region: region, Zone: zone, InstanceType: string(sp.InstanceType), Product: string(sp.ProductDescription),
		Price: text, Value: v, Timestamp: sp.Timestamp.UTC().Truncate(time.Second)}, true
}
