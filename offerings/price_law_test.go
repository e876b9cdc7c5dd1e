package offerings

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/internal/pricedata"
)

var lawAsOf = time.Date(2026, 7, 6, 14, 20, 29, 0, time.UTC)

// lawBook draws a book over one region and a few types, each with or
// without a list price and a spot history.
func lawBook(t *rapid.T) *PriceBook {
	tb := &pricedata.Table{Sources: []pricedata.Source{{Region: "us-east-1", Currency: "USD", AsOf: lawAsOf, Description: "law"}}}
	for _, typ := range []string{"m5.large", "m5.xlarge", "c7i.large", "m5.metal"} {
		if rapid.Bool().Draw(t, typ+" listed") {
			v := rapid.Float64Range(0.001, 50).Draw(t, typ+" list")
			ten, fam := "Shared", "Compute Instance"
			if isMetal(typ) {
				ten, fam = "Dedicated", "Compute Instance (bare metal)"
			}
			tb.OnDemand = append(tb.OnDemand, pricedata.OnDemand{Region: "us-east-1", InstanceType: typ, OS: "Linux", License: licenseIncluded, Tenancy: ten, Family: fam, Price: "x", Value: v})
		}
		for _, zone := range []string{"us-east-1a", "us-east-1b"} {
			for i := range rapid.IntRange(0, 3).Draw(t, typ+zone+" spot") {
				tb.Spot = append(tb.Spot, pricedata.Spot{Region: "us-east-1", Zone: zone, InstanceType: typ, Product: "Linux/UNIX",
					Value: rapid.Float64Range(0.0001, 20).Draw(t, "spot"), Timestamp: lawAsOf.Add(time.Duration(i) * time.Hour)})
			}
		}
	}
	return NewPriceBook(&PriceSnapshot{t: tb})
}

func lawOffering(t *rapid.T) Offering {
	o := Offering{InstanceType: rapid.SampledFrom([]string{"m5.large", "m5.xlarge", "c7i.large", "m5.metal"}).Draw(t, "type"),
		Zone: rapid.SampledFrom([]string{"us-east-1a", "us-east-1b"}).Draw(t, "zone"), CapacityType: rapid.SampledFrom([]CapacityType{OnDemand, Spot, Reserved}).Draw(t, "capacity")}
	if o.CapacityType == Reserved {
		o.Reservation = &Reservation{ID: "cr-0123456789abcdef0", Type: ReservationDefault, Total: 1, Available: 1}
	}
	return o
}

func lawDiscounts(t *rapid.T) Discounts {
	var d Discounts
	for range rapid.IntRange(0, 2).Draw(t, "RIs") {
		d.ReservedInstances = append(d.ReservedInstances, ReservedInstance{Region: "us-east-1", InstanceType: rapid.SampledFrom([]string{"m5.large", "c7i.large"}).Draw(t, "ri type"),
			Zone: rapid.SampledFrom([]string{"", "us-east-1a"}).Draw(t, "ri zone"), Rate: rapid.Float64Range(0, 60).Draw(t, "ri rate"), Unused: rapid.IntRange(0, 2).Draw(t, "unused")})
	}
	for range rapid.IntRange(0, 2).Draw(t, "SPs") {
		s := SavingsPlanRate{Region: "us-east-1"}
		if rapid.Bool().Draw(t, "sp by type") {
			s.InstanceType, s.Rate = rapid.SampledFrom([]string{"m5.large", "m5.metal"}).Draw(t, "sp type"), rapid.Float64Range(0.0001, 60).Draw(t, "sp rate")
		} else {
			s.Family, s.Percent = rapid.SampledFrom([]string{"m5", "c7i"}).Draw(t, "sp family"), rapid.Float64Range(0.01, 100).Draw(t, "sp percent")
		}
		d.SavingsPlans = append(d.SavingsPlans, s)
	}
	if rapid.Bool().Draw(t, "enterprise") {
		d.EnterprisePercent = rapid.Float64Range(0, 100).Draw(t, "enterprise percent")
	}
	return d
}

