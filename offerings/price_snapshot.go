package offerings

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ec2select/ec2select/internal/pricedata"
)

// PriceSnapshot is a dated set of prices: on-demand list prices per
// region, instance type, operating system and tenancy, and spot price
// history entries per zone, each region with its source and as-of time.
// The embedded one ([EmbeddedPriceSnapshot]), one you wrote
// ([ReadPriceSnapshot]) and a live one ([LoadPriceSnapshot]) are the same
// type and are loaded the same way, into a [PriceBook]. A PriceSnapshot is
// immutable and safe for concurrent use.
//
// Its file form is tab-separated text, one record per line (the format is
// documented in internal/pricedata/pricedata.go):
//
//	format	1
//	source	eu-west-1	USD	2026-11-20T10:00:00Z	Price List Query API GetProducts via api.pricing.eu-central-1
//	ondemand	eu-west-1	m5.large	Linux	No License required	Shared	Compute Instance	0.1070000000
//	spot	eu-west-1	eu-west-1a	m5.large	Linux/UNIX	0.041200	2026-11-20T09:41:13Z
type PriceSnapshot struct {
	t *pricedata.Table
}

// EmbeddedPriceSnapshot returns the snapshot compiled into the library:
// Karpenter v1.14.1's generated on-demand tables for us-east-1 (as of
// 2026-07-06), us-gov-east-1 and us-gov-west-1 (2026-06-15) and
// cn-north-1 (in CNY, 2024-11-06), Linux only, no spot prices
// (internal/pricedata/README.md says how it was made). Every other region,
// Windows and spot are unknown until you add a snapshot that has them.
func EmbeddedPriceSnapshot() *PriceSnapshot {
	t, err := pricedata.Embedded()
	if err != nil {
		// TestEmbeddedSnapshot decodes the file; it only fails if the file
		// was edited by hand.
		panic(fmt.Sprintf("offerings: the embedded price snapshot does not decode: %v", err))
	}
	return &PriceSnapshot{t: t}
}

// ReadPriceSnapshot reads a snapshot written by [PriceSnapshot.WriteTo].
// It is strict: an error names the line and what is wrong with it.
func ReadPriceSnapshot(r io.Reader) (*PriceSnapshot, error) {
	t, err := pricedata.Read(r)
	if err != nil {
		return nil, fmt.Errorf("offerings: reading a price snapshot: %w", err)
	}
	return &PriceSnapshot{t: t}, nil
}

// WriteTo writes the snapshot in its file form, sorted, so that the same
// snapshot always writes the same bytes.
func (s *PriceSnapshot) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	if err := pricedata.Write(&b, s.t, "ec2select price snapshot (offerings.ReadPriceSnapshot reads it)"); err != nil {
		return 0, fmt.Errorf("offerings: %w", err)
	}
	return b.WriteTo(w)
}

// SnapshotSource says where one region's prices in a snapshot come from.
type SnapshotSource struct {
	Region   string    `json:"region"`
	Currency string    `json:"currency"`
	AsOf     time.Time `json:"asOf"`
	Source   string    `json:"source"`
	// OnDemand and Spot count the region's records.
	OnDemand int `json:"onDemand"`
	Spot     int `json:"spot"`
}

// Sources lists the snapshot's regions, sorted.
func (s *PriceSnapshot) Sources() []SnapshotSource {
	out := make([]SnapshotSource, len(s.t.Sources))
	idx := map[string]int{}
	for i, src := range s.t.Sources {
		out[i] = SnapshotSource{Region: src.Region, Currency: src.Currency, AsOf: src.AsOf, Source: src.Description}
		idx[src.Region] = i
	}
	for _, o := range s.t.OnDemand {
		out[idx[o.Region]].OnDemand++
	}
	for _, sp := range s.t.Spot {
		out[idx[sp.Region]].Spot++
	}
	return out
}

// ListPrice is one on-demand list price of a snapshot, with the Price
// List's attribute values.
type ListPrice struct {
	Region       string `json:"region"`
	InstanceType string `json:"instanceType"`
	// OperatingSystem, License, Tenancy and ProductFamily are the Price
	// List's operatingSystem ("Linux", "Windows"), licenseModel,
	// tenancy ("Shared", "Dedicated") and productFamily.
	OperatingSystem string  `json:"operatingSystem"`
	License         string  `json:"license"`
	Tenancy         string  `json:"tenancy"`
	ProductFamily   string  `json:"productFamily"`
	Price           float64 `json:"price"`
	Currency        string  `json:"currency"`
}

// ListPrices returns the snapshot's on-demand prices, sorted by region,
// type, operating system, licence, tenancy and product family.
func (s *PriceSnapshot) ListPrices() []ListPrice {
	cur := map[string]string{}
	for _, src := range s.t.Sources {
		cur[src.Region] = src.Currency
	}
	out := make([]ListPrice, len(s.t.OnDemand))
	for i, o := range s.t.OnDemand {
		out[i] = ListPrice{Region: o.Region, InstanceType: o.InstanceType, OperatingSystem: o.OS, License: o.License,
			Tenancy: o.Tenancy, ProductFamily: o.Family, Price: o.Value, Currency: cur[o.Region]}
	}
	return out
}

// SpotPrice is one spot price history entry of a snapshot.
type SpotPrice struct {
	Zone         string    `json:"zone"`
	InstanceType string    `json:"instanceType"`
	Product      string    `json:"productDescription"`
	Price        float64   `json:"price"`
	Timestamp    time.Time `json:"timestamp"`
}

// SpotPrices returns the snapshot's spot entries, sorted by zone, type,
// product description and time.
func (s *PriceSnapshot) SpotPrices() []SpotPrice {
	out := make([]SpotPrice, len(s.t.Spot))
	for i, sp := range s.t.Spot {
		out[i] = SpotPrice{Zone: sp.Zone, InstanceType: sp.InstanceType, Product: sp.Product, Price: sp.Value, Timestamp: sp.Timestamp}
	}
	return out
}

// spotSource names where a region's spot prices come from.
func (s *PriceSnapshot) spotSource(region string) string {
	i, ok := slices.BinarySearchFunc(s.t.Sources, region, func(src pricedata.Source, r string) int {
		switch {
		case src.Region < r:
			return -1
		case src.Region > r:
			return 1
		}
		return 0
	})
	if !ok {
		return "DescribeSpotPriceHistory"
	}
	return s.t.Sources[i].Description
}
