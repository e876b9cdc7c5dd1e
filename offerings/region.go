package offerings

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Region is what EC2 says a region offers: its zones, the instance types
// each zone offers, the capacity reservations, and, optionally, the
// subnets launches may use. Load builds it from EC2 (every page of every
// answer); a test or a user can write one by hand. It is the source every
// availability is judged against: an offering exists when the region says
// so, and nothing else makes one exist.
//
// The order of every list is irrelevant: everything derived from a
// Region is sorted.
type Region struct {
	// Name is the region's name (us-east-1).
	Name string `json:"name"`
	// Zones are the region's zones, opted in or not.
	Zones []Zone `json:"zones"`
	// InstanceTypes are the types offerings are listed for. Load sets it to
	// every type some zone offers; narrow it to the types a NodePool
	// allows. A type listed here that no zone offers gets offerings that
	// are all unavailable ("not offered").
	InstanceTypes []string `json:"instanceTypes"`
	// Offered lists, by zone name, the instance types EC2 offers in that
	// zone (DescribeInstanceTypeOfferings).
	Offered map[string][]string `json:"offered"`
	// NoSpot lists the instance types EC2 does not sell as spot (their
	// SupportedUsageClasses lack spot).
	NoSpot []string `json:"noSpot,omitempty"`
	// Reserved are the reserved offerings: one per capacity reservation,
	// each with its instance type, zone and Reservation.
	Reserved []Offering `json:"reserved,omitempty"`
	// Subnets, when set, are the subnets launches may use. A zone without
	// one then takes no launch, and a zone whose every subnet is out of
	// addresses (or marked so) neither. Nil means subnets are not
	// considered.
	Subnets []Subnet `json:"subnets,omitempty"`
}

// Subnet is a subnet launches may use, as DescribeSubnets describes it.
type Subnet struct {
	ID     string `json:"id"`
	Zone   string `json:"zone"`
	ZoneID string `json:"zoneID,omitempty"`
	// AvailableIPv4 is the subnet's AvailableIpAddressCount: every launch
	// takes at least one.
	AvailableIPv4 int32 `json:"availableIPv4"`
}

// Validate reports the first inconsistency in r, naming it: a zone without
// a name or an ID, or listed twice; an offered type in a zone r does not
// list; an invalid reserved offering or one in an unknown zone; a
// reservation ID used twice; a subnet in an unknown zone.
func (r Region) Validate() error {
	zones := map[string]bool{}
	for _, z := range r.Zones {
		switch {
		case z.Name == "" || z.ID == "":
			return fmt.Errorf("offerings: region %s: zone %q (ID %q) needs both a name and an ID", r.Name, z.Name, z.ID)
		case zones[z.Name]:
			return fmt.Errorf("offerings: region %s: zone %s listed twice", r.Name, z.Name)
		}
		zones[z.Name] = true
	}
	for _, zone := range slices.Sorted(maps.Keys(r.Offered)) {
		if !zones[zone] {
			return fmt.Errorf("offerings: region %s: Offered names zone %s, which Zones does not list", r.Name, zone)
		}
	}
	ids := map[string]bool{}
	for _, o := range r.Reserved {
		if err := o.Validate(); err != nil {
			return err
		}
		switch {
		case o.CapacityType != Reserved:
			return fmt.Errorf("offerings: region %s: Reserved holds %s, which is not reserved", r.Name, o)
		case !zones[o.Zone]:
			return fmt.Errorf("offerings: region %s: reserved offering %s is in zone %s, which Zones does not list", r.Name, o, o.Zone)
		case ids[o.Reservation.ID]:
			return fmt.Errorf("offerings: region %s: reservation %s listed twice", r.Name, o.Reservation.ID)
		}
		ids[o.Reservation.ID] = true
	}
	for _, s := range r.Subnets {
		if !zones[s.Zone] {
			return fmt.Errorf("offerings: region %s: subnet %s is in zone %q, which Zones does not list", r.Name, s.ID, s.Zone)
		}
	}
	return nil
}

// Offerings lists every offering r could hold for its InstanceTypes, in
// the order of [Compare]: for each type and zone, spot and on-demand, and
// every reserved offering of those types (its ZoneID filled in from Zones
// when empty). Whether each can launch is [Assess]'s question.
func (r Region) Offerings() []Offering {
	zones := slices.Clone(r.Zones)
	slices.SortFunc(zones, func(a, b Zone) int { return strings.Compare(a.Name, b.Name) })
	types := slices.Clone(r.InstanceTypes)
	slices.Sort(types)
	types = slices.Compact(types)
	out := make([]Offering, 0, len(types)*len(zones)*2+len(r.Reserved))
	for _, t := range types {
		for _, z := range zones {
			for _, ct := range []CapacityType{Spot, OnDemand} {
				out = append(out, Offering{InstanceType: t, Zone: z.Name, ZoneID: z.ID, CapacityType: ct})
			}
		}
	}
	ids := make(map[string]string, len(zones))
	for _, z := range zones {
		ids[z.Name] = z.ID
	}
	for _, o := range r.Reserved {
		if _, ok := slices.BinarySearch(types, o.InstanceType); ok {
			if o.ZoneID == "" {
				o.ZoneID = ids[o.Zone]
			}
			out = append(out, o)
		}
	}
	slices.SortFunc(out, Compare)
	return out
}

// Compare orders offerings by instance type, zone, capacity type (reserved,
// spot, on-demand) and reservation ID: the identity [Key] holds, so
// distinct offerings never compare equal.
func Compare(a, b Offering) int {
	ka, kb := a.Key(), b.Key()
	return cmp.Or(
		strings.Compare(ka.InstanceType, kb.InstanceType),
		strings.Compare(ka.Zone, kb.Zone),
		cmp.Compare(ka.CapacityType, kb.CapacityType),
		strings.Compare(ka.ReservationID, kb.ReservationID),
	)
}
