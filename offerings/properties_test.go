package offerings

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

var (
	genTypes = []string{"c5.large", "m5.large", "m5.xlarge", "r5.large"}
	genZones = []Zone{
		{Name: "us-east-1a", ID: "use1-az2", Type: AvailabilityZone},
		{Name: "us-east-1b", ID: "use1-az4", Type: AvailabilityZone},
		{Name: "us-east-1c", ID: "use1-az6", Type: AvailabilityZone},
		{Name: "us-east-1-bos-1a", ID: "use1-bos1-az1", Type: LocalZone},
	}
	genCodes = []string{"InsufficientInstanceCapacity", "VcpuLimitExceeded", "InsufficientFreeAddressesInSubnet", "RequestLimitExceeded",
		"AuthFailure.ServiceLinkedRoleCreationNotPermitted", "InsufficientAddressCapacity", "InternalError", "NeverHeardOf"}
)

// genRegion draws a small region: some zones (opted in or not, available
// or not), offerings per zone, types not sold as spot, reservations with
// windows and counts, and maybe subnets.
func genRegion(t *rapid.T) Region {
	r := Region{Name: "us-east-1", Offered: map[string][]string{}}
	for _, z := range genZones {
		if !rapid.Bool().Draw(t, "has "+z.Name) {
			continue
		}
		z.OptInStatus = rapid.SampledFrom([]OptInStatus{OptInNotRequired, OptedIn, NotOptedIn}).Draw(t, "opt-in")
		z.State = rapid.SampledFrom([]string{"available", "information", "impaired", "constrained"}).Draw(t, "state")
		r.Zones = append(r.Zones, z)
		r.Offered[z.Name] = rapid.SliceOfDistinct(rapid.SampledFrom(genTypes), func(s string) string { return s }).Draw(t, "offered")
	}
	r.InstanceTypes = rapid.SliceOfDistinct(rapid.SampledFrom(genTypes), func(s string) string { return s }).Draw(t, "types")
	r.NoSpot = rapid.SliceOfDistinct(rapid.SampledFrom(genTypes), func(s string) string { return s }).Draw(t, "no spot")
	if len(r.Zones) == 0 {
		return r
	}
	for i := range rapid.IntRange(0, 4).Draw(t, "reservations") {
		z := rapid.SampledFrom(r.Zones).Draw(t, "reservation zone")
		res := &Reservation{ID: fmt.Sprintf("cr-%d", i), Type: rapid.SampledFrom([]ReservationType{ReservationDefault, ReservationCapacityBlock}).Draw(t, "type"),
			Total: 3, Available: int32(rapid.IntRange(0, 3).Draw(t, "available"))}
		if rapid.Bool().Draw(t, "window") {
			res.Start = t0.Add(time.Duration(rapid.IntRange(-3, 3).Draw(t, "start")) * time.Hour)
			res.End = res.Start.Add(time.Duration(rapid.IntRange(1, 4).Draw(t, "hours")) * time.Hour)
		}
		r.Reserved = append(r.Reserved, Offering{InstanceType: rapid.SampledFrom(genTypes).Draw(t, "reserved type"), Zone: z.Name, CapacityType: Reserved, Reservation: res})
	}
	if rapid.Bool().Draw(t, "subnets") {
		r.Subnets = []Subnet{}
		for i := range rapid.IntRange(0, 4).Draw(t, "subnet count") {
			z := rapid.SampledFrom(r.Zones).Draw(t, "subnet zone")
			r.Subnets = append(r.Subnets, Subnet{ID: fmt.Sprintf("subnet-%d", i), Zone: z.Name, AvailableIPv4: int32(rapid.IntRange(0, 2).Draw(t, "free"))})
		}
	}
	return r
}

