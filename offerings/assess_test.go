package offerings

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// smallRegion is two availability zones, a Local Zone not opted in and an
// impaired zone; m5.large is offered in a and b, c5.large in a only,
// u-6tb1.metal (no spot) in a; two reservations and, when withSubnets,
// subnets in a (one full) and b.
func smallRegion(withSubnets bool) Region {
	r := Region{
		Name: "us-east-1",
		Zones: []Zone{
			{Name: "us-east-1a", ID: "use1-az2", Type: AvailabilityZone, OptInStatus: OptInNotRequired, State: "available"},
			{Name: "us-east-1b", ID: "use1-az4", Type: AvailabilityZone, OptInStatus: OptInNotRequired, State: "available"},
			{Name: "us-east-1c", ID: "use1-az6", Type: AvailabilityZone, OptInStatus: OptInNotRequired, State: "impaired"},
			{Name: "us-east-1-chi-2a", ID: "use1-chi2-az1", Type: LocalZone, OptInStatus: NotOptedIn, State: "available", ParentZone: "us-east-1c"},
		},
		InstanceTypes: []string{"m5.large", "c5.large", "u-6tb1.metal"},
		Offered: map[string][]string{
			"us-east-1a": {"m5.large", "c5.large", "u-6tb1.metal"}, "us-east-1b": {"m5.large"},
			"us-east-1c": {"m5.large"}, "us-east-1-chi-2a": {"m5.large"},
		},
		NoSpot: []string{"u-6tb1.metal"},
		Reserved: []Offering{
			{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: Reserved, Reservation: &Reservation{ID: "cr-0a1", Type: ReservationDefault, Total: 2, Available: 1}},
			{InstanceType: "m5.large", Zone: "us-east-1b", CapacityType: Reserved, Reservation: &Reservation{ID: "cr-0b1", Type: ReservationCapacityBlock, Total: 1, Available: 1,
				Start: t0.Add(time.Hour), End: t0.Add(5 * time.Hour)}},
		},
	}
	if withSubnets {
		r.Subnets = []Subnet{{ID: "subnet-a1", Zone: "us-east-1a", AvailableIPv4: 0}, {ID: "subnet-a2", Zone: "us-east-1a", AvailableIPv4: 10}, {ID: "subnet-b1", Zone: "us-east-1b", AvailableIPv4: 3}}
	}
	return r
}

// verdicts summarizes an assessment: "type zone capacity-type[ id]: ok" or
// the reason's code.
func verdicts(t *testing.T, av []Availability) []string {
	t.Helper()
	var out []string
	for _, a := range av {
		if a.Available == (a.Reason.Code != 0) {
			t.Fatalf("%s: available %t with reason %v: exactly one of the two", a.Offering, a.Available, a.Reason)
		}
		v := "ok"
		if !a.Available {
			v = a.Reason.Code.String()
		}
		out = append(out, a.Offering.String()+": "+v)
	}
	return out
}

func mustAssess(t *testing.T, r Region, marks []Mark, at time.Time) []Availability {
	t.Helper()
	av, err := Assess(r, marks, at)
	if err != nil {
		t.Fatal(err)
	}
	return av
}

func TestAssessReasons(t *testing.T) {
	got := verdicts(t, mustAssess(t, smallRegion(false), nil, t0))
	want := []string{
		"c5.large us-east-1-chi-2a spot: zone-not-opted-in", "c5.large us-east-1-chi-2a on-demand: zone-not-opted-in",
		"c5.large us-east-1a spot: ok", "c5.large us-east-1a on-demand: ok",
		"c5.large us-east-1b spot: not-offered", "c5.large us-east-1b on-demand: not-offered",
		"c5.large us-east-1c spot: zone-unavailable", "c5.large us-east-1c on-demand: zone-unavailable",
		"m5.large us-east-1-chi-2a spot: zone-not-opted-in", "m5.large us-east-1-chi-2a on-demand: zone-not-opted-in",
		"m5.large us-east-1a reserved cr-0a1: ok", "m5.large us-east-1a spot: ok", "m5.large us-east-1a on-demand: ok",
		"m5.large us-east-1b reserved cr-0b1: reservation-not-started", "m5.large us-east-1b spot: ok", "m5.large us-east-1b on-demand: ok",
		"m5.large us-east-1c spot: zone-unavailable", "m5.large us-east-1c on-demand: zone-unavailable",
		"u-6tb1.metal us-east-1-chi-2a spot: zone-not-opted-in", "u-6tb1.metal us-east-1-chi-2a on-demand: zone-not-opted-in",
		"u-6tb1.metal us-east-1a spot: spot-not-offered", "u-6tb1.metal us-east-1a on-demand: ok",
		"u-6tb1.metal us-east-1b spot: not-offered", "u-6tb1.metal us-east-1b on-demand: not-offered",
		"u-6tb1.metal us-east-1c spot: zone-unavailable", "u-6tb1.metal us-east-1c on-demand: zone-unavailable",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("availability (-want +got):\n%s", diff)
	}
}

