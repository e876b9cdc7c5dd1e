package offerings

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/pricing"

	"github.com/ec2select/ec2select/ec2fake"
)

// benchBook returns a book of the embedded snapshot and the fake's current
// spot prices, and every offering of the fake's catalog in us-east-1 (its
// zones and the types each offers, as Load reads them, spot and
// on-demand).
func benchBook(b *testing.B) (*PriceBook, []Offering) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	fake := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return now }})
	spot, err := LoadPriceSnapshot(context.Background(), PriceSources{EC2: fake}, "us-east-1", PriceLoadOptions{Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	region, err := Load(context.Background(), fake, LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return NewPriceBook(EmbeddedPriceSnapshot(), spot), region.Offerings()
}

// BenchmarkPriceCatalog prices every offering of the catalog in one
// region, with a Savings Plan and an enterprise discount. Target: ≤ 10 ms.
func BenchmarkPriceCatalog(b *testing.B) {
	book, os := benchBook(b)
	opts := PriceOptions{Discounts: Discounts{SavingsPlans: []SavingsPlanRate{{Region: "us-east-1", Family: "m5", Percent: 28}}, EnterprisePercent: 6}}
	b.ReportAllocs()
	b.ReportMetric(float64(len(os)), "offerings")
	for b.Loop() {
		if _, err := book.PriceAll(os, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// priceListDocs returns n GetProducts documents as the fake serves them,
// and, with reserved, as AWS serves them for a product with Reserved
// Instance terms: twelve (1 and 3 years × three payment options ×
// standard and convertible), which make a document several times larger.
func priceListDocs(b testing.TB, n int, reserved bool) []string {
	fake := ec2fake.NewWithCatalog(ec2fake.Options{})
	var docs []string
	pages := pricing.NewGetProductsPaginator(fake, &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), Filters: KarpenterPriceFilters("us-east-1", "Linux")})
	for pages.HasMorePages() && len(docs) < n {
		out, err := pages.NextPage(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, out.PriceList...)
	}
	docs = docs[:n]
	if reserved {
		for i, d := range docs {
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				b.Fatal(err)
			}
			terms := map[string]any{}
			for j := range 12 {
				code := fmt.Sprintf("SKU.RESERVED%02d", j)
				terms[code] = map[string]any{"priceDimensions": map[string]any{
					code + ".2TG2D8R56U": map[string]any{"unit": "Quantity", "description": "Upfront Fee", "appliesTo": []string{}, "rateCode": code + ".2TG2D8R56U", "pricePerUnit": map[string]string{"USD": "494"}},
					code + ".6YS6EN2CT7": map[string]any{"unit": "Hrs", "endRange": "Inf", "beginRange": "0", "description": "Linux/UNIX (Amazon VPC), reserved instance applied", "appliesTo": []string{}, "rateCode": code + ".6YS6EN2CT7", "pricePerUnit": map[string]string{"USD": "0.0340000000"}},
				}, "sku": "SKU", "effectiveDate": "2020-04-01T00:00:00Z", "offerTermCode": code,
					"termAttributes": map[string]string{"LeaseContractLength": "1yr", "OfferingClass": "standard", "PurchaseOption": "Partial Upfront"}}
			}
			m["terms"].(map[string]any)["Reserved"] = terms
			out, _ := json.Marshal(m)
			docs[i] = string(out)
		}
	}
	return docs
}

// BenchmarkDecodePriceList decodes 1,000 GetProducts SKUs. Target: ≤ 50 ms.
func BenchmarkDecodePriceList(b *testing.B) {
	for _, reserved := range []bool{false, true} {
		b.Run(map[bool]string{false: "fake-shape", true: "with-reserved-terms"}[reserved], func(b *testing.B) {
			docs := priceListDocs(b, 1000, reserved)
			size := 0
			for _, d := range docs {
				size += len(d)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, d := range docs {
					if _, ok, err := decodePriceListItem(d, "USD"); err != nil || !ok {
						b.Fatal(err, ok)
					}
				}
			}
		})
	}
}

func priceListDocsT(t *testing.T, n int, reserved bool) []string {
	return priceListDocs(t, n, reserved)
}
