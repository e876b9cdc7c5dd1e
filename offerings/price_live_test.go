package offerings_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/offerings"
)

var fakeNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func newFake(t testing.TB) (*ec2fake.Backend, string) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return fakeNow }})
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	return b, srv.URL
}

// karpenterOnDemand reads a region's on-demand prices the way Karpenter
// v1.14.1 does (pkg/providers/pricing/pricing.go:185-311, onDemandPage
// :343-385): its filters, its two passes, MaxResults 100, every page, and
// its decoding (the instance type and any non-zero pricePerUnit in the
// region's currency), the metal pass overwriting the first (lo.Assign,
// :251).
func karpenterOnDemand(t *testing.T, client *pricing.Client, region, os string) map[string]float64 {
	t.Helper()
	currency := "USD"
	if strings.HasPrefix(region, "cn-") {
		currency = "CNY"
	}
	prices := map[string]float64{}
	for _, pass := range [][2]string{{"Shared", "Compute Instance"}, {"Dedicated", "Compute Instance (bare metal)"}} {
		filters := append(offerings.KarpenterPriceFilters(region, os),
			pricingtypes.Filter{Field: aws.String("tenancy"), Type: "TERM_MATCH", Value: aws.String(pass[0])},
			pricingtypes.Filter{Field: aws.String("productFamily"), Type: "TERM_MATCH", Value: aws.String(pass[1])})
		pages := pricing.NewGetProductsPaginator(client, &pricing.GetProductsInput{Filters: filters, ServiceCode: aws.String("AmazonEC2"), MaxResults: aws.Int32(100)})
		for pages.HasMorePages() {
			out, err := pages.NextPage(context.Background())
			if err != nil {
				t.Fatalf("%s %v: %v", region, pass, err)
			}
			for _, doc := range out.PriceList {
				var item struct {
					Product struct{ Attributes struct{ InstanceType string } }
					Terms   struct {
						OnDemand map[string]struct {
							PriceDimensions map[string]struct{ PricePerUnit map[string]string }
						}
					}
				}
				if err := json.Unmarshal([]byte(doc), &item); err != nil {
					t.Fatal(err)
				}
				for _, term := range item.Terms.OnDemand {
					for _, d := range term.PriceDimensions {
						if p, err := strconv.ParseFloat(d.PricePerUnit[currency], 64); err == nil && p != 0 {
							prices[item.Product.Attributes.InstanceType] = p
						}
					}
				}
			}
		}
	}
	return prices
}

// Acceptance: for every (type, region, OS) in the embedded snapshot, a real
// *pricing.Client sending Karpenter's filters over HTTP to ec2fake gets
// exactly the snapshot's price; and LoadPriceSnapshot, which sends the
// same filters, reads back exactly the embedded snapshot.
func TestEmbeddedSnapshotThroughPricingClient(t *testing.T) {
	b, url := newFake(t)
	client := ec2fake.NewPricingClient(url)
	embedded := offerings.EmbeddedPriceSnapshot()
	want := map[string]map[string]float64{} // region/OS -> type -> price
	for _, lp := range embedded.ListPrices() {
		k := lp.Region + "/" + lp.OperatingSystem
		if want[k] == nil {
			want[k] = map[string]float64{}
		}
		want[k][lp.InstanceType] = lp.Price
	}
	checked := 0
	for _, k := range slices.Sorted(maps.Keys(want)) {
		region, os, _ := strings.Cut(k, "/")
		got := karpenterOnDemand(t, client, region, os)
		if diff := cmp.Diff(want[k], got); diff != "" {
			t.Errorf("%s %s through Karpenter's filters (-snapshot +fake):\n%s", region, os, diff)
		}
		checked += len(got)
	}
	if checked != 2904 {
		t.Errorf("checked %d prices; the snapshot has 2,904", checked)
	}
	// The fake saw Karpenter's filters, by name and value, as sent.
	var sawKarpenter bool
	for _, c := range b.Calls() {
		if in, ok := c.Input.(*pricing.GetProductsInput); ok && len(in.Filters) == 8 && aws.ToString(in.Filters[1].Field) == "serviceCode" {
			sawKarpenter = true
		}
	}
	if !sawKarpenter {
		t.Error("the fake's call log has no GetProducts with Karpenter's eight filters")
	}

	// LoadPriceSnapshot reads each region back exactly.
	for _, src := range embedded.Sources() {
		snap, err := offerings.LoadPriceSnapshot(context.Background(), offerings.PriceSources{Pricing: client}, src.Region, offerings.PriceLoadOptions{Now: func() time.Time { return fakeNow }})
		if err != nil {
			t.Fatal(err)
		}
		var wantRegion []offerings.ListPrice
		for _, lp := range embedded.ListPrices() {
			if lp.Region == src.Region {
				wantRegion = append(wantRegion, lp)
			}
		}
		if diff := cmp.Diff(wantRegion, snap.ListPrices()); diff != "" {
			t.Errorf("%s: LoadPriceSnapshot (-embedded +loaded):\n%s", src.Region, diff)
		}
	}
}