// genMarks draws marks the way a Memory makes them, some already run out.
func genMarks(t *rapid.T, r Region) []Mark {
	c := &fakeClock{now: t0.Add(-time.Duration(rapid.IntRange(0, 120).Draw(t, "minutes ago")) * time.Minute)}
	m, _ := NewMemory(MemoryOptions{Now: c.Now})
	offerings := r.Offerings()
	if len(offerings) == 0 {
		return nil
	}
	for range rapid.IntRange(0, 8).Draw(t, "failures") {
		f := Failure{Offering: rapid.SampledFrom(offerings).Draw(t, "failed"), Code: rapid.SampledFrom(genCodes).Draw(t, "code")}
		var inZone []string // a launch uses a subnet of its offering's zone
		for _, s := range r.Subnets {
			if s.Zone == f.Offering.Zone {
				inZone = append(inZone, s.ID)
			}
		}
		if len(inZone) > 0 {
			f.SubnetID = rapid.SampledFrom(inZone).Draw(t, "subnet")
			if rapid.IntRange(0, 2).Draw(t, "subnet error") == 0 {
				f.Code = "InsufficientFreeAddressesInSubnet"
			}
		}
		m.Observe(f)
		c.Advance(time.Duration(rapid.IntRange(0, 30).Draw(t, "then minutes")) * time.Minute)
	}
	var all []Mark
	for _, k := range m.entries.Keys() {
		mark, _ := m.entries.Peek(k)
		all = append(all, mark) // live or not: Assess must ignore the dead ones
	}
	return all
}

// exists is the naive reading of the sources: what the region itself says
// of o at t, without marks.
func exists(r Region, o Offering, t time.Time) bool {
	i := slices.IndexFunc(r.Zones, func(z Zone) bool { return z.Name == o.Zone })
	if i < 0 || !r.Zones[i].Usable() {
		return false
	}
	if o.CapacityType == Reserved {
		res := o.Reservation
		open := (res.Start.IsZero() || !t.Before(res.Start)) && (res.End.IsZero() || t.Before(res.End))
		if res.Type == ReservationCapacityBlock && !res.End.IsZero() && !t.Before(res.End.Add(-40*time.Minute)) {
			open = false
		}
		return open && res.Available > 0 && subnetsTake(r, o.Zone, nil, t)
	}
	if !slices.Contains(r.Offered[o.Zone], o.InstanceType) || o.CapacityType == Spot && slices.Contains(r.NoSpot, o.InstanceType) {
		return false
	}
	return subnetsTake(r, o.Zone, nil, t)
}

// subnetsTake reports whether some subnet of the zone takes a launch: not
// full and, given marks, not marked at t. Without subnets, every zone
// does.
func subnetsTake(r Region, zone string, marks []Mark, t time.Time) bool {
	if r.Subnets == nil {
		return true
	}
	for _, s := range r.Subnets {
		marked := slices.ContainsFunc(marks, func(m Mark) bool { return m.Scope == ScopeSubnet && m.SubnetID == s.ID && m.Live(t) })
		if s.Zone == zone && s.AvailableIPv4 > 0 && !marked {
			return true
		}
	}
	return false
}

// covered is the naive reading of the marks: some live mark covers o, or
// every subnet of its zone is full or marked (and the sources alone let a
// subnet take it).
func covered(r Region, o Offering, marks []Mark, t time.Time) bool {
	for _, m := range marks {
		if m.Live(t) && m.Covers(o) {
			return true
		}
	}
	return !subnetsTake(r, o.Zone, marks, t)
}

// An offering is available if and only if its source says it exists and
// no mark covers it; every unavailable one has exactly one reason, a mark
// exactly when the sources alone would let it launch.
func TestAvailableIffExistsAndUnmarked(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genRegion(t)
		marks := genMarks(t, r)
		at := t0.Add(time.Duration(rapid.IntRange(-30, 300).Draw(t, "at minutes")) * time.Minute)
		av, err := Assess(r, marks, at)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(r.Offerings(), offeringsOf(av)); diff != "" {
			t.Fatalf("Assess judged other offerings than Offerings lists (-Offerings +Assess):\n%s", diff)
		}
		for _, a := range av {
			e, c := exists(r, a.Offering, at), covered(r, a.Offering, marks, at)
			if a.Available != (e && !c) {
				t.Fatalf("%s at %s: available %t; exists %t, covered %t (reason %v)", a.Offering, at, a.Available, e, c, a.Reason)
			}
			if a.Available != (a.Reason.Code == 0) || (!a.Available && e && a.Reason.Code != ReasonMarked) {
				t.Fatalf("%s: available %t, reason %v", a.Offering, a.Available, a.Reason)
			}
			if a.Reason.Code == ReasonMarked && (a.Reason.Mark == nil || !a.Reason.Mark.Live(at)) {
				t.Fatalf("%s: reason names a mark not live at %s: %v", a.Offering, at, a.Reason.Mark)
			}
		}
	})
}

