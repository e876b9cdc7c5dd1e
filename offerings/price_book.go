package offerings

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ec2select/ec2select/internal/pricedata"
)

// PriceBook prices offerings from one or more [PriceSnapshot]s: the
// embedded one, your own, live ones. It is immutable and safe for
// concurrent use. The zero PriceBook knows no price.
type PriceBook struct {
	sources  map[string]pricedata.Source // by region
	onDemand map[placeKey][]listEntry    // by (region, type)
	spot     map[placeKey][]spotHistory  // by (zone, type)
	regions  []string                    // regions with a source, sorted
}

// placeKey indexes a book by where (a region or zone) and instance type:
// two strings hash faster than the six of a listKey, and pricing a
// catalog is a lookup per offering.
type placeKey struct {
	place, instanceType string
}

type listEntry struct {
	os, license, tenancy, family string
	value                        float64
	source                       pricedata.Source
}

type spotHistory struct {
	product string
	entries []spotEntry // oldest first
}

type spotKey struct {
	zone, instanceType, product string
}

type spotEntry struct {
	value  float64
	at     time.Time
	source string
}

// NewPriceBook merges snapshots into a book. For each region, the
// snapshot with on-demand prices for it read last (by its source's as-of
// time; on a tie, the later argument) supplies all of the region's
// on-demand prices: a newer snapshot of a region replaces an older one
// rather than mixing with it, and a snapshot of spot prices only leaves
// them alone. Spot histories are merged entry by entry (an entry at the
// same instant from a later argument wins).
func NewPriceBook(snapshots ...*PriceSnapshot) *PriceBook {
	b := &PriceBook{sources: map[string]pricedata.Source{}, onDemand: map[placeKey][]listEntry{}, spot: map[placeKey][]spotHistory{}}
	spot := map[spotKey][]spotEntry{}
	chosen := map[string]int{} // region -> index of the snapshot whose on-demand prices it takes
	for i, s := range snapshots {
		if s == nil {
			continue
		}
		listed := map[string]bool{}
		for _, o := range s.t.OnDemand {
			listed[o.Region] = true
		}
		for _, src := range s.t.Sources {
			cur, seen := b.sources[src.Region]
			_, hasList := chosen[src.Region]
			switch {
			case listed[src.Region] && (!hasList || !src.AsOf.Before(cur.AsOf)):
				b.sources[src.Region], chosen[src.Region] = src, i
			case !seen:
				b.sources[src.Region] = src // currency and name, until a list arrives
			}
		}
	}
	for i, s := range snapshots {
		if s == nil {
			continue
		}
		for _, o := range s.t.OnDemand {
			if c, ok := chosen[o.Region]; ok && c == i {
				k := placeKey{o.Region, o.InstanceType}
				b.onDemand[k] = append(b.onDemand[k], listEntry{os: o.OS, license: o.License, tenancy: o.Tenancy, family: o.Family, value: o.Value, source: b.sources[o.Region]})
			}
		}
		for _, sp := range s.t.Spot {
			k := spotKey{sp.Zone, sp.InstanceType, sp.Product}
			spot[k] = append(spot[k], spotEntry{value: sp.Value, at: sp.Timestamp, source: s.spotSource(sp.Region) + " " + sp.Product})
		}
	}
	for k, h := range spot {
		// Stable, then keep the last of equal instants: the later argument.
		slices.SortStableFunc(h, func(x, y spotEntry) int { return x.at.Compare(y.at) })
		out := h[:0]
		for i, e := range h {
			if i+1 < len(h) && h[i+1].at.Equal(e.at) {
				continue
			}
			out = append(out, e)
		}
		pk := placeKey{k.zone, k.instanceType}
		b.spot[pk] = append(b.spot[pk], spotHistory{product: k.product, entries: out})
	}
	for r := range b.sources {
		b.regions = append(b.regions, r)
	}
	slices.Sort(b.regions)
	return b
}

// PriceOptions says what to price and how. The zero value prices Linux on
// default tenancy with no discount, in the region the zone's name names.
type PriceOptions struct {
	OS OS
	// Tenancy is "default" (shared hardware; also "" ) or "dedicated"
	// (compat.TenancyDefault, compat.TenancyDedicated).
	Tenancy string
	// Region overrides the region read from the offering's zone name
	// (us-east-1a → us-east-1).
	Region string
	// Discounts are applied after the base price; see [Discounts].
	Discounts Discounts
	// SpotWindow, when positive, asks for spot statistics over the window
	// ending at At (see [SpotStats]).
	SpotWindow time.Duration
	At         time.Time

	terms []Term // where PriceAll has the terms of one price written
}

