package offerings

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Discounts are the caller's own prices: what its commitments and
// agreements make an offering cost. The zero value has none. They apply
// in [TermKind] order: reserved-instance coverage, then Savings Plans (to
// usage no reserved instance covers), then the enterprise percentage. No
// discount applies to a capacity reservation's marginal price, which is
// already 0; reserved instances and Savings Plans apply to on-demand usage
// only, never to spot; the enterprise percentage applies to every price.
// A discount never raises a price: one whose rate is above the price it
// would replace is listed as not applied.
type Discounts struct {
	// ReservedInstances are reserved instances with coverage to spare.
	ReservedInstances []ReservedInstance `json:"reservedInstances,omitempty"`
	// SavingsPlans are Savings Plans rates. For an offering, a rate for
	// its instance type wins over one for its family.
	SavingsPlans []SavingsPlanRate `json:"savingsPlans,omitempty"`
	// EnterprisePercent is a percentage off every price (an enterprise
	// discount program, a private pricing agreement): 0 to 100.
	EnterprisePercent float64 `json:"enterprisePercent,omitempty"`
	// EnterpriseSource names the agreement, for Explain.
	EnterpriseSource string `json:"enterpriseSource,omitempty"`
}

// ReservedInstance is coverage by reserved instances of one instance type
// in a region (a regional reservation) or a zone (a zonal one), for one
// operating system: the next instance launched there costs Rate.
type ReservedInstance struct {
	Region       string `json:"region"`
	Zone         string `json:"zone,omitempty"`
	InstanceType string `json:"instanceType"`
	OS           OS     `json:"os"`
	// Rate is the effective price per hour (upfront fee amortized over the
	// term, plus the recurring charge), in the region's currency.
	Rate float64 `json:"rate"`
	// Unused counts instances the reservations cover and nothing runs on;
	// coverage with none unused does not apply to the next instance.
	Unused int       `json:"unused"`
	Source string    `json:"source,omitempty"`
	AsOf   time.Time `json:"asOf,omitzero"`
}

// SavingsPlanRate is a Savings Plans rate for an instance type or a family
// in a region: as savingsplans:DescribeSavingsPlansOfferingRates gives it
// per type (Rate, a price per hour), or as an EC2 Instance Savings Plan's
// discount for a family (Percent off the list price).
type SavingsPlanRate struct {
	Region string `json:"region"`
	// Exactly one of InstanceType and Family.
	InstanceType string `json:"instanceType,omitempty"`
	Family       string `json:"family,omitempty"`
	OS           OS     `json:"os"`
	// Exactly one of Rate (> 0) and Percent (0 to 100).
	Rate    float64   `json:"rate,omitempty"`
	Percent float64   `json:"percent,omitempty"`
	Source  string    `json:"source,omitempty"`
	AsOf    time.Time `json:"asOf,omitzero"`
}

// Validate reports every problem of d, each naming the entry and the fix.
func (d Discounts) Validate() error {
	var errs []error
	for i, r := range d.ReservedInstances {
		if r.Region == "" || r.InstanceType == "" {
			errs = append(errs, fmt.Errorf("offerings: reservedInstances[%d]: set Region and InstanceType", i))
		}
		if !finiteNonNegative(r.Rate) || r.Unused < 0 {
			errs = append(errs, fmt.Errorf("offerings: reservedInstances[%d]: rate %v and unused %d must be finite and not negative", i, r.Rate, r.Unused))
		}
	}
	for i, s := range d.SavingsPlans {
		if s.Region == "" || (s.InstanceType == "") == (s.Family == "") {
			errs = append(errs, fmt.Errorf("offerings: savingsPlans[%d]: set Region and exactly one of InstanceType and Family", i))
		}
		if (s.Rate > 0) == (s.Percent > 0) || !finiteNonNegative(s.Rate) || !validPercent(s.Percent) {
			errs = append(errs, fmt.Errorf("offerings: savingsPlans[%d]: set exactly one of Rate (a positive price per hour) and Percent (0 to 100); have rate %v, percent %v", i, s.Rate, s.Percent))
		}
		if s.Family != "" && s.Rate > 0 {
			errs = append(errs, fmt.Errorf("offerings: savingsPlans[%d]: a family's rate is a Percent: one price per hour cannot fit every size of %s", i, s.Family))
		}
	}
	if !validPercent(d.EnterprisePercent) {
		errs = append(errs, fmt.Errorf("offerings: enterprisePercent %v: want 0 to 100", d.EnterprisePercent))
	}
	return errors.Join(errs...)
}

