package offerings

import (
	"cmp"
	"strconv"
	"strings"
	"time"
)

// Mark says that launches in a scope failed recently and are not to be
// tried again before Deadline. The fields its Scope names are set (an
// offering scope sets InstanceType, Zone, CapacityType and, reserved,
// ReservationID; a zone scope only Zone; an account scope none); the
// others are empty. A mark holds exactly while the clock is before its
// Deadline, and never after.
type Mark struct {
	Scope         Scope        `json:"scope"`
	InstanceType  string       `json:"instanceType,omitempty"`
	Zone          string       `json:"zone,omitempty"`
	CapacityType  CapacityType `json:"capacityType,omitempty"`
	ReservationID string       `json:"reservationID,omitempty"`
	SubnetID      string       `json:"subnetID,omitempty"`

	// Code and Message are the EC2 error that made the mark, and Class its
	// class.
	Code    string `json:"code"`
	Class   Class  `json:"class"`
	Message string `json:"message,omitempty"`
	// Failures counts the failures in a row in this scope, each after the
	// previous mark had run out: the back-off doubles with each.
	Failures int `json:"failures"`
	// Since is when the failure that made the mark was observed; Deadline
	// when the mark ends.
	Since    time.Time `json:"since"`
	Deadline time.Time `json:"deadline"`
}

// Live reports whether m holds at t: t is before its deadline.
func (m Mark) Live(t time.Time) bool { return t.Before(m.Deadline) }

// Covers reports whether m, by its scope alone, covers o: the same
// offering, type and capacity type, capacity type or zone, or any offering
// for an account mark. A subnet mark covers no offering by itself: a zone
// is out only once every subnet of it is (see Assess).
func (m Mark) Covers(o Offering) bool { return m.covers(&o) }

func (m *Mark) covers(o *Offering) bool {
	switch m.Scope {
	case ScopeOffering:
		return m.InstanceType == o.InstanceType && m.Zone == o.Zone && m.CapacityType == o.CapacityType && m.ReservationID == o.reservationID()
	case ScopeTypeCapacityType:
		return m.InstanceType == o.InstanceType && m.CapacityType == o.CapacityType
	case ScopeCapacityType:
		return m.CapacityType == o.CapacityType
	case ScopeZone:
		return m.Zone == o.Zone
	case ScopeAccount:
		return true
	}
	return false
}

// What names the scope in words: "offering m5.large us-east-1a spot",
// "zone us-east-1a", "account".
func (m Mark) What() string {
	switch m.Scope {
	case ScopeOffering:
		s := "offering " + m.InstanceType + " " + m.Zone + " " + m.CapacityType.String()
		if m.ReservationID != "" {
			s += " " + m.ReservationID
		}
		return s
	case ScopeTypeCapacityType:
		return m.InstanceType + " as " + m.CapacityType.String() + " in every zone"
	case ScopeCapacityType:
		return "every " + m.CapacityType.String() + " offering"
	case ScopeZone:
		return "zone " + m.Zone
	case ScopeSubnet:
		return "subnet " + m.SubnetID
	case ScopeAccount:
		return "every launch of the account"
	}
	return m.Scope.String()
}

// String says what failed, where, and until when:
// "InsufficientInstanceCapacity (offering-unavailable) for offering m5.large
// us-east-1a spot: not retried until 2026-01-15T12:06:00Z (failure 2 in a
// row, back-off 6m0s)".
func (m Mark) String() string {
	code := m.Code
	if code == "" {
		code = "an error without a code"
	}
	b := make([]byte, 0, 160)
	b = append(b, code...)
	b = append(b, " ("...)
	b = append(b, m.Class.String()...)
	b = append(b, ") for "...)
	b = append(b, m.What()...)
	b = append(b, ": not retried until "...)
	b = m.Deadline.UTC().AppendFormat(b, time.RFC3339)
	b = append(b, " (failure "...)
	b = strconv.AppendInt(b, int64(m.Failures), 10)
	b = append(b, " in a row, back-off "...)
	b = append(b, m.Deadline.Sub(m.Since).String()...)
	b = append(b, ')')
	return string(b)
}

// scopeKey identifies what a mark covers; Memory keys its entries by it.
type scopeKey struct {
	scope         Scope
	instanceType  string
	zone          string
	capacityType  CapacityType
	reservationID string
	subnetID      string
}

func (m Mark) key() scopeKey {
	if m.Scope == ScopeSubnet { // the subnet ID alone names it; Zone only says where it is
		return scopeKey{scope: ScopeSubnet, subnetID: m.SubnetID}
	}
	return scopeKey{m.Scope, m.InstanceType, m.Zone, m.CapacityType, m.ReservationID, m.SubnetID}
}

func offeringScope(o Offering) scopeKey {
	k := scopeKey{scope: ScopeOffering, instanceType: o.InstanceType, zone: o.Zone, capacityType: o.CapacityType}
	if o.Reservation != nil {
		k.reservationID = o.Reservation.ID
	}
	return k
}

// scopeFor is the key of scope s for a failure of o in subnet: the fields
// the scope names, taken from the offering. A subnet scope without a
// subnet widens to the zone, the narrowest scope that still holds it.
func scopeFor(s Scope, o Offering, subnet string) scopeKey {
	switch s {
	case ScopeTypeCapacityType:
		return scopeKey{scope: s, instanceType: o.InstanceType, capacityType: o.CapacityType}
	case ScopeCapacityType:
		return scopeKey{scope: s, capacityType: o.CapacityType}
	case ScopeZone:
		return scopeKey{scope: s, zone: o.Zone}
	case ScopeSubnet:
		if subnet == "" {
			return scopeKey{scope: ScopeZone, zone: o.Zone}
		}
		return scopeKey{scope: s, subnetID: subnet}
	case ScopeAccount:
		return scopeKey{scope: s}
	}
	return offeringScope(o)
}

// compareMarks orders marks by scope, then what they name, then deadline:
// the order Memory.Marks lists them in.
func compareMarks(a, b Mark) int {
	return cmp.Or(
		cmp.Compare(a.Scope, b.Scope),
		strings.Compare(a.InstanceType, b.InstanceType),
		strings.Compare(a.Zone, b.Zone),
		cmp.Compare(a.CapacityType, b.CapacityType),
		strings.Compare(a.ReservationID, b.ReservationID),
		strings.Compare(a.SubnetID, b.SubnetID),
		a.Deadline.Compare(b.Deadline),
		strings.Compare(a.Code, b.Code),
	)
}