// Price prices one offering. Bad options (invalid discounts, an unknown
// tenancy) are an error; a price no source has is not: it is an unknown
// [Price] with the reason.
func (b *PriceBook) Price(o Offering, opts PriceOptions) (Price, error) {
	if err := opts.validate(); err != nil {
		return Price{}, err
	}
	return b.price(o, &opts), nil
}

// PriceAll prices each offering with the same options, in order.
func (b *PriceBook) PriceAll(os []Offering, opts PriceOptions) ([]Price, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	out := make([]Price, len(os))
	terms := make([]Term, 3*len(os)) // a base and two discounts each, in one allocation
	regions := map[string]string{}   // a region of a catalog has a few zones
	region := opts.Region
	for i := range os {
		opts.terms = terms[3*i : 3*i : 3*i+3]
		if region == "" {
			r, ok := regions[os[i].Zone]
			if !ok {
				r = RegionOfZone(os[i].Zone)
				regions[os[i].Zone] = r
			}
			opts.Region = r
		}
		out[i] = b.price(os[i], &opts)
	}
	return out, nil
}

func (o *PriceOptions) validate() error {
	switch o.Tenancy {
	case "", "default", "dedicated":
	default:
		return fmt.Errorf("offerings: tenancy %q: want default or dedicated", o.Tenancy)
	}
	if o.OS > Windows {
		return fmt.Errorf("offerings: %s is not an operating system; use Linux or Windows", o.OS)
	}
	if o.SpotWindow < 0 || (o.SpotWindow > 0 && o.At.IsZero()) {
		return fmt.Errorf("offerings: spot window %v: give a positive window and the instant At it ends", o.SpotWindow)
	}
	return o.Discounts.Validate()
}

func (b *PriceBook) price(o Offering, opts *PriceOptions) Price {
	p := Price{Offering: o, OS: opts.OS, Region: opts.Region}
	if p.Region == "" {
		p.Region = RegionOfZone(o.Zone)
	}
	if p.Region == "" {
		p.Reason = fmt.Sprintf("zone %q names no region; set PriceOptions.Region", o.Zone)
		return p
	}
	if b != nil {
		p.Currency = b.sources[p.Region].Currency
	}
	switch o.CapacityType {
	case Reserved:
		b.priceReservation(&p)
	case Spot:
		b.priceSpot(&p, opts)
	case OnDemand:
		b.priceList(&p, opts.Tenancy, opts.terms)
	default:
		p.Reason = fmt.Sprintf("capacity type %s is not on-demand, spot or reserved", o.CapacityType)
	}
	if p.Known {
		opts.Discounts.apply(&p, familyOf(o.InstanceType))
	}
	return p
}

// priceReservation: a capacity reservation is billed whether an instance
// uses it or not (an ODCR at the on-demand rate, a capacity block up
// front), so launching into it costs nothing more. Karpenter instead
// prices it at the on-demand price / 10,000,000 to sort it first
// (karpenter-provider-aws v1.14.1
// pkg/providers/instancetype/offering/reserved_capacity_resolver.go:79),
// which needs an on-demand price; this needs none.
func (b *PriceBook) priceReservation(p *Price) {
	id := ""
	if p.Offering.Reservation != nil {
		id = p.Offering.Reservation.ID
	}
	p.Known = true
	p.Terms = append(p.Terms, Term{Kind: TermReservation, Amount: 0, Price: 0, Applied: true, Source: "capacity reservation " + id,
		Note: "paid for whether used or not: the marginal price of launching into it is 0"})
}

// priceList finds the on-demand list price. A type whose size is metal is
// listed by the Price List as a bare-metal product on Dedicated tenancy
// (Karpenter's second query, pricing.go:224-237), which prices it at any
// tenancy.
func (b *PriceBook) priceList(p *Price, tenancy string, terms []Term) {
	osName, license := p.OS.priceListOS()
	ten, family := "Shared", "Compute Instance"
	if tenancy == "dedicated" {
		ten = "Dedicated"
	}
	if isMetal(p.Offering.InstanceType) {
		ten, family = "Dedicated", "Compute Instance (bare metal)"
	}
	var e listEntry
	ok := false
	if b != nil {
		for _, c := range b.onDemand[placeKey{p.Region, p.Offering.InstanceType}] {
			if c.os == osName && c.license == license && c.tenancy == ten && c.family == family {
				e, ok = c, true
				break
			}
		}
	}
	if !ok {
		p.Reason = b.missingList(p, osName, ten)
		return
	}
	p.Known, p.Effective, p.Currency = true, e.value, e.source.Currency
	p.Terms = append(terms, Term{Kind: TermList, Amount: e.value, Price: e.value, Applied: true, Source: e.source.Description, AsOf: e.source.AsOf})
}