func mustPrice(t *rapid.T, b *PriceBook, o Offering, d Discounts) Price {
	p, err := b.Price(o, PriceOptions{Discounts: d})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// strengthen makes one discount deeper, the others unchanged.
func strengthen(t *rapid.T, d Discounts) Discounts {
	d.ReservedInstances, d.SavingsPlans = slices.Clone(d.ReservedInstances), slices.Clone(d.SavingsPlans)
	choices := []string{"enterprise"}
	if len(d.ReservedInstances) > 0 {
		choices = append(choices, "ri")
	}
	if len(d.SavingsPlans) > 0 {
		choices = append(choices, "sp")
	}
	switch rapid.SampledFrom(choices).Draw(t, "deepen") {
	case "enterprise":
		d.EnterprisePercent = rapid.Float64Range(d.EnterprisePercent, 100).Draw(t, "deeper enterprise")
	case "ri":
		i := rapid.IntRange(0, len(d.ReservedInstances)-1).Draw(t, "which ri")
		d.ReservedInstances[i].Rate = rapid.Float64Range(0, d.ReservedInstances[i].Rate).Draw(t, "lower ri rate")
	case "sp":
		i := rapid.IntRange(0, len(d.SavingsPlans)-1).Draw(t, "which sp")
		if d.SavingsPlans[i].Percent > 0 {
			d.SavingsPlans[i].Percent = rapid.Float64Range(d.SavingsPlans[i].Percent, 100).Draw(t, "deeper sp percent")
		} else {
			d.SavingsPlans[i].Rate = rapid.Float64Range(0.00001, d.SavingsPlans[i].Rate).Draw(t, "lower sp rate")
		}
	}
	return d
}

// Law: the effective price is monotone in each discount (a deeper one
// never raises it), never negative, and never below the cheapest term the
// discounts allow: min(base, every matching rate, base less every
// matching percentage) less the enterprise percentage.
func TestPriceDiscountLaws(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b, o := lawBook(t), lawOffering(t)
		d := lawDiscounts(t)
		p := mustPrice(t, b, o, d)
		if !p.Known {
			return
		}
		if p.Effective < 0 || math.IsNaN(p.Effective) {
			t.Fatalf("negative price: %s", p.Explain())
		}
		if floor := priceFloor(b, o, d); p.Effective < floor*(1-1e-12) {
			t.Fatalf("%v below the floor %v: %s", p.Effective, floor, p.Explain())
		}
		deeper := mustPrice(t, b, o, strengthen(t, d))
		if deeper.Effective > p.Effective*(1+1e-12) {
			t.Fatalf("a deeper discount raised the price:\n%s\n%s", p.Explain(), deeper.Explain())
		}
	})
}

func priceFloor(b *PriceBook, o Offering, d Discounts) float64 {
	base := mustBase(b, o)
	floor := base
	if o.CapacityType == OnDemand {
		for _, r := range d.ReservedInstances {
			if r.InstanceType == o.InstanceType && r.Unused > 0 && (r.Zone == "" || r.Zone == o.Zone) {
				floor = math.Min(floor, r.Rate)
			}
		}
		for _, s := range d.SavingsPlans {
			switch {
			case s.InstanceType == o.InstanceType:
				floor = math.Min(floor, s.Rate)
			case s.Family == familyOf(o.InstanceType):
				floor = math.Min(floor, base*(1-s.Percent/100))
			}
		}
	}
	return math.Max(0, floor*(1-d.EnterprisePercent/100))
}

func mustBase(b *PriceBook, o Offering) float64 {
	p, _ := b.Price(o, PriceOptions{})
	return p.Effective
}

// Law: a price no source has stays unknown through every adjustment, with
// no terms and no figure.
func TestUnknownStaysUnknown(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b, o := lawBook(t), lawOffering(t)
		if p := mustPrice(t, b, o, Discounts{}); p.Known {
			return
		}
		p := mustPrice(t, b, o, lawDiscounts(t))
		if p.Known || p.Effective != 0 || len(p.Terms) != 0 || p.Reason == "" {
			t.Fatalf("an unknown price came out of discounts as %+v", p)
		}
	})
}

