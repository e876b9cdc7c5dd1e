package offerings

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/ec2fake"
)

// loadFixture is the catalog's us-east-1 with an open reservation, a
// targeted one and a capacity block before its window, and two subnets,
// served over HTTP to a real *ec2.Client.
func loadFixture(t *testing.T) (*ec2fake.Backend, *ec2.Client) {
	t.Helper()
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return t0 }})
	for _, cr := range []ec2types.CapacityReservation{
		{CapacityReservationId: aws.String("cr-0a0000000000000a1"), InstanceType: aws.String("m5.large"), AvailabilityZone: aws.String("us-east-1a"),
			TotalInstanceCount: aws.Int32(4), AvailableInstanceCount: aws.Int32(2)},
		{CapacityReservationId: aws.String("cr-0a0000000000000a2"), InstanceType: aws.String("m5.large"), AvailabilityZone: aws.String("us-east-1b"),
			TotalInstanceCount: aws.Int32(1), InstanceMatchCriteria: ec2types.InstanceMatchCriteriaTargeted, Interruptible: aws.Bool(true)},
		{CapacityReservationId: aws.String("cr-0b0000000000000b1"), InstanceType: aws.String("p5.48xlarge"), AvailabilityZone: aws.String("us-east-1c"),
			TotalInstanceCount: aws.Int32(2), ReservationType: ec2types.CapacityReservationTypeCapacityBlock,
			StartDate: aws.Time(t0.Add(24 * time.Hour)), EndDate: aws.Time(t0.Add(48 * time.Hour))},
		{CapacityReservationId: aws.String("cr-0c0000000000000c1"), InstanceType: aws.String("m5.large"), AvailabilityZone: aws.String("us-east-1a"),
			TotalInstanceCount: aws.Int32(1), State: ec2types.CapacityReservationStateCancelled},
	} {
		if err := b.PutCapacityReservation(cr); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []ec2types.Subnet{
		{SubnetId: aws.String("subnet-0a1"), AvailabilityZone: aws.String("us-east-1a"), AvailableIpAddressCount: aws.Int32(0)},
		{SubnetId: aws.String("subnet-0b1"), AvailabilityZone: aws.String("us-east-1b")},
		{SubnetId: aws.String("subnet-0c1"), AvailabilityZone: aws.String("us-east-1c"), State: ec2types.SubnetStatePending},
	} {
		if err := b.PutSubnet(s); err != nil {
			t.Fatal(err)
		}
	}
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	return b, ec2fake.NewClient(srv.URL)
}