// The reservation window, Karpenter's 40 minutes before a capacity block
// ends (karpenter-provider-aws v1.14.1
// pkg/apis/v1/ec2nodeclass_status.go:238,260), and exhaustion.
func TestAssessReservationWindow(t *testing.T) {
	r := smallRegion(false)
	r.InstanceTypes = []string{"m5.large"}
	block := func(at time.Time) string {
		for _, a := range mustAssess(t, r, nil, at) {
			if a.Offering.CapacityType == Reserved && a.Offering.Reservation.ID == "cr-0b1" {
				if a.Available {
					return "ok"
				}
				return a.Reason.Code.String() + " until " + a.Until().Format(time.Kitchen)
			}
		}
		return "missing"
	}
	for _, tc := range []struct {
		at   time.Duration
		want string
	}{
		{59 * time.Minute, "reservation-not-started until 1:00PM"},
		{time.Hour, "ok"},
		{5*time.Hour - 40*time.Minute - time.Nanosecond, "ok"},
		{5*time.Hour - 40*time.Minute, "reservation-expiring until 12:00AM"},
		{5 * time.Hour, "reservation-ended until 12:00AM"},
	} {
		if got := block(t0.Add(tc.at)); got != tc.want {
			t.Errorf("at +%s: %s, want %s", tc.at, got, tc.want)
		}
	}
	r.Reserved[0].Reservation.Available = 0
	for _, a := range mustAssess(t, r, nil, t0) {
		if a.Offering.CapacityType == Reserved && a.Offering.Reservation.ID == "cr-0a1" && a.Reason.Code != ReasonReservationExhausted {
			t.Errorf("an exhausted reservation: %v", a.Reason)
		}
	}
}

// A zone takes launches while one of its subnets does: full subnets and
// marked ones do not; with every subnet out, the zone's offerings give
// the subnet reason (or the subnet mark that frees up first), as
// Karpenter's cache judges subnets (pkg/cache/unavailableofferings.go:109-115).
func TestAssessSubnets(t *testing.T) {
	r := smallRegion(true)
	r.InstanceTypes = []string{"c5.large"}
	reasonIn := func(marks []Mark, zone string) string {
		for _, a := range mustAssess(t, r, marks, t0) {
			if a.Offering.Zone == zone && a.Offering.CapacityType == OnDemand {
				if a.Available {
					return "ok"
				}
				return a.Reason.Code.String()
			}
		}
		return "missing"
	}
	mark := func(subnet string, d time.Duration) Mark {
		return Mark{Scope: ScopeSubnet, SubnetID: subnet, Zone: "us-east-1a", Code: "InsufficientFreeAddressesInSubnet", Class: SubnetUnavailable, Failures: 1, Since: t0, Deadline: t0.Add(d)}
	}
	if got := reasonIn(nil, "us-east-1a"); got != "ok" {
		t.Errorf("one full subnet of two: %s, want ok", got)
	}
	if got := reasonIn([]Mark{mark("subnet-a2", time.Minute)}, "us-east-1a"); got != "marked" {
		t.Errorf("the other subnet marked: %s, want marked", got)
	}
	if got := reasonIn([]Mark{mark("subnet-a2", 0)}, "us-east-1a"); got != "ok" {
		t.Errorf("a subnet mark whose deadline is now: %s, want ok", got)
	}
	r.Subnets[1].AvailableIPv4 = 0
	if got := reasonIn(nil, "us-east-1a"); got != "subnets-full" {
		t.Errorf("both subnets full: %s", got)
	}
	r.Subnets = r.Subnets[:2]
	if got := reasonIn(nil, "us-east-1b"); got != "no-subnet" {
		t.Errorf("no subnet in b: %s", got)
	}
	r.Subnets = nil
	if got := reasonIn([]Mark{mark("subnet-a1", time.Hour), mark("subnet-a2", time.Hour)}, "us-east-1a"); got != "ok" {
		t.Errorf("no subnets given: subnet marks cover nothing, got %s", got)
	}
}

