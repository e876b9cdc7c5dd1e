package offerings

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/ec2select/ec2select/compat"
)

// UnknownPrice says where an offering whose price is not known goes in the
// candidate order. Its text form is the word in the constants' comments.
type UnknownPrice uint8

const (
	// UnknownPriceLast ("last"), the zero value: after every offering of
	// its tier whose price is known, in the order used without prices
	// (spot before on-demand).
	UnknownPriceLast UnknownPrice = iota
	// UnknownPriceSkip ("skip"): not a candidate; skipped with
	// ReasonPriceUnknown. Karpenter does this: an offering without a price
	// is not available (karpenter-provider-aws v1.14.1
	// pkg/providers/instancetype/offering/base_resolver.go:135).
	UnknownPriceSkip
)

var unknownPriceText = [...]string{UnknownPriceLast: "last", UnknownPriceSkip: "skip"}

// String returns the word.
func (u UnknownPrice) String() string {
	if u <= UnknownPriceSkip {
		return unknownPriceText[u]
	}
	return "UnknownPrice(" + strconv.Itoa(int(u)) + ")"
}

// MarshalText implements encoding.TextMarshaler.
func (u UnknownPrice) MarshalText() ([]byte, error) {
	if u > UnknownPriceSkip {
		return nil, fmt.Errorf("offerings: cannot marshal %s", u)
	}
	return []byte(u.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (u *UnknownPrice) UnmarshalText(b []byte) error {
	for v := UnknownPriceLast; v <= UnknownPriceSkip; v++ {
		if unknownPriceText[v] == string(b) {
			*u = v
			return nil
		}
	}
	return fmt.Errorf("offerings: unknown-price rule %q: want last or skip", b)
}

// CandidateOptions shapes a candidate list. The zero value means: every
// offering the region has, no prices.
type CandidateOptions struct {
	// Requirements are the NodePool's. Only the keys an offering has are
	// asked of it (instance type, zone, zone ID, capacity type, the
	// reservation keys), with compat's strict algebra, the offering as the
	// receiver; filter instance types by their own facts (architecture,
	// family, …) before you list them in Region.InstanceTypes.
	Requirements compat.Requirements
	// Price, when set, gives an offering's price in USD per hour and
	// whether it is known. Offerings are then ordered by price within
	// their tier; see UnknownPrice for the rest. A known price that is
	// negative, infinite or NaN is an error.
	Price func(Offering) (usdPerHour float64, known bool)
	// UnknownPrice says where offerings whose price is not known go.
	UnknownPrice UnknownPrice
}

// Candidate is one offering to try, in order.
type Candidate struct {
	Offering Offering `json:"offering"`
	// Price is the offering's price in USD per hour when PriceKnown.
	Price      float64 `json:"price,omitempty"`
	PriceKnown bool    `json:"priceKnown"`
}

// Skipped is an offering that is no candidate, and why.
type Skipped struct {
	Offering Offering `json:"offering"`
	Reason   Reason   `json:"reason"`
}

// Until is when the reason stops holding by itself; see Availability.Until.
func (s Skipped) Until() time.Time { return until(s.Offering, s.Reason) }

// CandidateList is the answer of Candidates: the offerings to try, best
// first, and every other offering with its one reason.
type CandidateList struct {
	Candidates []Candidate `json:"candidates"`
	Skipped    []Skipped   `json:"skipped"`
}

// Candidates orders the offerings of r that can launch at at, given marks,
// for a NodePool:
//
//  1. reserved offerings whose reservation has room, first, as Karpenter
//     takes them (it prices them at a ten-millionth of on-demand:
//     reserved_capacity_resolver.go:79);
//  2. then the others: by price when opts.Price is set (unknown prices
//     per opts.UnknownPrice), spot before on-demand otherwise;
//
// ties broken by capacity type (reserved, spot, on-demand), then instance
// type, zone and reservation ID, so the order is total and the same for
// any order of r's lists and of marks. Every offering that is not a
// candidate is in Skipped with one reason, the first of: the requirement
// that excludes it (the NodePool does not ask for it), Assess's reason, an
// unknown price. A spot offering marked out is skipped
// and its on-demand sibling stays a candidate: the fallback
// karpenter-provider-aws #9616 found missing happens because the rule
// says so, not because a code path remembers to.
func Candidates(r Region, marks []Mark, at time.Time, opts CandidateOptions) (CandidateList, error) {
	av, err := Assess(r, marks, at)
	if err != nil {
		return CandidateList{}, err
	}
	pool, err := offeringRequirements(opts.Requirements)
	if err != nil {
		return CandidateList{}, err
	}
	var list CandidateList
	for _, a := range av {
		c, skip, err := judge(a, pool, opts)
		switch {
		case err != nil:
			return CandidateList{}, err
		case skip.Code != 0:
			list.Skipped = append(list.Skipped, Skipped{Offering: a.Offering, Reason: skip})
		default:
			list.Candidates = append(list.Candidates, c)
		}
	}
	slices.SortFunc(list.Candidates, compareCandidates)
	return list, nil
}

// offeringKeys are the label keys an offering's requirements can hold.
var offeringKeys = []string{
	compat.LabelInstanceType, compat.LabelZone, compat.LabelAWSZoneID, compat.LabelCapacityType,
	compat.LabelCapacityReservationID, compat.LabelCapacityReservationType, compat.LabelCapacityReservationInterruptible,
}

// offeringRequirements keeps the requirements on the keys an offering has.
func offeringRequirements(reqs compat.Requirements) (compat.Requirements, error) {
	var keep []compat.Requirement
	for _, r := range reqs.List() {
		if slices.Contains(offeringKeys, r.Key) {
			keep = append(keep, r)
		}
	}
	return compat.NewRequirements(keep...)
}

// judge makes a candidate of a, or says why not.
func judge(a Availability, pool compat.Requirements, opts CandidateOptions) (Candidate, Reason, error) {
	o := a.Offering
	if len(pool.Keys()) > 0 {
		reqs, err := o.requirements()
		if err != nil {
			return Candidate{}, Reason{}, err
		}
		if err := reqs.Compatible(pool); err != nil {
			return Candidate{}, Reason{Code: ReasonRequirements, Message: "the NodePool's requirements exclude it: " + err.Error()}, nil
		}
	}
	if !a.Available {
		return Candidate{}, a.Reason, nil
	}
	c := Candidate{Offering: o}
	if opts.Price != nil {
		c.Price, c.PriceKnown = opts.Price(o)
		switch {
		case c.PriceKnown && (c.Price < 0 || math.IsNaN(c.Price) || math.IsInf(c.Price, 0)):
			return Candidate{}, Reason{}, fmt.Errorf("offerings: the price function gives %s a price of %v USD per hour; a known price is finite and not negative", o, c.Price)
		case !c.PriceKnown && opts.UnknownPrice == UnknownPriceSkip:
			return Candidate{}, Reason{Code: ReasonPriceUnknown, Message: "no price is known, and unknown prices are skipped (CandidateOptions.UnknownPrice)"}, nil
		case !c.PriceKnown:
			c.Price = 0
		}
	}
	return c, Reason{}, nil
}

// compareCandidates is the candidate order: reserved first; known prices,
// cheapest first, before unknown ones; then capacity type and identity.
func compareCandidates(a, b Candidate) int {
	return cmp.Or(
		cmp.Compare(tier(a), tier(b)),
		compareKnown(a, b),
		cmp.Compare(a.Price, b.Price),
		cmp.Compare(a.Offering.CapacityType, b.Offering.CapacityType),
		Compare(a.Offering, b.Offering),
	)
}

func tier(c Candidate) int {
	if c.Offering.CapacityType == Reserved {
		return 0
	}
	return 1
}

// compareKnown puts a known price before an unknown one.
func compareKnown(a, b Candidate) int {
	switch {
	case a.PriceKnown == b.PriceKnown:
		return 0
	case a.PriceKnown:
		return -1
	}
	return 1
}