// Law: ranking by ComparePrices is a total order on distinct offerings and
// gives the same sequence for any permutation of its input.
func TestRankingTotalAndStable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b, d := lawBook(t), lawDiscounts(t)
		seen := map[Key]bool{}
		var prices []Price
		for range rapid.IntRange(0, 12).Draw(t, "n") {
			o := lawOffering(t)
			if !seen[o.Key()] {
				seen[o.Key()] = true
				prices = append(prices, mustPrice(t, b, o, d))
			}
		}
		for i := range prices {
			for j := range prices {
				c, r := ComparePrices(prices[i], prices[j]), ComparePrices(prices[j], prices[i])
				if (i == j) != (c == 0) || c != -r {
					t.Fatalf("not a total order: compare(%s, %s) = %d, reverse %d", prices[i].Offering, prices[j].Offering, c, r)
				}
			}
		}
		sorted := slices.SortedFunc(slices.Values(prices), ComparePrices)
		perm := rapid.Permutation(prices).Draw(t, "permutation")
		again := slices.SortedFunc(slices.Values(perm), ComparePrices)
		if diff := cmp.Diff(keysOf(sorted), keysOf(again)); diff != "" {
			t.Fatalf("order depends on input order:\n%s", diff)
		}
		for i := 1; i < len(sorted); i++ {
			if sorted[i-1].Known && sorted[i].Known && sorted[i-1].Effective > sorted[i].Effective {
				t.Fatal("a dearer offering ranked first")
			}
			if !sorted[i-1].Known && sorted[i].Known {
				t.Fatal("an unknown price ranked before a known one")
			}
		}
	})
}

func keysOf(ps []Price) []Key {
	out := make([]Key, len(ps))
	for i, p := range ps {
		out[i] = p.Offering.Key()
	}
	return out
}

func TestPriceTerms(t *testing.T) {
	book := NewPriceBook(EmbeddedPriceSnapshot())
	od := Offering{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: OnDemand}
	d := Discounts{
		ReservedInstances: []ReservedInstance{{Region: "us-east-1", InstanceType: "c5.large", Rate: 0.05, Unused: 1}},
		SavingsPlans:      []SavingsPlanRate{{Region: "us-east-1", Family: "m5", Percent: 20, Source: "EC2 Instance Savings Plan m5 us-east-1"}},
		EnterprisePercent: 5, EnterpriseSource: "EDP",
	}
	p, err := book.Price(od, PriceOptions{Discounts: d})
	if err != nil {
		t.Fatal(err)
	}
	want := "m5.large us-east-1a on-demand (linux): 0.07296 USD/h\n" +
		"  list 0.096 USD/h: karpenter-provider-aws v1.14.1 (bde00654) pkg/providers/pricing/zz_generated.pricing_aws.go: Price List Query API GetProducts, Linux, preInstalledSw NA, capacitystatus Used, OnDemand (as of 2026-07-06T14:20:29Z)\n" +
		"  savings-plan 20% off → 0.0768: EC2 Instance Savings Plan m5 us-east-1\n" +
		"  enterprise 5% off → 0.07296: EDP"
	if diff := cmp.Diff(want, p.Explain()); diff != "" {
		t.Errorf("Explain (-want +got):\n%s", diff)
	}
	// A reservation's marginal price is 0, and no discount moves it.
	res := Offering{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: Reserved, Reservation: &Reservation{ID: "cr-1", Type: ReservationDefault}}
	if p, _ := book.Price(res, PriceOptions{Discounts: d}); !p.Known || p.Effective != 0 {
		t.Errorf("reservation: %s", p.Explain())
	}
	// A metal type is the Price List's bare-metal product at any tenancy.
	metal := Offering{InstanceType: "m5.metal", Zone: "us-east-1b", CapacityType: OnDemand}
	if p, _ := book.Price(metal, PriceOptions{}); !p.Known || p.Effective != 4.608 {
		t.Errorf("m5.metal: %s", p.Explain())
	}
	// Spot with no spot source is unknown, never the on-demand price.
	if p, _ := book.Price(Offering{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: Spot}, PriceOptions{}); p.Known || !strings.Contains(p.Reason, "no spot price") {
		t.Errorf("spot without a spot source: %s", p.Explain())
	}
	if _, err := book.Price(od, PriceOptions{Tenancy: "host"}); err == nil {
		t.Error("tenancy host accepted")
	}
	if _, err := book.Price(od, PriceOptions{Discounts: Discounts{EnterprisePercent: 120}}); err == nil {
		t.Error("a 120% discount accepted")
	}
}