// Of several covering marks the reason names the one that holds longest,
// ties to the narrower scope; marks not live at the instant are ignored.
func TestAssessPicksTheLongestMark(t *testing.T) {
	r := smallRegion(false)
	r.InstanceTypes = []string{"c5.large"}
	mk := func(s Scope, code string, d time.Duration) Mark {
		m := Mark{Scope: s, Code: code, Class: Classify(code).Class, Failures: 1, Since: t0, Deadline: t0.Add(d)}
		switch s {
		case ScopeOffering:
			m.InstanceType, m.Zone, m.CapacityType = "c5.large", "us-east-1a", Spot
		case ScopeZone:
			m.Zone = "us-east-1a"
		case ScopeCapacityType:
			m.CapacityType = Spot
		}
		return m
	}
	for _, tc := range []struct {
		name  string
		marks []Mark
		want  string
	}{
		{"the longer of two", []Mark{mk(ScopeOffering, "InsufficientInstanceCapacity", time.Minute), mk(ScopeZone, "InsufficientAddressCapacity", time.Hour)}, "InsufficientAddressCapacity"},
		{"a tie goes to the narrower", []Mark{mk(ScopeAccount, "RequestLimitExceeded", time.Hour), mk(ScopeOffering, "InsufficientInstanceCapacity", time.Hour)}, "InsufficientInstanceCapacity"},
		{"a dead mark is no reason", []Mark{mk(ScopeAccount, "RequestLimitExceeded", 0), mk(ScopeCapacityType, "AuthFailure.ServiceLinkedRoleCreationNotPermitted", time.Second)}, "AuthFailure.ServiceLinkedRoleCreationNotPermitted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, a := range mustAssess(t, r, tc.marks, t0) {
				if a.Offering.Zone == "us-east-1a" && a.Offering.CapacityType == Spot {
					if a.Reason.Mark == nil || a.Reason.Mark.Code != tc.want || a.Until() != a.Reason.Mark.Deadline {
						t.Errorf("reason %+v, want the mark of %s", a.Reason, tc.want)
					}
					if !strings.HasPrefix(a.Reason.Message, "failed recently: "+tc.want) {
						t.Errorf("message %q", a.Reason.Message)
					}
				}
			}
		})
	}
}

func TestAssessRefusesAnInvalidRegion(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Region)
		want string
	}{
		{"zone without ID", func(r *Region) { r.Zones[0].ID = "" }, `zone "us-east-1a" (ID "") needs both a name and an ID`},
		{"zone twice", func(r *Region) { r.Zones[1].Name = "us-east-1a" }, "zone us-east-1a listed twice"},
		{"bad type", func(r *Region) { r.InstanceTypes = append(r.InstanceTypes, "m5") }, `instance type "m5" is not of the form family.size`},
		{"offered in an unknown zone", func(r *Region) { r.Offered["us-east-1z"] = []string{"m5.large"} }, "Offered names zone us-east-1z"},
		{"reserved without reservation", func(r *Region) { r.Reserved[0].Reservation = nil }, "a reserved offering needs its Reservation"},
		{"reserved in an unknown zone", func(r *Region) { r.Reserved[0].Zone = "us-east-1z" }, `is in zone "us-east-1z", which Zones does not list`},
		{"reservation twice", func(r *Region) { r.Reserved[1].Reservation.ID = "cr-0a1" }, "reservation cr-0a1 listed twice"},
		{"wrong zone ID", func(r *Region) { r.Reserved[0].ZoneID = "use1-az9" }, "says zone us-east-1a is use1-az9; Zones says use1-az2"},
		{"subnet in an unknown zone", func(r *Region) { r.Subnets = []Subnet{{ID: "subnet-1", Zone: "eu-west-1a"}} }, `subnet subnet-1 is in zone "eu-west-1a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := smallRegion(false)
			tc.edit(&r)
			if _, err := Assess(r, nil, t0); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Assess error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func ExampleAssess() {
	r := Region{
		Name:          "us-east-1",
		Zones:         []Zone{{Name: "us-east-1a", ID: "use1-az2", Type: AvailabilityZone, OptInStatus: OptInNotRequired, State: "available"}},
		InstanceTypes: []string{"m5.large"},
		Offered:       map[string][]string{"us-east-1a": {"m5.large"}},
	}
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	memory, _ := NewMemory(MemoryOptions{Now: func() time.Time { return now }})
	memory.Observe(Failure{Offering: Offering{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: Spot}, Code: "InsufficientInstanceCapacity"})
	av, _ := Assess(r, memory.Marks(), now)
	for _, a := range av {
		fmt.Println(a.Offering, a.Available, a.Reason)
	}
	// Output:
	// m5.large us-east-1a spot false failed recently: InsufficientInstanceCapacity (offering-unavailable) for offering m5.large us-east-1a spot: not retried until 2026-11-01T12:03:00Z (failure 1 in a row, back-off 3m0s)
	// m5.large us-east-1a on-demand true
}