func offeringsOf(av []Availability) []Offering {
	out := make([]Offering, len(av))
	for i, a := range av {
		out[i] = a.Offering
	}
	return out
}

// permute returns r with every list shuffled, marks too.
func permute(t *rapid.T, r Region, marks []Mark) (Region, []Mark) {
	shuffle := func(n int, swap func(i, j int), label string) {
		for i := n - 1; i > 0; i-- {
			swap(i, rapid.IntRange(0, i).Draw(t, label))
		}
	}
	p := r
	p.Zones, p.InstanceTypes, p.NoSpot = slices.Clone(r.Zones), slices.Clone(r.InstanceTypes), slices.Clone(r.NoSpot)
	p.Reserved, p.Subnets = slices.Clone(r.Reserved), slices.Clone(r.Subnets)
	p.Offered = maps.Clone(r.Offered)
	for z, ts := range p.Offered {
		ts = slices.Clone(ts)
		shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] }, "offered")
		p.Offered[z] = ts
	}
	shuffle(len(p.Zones), func(i, j int) { p.Zones[i], p.Zones[j] = p.Zones[j], p.Zones[i] }, "zones")
	shuffle(len(p.InstanceTypes), func(i, j int) { p.InstanceTypes[i], p.InstanceTypes[j] = p.InstanceTypes[j], p.InstanceTypes[i] }, "types")
	shuffle(len(p.Reserved), func(i, j int) { p.Reserved[i], p.Reserved[j] = p.Reserved[j], p.Reserved[i] }, "reserved")
	shuffle(len(p.Subnets), func(i, j int) { p.Subnets[i], p.Subnets[j] = p.Subnets[j], p.Subnets[i] }, "subnets")
	m := slices.Clone(marks)
	shuffle(len(m), func(i, j int) { m[i], m[j] = m[j], m[i] }, "marks")
	return p, m
}

// Candidates are a deterministic order under any permutation of the input
// (the region's lists and the marks), with and without prices, and they
// follow the documented order: reserved first, then by known price, then
// spot before on-demand; skipped offerings are exactly the others.
func TestCandidatesDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genRegion(t)
		marks := genMarks(t, r)
		opts := CandidateOptions{UnknownPrice: rapid.SampledFrom([]UnknownPrice{UnknownPriceLast, UnknownPriceSkip}).Draw(t, "unknown")}
		if rapid.Bool().Draw(t, "prices") {
			opts.Price = func(o Offering) (float64, bool) {
				if o.InstanceType == "r5.large" {
					return 0, false // no price known
				}
				p := map[string]float64{"c5.large": 0.085, "m5.large": 0.096, "m5.xlarge": 0.192}[o.InstanceType]
				if o.CapacityType == Spot {
					p /= 3
				}
				return p, true
			}
		}
		want, err := Candidates(r, marks, t0, opts)
		if err != nil {
			t.Fatal(err)
		}
		p, pm := permute(t, r, marks)
		got, err := Candidates(p, pm, t0, opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("candidates differ after a permutation (-original +permuted):\n%s", diff)
		}
		if len(want.Candidates)+len(want.Skipped) != len(r.Offerings()) {
			t.Fatalf("%d candidates and %d skipped of %d offerings", len(want.Candidates), len(want.Skipped), len(r.Offerings()))
		}
		for i := 1; i < len(want.Candidates); i++ {
			a, b := want.Candidates[i-1], want.Candidates[i]
			if compareCandidates(a, b) >= 0 {
				t.Fatalf("%v before %v", a, b)
			}
			if a.Offering.CapacityType != Reserved && b.Offering.CapacityType == Reserved {
				t.Fatalf("reserved %v after %v", b, a)
			}
			if opts.Price == nil && a.Offering.CapacityType == OnDemand && b.Offering.CapacityType == Spot {
				t.Fatalf("without prices, spot %v after on-demand %v", b, a)
			}
		}
	})
}
