package offerings

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Availability says whether one offering can launch at an instant, and if
// not, the one reason why.
type Availability struct {
	Offering  Offering `json:"offering"`
	Available bool     `json:"available"`
	// Reason is set exactly when Available is false.
	Reason Reason `json:"reason,omitzero"`
}

// Until is when the offering's reason stops holding by itself (a mark's
// deadline, a reservation's start); zero when it is available, or when
// its reason holds until the region itself changes.
func (a Availability) Until() time.Time { return until(a.Offering, a.Reason) }

// Assess says, for every offering of r (Region.Offerings), whether it can
// launch at instant at given marks, and for each that cannot, exactly one
// reason: the first of these that holds (ReasonCode's order):
//
//	the zone is not opted in, or not available
//	the type is not offered in the zone (reserved offerings: the reservation says it is)
//	spot: the type is not sold as spot
//	subnets given: none in the zone, or all out of addresses
//	reserved: the window has not begun, is over, or is a capacity block's last 40 minutes; no free instance
//	a live mark covers it (the one that holds longest; see below)
//
// A mark covers an offering by its scope (Mark.Covers); subnet marks
// cover a zone only when every subnet r lists there is out of addresses
// or marked, as Karpenter's cache judges subnets
// (karpenter-provider-aws v1.14.1 pkg/cache/unavailableofferings.go:109-115),
// and not at all when r lists no subnets. Of several covering marks the
// reason names the one that keeps the offering out longest: the latest
// deadline (for subnets, the earliest of the zone's, when the first frees
// up), ties to the narrower scope. Marks that are not live at at are
// ignored, so a mark never outlives its deadline.
//
// Assess is a pure function of (r, the marks live at at): the same
// arguments give the same answer, in any order of r's lists or of marks.
// It fails only when r is not valid (Region.Validate), naming the problem.
func Assess(r Region, marks []Mark, at time.Time) ([]Availability, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	g := r.grid()
	a := newAssessor(r, g, marks, at)
	out := make([]Availability, g.size())
	n := 0
	g.cells(func(ti, zi int, reserved []Offering) {
		n += a.cell(out[n:], g, ti, zi, reserved)
	})
	return out[:n:n], nil
}

// assessor holds what Assess needs, indexed once per call by the grid's
// type and zone indices, so that judging an offering hashes no string.
type assessor struct {
	at      time.Time
	zones   []zoneVerdict
	nz      int
	offered []bool // [ti*nz+zi]: EC2 offers type ti in zone zi
	noSpot  []bool // [ti]
	marks   markIndex
	// the current instance type's marks (offerings arrive by type)
	curType  int
	curMarks []*Mark
}

func newAssessor(r Region, g grid, marks []Mark, at time.Time) *assessor {
	a := &assessor{at: at, nz: len(g.zones), curType: -1, marks: indexMarks(marks, at, g.zones)}
	a.offered = make([]bool, len(g.types)*len(g.zones))
	for zi, z := range g.zones {
		for ti := range within(g.types, r.Offered[z.Name]) {
			a.offered[ti*a.nz+zi] = true
		}
	}
	a.noSpot = make([]bool, len(g.types))
	for ti := range within(g.types, r.NoSpot) {
		a.noSpot[ti] = true
	}
	a.zones = make([]zoneVerdict, len(g.zones))
	for zi, z := range g.zones {
		a.zones[zi] = zoneVerdictOf(z, r.Subnets, a.marks.subnets)
	}
	return a
}

// within yields the index in sorted of every name of names (in any
// order, repeats allowed) that sorted holds: a merge, not a hash per name.
func within(sorted, names []string) func(func(int) bool) {
	return func(yield func(int) bool) {
		if !slices.IsSorted(names) {
			names = slices.Sorted(slices.Values(names))
		}
		i := 0
		for _, n := range names {
			for i < len(sorted) && sorted[i] < n {
				i++
			}
			if i < len(sorted) && sorted[i] == n && !yield(i) {
				return
			}
		}
	}
}

// zoneVerdict is what holds for every offering in a zone.
type zoneVerdict struct {
	reason  Reason // zone or subnet reason; Code 0 when none
	subnets *Mark  // when every subnet is out and some are marked: the mark that frees up first
}