func TestRegionOfZone(t *testing.T) {
	for zone, want := range map[string]string{"us-east-1a": "us-east-1", "us-east-1-bos-1a": "us-east-1", "ap-southeast-2c": "ap-southeast-2", "us-gov-west-1b": "us-gov-west-1", "us-east-1": "", "": "", "zone": "", "u-east-1a": "", "us--1a": "", "US-east-1a": ""} {
		if got := RegionOfZone(zone); got != want {
			t.Errorf("RegionOfZone(%q) = %q; want %q", zone, got, want)
		}
	}
}

// RegionOfZone agrees with the region pattern it replaces.
func TestRegionOfZoneMatchesPattern(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		zone := rapid.OneOf(rapid.StringMatching(`[a-zA-Z0-9-]{0,20}`),
			rapid.StringMatching(`[a-z]{1,3}(-[a-z]{0,5}){0,3}-?[0-9]{0,2}[a-z0-9-]{0,6}`)).Draw(t, "zone")
		want := zoneRegion.FindString(zone)
		if want == zone {
			want = ""
		}
		if got := RegionOfZone(zone); got != want {
			t.Fatalf("RegionOfZone(%q) = %q; the pattern says %q", zone, got, want)
		}
	})
}

func TestSpotStats(t *testing.T) {
	at := func(h int) time.Time { return lawAsOf.Add(time.Duration(h) * time.Hour) }
	h := []spotEntry{{value: 1, at: at(0)}, {value: 3, at: at(10)}, {value: 2, at: at(15)}}
	got := spotStats(h, at(5), at(20))
	want := &SpotStats{Window: 15 * time.Hour, From: at(5), To: at(20), Samples: 3, Changes: 2, Min: 1, Max: 3, Mean: (1*5 + 3*5 + 2*5) / 15.0, Latest: 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_ = fmt.Sprint
}

// The price hook: Candidates ordered by the book's effective price, a
// type the book cannot price last (or skipped), the reservation first.
func TestCandidatePrice(t *testing.T) {
	r := Region{Name: "us-east-1",
		Zones:         []Zone{{Name: "us-east-1a", ID: "use1-az1", Type: AvailabilityZone, OptInStatus: OptInNotRequired, State: "available"}},
		InstanceTypes: []string{"m5.large", "m5.xlarge", "x9.nonesuch"},
		Offered:       map[string][]string{"us-east-1a": {"m5.large", "m5.xlarge", "x9.nonesuch"}},
		NoSpot:        []string{"m5.large", "m5.xlarge", "x9.nonesuch"},
	}
	book := NewPriceBook(EmbeddedPriceSnapshot())
	list, err := Candidates(r, nil, lawAsOf, CandidateOptions{Price: book.CandidatePrice(PriceOptions{Discounts: Discounts{EnterprisePercent: 10}})})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range list.Candidates {
		got = append(got, fmt.Sprintf("%s %v", c.Offering, c.PriceKnown))
	}
	want := []string{"m5.large us-east-1a on-demand true", "m5.xlarge us-east-1a on-demand true", "x9.nonesuch us-east-1a on-demand false"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if list.Candidates[0].Price != 0.096*0.9 {
		t.Errorf("m5.large at %v; want the effective price %v", list.Candidates[0].Price, 0.096*0.9)
	}
	skipped, err := Candidates(r, nil, lawAsOf, CandidateOptions{Price: book.CandidatePrice(PriceOptions{}), UnknownPrice: UnknownPriceSkip})
	if err != nil || len(skipped.Candidates) != 2 {
		t.Errorf("UnknownPriceSkip: %v, %v", skipped.Candidates, err)
	}
}

func TestPriceEnumsText(t *testing.T) {
	for _, o := range []OS{Linux, Windows} {
		b, err := o.MarshalText()
		var back OS
		if err != nil || back.UnmarshalText(b) != nil || back != o {
			t.Errorf("%v: %q %v", o, b, err)
		}
	}
	for k := TermList; k <= TermEnterprise; k++ {
		b, err := k.MarshalText()
		var back TermKind
		if err != nil || back.UnmarshalText(b) != nil || back != k {
			t.Errorf("%v: %q %v", k, b, err)
		}
	}
	if _, err := OS(7).MarshalText(); err == nil {
		t.Error("OS(7) marshalled")
	}
	if err := new(TermKind).UnmarshalText([]byte("rebate")); err == nil {
		t.Error("term kind rebate accepted")
	}
}