func TestLoad(t *testing.T) {
	b, client := loadFixture(t)
	ctx := context.Background()
	byName, err := Load(ctx, client, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byID, err := Load(ctx, client, LoadOptions{ByZoneID: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(byName, byID); diff != "" {
		t.Errorf("the region read by zone ID differs from the one read by name (-name +ID):\n%s", diff)
	}
	if byName.Name != "us-east-1" || len(byName.Zones) != 9 || len(byName.InstanceTypes) != 1347 || len(byName.Offered) != 7 {
		t.Errorf("region %s: %d zones, %d types, offerings in %d zones; want us-east-1, 9, 1347, 7", byName.Name, len(byName.Zones), len(byName.InstanceTypes), len(byName.Offered))
	}
	wantZone := Zone{Name: "us-east-1-bos-1a", ID: "use1-bos1-az1", Type: LocalZone, OptInStatus: OptedIn, State: "available", ParentZone: "us-east-1b"}
	if diff := cmp.Diff(wantZone, byName.Zones[0]); diff != "" {
		t.Errorf("the first zone (-want +got):\n%s", diff)
	}
	wantReserved := []Offering{
		{InstanceType: "m5.large", Zone: "us-east-1a", ZoneID: "use1-az2", CapacityType: Reserved, Reservation: &Reservation{
			ID: "cr-0a0000000000000a1", Type: ReservationDefault, OwnerID: ec2fake.DefaultAccountID, Total: 4, Available: 2, Start: t0}},
		{InstanceType: "m5.large", Zone: "us-east-1b", ZoneID: "use1-az4", CapacityType: Reserved, Reservation: &Reservation{
			ID: "cr-0a0000000000000a2", Type: ReservationDefault, Targeted: true, Interruptible: true, OwnerID: ec2fake.DefaultAccountID, Total: 1, Available: 1, Start: t0}},
		{InstanceType: "p5.48xlarge", Zone: "us-east-1c", ZoneID: "use1-az6", CapacityType: Reserved, Reservation: &Reservation{
			ID: "cr-0b0000000000000b1", Type: ReservationCapacityBlock, OwnerID: ec2fake.DefaultAccountID, Total: 2, Available: 2, Start: t0.Add(24 * time.Hour), End: t0.Add(48 * time.Hour)}},
	}
	if diff := cmp.Diff(wantReserved, byName.Reserved); diff != "" {
		t.Errorf("reserved offerings: active and scheduled, not the cancelled one (-want +got):\n%s", diff)
	}
	// Every page: the default catalog's 6,298 offerings by zone take seven pages of 1,000.
	pages := 0
	for _, c := range b.Calls() {
		if c.Operation == ec2fake.OpDescribeInstanceTypeOfferings && c.Err == nil {
			pages++
		}
	}
	if pages != 14 {
		t.Errorf("%d DescribeInstanceTypeOfferings pages for two loads, want 14", pages)
	}
	subnets, err := LoadSubnets(ctx, client, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Subnet{{ID: "subnet-0a1", Zone: "us-east-1a", ZoneID: "use1-az2"}, {ID: "subnet-0b1", Zone: "us-east-1b", ZoneID: "use1-az4", AvailableIPv4: 251}}
	if diff := cmp.Diff(want, subnets); diff != "" {
		t.Errorf("available subnets (-want +got):\n%s", diff)
	}
	only, err := LoadReservations(ctx, client, ReservationQuery{IDs: []string{"cr-0a0000000000000a2"}})
	if err != nil || len(only) != 1 || !only[0].Reservation.Targeted {
		t.Errorf("one reservation by ID: %v, %v", only, err)
	}
}

// A failed page fails the load, and the SDK's error is inside for
// errors.As; no partial region is returned.
func TestLoadFails(t *testing.T) {
	for _, op := range []string{ec2fake.OpDescribeAvailabilityZones, ec2fake.OpDescribeInstanceTypeOfferings, ec2fake.OpDescribeCapacityReservations} {
		t.Run(op, func(t *testing.T) {
			b, client := loadFixture(t)
			if err := b.InjectFault(ec2fake.Fault{Operation: op, Code: "UnauthorizedOperation"}); err != nil {
				t.Fatal(err)
			}
			r, err := Load(context.Background(), client, LoadOptions{})
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "UnauthorizedOperation" || r.Name != "" {
				t.Errorf("Load = %v, %v; want no region and the API error", r.Name, err)
			}
		})
	}
	b, client := loadFixture(t)
	if err := b.InjectFault(ec2fake.Fault{Operation: ec2fake.OpDescribeSubnets, Code: "RequestLimitExceeded"}); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSubnets(context.Background(), client, nil); err == nil || !strings.Contains(err.Error(), "offerings: describing subnets") {
		t.Errorf("LoadSubnets error = %v", err)
	}
}

func TestConvertersRefuseWhatTheyCannotRead(t *testing.T) {
	cr := func(edit func(*ec2types.CapacityReservation)) ec2types.CapacityReservation {
		c := ec2types.CapacityReservation{CapacityReservationId: aws.String("cr-1"), InstanceType: aws.String("m5.large"), AvailabilityZone: aws.String("us-east-1a"),
			InstanceMatchCriteria: "open", State: "active", TotalInstanceCount: aws.Int32(1), AvailableInstanceCount: aws.Int32(1)}
		edit(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"match criteria", second(ReservationFromEC2(cr(func(c *ec2types.CapacityReservation) { c.InstanceMatchCriteria = "any" }))), `instance match criteria "any" is neither open nor targeted`},
		{"reservation type", second(ReservationFromEC2(cr(func(c *ec2types.CapacityReservation) { c.ReservationType = "reserved-capacity" }))), `reservation type "reserved-capacity"`},
		{"state", second(ReservationFromEC2(cr(func(c *ec2types.CapacityReservation) { c.State = "expired" }))), `is "expired"; only active and scheduled reservations launch`},
		{"no zone", second(ReservationFromEC2(cr(func(c *ec2types.CapacityReservation) { c.AvailabilityZone = nil }))), "empty zone"},
		{"counts", second(ReservationFromEC2(cr(func(c *ec2types.CapacityReservation) { c.AvailableInstanceCount = aws.Int32(5) }))), "5 instances available of a reservation that holds 1"},
		{"zone type", second(ZoneFromEC2(ec2types.AvailabilityZone{ZoneName: aws.String("z"), ZoneId: aws.String("z1"), ZoneType: aws.String("outpost")})), `zone type "outpost"`},
		{"zone opt-in", second(ZoneFromEC2(ec2types.AvailabilityZone{ZoneName: aws.String("z"), ZoneId: aws.String("z1"), OptInStatus: "maybe"})), `opt-in status "maybe"`},
		{"zone name", second(ZoneFromEC2(ec2types.AvailabilityZone{ZoneId: aws.String("z1")})), "lacks its name or ID"},
		{"subnet", second(SubnetFromEC2(ec2types.Subnet{SubnetId: aws.String("subnet-1")})), "lacks its ID or zone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", tc.err, tc.want)
			}
		})
	}
}

func second[T any](_ T, err error) error { return err }

// FuzzReservationFromEC2 feeds the converter any fields a
// DescribeCapacityReservations answer could carry: it never panics, and
// what it accepts is a valid reserved offering whose requirements compile.
func FuzzReservationFromEC2(f *testing.F) {
	f.Add("cr-0a1", "m5.large", "us-east-1a", "use1-az2", "open", "default", "active", int32(2), int32(1), int64(0), int64(3600), true)
	f.Add("cr-0b1", "p5.48xlarge", "us-east-1c", "", "targeted", "capacity-block", "scheduled", int32(1), int32(1), int64(86400), int64(172800), false)
	f.Add("", "", "", "", "", "", "", int32(-1), int32(0), int64(0), int64(-1), false)
	f.Fuzz(func(t *testing.T, id, typ, zone, zoneID, match, rtype, state string, total, avail int32, start, end int64, interruptible bool) {
		cr := ec2types.CapacityReservation{
			CapacityReservationId: &id, InstanceType: &typ, AvailabilityZone: &zone, AvailabilityZoneId: &zoneID,
			InstanceMatchCriteria: ec2types.InstanceMatchCriteria(match), ReservationType: ec2types.CapacityReservationType(rtype),
			State: ec2types.CapacityReservationState(state), TotalInstanceCount: &total, AvailableInstanceCount: &avail, Interruptible: &interruptible,
			StartDate: aws.Time(time.Unix(start, 0)), EndDate: aws.Time(time.Unix(end, 0)),
		}
		o, err := ReservationFromEC2(cr)
		if err != nil {
			return
		}
		if verr := o.Validate(); verr != nil {
			t.Fatalf("accepted %+v, which does not validate: %v", o, verr)
		}
		if _, rerr := o.Requirements(); rerr != nil {
			t.Fatalf("accepted %+v, whose requirements fail: %v", o, rerr)
		}
	})
}

// FuzzZoneFromEC2 and the subnet converter: never a panic; what converts
// loads into a region that validates.
func FuzzZoneFromEC2(f *testing.F) {
	f.Add("us-east-1a", "use1-az2", "availability-zone", "opt-in-not-required", "available", "subnet-1", int32(5))
	f.Add("us-east-1-bos-1a", "use1-bos1-az1", "local-zone", "not-opted-in", "impaired", "", int32(-3))
	f.Add("", "", "", "", "", "", int32(0))
	f.Fuzz(func(t *testing.T, name, id, ztype, optIn, state, subnet string, free int32) {
		z, err := ZoneFromEC2(ec2types.AvailabilityZone{ZoneName: &name, ZoneId: &id, ZoneType: &ztype, OptInStatus: ec2types.AvailabilityZoneOptInStatus(optIn), State: ec2types.AvailabilityZoneState(state)})
		if err != nil {
			return
		}
		s, serr := SubnetFromEC2(ec2types.Subnet{SubnetId: &subnet, AvailabilityZone: &name, AvailableIpAddressCount: &free})
		r := Region{Name: "r", Zones: []Zone{z}, InstanceTypes: []string{"m5.large"}, Offered: map[string][]string{z.Name: {"m5.large"}}}
		if serr == nil {
			r.Subnets = []Subnet{s}
		}
		if verr := r.Validate(); verr != nil {
			if !strings.Contains(verr.Error(), "label values") {
				t.Fatalf("zone %+v converted, region refused for another reason: %v", z, verr)
			}
			return
		}
		av, aerr := Assess(r, nil, t0)
		if aerr != nil || len(av) != 2 {
			t.Fatalf("Assess: %v, %v", av, aerr)
		}
	})
}
