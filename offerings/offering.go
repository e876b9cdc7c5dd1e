package offerings

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/validation"
)

// CapacityType is how an instance is paid for: on demand, as spot, or from
// a capacity reservation. Its text form is the value of the
// karpenter.sh/capacity-type label. The zero value is not a capacity type.
type CapacityType uint8

// The capacity types, in the order Karpenter prefers them when prices are
// equal: a reservation with room first, then spot, then on-demand.
const (
	Reserved CapacityType = iota + 1
	Spot
	OnDemand
)

var capacityTypeText = [...]string{Reserved: "reserved", Spot: "spot", OnDemand: "on-demand"}

// String returns the label value ("on-demand", "spot", "reserved"), or
// CapacityType(N) for a value that is none of them.
func (c CapacityType) String() string {
	if c >= Reserved && c <= OnDemand {
		return capacityTypeText[c]
	}
	return "CapacityType(" + strconv.Itoa(int(c)) + ")"
}

// MarshalText implements encoding.TextMarshaler.
func (c CapacityType) MarshalText() ([]byte, error) {
	if c < Reserved || c > OnDemand {
		return nil, fmt.Errorf("offerings: cannot marshal %s", c)
	}
	return []byte(c.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *CapacityType) UnmarshalText(b []byte) error {
	v, err := ParseCapacityType(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// ParseCapacityType reads a karpenter.sh/capacity-type label value.
func ParseCapacityType(s string) (CapacityType, error) {
	for c := Reserved; c <= OnDemand; c++ {
		if capacityTypeText[c] == s {
			return c, nil
		}
	}
	return 0, fmt.Errorf("offerings: capacity type %q: want on-demand, spot or reserved", s)
}

// ReservationType is EC2's ReservationType of a capacity reservation. Its
// text form is the karpenter.k8s.aws/capacity-reservation-type label value.
type ReservationType uint8

// The reservation types EC2 has.
const (
	// ReservationDefault is an On-Demand Capacity Reservation (ODCR).
	ReservationDefault ReservationType = iota + 1
	// ReservationCapacityBlock is a Capacity Block for ML: it holds
	// instances only between its start and end.
	ReservationCapacityBlock
)

var reservationTypeText = [...]string{ReservationDefault: "default", ReservationCapacityBlock: "capacity-block"}

// String returns "default" or "capacity-block".
func (t ReservationType) String() string {
	if t >= ReservationDefault && t <= ReservationCapacityBlock {
		return reservationTypeText[t]
	}
	return "ReservationType(" + strconv.Itoa(int(t)) + ")"
}

// MarshalText implements encoding.TextMarshaler.
func (t ReservationType) MarshalText() ([]byte, error) {
	if t < ReservationDefault || t > ReservationCapacityBlock {
		return nil, fmt.Errorf("offerings: cannot marshal %s", t)
	}
	return []byte(t.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *ReservationType) UnmarshalText(b []byte) error {
	for v := ReservationDefault; v <= ReservationCapacityBlock; v++ {
		if reservationTypeText[v] == string(b) {
			*t = v
			return nil
		}
	}
	return fmt.Errorf("offerings: reservation type %q: want default or capacity-block", b)
}

// Reservation describes the capacity reservation a reserved offering
// launches into. Only offerings of capacity type [Reserved] carry one.
type Reservation struct {
	// ID is the reservation's ID (cr-…).
	ID string `json:"id"`
	// Type is default (an ODCR) or capacity-block.
	Type ReservationType `json:"type"`
	// Targeted is true when the reservation's InstanceMatchCriteria is
	// targeted: only launches that name it use it. An open reservation
	// is used by any matching launch.
	Targeted bool `json:"targeted,omitempty"`
	// Interruptible is true for an interruptible reservation: EC2 may
	// reclaim its instances for the reservation's owner.
	Interruptible bool `json:"interruptible,omitempty"`
	// OwnerID is the account that owns the reservation.
	OwnerID string `json:"ownerID,omitempty"`
	// Total and Available count instances: how many the reservation holds
	// and how many of those are free now.
	Total     int32 `json:"total"`
	Available int32 `json:"available"`
	// Start and End bound the window in which the reservation holds
	// instances. A zero Start means it already has; a zero End means it
	// never ends.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
}

// Offering is one place an instance type can launch: a zone, a capacity
// type and, for a reserved offering, a reservation.
type Offering struct {
	InstanceType string `json:"instanceType"`
	// Zone is the availability zone's name (us-east-1a) and ZoneID its
	// ID (use1-az1), which names the same physical zone in every account.
	Zone   string `json:"zone"`
	ZoneID string `json:"zoneID,omitempty"`
	// CapacityType is on-demand, spot or reserved.
	CapacityType CapacityType `json:"capacityType"`
	// Reservation is set exactly when CapacityType is Reserved.
	Reservation *Reservation `json:"reservation,omitempty"`
}

// Key identifies an offering: two offerings with the same key are the
// same offering. It is comparable, so it can key a map.
type Key struct {
	InstanceType  string
	Zone          string
	CapacityType  CapacityType
	ReservationID string
}

// Key returns the offering's identity.
func (o Offering) Key() Key {
	k := Key{InstanceType: o.InstanceType, Zone: o.Zone, CapacityType: o.CapacityType}
	if o.Reservation != nil {
		k.ReservationID = o.Reservation.ID
	}
	return k
}

// String names the offering: "m5.large us-east-1a spot", and the
// reservation's ID for a reserved offering.
func (o Offering) String() string {
	s := o.InstanceType + " " + o.Zone + " " + o.CapacityType.String()
	if o.Reservation != nil {
		s += " " + o.Reservation.ID
	}
	return s
}

// Requirements are the offering's labels as requirements, in Karpenter's
// keys: node.kubernetes.io/instance-type, topology.kubernetes.io/zone,
// topology.k8s.aws/zone-id (when the zone ID is known),
// karpenter.sh/capacity-type and, for a reserved offering,
// karpenter.k8s.aws/capacity-reservation-id, -type and -interruptible.
// Reservation keys the offering does not have are DoesNotExist, as on a
// Karpenter offering (karpenter-provider-aws v1.14.1
// pkg/providers/instancetype/offering/base_resolver.go:127-133), so a
// NodePool that requires a reservation ID matches only reserved offerings.
// Ask a NodePool's requirements of them with compat's Compatible, the
// offering as the receiver.
//
// It fails, naming the field, when the offering is not valid (see
// [Offering.Validate]): a zone that is no label value cannot be required.
func (o Offering) Requirements() (compat.Requirements, error) {
	if err := o.Validate(); err != nil {
		return compat.Requirements{}, err
	}
	return o.requirements()
}

// requirements compiles the requirements of an offering Validate accepted:
// every value is then a label value, so NewRequirements does not fail.
func (o Offering) requirements() (compat.Requirements, error) {
	rs := make([]compat.Requirement, 0, 7)
	in := func(key, value string) {
		rs = append(rs, compat.Requirement{Key: key, Operator: compat.In, Values: []string{value}})
	}
	in(compat.LabelInstanceType, o.InstanceType)
	in(compat.LabelZone, o.Zone)
	in(compat.LabelCapacityType, o.CapacityType.String())
	if o.ZoneID != "" {
		in(compat.LabelAWSZoneID, o.ZoneID)
	}
	if r := o.Reservation; r != nil {
		in(compat.LabelCapacityReservationID, r.ID)
		in(compat.LabelCapacityReservationType, r.Type.String())
		in(compat.LabelCapacityReservationInterruptible, strconv.FormatBool(r.Interruptible))
	} else {
		for _, k := range []string{compat.LabelCapacityReservationID, compat.LabelCapacityReservationType, compat.LabelCapacityReservationInterruptible} {
			rs = append(rs, compat.Requirement{Key: k, Operator: compat.DoesNotExist})
		}
	}
	reqs, err := compat.NewRequirements(rs...)
	if err != nil {
		return compat.Requirements{}, fmt.Errorf("offerings: offering %s: %v", o, err)
	}
	return reqs, nil
}

// validInstanceType reports whether s is an EC2 instance type name,
// family.size: ^[a-z][a-z0-9-]*\.[a-z0-9-]+$ (a loop rather than a
// regexp: Region.Validate runs it for every type and reservation).
func validInstanceType(s string) bool {
	dot := strings.IndexByte(s, '.')
	if dot < 1 || dot == len(s)-1 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	return lowerDigitsDashes(s[:dot]) && lowerDigitsDashes(s[dot+1:])
}

func lowerDigitsDashes(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// validReservationID reports whether s is a capacity reservation ID as
// Karpenter's EC2NodeClass status admits it, ^cr-[0-9a-z]+$
// (karpenter-provider-aws v1.14.1 pkg/apis/v1/ec2nodeclass_status.go:92).
func validReservationID(s string) bool {
	if len(s) < 4 || s[:3] != "cr-" {
		return false
	}
	for i := 3; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Validate reports the first thing that makes o no offering, naming the
// field and the fix: an instance type that is not family.size, a zone or
// zone ID that is empty or no label value, a capacity type that is none
// of the three, a reservation on an offering that is not reserved (or
// none on one that is), a reservation ID that is not cr-…, a count below
// zero or more instances available than the reservation holds, a window
// that ends before it starts.
func (o Offering) Validate() error {
	if err := o.validatePlace(); err != nil {
		return err
	}
	return o.validateKind()
}

// validateKind checks the capacity type and the reservation.
func (o Offering) validateKind() error {
	switch {
	case o.CapacityType < Reserved || o.CapacityType > OnDemand:
		return fmt.Errorf("offerings: offering %s: capacity type %s is none of on-demand, spot or reserved", o, o.CapacityType)
	case o.CapacityType == Reserved && o.Reservation == nil:
		return fmt.Errorf("offerings: offering %s: a reserved offering needs its Reservation", o)
	case o.CapacityType != Reserved && o.Reservation != nil:
		return fmt.Errorf("offerings: offering %s: only a reserved offering has a Reservation; set CapacityType to reserved or drop the reservation", o)
	}
	if o.Reservation != nil {
		return o.Reservation.validate(o)
	}
	return nil
}

func (o Offering) validatePlace() error {
	if !validInstanceType(o.InstanceType) {
		return fmt.Errorf("offerings: offering %s: instance type %q is not of the form family.size (e.g. m5.large)", o, o.InstanceType)
	}
	if o.Zone == "" {
		return fmt.Errorf("offerings: offering %s: empty zone; set Zone to the zone's name (e.g. us-east-1a)", o)
	}
	if err := validation.LabelValue(o.Zone); err != nil {
		return fmt.Errorf("offerings: offering %s: zone %q is not a label value: %v", o, o.Zone, err)
	}
	if err := validation.LabelValue(o.ZoneID); err != nil {
		return fmt.Errorf("offerings: offering %s: zone ID %q is not a label value: %v", o, o.ZoneID, err)
	}
	return nil
}

func (r *Reservation) validate(o Offering) error {
	switch {
	case !validReservationID(r.ID):
		return fmt.Errorf("offerings: offering %s: reservation ID %q is not a capacity reservation ID (cr- and lowercase letters or digits)", o, r.ID)
	case r.Type < ReservationDefault || r.Type > ReservationCapacityBlock:
		return fmt.Errorf("offerings: offering %s: reservation type %s is neither default nor capacity-block", o, r.Type)
	case r.Total < 0 || r.Available < 0:
		return fmt.Errorf("offerings: offering %s: negative instance count (total %d, available %d)", o, r.Total, r.Available)
	case r.Available > r.Total:
		return fmt.Errorf("offerings: offering %s: %d instances available of a reservation that holds %d", o, r.Available, r.Total)
	case !r.Start.IsZero() && !r.End.IsZero() && !r.End.After(r.Start):
		return fmt.Errorf("offerings: offering %s: reservation ends (%s) before it starts (%s)", o, r.End.Format(time.RFC3339), r.Start.Format(time.RFC3339))
	}
	return nil
}
