package offerings

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// OS is the operating system an instance is priced for. Its text form is
// the kubernetes.io/os label value. The zero value is Linux.
type OS uint8

// The operating systems priced. Windows is Windows Server with the licence
// included (the Price List's operatingSystem Windows, licenseModel "No
// License required"; spot product description "Windows").
const (
	Linux OS = iota
	Windows
)

var osText = [...]string{Linux: "linux", Windows: "windows"}

// String returns "linux" or "windows".
func (o OS) String() string {
	if int(o) < len(osText) {
		return osText[o]
	}
	return "OS(" + strconv.Itoa(int(o)) + ")"
}

// MarshalText implements encoding.TextMarshaler.
func (o OS) MarshalText() ([]byte, error) {
	if int(o) >= len(osText) {
		return nil, fmt.Errorf("offerings: cannot marshal %s", o)
	}
	return []byte(o.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (o *OS) UnmarshalText(b []byte) error {
	for v, s := range osText {
		if s == string(b) {
			*o = OS(v)
			return nil
		}
	}
	return fmt.Errorf("offerings: operating system %q: want linux or windows", b)
}

// priceListOS is the Price List's operatingSystem and licenseModel for o.
func (o OS) priceListOS() (operatingSystem, licenseModel string) {
	if o == Windows {
		return "Windows", licenseIncluded
	}
	return "Linux", licenseIncluded
}

// spotProducts are the spot product descriptions that price o, in the
// order EC2 has introduced them; a book takes the latest entry of either.
func (o OS) spotProducts() []string {
	if o == Windows {
		return windowsSpotProducts[:]
	}
	return linuxSpotProducts[:]
}

var (
	linuxSpotProducts   = [...]string{"Linux/UNIX", "Linux/UNIX (Amazon VPC)"}
	windowsSpotProducts = [...]string{"Windows", "Windows (Amazon VPC)"}
)

const licenseIncluded = "No License required"

// TermKind says what a [Term] is.
type TermKind uint8

// The kinds of term, in the order [PriceBook.Price] applies them. The
// first term of a price is its base: List (on-demand), Spot, or
// Reservation. Discounts follow in this order, which is AWS's billing
// order: reserved instances apply to usage first, Savings Plans to the
// usage they leave ("Savings Plans apply to your usage after Reserved
// Instances are applied", AWS Savings Plans User Guide, "How Savings Plans
// apply to your AWS usage"), and an enterprise discount to the bill that
// results.
const (
	TermList TermKind = iota + 1
	TermSpot
	TermReservation
	TermReservedInstance
	TermSavingsPlan
	TermEnterprise
)

var termText = [...]string{TermList: "list", TermSpot: "spot", TermReservation: "reservation",
	TermReservedInstance: "reserved-instance", TermSavingsPlan: "savings-plan", TermEnterprise: "enterprise"}

// String returns the kind's text: list, spot, reservation,
// reserved-instance, savings-plan, enterprise.
func (k TermKind) String() string {
	if k >= TermList && k <= TermEnterprise {
		return termText[k]
	}
	return "TermKind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalText implements encoding.TextMarshaler.
func (k TermKind) MarshalText() ([]byte, error) {
	if k < TermList || k > TermEnterprise {
		return nil, fmt.Errorf("offerings: cannot marshal %s", k)
	}
	return []byte(k.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *TermKind) UnmarshalText(b []byte) error {
	for v := TermList; v <= TermEnterprise; v++ {
		if termText[v] == string(b) {
			*k = v
			return nil
		}
	}
	return fmt.Errorf("offerings: term kind %q: want one of %s", b, strings.Join(termText[1:], ", "))
}

// Term is one step of a price: a base price or a discount, with where it
// comes from and as of when.
type Term struct {
	Kind TermKind `json:"kind"`
	// Amount is the term's own figure: a price per hour (list, spot,
	// reservation, a reserved instance's or Savings Plan's rate) or a
	// percentage off (a Savings Plan's or the enterprise discount).
	Amount float64 `json:"amount"`
	// Percent is true when Amount is a percentage.
	Percent bool `json:"percent,omitempty"`
	// Price is the price per hour after this term, in the price's currency.
	Price float64 `json:"price"`
	// Applied is false for a discount that matches the offering but does
	// not change its price; Note says why.
	Applied bool `json:"applied"`
	// Source names where the figure comes from; AsOf is when it was read
	// (or, for a spot price, when it took effect).
	Source string    `json:"source"`
	AsOf   time.Time `json:"asOf,omitzero"`
	Note   string    `json:"note,omitempty"`
}

// Price is what one offering costs per hour: every term that went into
// it, and their result.
type Price struct {
	Offering Offering `json:"offering"`
	OS       OS       `json:"os"`
	Region   string   `json:"region"`
	// Known is false when no source has the base price; Reason then says
	// which price is missing and where to get it, and Effective is 0. An
	// unknown price is never taken from another region, type or capacity
	// type.
	Known  bool   `json:"known"`
	Reason string `json:"reason,omitempty"`
	// Effective is the price per hour after every discount, in Currency.
	Effective float64 `json:"effective"`
	Currency  string  `json:"currency,omitempty"`
	Terms     []Term  `json:"terms"`
	// Spot holds the spot price's statistics over PriceOptions.SpotWindow,
	// when asked for and the book has history.
	Spot *SpotStats `json:"spot,omitempty"`
}

// Explain prints every term of p, one per line, the effective price last:
//
//	m5.large us-east-1a on-demand (linux): 0.0768 USD/h
//	  list 0.096 USD/h: Karpenter v1.14.1 ... (as of 2026-07-06T14:20:29Z)
//	  savings-plan 20% off → 0.0768: ...
func (p Price) Explain() string {
	var b strings.Builder
	if !p.Known {
		fmt.Fprintf(&b, "%s (%s): price unknown: %s", p.Offering, p.OS, p.Reason)
		return b.String()
	}
	fmt.Fprintf(&b, "%s (%s): %s %s/h", p.Offering, p.OS, formatAmount(p.Effective), p.Currency)
	for _, t := range p.Terms {
		b.WriteString("\n  ")
		b.WriteString(t.explain(p.Currency))
	}
	if s := p.Spot; s != nil {
		fmt.Fprintf(&b, "\n  spot over %s: %d prices, min %s, mean %s, max %s, %d changes", s.Window, s.Samples, formatAmount(s.Min), formatAmount(s.Mean), formatAmount(s.Max), s.Changes)
	}
	return b.String()
}

func (t Term) explain(currency string) string {
	var b strings.Builder
	b.WriteString(t.Kind.String())
	switch {
	case t.Percent:
		fmt.Fprintf(&b, " %s%% off", formatAmount(t.Amount))
	default:
		fmt.Fprintf(&b, " %s %s/h", formatAmount(t.Amount), currency)
	}
	if t.Kind > TermReservation {
		if t.Applied {
			fmt.Fprintf(&b, " → %s", formatAmount(t.Price))
		} else {
			b.WriteString(" (not applied)")
		}
	}
	if t.Source != "" {
		b.WriteString(": " + t.Source)
	}
	if !t.AsOf.IsZero() {
		b.WriteString(" (as of " + t.AsOf.UTC().Format(time.RFC3339) + ")")
	}
	if t.Note != "" {
		b.WriteString("; " + t.Note)
	}
	return b.String()
}

// formatAmount writes a price or percentage to ten decimals at most (the
// Price List's own precision), without trailing zeros or an exponent, so
// that 0.096 × 0.8 reads 0.0768.
func formatAmount(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e10)/1e10, 'f', -1, 64)
}

// ComparePrices orders prices for ranking: known before unknown, cheaper
// first, then by instance type, zone, capacity type and reservation ID, so
// that the order is total and does not depend on the input's order.
func ComparePrices(a, b Price) int {
	if a.Known != b.Known {
		if a.Known {
			return -1
		}
		return 1
	}
	if a.Known && a.Effective != b.Effective {
		if a.Effective < b.Effective {
			return -1
		}
		return 1
	}
	return Compare(a.Offering, b.Offering)
}

// CheapestByType returns, for ranking instance types (weighting's
// RankOptions.Price), each type's cheapest known effective price among
// prices, and false for a type none of whose prices is known.
func CheapestByType(prices []Price) func(instanceType string) (float64, bool) {
	cheapest := map[string]float64{}
	for _, p := range prices {
		if !p.Known {
			continue
		}
		if v, ok := cheapest[p.Offering.InstanceType]; !ok || p.Effective < v {
			cheapest[p.Offering.InstanceType] = p.Effective
		}
	}
	return func(instanceType string) (float64, bool) {
		v, ok := cheapest[instanceType]
		return v, ok
	}
}