func zoneVerdictOf(z Zone, subnets []Subnet, subnetMarks map[string]*Mark) zoneVerdict {
	switch {
	case z.OptInStatus == NotOptedIn:
		return zoneVerdict{reason: Reason{Code: ReasonZoneNotOptedIn, Message: fmt.Sprintf("zone %s is not opted in; opt the account in (ec2 modify-availability-zone-group) or leave the zone out", z.Name)}}
	case !z.Usable():
		return zoneVerdict{reason: Reason{Code: ReasonZoneUnavailable, Message: fmt.Sprintf("zone %s is %s", z.Name, z.State)}}
	case subnets == nil:
		return zoneVerdict{}
	}
	var in, full int
	var first *Mark
	for _, s := range subnets {
		if s.Zone != z.Name {
			continue
		}
		in++
		switch m := subnetMarks[s.ID]; {
		case m != nil:
			if first == nil || m.Deadline.Before(first.Deadline) || m.Deadline.Equal(first.Deadline) && m.SubnetID < first.SubnetID {
				first = m
			}
		case s.AvailableIPv4 <= 0:
			full++
		default:
			return zoneVerdict{} // a subnet that takes launches
		}
	}
	switch {
	case in == 0:
		return zoneVerdict{reason: Reason{Code: ReasonNoSubnet, Message: fmt.Sprintf("no subnet in zone %s; add one there (or leave the zone out)", z.Name)}}
	case first == nil:
		return zoneVerdict{reason: Reason{Code: ReasonSubnetsFull, Message: fmt.Sprintf("all %d subnets in zone %s are out of free addresses", full, z.Name)}}
	}
	return zoneVerdict{subnets: first}
}

// markIndex holds the live marks by what they cover.
type markIndex struct {
	byType   map[string][]*Mark // offering and type × capacity type marks, by instance type
	byCT     [OnDemand + 1]*Mark
	byZone   []*Mark // by the grid's zone index
	account  *Mark
	subnets  map[string]*Mark
	messages map[*Mark]string
	wide     bool // a capacity-type, zone or account mark is live
}

func indexMarks(marks []Mark, at time.Time, zones []Zone) markIndex {
	ix := markIndex{byType: map[string][]*Mark{}, byZone: make([]*Mark, len(zones)), subnets: map[string]*Mark{}}
	own := slices.Clone(marks) // the index points into its own copy
	for i := range own {
		m := &own[i]
		if !m.Live(at) {
			continue
		}
		switch m.Scope {
		case ScopeOffering, ScopeTypeCapacityType:
			ix.byType[m.InstanceType] = append(ix.byType[m.InstanceType], m)
		case ScopeCapacityType:
			if m.CapacityType >= Reserved && m.CapacityType <= OnDemand {
				ix.byCT[m.CapacityType] = longer(ix.byCT[m.CapacityType], m)
			}
		case ScopeZone:
			if zi, ok := slices.BinarySearchFunc(zones, m.Zone, func(z Zone, name string) int { return strings.Compare(z.Name, name) }); ok {
				ix.byZone[zi] = longer(ix.byZone[zi], m)
			}
		case ScopeSubnet:
			ix.subnets[m.SubnetID] = longer(ix.subnets[m.SubnetID], m)
		case ScopeAccount:
			ix.account = longer(ix.account, m)
		}
	}
	ix.wide = ix.account != nil || slices.ContainsFunc(ix.byCT[:], func(m *Mark) bool { return m != nil }) ||
		slices.ContainsFunc(ix.byZone, func(m *Mark) bool { return m != nil })
	return ix
}

// longer returns the mark that holds longer, ties to the first in
// compareMarks' order.
func longer(a, b *Mark) *Mark {
	switch {
	case a == nil:
		return b
	case b.Deadline.After(a.Deadline), b.Deadline.Equal(a.Deadline) && compareMarks(*b, *a) < 0:
		return b
	}
	return a
}

