package offerings

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
)

func TestCapacityTypeText(t *testing.T) {
	for _, c := range []CapacityType{Reserved, Spot, OnDemand} {
		b, err := c.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back CapacityType
		if err := back.UnmarshalText(b); err != nil || back != c {
			t.Errorf("%s: round trip gave %v, %v", c, back, err)
		}
	}
	if _, err := ParseCapacityType("ondemand"); err == nil {
		t.Error("ParseCapacityType(ondemand): no error")
	}
	if _, err := CapacityType(0).MarshalText(); err == nil {
		t.Error("zero CapacityType marshalled")
	}
}

func TestOfferingRequirements(t *testing.T) {
	spot := Offering{InstanceType: "m5.large", Zone: "us-east-1a", ZoneID: "use1-az1", CapacityType: Spot}
	reserved := Offering{InstanceType: "m5.large", Zone: "us-east-1a", ZoneID: "use1-az1", CapacityType: Reserved,
		Reservation: &Reservation{ID: "cr-0123456789abcdef0", Type: ReservationDefault, Total: 2, Available: 1}}
	mustReqs := func(o Offering) compat.Requirements {
		t.Helper()
		r, err := o.Requirements()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	pool := compat.MustRequirements(compat.Requirement{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"spot", "on-demand"}})
	if err := mustReqs(spot).Compatible(pool); err != nil {
		t.Errorf("spot offering against a spot/on-demand pool: %v", err)
	}
	if err := mustReqs(reserved).Compatible(pool); err == nil {
		t.Error("reserved offering compatible with a spot/on-demand pool")
	}
	byID := compat.MustRequirements(compat.Requirement{Key: compat.LabelCapacityReservationID, Operator: compat.In, Values: []string{"cr-0123456789abcdef0"}})
	if err := mustReqs(reserved).Compatible(byID); err != nil {
		t.Errorf("reserved offering against its own reservation ID: %v", err)
	}
	if err := mustReqs(spot).Compatible(byID); err == nil {
		t.Error("spot offering compatible with a reservation-ID requirement")
	}
	b, err := json.Marshal(reserved)
	if err != nil {
		t.Fatal(err)
	}
	var back Offering
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(reserved, back); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
}

func TestOfferingValidate(t *testing.T) {
	ok := Offering{InstanceType: "m5.large", Zone: "us-east-1a", ZoneID: "use1-az1", CapacityType: Spot}
	res := func(r Reservation) Offering {
		o := ok
		o.CapacityType = Reserved
		o.Reservation = &r
		return o
	}
	good := Reservation{ID: "cr-0123456789abcdef0", Type: ReservationDefault, Total: 2, Available: 1}
	for _, tc := range []struct {
		name string
		o    Offering
		want string // "" means valid
	}{
		{"spot", ok, ""},
		{"reserved", res(good), ""},
		{"bad type", Offering{InstanceType: "m5", Zone: "us-east-1a", CapacityType: Spot}, `instance type "m5" is not of the form family.size`},
		{"empty zone", Offering{InstanceType: "m5.large", CapacityType: Spot}, "empty zone"},
		{"zone no label value", Offering{InstanceType: "m5.large", Zone: "us east", CapacityType: Spot}, `zone "us east" is not a label value`},
		{"zero capacity type", Offering{InstanceType: "m5.large", Zone: "us-east-1a"}, "capacity type CapacityType(0) is none of"},
		{"reserved without reservation", Offering{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: Reserved}, "needs its Reservation"},
		{"spot with reservation", Offering{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: Spot, Reservation: &good}, "only a reserved offering has a Reservation"},
		{"bad reservation id", res(Reservation{ID: "cr-ABC", Type: ReservationDefault}), `reservation ID "cr-ABC"`},
		{"zero reservation type", res(Reservation{ID: "cr-1"}), "neither default nor capacity-block"},
		{"more available than total", res(Reservation{ID: "cr-1", Type: ReservationDefault, Total: 1, Available: 2}), "2 instances available of a reservation that holds 1"},
		{"window backwards", res(Reservation{ID: "cr-1", Type: ReservationCapacityBlock, Start: time.Unix(100, 0), End: time.Unix(50, 0)}), "ends"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Validate()
			_, rerr := tc.o.Requirements()
			switch {
			case tc.want == "" && (err != nil || rerr != nil):
				t.Errorf("Validate() = %v, Requirements() error = %v; want both nil", err, rerr)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
			case tc.want != "" && (rerr == nil || rerr.Error() != err.Error()):
				t.Errorf("Requirements() error = %v, want Validate's %v", rerr, err)
			}
		})
	}
}

func TestZoneEnumsText(t *testing.T) {
	for _, z := range []ZoneType{AvailabilityZone, LocalZone, WavelengthZone} {
		b, err := z.MarshalText()
		var back ZoneType
		if err != nil || back.UnmarshalText(b) != nil || back != z {
			t.Errorf("%s: round trip gave %v (%v)", z, back, err)
		}
	}
	for _, s := range []OptInStatus{OptInNotRequired, OptedIn, NotOptedIn} {
		b, err := s.MarshalText()
		var back OptInStatus
		if err != nil || back.UnmarshalText(b) != nil || back != s {
			t.Errorf("%s: round trip gave %v (%v)", s, back, err)
		}
	}
	var z ZoneType
	if err := z.UnmarshalText([]byte("availability_zone")); err == nil {
		t.Error("ZoneType accepted availability_zone")
	}
}
