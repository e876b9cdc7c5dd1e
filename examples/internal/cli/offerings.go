package cli

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/offerings"
)

// OfferingsNeeds names the EC2 permissions -offerings needs with -live.
const OfferingsNeeds = "ec2:DescribeAvailabilityZones, ec2:DescribeInstanceTypeOfferings and ec2:DescribeCapacityReservations"

// Offerings is what the examples show of a NodePool's offerings: per zone
// and capacity type, how many can launch, and why the others cannot.
// Offerings the NodePool's requirements exclude are not counted.
type Offerings struct {
	Region        string          `json:"region"`
	InstanceTypes int             `json:"instanceTypes"`
	Zones         []ZoneOfferings `json:"zones"`
	// Unknown, when set, says why the offerings could not be read (a
	// -live account that may not describe them, say); the rest is empty.
	Unknown string `json:"unknown,omitempty"`
}

// ZoneOfferings is one zone's row: a cell per capacity type the NodePool
// admits there.
type ZoneOfferings struct {
	Zone   string         `json:"zone"`
	ZoneID string         `json:"zoneID"`
	Cells  []OfferingCell `json:"cells"`
}

// OfferingCell counts the offerings of one capacity type in one zone.
type OfferingCell struct {
	CapacityType string `json:"capacityType"`
	Available    int    `json:"available"`
	Total        int    `json:"total"`
	// Unavailable groups the others by reason, most first.
	Unavailable []ReasonCount `json:"unavailable,omitempty"`
}

// ReasonCount is how many offerings of a cell are out for one reason: the
// reason's code, its message for the first of them, and a few of their
// instance types.
type ReasonCount struct {
	Reason   string   `json:"reason"`
	Count    int      `json:"count"`
	Message  string   `json:"message"`
	Examples []string `json:"examples"`
}

// SummarizeOfferings applies the one rule a launch would (offerings.Candidates
// at now, with the NodePool's requirements) to region's offerings and
// counts the answer per zone and capacity type.
func SummarizeOfferings(region offerings.Region, marks []offerings.Mark, now time.Time, reqs compat.Requirements) (Offerings, error) {
	list, err := offerings.Candidates(region, marks, now, offerings.CandidateOptions{Requirements: reqs})
	if err != nil {
		return Offerings{}, err
	}
	cells := map[[2]string]*OfferingCell{}
	ids := map[string]string{}
	cell := func(o offerings.Offering) *OfferingCell {
		k := [2]string{o.Zone, o.CapacityType.String()}
		if cells[k] == nil {
			cells[k] = &OfferingCell{CapacityType: k[1]}
		}
		ids[o.Zone] = o.ZoneID
		return cells[k]
	}
	for _, c := range list.Candidates {
		x := cell(c.Offering)
		x.Available++
		x.Total++
	}
	for _, s := range list.Skipped {
		if s.Reason.Code == offerings.ReasonRequirements {
			continue // the NodePool does not ask for it
		}
		x := cell(s.Offering)
		x.Total++
		count(x, s)
	}
	out := Offerings{Region: region.Name, InstanceTypes: len(region.InstanceTypes)}
	for _, z := range region.Zones {
		row := ZoneOfferings{Zone: z.Name, ZoneID: z.ID}
		for _, ct := range []offerings.CapacityType{offerings.Spot, offerings.OnDemand, offerings.Reserved} {
			if x := cells[[2]string{z.Name, ct.String()}]; x != nil {
				slices.SortFunc(x.Unavailable, func(a, b ReasonCount) int { return cmp.Or(b.Count-a.Count, strings.Compare(a.Reason, b.Reason)) })
				row.Cells = append(row.Cells, *x)
			}
		}
		if len(row.Cells) > 0 {
			out.Zones = append(out.Zones, row)
		}
	}
	slices.SortFunc(out.Zones, func(a, b ZoneOfferings) int { return strings.Compare(a.Zone, b.Zone) })
	return out, nil
}

// count adds one skipped offering to its reason's tally.
func count(x *OfferingCell, s offerings.Skipped) {
	code := s.Reason.Code.String()
	i := slices.IndexFunc(x.Unavailable, func(r ReasonCount) bool { return r.Reason == code })
	if i < 0 {
		x.Unavailable = append(x.Unavailable, ReasonCount{Reason: code, Message: s.Reason.Message})
		i = len(x.Unavailable) - 1
	}
	r := &x.Unavailable[i]
	r.Count++
	name := s.Offering.InstanceType
	if s.Offering.Reservation != nil {
		name += " " + s.Offering.Reservation.ID
	}
	if len(r.Examples) < 3 && !slices.Contains(r.Examples, name) {
		r.Examples = append(r.Examples, name)
	}
}

// WriteOfferings writes o as a table, each line after indent: per zone,
// "available/total" for each capacity type, then why the others cannot
// launch, by reason; then one message per reason, for example.
func WriteOfferings(b *strings.Builder, o Offerings, indent string) {
	if len(o.Zones) == 0 {
		fmt.Fprintf(b, "%sno offering in %s: the NodePool's zones and capacity types admit none\n", indent, o.Region)
		return
	}
	rows := [][]string{{"ZONE", "ID", "SPOT", "ON-DEMAND", "RESERVED", "WHY NOT"}}
	messages := map[string]string{}
	for _, z := range o.Zones {
		cols := map[string]string{"spot": "-", "on-demand": "-", "reserved": "-"}
		for _, c := range z.Cells {
			cols[c.CapacityType] = fmt.Sprintf("%d/%d", c.Available, c.Total)
			for _, r := range c.Unavailable {
				if _, seen := messages[r.Reason]; !seen {
					messages[r.Reason] = r.Message
				}
			}
		}
		rows = append(rows, []string{z.Zone, z.ZoneID, cols["spot"], cols["on-demand"], cols["reserved"], whyNot(z)})
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], len(cell))
		}
	}
	for _, row := range rows {
		line := indent
		for i, cell := range row[:len(row)-1] {
			line += cell + strings.Repeat(" ", widths[i]-len(cell)+2)
		}
		b.WriteString(strings.TrimRight(line+row[len(row)-1], " ") + "\n")
	}
	for _, code := range slices.Sorted(maps.Keys(messages)) {
		fmt.Fprintf(b, "%s%s, e.g.: %s\n", indent, code, messages[code])
	}
}

// whyNot says, per reason, how many offerings of each capacity type of the
// zone it keeps out: "not-offered: spot 4, on-demand 4 (m7g.large,
// m7i.large, t3.micro, …)".
func whyNot(z ZoneOfferings) string {
	type tally struct {
		counts   []string
		examples []string
		more     bool
	}
	var order []string
	byReason := map[string]*tally{}
	for _, c := range z.Cells {
		for _, r := range c.Unavailable {
			t := byReason[r.Reason]
			if t == nil {
				t = &tally{}
				byReason[r.Reason] = t
				order = append(order, r.Reason)
			}
			t.counts = append(t.counts, fmt.Sprintf("%s %d", c.CapacityType, r.Count))
			for _, e := range r.Examples {
				if !slices.Contains(t.examples, e) {
					t.examples = append(t.examples, e)
				}
			}
			t.more = t.more || r.Count > len(r.Examples)
		}
	}
	var parts []string
	for _, reason := range order {
		t := byReason[reason]
		ex := strings.Join(t.examples, ", ")
		if t.more {
			ex += ", …"
		}
		parts = append(parts, fmt.Sprintf("%s: %s (%s)", reason, strings.Join(t.counts, ", "), ex))
	}
	return strings.Join(parts, "; ")
}