// cell judges the offerings of one (type, zone) into out, in walk's
// order (reserved, spot, on-demand), and returns how many it wrote. What
// holds for the whole cell (the zone's verdict, whether the type is
// offered there, whether any mark could cover it) is decided once.
func (a *assessor) cell(out []Availability, g grid, ti, zi int, reserved []Offering) int {
	t, z := g.types[ti], &g.zones[zi]
	zv := &a.zones[zi]
	if ti != a.curType {
		a.curType, a.curMarks = ti, a.marks.byType[t]
	}
	marked := len(a.curMarks) > 0 || zv.subnets != nil || a.marks.wide
	n := 0
	for _, o := range reserved {
		av := &out[n]
		av.Offering = z.reserved(o)
		switch r, ok := reservationReason(o.Reservation, a.at); {
		case zv.reason.Code != 0:
			av.Reason = zv.reason
		case ok:
			av.Reason = r
		default:
			av.Available = !(marked && a.markReason(av, zi, zv.subnets))
		}
		n++
	}
	offered := a.offered[ti*a.nz+zi]
	for _, ct := range [...]CapacityType{Spot, OnDemand} {
		av := &out[n]
		av.Offering = Offering{InstanceType: t, Zone: z.Name, ZoneID: z.ID, CapacityType: ct}
		switch {
		case zv.reason.Code != 0:
			av.Reason = zv.reason
		case !offered:
			av.Reason = Reason{Code: ReasonNotOffered, Message: notOffered}
		case ct == Spot && a.noSpot[ti]:
			av.Reason = Reason{Code: ReasonSpotNotOffered, Message: spotNotOffered}
		default:
			av.Available = !(marked && a.markReason(av, zi, zv.subnets))
		}
		n++
	}
	return n
}

const (
	notOffered     = "EC2 does not offer the instance type in the zone (DescribeInstanceTypeOfferings)"
	spotNotOffered = "EC2 does not sell the instance type as spot (its usage classes lack spot)"
)

// capacityBlockLead is how long before its end Karpenter stops launching
// into a capacity block (pkg/apis/v1/ec2nodeclass_status.go:238).
const capacityBlockLead = 40 * time.Minute

func reservationReason(r *Reservation, at time.Time) (Reason, bool) {
	switch {
	case !r.Start.IsZero() && at.Before(r.Start):
		return Reason{Code: ReasonReservationNotStarted, Message: fmt.Sprintf("reservation %s starts at %s", r.ID, r.Start.UTC().Format(time.RFC3339))}, true
	case !r.End.IsZero() && !at.Before(r.End):
		return Reason{Code: ReasonReservationEnded, Message: fmt.Sprintf("reservation %s ended at %s", r.ID, r.End.UTC().Format(time.RFC3339))}, true
	case r.Type == ReservationCapacityBlock && !r.End.IsZero() && !at.Before(r.End.Add(-capacityBlockLead)):
		return Reason{Code: ReasonReservationExpiring, Message: fmt.Sprintf("capacity block %s ends at %s; nothing launches into its last %s", r.ID, r.End.UTC().Format(time.RFC3339), capacityBlockLead)}, true
	case r.Available <= 0:
		return Reason{Code: ReasonReservationExhausted, Message: fmt.Sprintf("reservation %s has no free instance (0 of %d)", r.ID, r.Total)}, true
	}
	return Reason{}, false
}

// markReason sets av's reason to the covering mark that holds longest,
// if any, and reports whether there is one; a.curMarks are the marks of
// av's instance type.
func (a *assessor) markReason(av *Availability, zi int, subnets *Mark) bool {
	o := &av.Offering
	best := subnets
	for _, m := range a.curMarks {
		if m.covers(o) {
			best = longer(best, m)
		}
	}
	if m := a.marks.byCT[o.CapacityType]; m != nil {
		best = longer(best, m)
	}
	if m := a.marks.byZone[zi]; m != nil {
		best = longer(best, m)
	}
	if a.marks.account != nil {
		best = longer(best, a.marks.account)
	}
	if best == nil {
		return false
	}
	// best points into the index's own copy of the marks, which every
	// offering it covers shares: one copy per mark, not per offering.
	av.Reason = Reason{Code: ReasonMarked, Message: a.marks.message(best), Mark: best}
	return true
}

// message formats a mark once, however many offerings it covers.
func (ix *markIndex) message(m *Mark) string {
	if s, ok := ix.messages[m]; ok {
		return s
	}
	if ix.messages == nil {
		ix.messages = map[*Mark]string{}
	}
	s := "failed recently: " + m.String()
	ix.messages[m] = s
	return s
}

// Available returns the offerings of av that can launch, in av's order.
func Available(av []Availability) []Offering {
	var out []Offering
	for _, a := range av {
		if a.Available {
			out = append(out, a.Offering)
		}
	}
	return slices.Clip(out)
}
