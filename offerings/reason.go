package offerings

import (
	"fmt"
	"strconv"
	"time"
)

// ReasonCode names why an offering cannot launch. Its text form is the
// word in the constants' comments. The zero value is not a reason.
type ReasonCode uint8

// The reasons, in the order Assess checks them: the first that holds is
// the offering's one reason.
const (
	// ReasonZoneNotOptedIn ("zone-not-opted-in"): a Local or Wavelength
	// Zone the account has not opted in to.
	ReasonZoneNotOptedIn ReasonCode = iota + 1
	// ReasonZoneUnavailable ("zone-unavailable"): EC2 reports the zone
	// impaired, unavailable or constrained.
	ReasonZoneUnavailable
	// ReasonNotOffered ("not-offered"): EC2 does not offer the instance
	// type in the zone (DescribeInstanceTypeOfferings).
	ReasonNotOffered
	// ReasonSpotNotOffered ("spot-not-offered"): the type is not sold as
	// spot.
	ReasonSpotNotOffered
	// ReasonNoSubnet ("no-subnet"): the region's subnets (when given)
	// include none in the zone.
	ReasonNoSubnet
	// ReasonSubnetsFull ("subnets-full"): every subnet in the zone is out
	// of free addresses.
	ReasonSubnetsFull
	// ReasonReservationNotStarted ("reservation-not-started"): the
	// reservation's window has not begun (a capacity block before its
	// start).
	ReasonReservationNotStarted
	// ReasonReservationEnded ("reservation-ended"): the reservation's
	// window is over.
	ReasonReservationEnded
	// ReasonReservationExpiring ("reservation-expiring"): a capacity block
	// in its last 40 minutes, when Karpenter launches into it no more
	// (karpenter-provider-aws v1.14.1 pkg/apis/v1/ec2nodeclass_status.go:238,260).
	ReasonReservationExpiring
	// ReasonReservationExhausted ("reservation-exhausted"): the
	// reservation has no free instance.
	ReasonReservationExhausted
	// ReasonMarked ("marked"): a launch failed recently and a mark covers
	// the offering until its deadline.
	ReasonMarked
	// ReasonRequirements ("requirements"): the NodePool's requirements
	// exclude the offering (Candidates only, where it comes before every
	// other reason: the NodePool does not ask for the offering at all).
	ReasonRequirements
	// ReasonPriceUnknown ("price-unknown"): no price is known and the
	// caller chose to skip such offerings (Candidates only).
	ReasonPriceUnknown
)

var reasonText = [...]string{
	ReasonZoneNotOptedIn: "zone-not-opted-in", ReasonZoneUnavailable: "zone-unavailable", ReasonNotOffered: "not-offered",
	ReasonSpotNotOffered: "spot-not-offered", ReasonNoSubnet: "no-subnet", ReasonSubnetsFull: "subnets-full",
	ReasonReservationNotStarted: "reservation-not-started", ReasonReservationEnded: "reservation-ended",
	ReasonReservationExpiring: "reservation-expiring", ReasonReservationExhausted: "reservation-exhausted",
	ReasonMarked: "marked", ReasonRequirements: "requirements", ReasonPriceUnknown: "price-unknown",
}

// String returns the reason's word.
func (r ReasonCode) String() string {
	if r >= ReasonZoneNotOptedIn && r <= ReasonPriceUnknown {
		return reasonText[r]
	}
	return "ReasonCode(" + strconv.Itoa(int(r)) + ")"
}

// MarshalText implements encoding.TextMarshaler.
func (r ReasonCode) MarshalText() ([]byte, error) {
	if r < ReasonZoneNotOptedIn || r > ReasonPriceUnknown {
		return nil, fmt.Errorf("offerings: cannot marshal %s", r)
	}
	return []byte(r.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *ReasonCode) UnmarshalText(b []byte) error {
	for v := ReasonZoneNotOptedIn; v <= ReasonPriceUnknown; v++ {
		if reasonText[v] == string(b) {
			*r = v
			return nil
		}
	}
	return fmt.Errorf("offerings: reason %q is none of %v", b, reasonText[1:])
}

// Reason says why an offering cannot launch: its code, the message in
// words (with the fix, where there is one), and the mark behind it for
// ReasonMarked (a copy taken by Assess or Candidates, shared by every
// offering the mark covers in that answer: read it, do not change it). When it stops holding by itself is
// Availability.Until (or Skipped.Until): the mark's deadline, or the start
// of a reservation's window. It is kept small: Assess writes one per
// offering.
type Reason struct {
	Code    ReasonCode `json:"code"`
	Message string     `json:"message"`
	Mark    *Mark      `json:"mark,omitempty"`
}

// until is when reason r, given for offering o, stops holding by itself:
// a mark's deadline, a reservation's start; zero for a reason that holds
// until the region itself changes.
func until(o Offering, r Reason) time.Time {
	switch {
	case r.Code == ReasonMarked && r.Mark != nil:
		return r.Mark.Deadline
	case r.Code == ReasonReservationNotStarted && o.Reservation != nil:
		return o.Reservation.Start
	}
	return time.Time{}
}

// String returns the message.
func (r Reason) String() string { return r.Message }