func (b *PriceBook) missingList(p *Price, osName, tenancy string) string {
	what := fmt.Sprintf("no on-demand list price for %s in %s (%s, %s tenancy)", p.Offering.InstanceType, p.Region, osName, tenancy)
	if b == nil || len(b.regions) == 0 {
		return what + ": the price book is empty"
	}
	if _, ok := b.sources[p.Region]; !ok {
		return fmt.Sprintf("%s: no snapshot covers %s (the book has %s); write one with LoadPriceSnapshot for %s", what, p.Region, strings.Join(b.regions, ", "), p.Region)
	}
	return fmt.Sprintf("%s: the %s snapshot (%s, as of %s) does not list it", what, p.Region, b.sources[p.Region].Description, b.sources[p.Region].AsOf.Format(time.RFC3339))
}

// priceSpot finds the latest spot price for the zone, type and OS, of any
// of the OS's product descriptions.
func (b *PriceBook) priceSpot(p *Price, opts *PriceOptions) {
	var hist []spotEntry
	if b != nil {
		products := p.OS.spotProducts()
		for _, sh := range b.spot[placeKey{p.Offering.Zone, p.Offering.InstanceType}] {
			h := sh.entries
			if (sh.product == products[0] || sh.product == products[1]) && len(h) > 0 && (len(hist) == 0 || h[len(h)-1].at.After(hist[len(hist)-1].at)) {
				hist = h
			}
		}
	}
	if !opts.At.IsZero() {
		hist = entriesUntil(hist, opts.At)
	}
	if len(hist) == 0 {
		products := p.OS.spotProducts()
		p.Reason = "no spot price for " + p.Offering.InstanceType + " in " + p.Offering.Zone + " (" + products[0] + " or " + products[1] + ") in any snapshot; load DescribeSpotPriceHistory with LoadPriceSnapshot"
		return
	}
	last := hist[len(hist)-1]
	p.Known, p.Effective = true, last.value
	p.Terms = append(opts.terms, Term{Kind: TermSpot, Amount: last.value, Price: last.value, Applied: true, Source: last.source, AsOf: last.at})
	if opts.SpotWindow > 0 {
		p.Spot = spotStats(hist, opts.At.Add(-opts.SpotWindow), opts.At)
	}
}

// entriesUntil drops the entries after at.
func entriesUntil(h []spotEntry, at time.Time) []spotEntry {
	i, _ := slices.BinarySearchFunc(h, at, func(e spotEntry, t time.Time) int {
		if e.at.After(t) {
			return 1
		}
		return -1
	})
	return h[:i]
}

// zoneRegion is a region name, the start of every zone name.
var zoneRegion = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+`)

// RegionOfZone returns the region a zone's name belongs to: us-east-1 for
// us-east-1a and for the Local Zone us-east-1-bos-1a; "" for a name that
// is not a zone name. It is zoneRegion's match, without the regexp, which
// dominated pricing a catalog.
func RegionOfZone(zone string) string {
	i := strings.IndexFunc(zone, func(r rune) bool { return r >= '0' && r <= '9' })
	if i < 4 || zone[i-1] != '-' || !regionWords(zone[:i-1]) {
		return ""
	}
	j := i
	for j < len(zone) && zone[j] >= '0' && zone[j] <= '9' {
		j++
	}
	if j == len(zone) {
		return ""
	}
	return zone[:j]
}

// regionWords reports whether s is two letters and one or more "-letters".
func regionWords(s string) bool {
	words, length := 1, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '-' && length > 0 && (words > 1 || length == 2):
			words, length = words+1, 0
		case c >= 'a' && c <= 'z':
			length++
		default:
			return false
		}
	}
	return words >= 2 && length > 0
}

func familyOf(instanceType string) string {
	f, _, _ := strings.Cut(instanceType, ".")
	return f
}

func isMetal(instanceType string) bool {
	_, size, _ := strings.Cut(instanceType, ".")
	return strings.HasPrefix(size, "metal")
}

// CandidatePrice is the price hook of [CandidateOptions]: each offering's
// effective price under opts, in its region's currency (USD but in the
// China regions), and whether it is known. Options that do not validate
// give no known price; check them with [PriceBook.Price] first.
func (b *PriceBook) CandidatePrice(opts PriceOptions) func(Offering) (float64, bool) {
	if opts.validate() != nil {
		return func(Offering) (float64, bool) { return 0, false }
	}
	return func(o Offering) (float64, bool) {
		p := b.price(o, &opts)
		return p.Effective, p.Known
	}
}
