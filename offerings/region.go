package offerings

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/internal/validation"
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
// a name or an ID, one that is no label value, or one listed twice; an
// instance type that is not family.size; an offered type in a zone r does
// not list; an invalid reserved offering or one in an unknown zone; a
// reservation ID used twice; a subnet in an unknown zone.
func (r Region) Validate() error {
	zones := map[string]string{} // name → ID
	for _, z := range r.Zones {
		switch {
		case z.Name == "" || z.ID == "":
			return fmt.Errorf("offerings: region %s: zone %q (ID %q) needs both a name and an ID", r.Name, z.Name, z.ID)
		case validation.LabelValue(z.Name) != nil || validation.LabelValue(z.ID) != nil:
			return fmt.Errorf("offerings: region %s: zone %q (ID %q): a zone's name and ID are label values (letters, digits, '-', '_', '.'; at most 63)", r.Name, z.Name, z.ID)
		case zones[z.Name] != "":
			return fmt.Errorf("offerings: region %s: zone %s listed twice", r.Name, z.Name)
		}
		zones[z.Name] = z.ID
	}
	for _, t := range r.InstanceTypes {
		if !validInstanceType(t) {
			return fmt.Errorf("offerings: region %s: instance type %q is not of the form family.size (e.g. m5.large)", r.Name, t)
		}
	}
	for _, zone := range slices.Sorted(maps.Keys(r.Offered)) {
		if zones[zone] == "" {
			return fmt.Errorf("offerings: region %s: Offered names zone %s, which Zones does not list", r.Name, zone)
		}
	}
	if err := r.validateReserved(zones); err != nil {
		return err
	}
	for _, s := range r.Subnets {
		if zones[s.Zone] == "" {
			return fmt.Errorf("offerings: region %s: subnet %s is in zone %q, which Zones does not list", r.Name, s.ID, s.Zone)
		}
	}
	return nil
}

// validateReserved checks the reserved offerings against the zones (name
// → ID), which Validate has checked are label values: a reserved
// offering in one of them needs no label check of its own.
func (r Region) validateReserved(zones map[string]string) error {
	ids := make(map[string]bool, len(r.Reserved))
	checked := "" // the last instance type checked: reservations usually come sorted by type
	for _, o := range r.Reserved {
		switch id := zones[o.Zone]; {
		case id == "":
			return fmt.Errorf("offerings: region %s: reserved offering %s is in zone %q, which Zones does not list", r.Name, o, o.Zone)
		case o.ZoneID != "" && o.ZoneID != id:
			return fmt.Errorf("offerings: region %s: reserved offering %s says zone %s is %s; Zones says %s", r.Name, o, o.Zone, o.ZoneID, id)
		case o.InstanceType != checked && !validInstanceType(o.InstanceType):
			return fmt.Errorf("offerings: region %s: reserved offering %s: instance type %q is not of the form family.size (e.g. m5.large)", r.Name, o, o.InstanceType)
		case o.CapacityType != Reserved:
			return fmt.Errorf("offerings: region %s: Reserved holds %s, which is not reserved", r.Name, o)
		}
		if err := o.validateKind(); err != nil {
			return err
		}
		n := len(ids)
		if ids[o.Reservation.ID] = true; len(ids) == n { // one hash, not two
			return fmt.Errorf("offerings: region %s: reservation %s listed twice", r.Name, o.Reservation.ID)
		}
		checked = o.InstanceType
	}
	return nil
}

// Offerings lists every offering r could hold for its InstanceTypes, in
// the order of [Compare]: for each type and zone, spot and on-demand, and
// every reserved offering of those types (its ZoneID filled in from Zones
// when empty). Whether each can launch is [Assess]'s question.
func (r Region) Offerings() []Offering {
	g := r.grid()
	out := make([]Offering, 0, g.size())
	g.walk(func(o Offering, _, _ int) { out = append(out, o) })
	return out
}

// grid is a region's offerings laid out by instance type and zone, both
// sorted: what Offerings lists and Assess judges, walked in one order.
type grid struct {
	types    []string
	zones    []Zone
	reserved []Offering // in Compare's order
}

func (r Region) grid() grid {
	g := grid{zones: slices.Clone(r.Zones), types: slices.Clone(r.InstanceTypes)}
	slices.SortFunc(g.zones, func(a, b Zone) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(g.types)
	g.types = slices.Compact(g.types)
	g.reserved = r.Reserved
	if !slices.IsSortedFunc(g.reserved, Compare) { // Load sorts them; a hand-written region may not
		g.reserved = slices.SortedFunc(slices.Values(r.Reserved), Compare)
	}
	return g
}

// size bounds the number of offerings: those of the reservations of
// other types are passed over.
func (g grid) size() int { return len(g.types)*len(g.zones)*2 + len(g.reserved) }

// walk calls f with every offering, in Compare's order (within a type and
// zone: reserved by ID, spot, on-demand), and the indices of its type and
// zone in g. Reserved offerings of types the grid lacks are passed over.
func (g grid) walk(f func(o Offering, ti, zi int)) {
	g.cells(func(ti, zi int, reserved []Offering) {
		t, z := g.types[ti], &g.zones[zi]
		for _, o := range reserved {
			f(z.reserved(o), ti, zi)
		}
		f(Offering{InstanceType: t, Zone: z.Name, ZoneID: z.ID, CapacityType: Spot}, ti, zi)
		f(Offering{InstanceType: t, Zone: z.Name, ZoneID: z.ID, CapacityType: OnDemand}, ti, zi)
	})
}

// reserved is o, a reserved offering in z, with z's ID when it has none.
func (z *Zone) reserved(o Offering) Offering {
	if o.ZoneID == "" {
		o.ZoneID = z.ID
	}
	return o
}

// cells calls f for every (type, zone) of g, in order, with the reserved
// offerings of that type and zone (in Compare's order; a part of
// g.reserved, not to be written): the cell's spot and on-demand offerings
// follow them.
func (g grid) cells(f func(ti, zi int, reserved []Offering)) {
	res := g.reserved
	for ti, t := range g.types {
		for len(res) > 0 && res[0].InstanceType < t {
			res = res[1:]
		}
		k := 0 // the type's reservations
		for k < len(res) && res[k].InstanceType == t {
			k++
		}
		typeRes := res[:k]
		res = res[k:]
		for zi := range g.zones {
			name := g.zones[zi].Name
			for len(typeRes) > 0 && typeRes[0].Zone < name {
				typeRes = typeRes[1:] // a zone the grid lacks
			}
			n := 0
			for n < len(typeRes) && typeRes[n].Zone == name {
				n++
			}
			f(ti, zi, typeRes[:n])
			typeRes = typeRes[n:]
		}
	}
}

// Compare orders offerings by instance type, zone, capacity type (reserved,
// spot, on-demand) and reservation ID: the identity [Key] holds, so
// distinct offerings never compare equal.
func Compare(a, b Offering) int {
	// Neighbours usually share their type and zone: == is cheaper than a
	// three-way comparison of equal strings.
	if a.InstanceType != b.InstanceType {
		return strings.Compare(a.InstanceType, b.InstanceType)
	}
	if a.Zone != b.Zone {
		return strings.Compare(a.Zone, b.Zone)
	}
	if c := cmp.Compare(a.CapacityType, b.CapacityType); c != 0 {
		return c
	}
	return strings.Compare(a.reservationID(), b.reservationID())
}

func (o *Offering) reservationID() string {
	if o.Reservation == nil {
		return ""
	}
	return o.Reservation.ID
}