func finiteNonNegative(v float64) bool { return v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

func validPercent(v float64) bool { return finiteNonNegative(v) && v <= 100 }

// applyDiscounts adds the discount terms for an on-demand or spot base
// price to p, in billing order.
func (d *Discounts) apply(p *Price, family string) {
	price := p.Effective
	if p.Offering.CapacityType == OnDemand {
		covered := false
		if ri, ok := d.reservedInstance(p); ok {
			covered = true
			price = p.addRate(TermReservedInstance, ri.Rate, price, ri.Source, ri.AsOf, fmt.Sprintf("%d unused", ri.Unused))
		}
		if sp, ok := d.savingsPlan(p, family); ok {
			switch {
			case covered:
				p.Terms = append(p.Terms, Term{Kind: TermSavingsPlan, Amount: sp.amount(), Percent: sp.Percent > 0, Price: price, Source: sp.Source, AsOf: sp.AsOf,
					Note: "the usage is covered by a reserved instance, which AWS applies first"})
			case sp.Percent > 0:
				price = p.addPercent(TermSavingsPlan, sp.Percent, price, sp.Source, sp.AsOf)
			default:
				price = p.addRate(TermSavingsPlan, sp.Rate, price, sp.Source, sp.AsOf, "")
			}
		}
	}
	if d.EnterprisePercent > 0 {
		price = p.addPercent(TermEnterprise, d.EnterprisePercent, price, d.EnterpriseSource, time.Time{})
	}
	p.Effective = price
}

func (s SavingsPlanRate) amount() float64 {
	if s.Percent > 0 {
		return s.Percent
	}
	return s.Rate
}

// addRate adds a term that replaces price by rate when rate is lower.
func (p *Price) addRate(kind TermKind, rate, price float64, source string, asOf time.Time, note string) float64 {
	t := Term{Kind: kind, Amount: rate, Price: price, Source: source, AsOf: asOf, Note: note}
	if rate < price {
		t.Price, t.Applied = rate, true
	} else {
		t.Note = joinNote(note, "not below the price it would replace")
	}
	p.Terms = append(p.Terms, t)
	return t.Price
}

// addPercent adds a term that takes percent off price.
func (p *Price) addPercent(kind TermKind, percent, price float64, source string, asOf time.Time) float64 {
	next := price * (1 - percent/100)
	if next < 0 {
		next = 0
	}
	p.Terms = append(p.Terms, Term{Kind: kind, Amount: percent, Percent: true, Price: next, Applied: next < price, Source: source, AsOf: asOf})
	return next
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// reservedInstance finds the coverage for p's instance: a zonal
// reservation in its zone before a regional one, each with unused
// instances; among equals, the lowest rate.
func (d *Discounts) reservedInstance(p *Price) (ReservedInstance, bool) {
	var best ReservedInstance
	found := false
	for _, r := range d.ReservedInstances {
		if r.Unused <= 0 || r.Region != p.Region || r.InstanceType != p.Offering.InstanceType || r.OS != p.OS {
			continue
		}
		if r.Zone != "" && r.Zone != p.Offering.Zone {
			continue
		}
		if !found || betterRI(r, best) {
			best, found = r, true
		}
	}
	return best, found
}

func betterRI(a, b ReservedInstance) bool {
	if (a.Zone != "") != (b.Zone != "") {
		return a.Zone != ""
	}
	return a.Rate < b.Rate
}

// savingsPlan finds the rate for p's instance: its type's before its
// family's; among rates of one kind, the one that leaves the lowest price.
func (d *Discounts) savingsPlan(p *Price, family string) (SavingsPlanRate, bool) {
	var best SavingsPlanRate
	bestPrice, found, byType := math.Inf(1), false, false
	for _, s := range d.SavingsPlans {
		if s.Region != p.Region || s.OS != p.OS {
			continue
		}
		isType := s.InstanceType != "" && s.InstanceType == p.Offering.InstanceType
		if !isType && (s.Family == "" || s.Family != family) {
			continue
		}
		if byType && !isType {
			continue
		}
		price := s.Rate
		if s.Percent > 0 {
			price = p.Effective * (1 - s.Percent/100)
		}
		if (isType && !byType) || price < bestPrice {
			best, bestPrice, found, byType = s, price, true, isType
		}
	}
	return best, found
}
