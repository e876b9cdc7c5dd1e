package offerings

import (
	"encoding/json"
	"testing"

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
	pool := compat.MustRequirements(compat.Requirement{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"spot", "on-demand"}})
	if err := spot.Requirements().Compatible(pool); err != nil {
		t.Errorf("spot offering against a spot/on-demand pool: %v", err)
	}
	if err := reserved.Requirements().Compatible(pool); err == nil {
		t.Error("reserved offering compatible with a spot/on-demand pool")
	}
	byID := compat.MustRequirements(compat.Requirement{Key: compat.LabelCapacityReservationID, Operator: compat.In, Values: []string{"cr-0123456789abcdef0"}})
	if err := reserved.Requirements().Compatible(byID); err != nil {
		t.Errorf("reserved offering against its own reservation ID: %v", err)
	}
	if err := spot.Requirements().Compatible(byID); err == nil {
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