// A snapshot a user writes for another region, with Windows prices, loads
// into the fake and back through LoadPriceSnapshot, and prices Windows
// offerings there; Linux in that region, and any price in a region no
// snapshot covers, stays unknown rather than borrowed from us-east-1.
func TestUserSnapshotRoundTrip(t *testing.T) {
	b, url := newFake(t)
	const user = "format\t1\n" +
		"source\teu-west-1\tUSD\t2026-11-19T08:00:00Z\ta test's own snapshot\n" +
		"ondemand\teu-west-1\tm5.large\tWindows\tNo License required\tShared\tCompute Instance\t0.2140000000\n" +
		"ondemand\teu-west-1\tm5.large\tWindows\tBring your own license\tShared\tCompute Instance\t0.1070000000\n" +
		"ondemand\teu-west-1\tm5.metal\tWindows\tNo License required\tDedicated\tCompute Instance (bare metal)\t9.9840000000\n"
	if err := b.LoadPrices(strings.NewReader(user)); err != nil {
		t.Fatal(err)
	}
	snap, err := offerings.LoadPriceSnapshot(context.Background(), offerings.PriceSources{Pricing: ec2fake.NewPricingClient(url)}, "eu-west-1",
		offerings.PriceLoadOptions{OS: []offerings.OS{offerings.Linux, offerings.Windows}, Now: func() time.Time { return fakeNow }})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := snap.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	read, err := offerings.ReadPriceSnapshot(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(snap.ListPrices(), read.ListPrices()); diff != "" {
		t.Errorf("write and read (-loaded +read):\n%s", diff)
	}
	if n := len(read.ListPrices()); n != 2 {
		t.Errorf("loaded %d prices; want the two licence-included Windows ones (BYOL is not Windows with licence)", n)
	}
	book := offerings.NewPriceBook(offerings.EmbeddedPriceSnapshot(), read)
	win, _ := book.Price(offerings.Offering{InstanceType: "m5.large", Zone: "eu-west-1a", CapacityType: offerings.OnDemand}, offerings.PriceOptions{OS: offerings.Windows})
	if !win.Known || win.Effective != 0.214 {
		t.Errorf("Windows m5.large in eu-west-1: %s", win.Explain())
	}
	linux, _ := book.Price(offerings.Offering{InstanceType: "m5.large", Zone: "eu-west-1a", CapacityType: offerings.OnDemand}, offerings.PriceOptions{})
	if linux.Known || !strings.Contains(linux.Reason, "does not list it") {
		t.Errorf("Linux m5.large in eu-west-1 should be unknown (the snapshot has Windows only): %s", linux.Explain())
	}
	elsewhere, _ := book.Price(offerings.Offering{InstanceType: "m5.large", Zone: "ap-south-1a", CapacityType: offerings.OnDemand}, offerings.PriceOptions{})
	if elsewhere.Known || !strings.Contains(elsewhere.Reason, "no snapshot covers ap-south-1") {
		t.Errorf("m5.large in ap-south-1 should be unknown, never us-east-1's price: %s", elsewhere.Explain())
	}
}

// Acceptance: spot prices read through *ec2.Client equal the fake's latest
// history entry per zone.
func TestSpotThroughEC2Client(t *testing.T) {
	_, url := newFake(t)
	client := ec2fake.NewClient(url)
	ctx := context.Background()
	// Karpenter's request (pricing.go:394-403): StartTime now, 2,000 a page.
	current := map[string]string{}
	pages := ec2.NewDescribeSpotPriceHistoryPaginator(client, &ec2.DescribeSpotPriceHistoryInput{
		ProductDescriptions: []string{"Linux/UNIX", "Linux/UNIX (Amazon VPC)"}, StartTime: aws.Time(fakeNow), MaxResults: aws.Int32(2000)})
	for pages.HasMorePages() {
		out, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range out.SpotPriceHistory {
			k := aws.ToString(sp.AvailabilityZone) + " " + string(sp.InstanceType)
			if _, dup := current[k]; dup {
				t.Fatalf("%s answered twice for StartTime now", k)
			}
			current[k] = aws.ToString(sp.SpotPrice)
		}
	}
	// The latest entry of each zone's whole history.
	latest, at := map[string]string{}, map[string]time.Time{}
	full := ec2.NewDescribeSpotPriceHistoryPaginator(client, &ec2.DescribeSpotPriceHistoryInput{
		ProductDescriptions: []string{"Linux/UNIX"}, StartTime: aws.Time(fakeNow.Add(-72 * time.Hour)), InstanceTypes: []ec2types.InstanceType{"m5.large", "c7i-flex.large", "p5.48xlarge"}})
	for full.HasMorePages() {
		out, err := full.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range out.SpotPriceHistory {
			k := aws.ToString(sp.AvailabilityZone) + " " + string(sp.InstanceType)
			if sp.Timestamp.After(at[k]) {
				latest[k], at[k] = aws.ToString(sp.SpotPrice), *sp.Timestamp
			}
		}
	}
	n := 0
	for k := range current {
		if _, typ, _ := strings.Cut(k, " "); typ == "m5.large" || typ == "c7i-flex.large" || typ == "p5.48xlarge" {
			n++
		}
	}
	if len(latest) < 6 || len(latest) != n {
		t.Fatalf("history for %d (zone, type) pairs of the three types; StartTime now answers for %d", len(latest), n)
	}
	for k, v := range latest {
		if current[k] != v {
			t.Errorf("%s: StartTime now answers %s; the latest history entry is %s", k, current[k], v)
		}
	}
	// And the price book, loaded live, prices each spot offering at it.
	snap, err := offerings.LoadPriceSnapshot(ctx, offerings.PriceSources{EC2: client}, "us-east-1", offerings.PriceLoadOptions{Now: func() time.Time { return fakeNow }})
	if err != nil {
		t.Fatal(err)
	}
	book := offerings.NewPriceBook(snap)
	for k, v := range current {
		zone, typ, _ := strings.Cut(k, " ")
		p, _ := book.Price(offerings.Offering{InstanceType: typ, Zone: zone, CapacityType: offerings.Spot}, offerings.PriceOptions{})
		want, _ := strconv.ParseFloat(v, 64)
		if !p.Known || p.Effective != want {
			t.Fatalf("%s: book says %s; EC2 says %s", k, p.Explain(), v)
		}
	}
}
