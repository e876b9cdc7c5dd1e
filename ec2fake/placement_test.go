package ec2fake

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
)

// Reservations and subnets of the placement fixture.
const (
	crOpen     = "cr-0a0000000000000a1" // open ODCR, m5.large in us-east-1a, 2 of 4 free
	crTargeted = "cr-0a0000000000000a2" // targeted ODCR, m5.large in us-east-1b
	crBlock    = "cr-0a0000000000000b1" // capacity block, p5.48xlarge in us-east-1c, starts in a day
	subnetA    = "subnet-0a0000000000000a1"
	subnetB    = "subnet-0a0000000000000b1"
	subnetFull = "subnet-0a0000000000000f1" // in us-east-1c, no free address
)

// clock is a settable clock for backends.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// newPlacementFixture is the catalog's us-east-1 with three reservations
// and three subnets, on a clock the test may move.
func newPlacementFixture(t testing.TB) (*Backend, *clock) {
	t.Helper()
	c := &clock{now: testNow}
	b := NewWithCatalog(Options{Now: c.Now})
	for _, cr := range []ec2types.CapacityReservation{
		{CapacityReservationId: aws.String(crOpen), InstanceType: aws.String("m5.large"), AvailabilityZone: aws.String("us-east-1a"),
			TotalInstanceCount: aws.Int32(4), AvailableInstanceCount: aws.Int32(2),
			Tags: []ec2types.Tag{{Key: aws.String("team"), Value: aws.String("platform")}}},
		{CapacityReservationId: aws.String(crTargeted), InstanceType: aws.String("m5.large"), AvailabilityZoneId: aws.String("use1-az4"),
			TotalInstanceCount: aws.Int32(1), InstanceMatchCriteria: ec2types.InstanceMatchCriteriaTargeted},
		{CapacityReservationId: aws.String(crBlock), InstanceType: aws.String("p5.48xlarge"), AvailabilityZone: aws.String("us-east-1c"),
			TotalInstanceCount: aws.Int32(2), ReservationType: ec2types.CapacityReservationTypeCapacityBlock,
			StartDate: aws.Time(testNow.Add(24 * time.Hour)), EndDate: aws.Time(testNow.Add(48 * time.Hour)), Interruptible: aws.Bool(false)},
	} {
		if err := b.PutCapacityReservation(cr); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []ec2types.Subnet{
		{SubnetId: aws.String(subnetA), AvailabilityZone: aws.String("us-east-1a"), CidrBlock: aws.String("10.0.0.0/24")},
		{SubnetId: aws.String(subnetB), AvailabilityZone: aws.String("us-east-1b"), AvailableIpAddressCount: aws.Int32(3),
			Tags: []ec2types.Tag{{Key: aws.String("karpenter.sh/discovery"), Value: aws.String("demo")}}},
		{SubnetId: aws.String(subnetFull), AvailabilityZoneId: aws.String("use1-az6"), AvailableIpAddressCount: aws.Int32(0)},
	} {
		if err := b.PutSubnet(s); err != nil {
			t.Fatal(err)
		}
	}
	return b, c
}

// The catalog's zones are the recorded ones, and each zone ID's recorded
// offerings equal, in number, those recorded under the zone name it is
// mapped to (moto's availability-zone/<region>.json at 0af643a5): the
// mapping zones.tsv states.
func TestZoneCatalog(t *testing.T) {
	if diff := cmp.Diff([]string{"eu-west-1", "us-east-1", "us-west-2"}, CatalogRegions()); diff != "" {
		t.Errorf("CatalogRegions (-want +got):\n%s", diff)
	}
	recordedByName := map[string]int{ // moto's availability-zone files, every type
		"us-east-1a": 1338, "us-east-1b": 1330, "us-east-1c": 1343, "us-east-1d": 1253, "us-east-1e": 58, "us-east-1f": 985,
		"us-west-2a": 1312, "us-west-2b": 1319, "us-west-2c": 1306, "us-west-2d": 1024,
		"eu-west-1a": 1066, "eu-west-1b": 1093, "eu-west-1c": 1131,
	}
	rawByID := map[string]int{}
	for _, row := range tsvRows(catalogTypeOfferings) {
		rawByID[row[1]] = len(strings.Fields(row[2]))
	}
	for _, region := range CatalogRegions() {
		zones, offerings, err := ZoneCatalog(region)
		if err != nil {
			t.Fatal(err)
		}
		b := New(Options{Region: region})
		if err := b.LoadZones(zones, offerings); err != nil {
			t.Fatalf("%s: LoadZones: %v", region, err)
		}
		for _, z := range zones {
			if z.ZoneType != nil && *z.ZoneType != "availability-zone" {
				continue
			}
			if got, want := rawByID[*z.ZoneId], recordedByName[*z.ZoneName]; got != want {
				t.Errorf("%s is %s: %d types recorded by ID, %d by name", *z.ZoneName, *z.ZoneId, got, want)
			}
		}
	}
	if _, _, err := ZoneCatalog("ap-south-2"); err == nil || !strings.Contains(err.Error(), "has no region") {
		t.Errorf("ZoneCatalog(ap-south-2) error = %v", err)
	}
}

// placementBoth runs one describe in process and over HTTP, fails the test
// unless both answer alike, and returns the in-process answer.
func placementBoth[I, O any](t *testing.T, p pair, in *I, local func(context.Context, *I, ...func(*ec2.Options)) (*O, error), remote func(context.Context, *I, ...func(*ec2.Options)) (*O, error)) (*O, *errInfo) {
	t.Helper()
	ctx := context.Background()
	lo, lerr := local(ctx, cloneInput(in))
	ro, rerr := remote(ctx, cloneInput(in))
	if diff := cmp.Diff(describeErr(lerr), describeErr(rerr)); diff != "" {
		t.Fatalf("in-process and HTTP errors differ (-in-process +http):\n%s", diff)
	}
	if lerr != nil {
		return nil, describeErr(lerr)
	}
	if diff := cmp.Diff(lo, ro, ignoreUnexported, cmp.FilterPath(func(p cmp.Path) bool {
		sf, ok := p.Last().(cmp.StructField)
		return ok && sf.Name() == "ResultMetadata"
	}, cmp.Ignore())); diff != "" {
		t.Fatalf("in-process and HTTP answers differ (-in-process +http):\n%s", diff)
	}
	return lo, nil
}

func zoneNames(zones []ec2types.AvailabilityZone) []string {
	out := make([]string, len(zones))
	for i, z := range zones {
		out[i] = aws.ToString(z.ZoneName)
	}
	return out
}

func TestDescribeAvailabilityZones(t *testing.T) {
	b, _ := newPlacementFixture(t)
	p := newPair(t, b)
	azs := []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1e", "us-east-1f"}
	for _, tc := range []struct {
		name    string
		in      ec2.DescribeAvailabilityZonesInput
		want    []string
		wantErr *errInfo
	}{
		{"default: the zones the account may use", ec2.DescribeAvailabilityZonesInput{}, slices.Insert(slices.Clone(azs), 0, "us-east-1-bos-1a"), nil},
		{"all zones", ec2.DescribeAvailabilityZonesInput{AllAvailabilityZones: aws.Bool(true)},
			[]string{"us-east-1-bos-1a", "us-east-1-chi-2a", "us-east-1-wl1-bos-wlz-1", "us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1e", "us-east-1f"}, nil},
		{"a zone not opted in, by name", ec2.DescribeAvailabilityZonesInput{ZoneNames: []string{"us-east-1-chi-2a"}}, []string{"us-east-1-chi-2a"}, nil},
		{"by ID", ec2.DescribeAvailabilityZonesInput{ZoneIds: []string{"use1-az1", "use1-az2"}}, []string{"us-east-1a", "us-east-1d"}, nil},
		{"local zones", ec2.DescribeAvailabilityZonesInput{AllAvailabilityZones: aws.Bool(true), Filters: []ec2types.Filter{filter("zone-type", "local-zone")}},
			[]string{"us-east-1-bos-1a", "us-east-1-chi-2a"}, nil},
		{"not opted in", ec2.DescribeAvailabilityZonesInput{AllAvailabilityZones: aws.Bool(true), Filters: []ec2types.Filter{filter("opt-in-status", "not-opted-in")}},
			[]string{"us-east-1-chi-2a", "us-east-1-wl1-bos-wlz-1"}, nil},
		{"parent zone", ec2.DescribeAvailabilityZonesInput{AllAvailabilityZones: aws.Bool(true), Filters: []ec2types.Filter{filter("parent-zone-name", "us-east-1b")}},
			[]string{"us-east-1-bos-1a", "us-east-1-wl1-bos-wlz-1"}, nil},
		{"unknown zone", ec2.DescribeAvailabilityZonesInput{ZoneNames: []string{"us-east-1z"}}, nil,
			&errInfo{Code: CodeInvalidParameterValue, Message: "Invalid availability zone: [us-east-1z]", Status: 400}},
		{"unknown filter", ec2.DescribeAvailabilityZonesInput{Filters: []ec2types.Filter{filter("zone-color", "blue")}}, nil,
			&errInfo{Code: CodeInvalidParameterValue, Message: "The filter 'zone-color' is invalid", Status: 400}},
		{"dry run", ec2.DescribeAvailabilityZonesInput{DryRun: aws.Bool(true)}, nil,
			&errInfo{Code: CodeDryRunOperation, Message: dryRunMessage, Status: 412}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := placementBoth(t, p, &tc.in, p.b.DescribeAvailabilityZones, p.client.DescribeAvailabilityZones)
			if diff := cmp.Diff(tc.wantErr, err); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err == nil {
				if diff := cmp.Diff(tc.want, zoneNames(out.AvailabilityZones)); diff != "" {
					t.Errorf("zones (-want +got):\n%s", diff)
				}
			}
		})
	}
	out, _ := placementBoth(t, p, &ec2.DescribeAvailabilityZonesInput{ZoneNames: []string{"us-east-1-bos-1a"}}, p.b.DescribeAvailabilityZones, p.client.DescribeAvailabilityZones)
	want := ec2types.AvailabilityZone{
		ZoneName: aws.String("us-east-1-bos-1a"), ZoneId: aws.String("use1-bos1-az1"), ZoneType: aws.String("local-zone"),
		OptInStatus: "opted-in", State: "available", RegionName: aws.String("us-east-1"), ParentZoneId: aws.String("use1-az4"),
		ParentZoneName: aws.String("us-east-1b"), NetworkBorderGroup: aws.String("us-east-1-bos-1"), GroupName: aws.String("us-east-1-bos-1"),
	}
	if diff := cmp.Diff(want, out.AvailabilityZones[0], ignoreUnexported); diff != "" {
		t.Errorf("the Boston Local Zone over HTTP (-want +got):\n%s", diff)
	}
}

// typeOfferingPairs reads every page with the SDK paginator.
func typeOfferingPairs(t *testing.T, client ec2.DescribeInstanceTypeOfferingsAPIClient, in *ec2.DescribeInstanceTypeOfferingsInput) []string {
	t.Helper()
	var out []string
	pages := ec2.NewDescribeInstanceTypeOfferingsPaginator(client, in, func(o *ec2.DescribeInstanceTypeOfferingsPaginatorOptions) { o.StopOnDuplicateToken = true })
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.InstanceTypeOfferings {
			out = append(out, aws.ToString(o.Location)+" "+string(o.InstanceType)+" "+string(o.LocationType))
		}
	}
	return out
}

func TestDescribeInstanceTypeOfferings(t *testing.T) {
	b, _ := newPlacementFixture(t)
	p := newPair(t, b)
	byZone := typeOfferingPairs(t, p.client, &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeAvailabilityZone})
	byID := typeOfferingPairs(t, p.client, &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeAvailabilityZoneId, MaxResults: aws.Int32(997)})
	if len(byZone) != 6298 || len(byID) != len(byZone) { // 6 AZs and the opted-in Boston Local Zone
		t.Fatalf("%d offerings by zone, %d by zone ID; want 6298 each", len(byZone), len(byID))
	}
	names := map[string]string{"use1-az1": "us-east-1d", "use1-az2": "us-east-1a", "use1-az3": "us-east-1e", "use1-az4": "us-east-1b",
		"use1-az5": "us-east-1f", "use1-az6": "us-east-1c", "use1-bos1-az1": "us-east-1-bos-1a"}
	var renamed []string
	for _, s := range byID {
		f := strings.Fields(s)
		renamed = append(renamed, names[f[0]]+" "+f[1]+" availability-zone")
	}
	slices.Sort(renamed)
	if diff := cmp.Diff(byZone, renamed); diff != "" {
		t.Errorf("offerings by zone ID, renamed, differ from offerings by zone (-by zone +by ID):\n%s", diff)
	}
	small := typeOfferingPairs(t, p.client, &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeAvailabilityZone, MaxResults: aws.Int32(5),
		Filters: []ec2types.Filter{filter("instance-type", "m5.large", "m5.xlarge"), filter("location", "us-east-1?")}})
	want := []string{}
	for _, z := range []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1f"} {
		want = append(want, z+" m5.large availability-zone", z+" m5.xlarge availability-zone")
	}
	if diff := cmp.Diff(want, small); diff != "" {
		t.Errorf("m5.large and m5.xlarge in five-per-page pages (-want +got):\n%s", diff)
	}
	region := typeOfferingPairs(t, p.client, &ec2.DescribeInstanceTypeOfferingsInput{})
	if len(region) != 1347 || !slices.Contains(region, "us-east-1 m5.large region") {
		t.Errorf("region offerings: %d, first %v; want 1347 with m5.large", len(region), region[:1])
	}
	for _, tc := range []struct {
		name string
		in   ec2.DescribeInstanceTypeOfferingsInput
		want errInfo
	}{
		{"bad location type", ec2.DescribeInstanceTypeOfferingsInput{LocationType: "zone"},
			errInfo{CodeInvalidParameterValue, "Value (zone) for parameter locationType is invalid. Valid values: region, availability-zone, availability-zone-id, outpost", 400}},
		{"outposts", ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeOutpost},
			errInfo{CodeUnsupported, "LocationType outpost is valid in EC2 but ec2fake models no Outposts.", 400}},
		{"page size", ec2.DescribeInstanceTypeOfferingsInput{MaxResults: aws.Int32(1001)},
			errInfo{CodeInvalidParameterValue, "Value ( 1001 ) for parameter maxResults is invalid. Expecting a value less than or equal to 1000.", 400}},
		{"foreign token", ec2.DescribeInstanceTypeOfferingsInput{NextToken: aws.String(encodeToken(tokenOpTypes, 1, "m5.large"))},
			errInfo{CodeInvalidParameterValue, invalidNextTokenMessage, 400}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := placementBoth(t, p, &tc.in, p.b.DescribeInstanceTypeOfferings, p.client.DescribeInstanceTypeOfferings)
			if diff := cmp.Diff(&tc.want, err); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func reservationSummary(rs []ec2types.CapacityReservation) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s %s %d/%d", aws.ToString(r.CapacityReservationId), r.State, aws.ToInt32(r.AvailableInstanceCount), aws.ToInt32(r.TotalInstanceCount)))
	}
	return out
}

func TestDescribeCapacityReservations(t *testing.T) {
	b, c := newPlacementFixture(t)
	p := newPair(t, b)
	describe := func(in ec2.DescribeCapacityReservationsInput) ([]string, *errInfo) {
		t.Helper()
		out, err := placementBoth(t, p, &in, p.b.DescribeCapacityReservations, p.client.DescribeCapacityReservations)
		if err != nil {
			return nil, err
		}
		return reservationSummary(out.CapacityReservations), nil
	}
	got, _ := describe(ec2.DescribeCapacityReservationsInput{})
	want := []string{crOpen + " active 2/4", crTargeted + " active 1/1", crBlock + " scheduled 2/2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("all reservations (-want +got):\n%s", diff)
	}
	// Karpenter's query: active ones, by tag, a page of 1000.
	got, _ = describe(ec2.DescribeCapacityReservationsInput{MaxResults: aws.Int32(1000),
		Filters: []ec2types.Filter{filter("state", "active"), filter("tag:team", "platform")}})
	if diff := cmp.Diff([]string{crOpen + " active 2/4"}, got); diff != "" {
		t.Errorf("active, team=platform (-want +got):\n%s", diff)
	}
	got, _ = describe(ec2.DescribeCapacityReservationsInput{Filters: []ec2types.Filter{filter("instance-match-criteria", "targeted")}})
	if diff := cmp.Diff([]string{crTargeted + " active 1/1"}, got); diff != "" {
		t.Errorf("targeted (-want +got):\n%s", diff)
	}
	c.Set(testNow.Add(25 * time.Hour)) // inside the block's window
	got, _ = describe(ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{crBlock}})
	if diff := cmp.Diff([]string{crBlock + " active 2/2"}, got); diff != "" {
		t.Errorf("the block in its window (-want +got):\n%s", diff)
	}
	c.Set(testNow.Add(49 * time.Hour))
	got, _ = describe(ec2.DescribeCapacityReservationsInput{Filters: []ec2types.Filter{filter("state", "active")}})
	if diff := cmp.Diff([]string{crOpen + " active 2/4", crTargeted + " active 1/1"}, got); diff != "" {
		t.Errorf("after the block ended (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name string
		in   ec2.DescribeCapacityReservationsInput
		want errInfo
	}{
		{"unknown", ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{"cr-0ffffffffffffffff"}},
			errInfo{CodeInvalidCapacityReservationIDNotFound, "The capacity reservation ID 'cr-0ffffffffffffffff' does not exist", 400}},
		{"malformed", ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{"reservation-1"}},
			errInfo{CodeInvalidCapacityReservationIDMalformed, `Invalid id: "reservation-1" (expecting "cr-...")`, 400}},
		{"ids with a page size", ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{crOpen}, MaxResults: aws.Int32(10)},
			errInfo{CodeInvalidParameterCombination, "The parameter CapacityReservationIds cannot be used with the parameter MaxResults", 400}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := describe(tc.in); cmp.Diff(&tc.want, err) != "" {
				t.Errorf("error = %+v, want %+v", err, tc.want)
			}
		})
	}
	var all []string
	pages := ec2.NewDescribeCapacityReservationsPaginator(p.client, &ec2.DescribeCapacityReservationsInput{MaxResults: aws.Int32(1)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, reservationSummary(page.CapacityReservations)...)
	}
	if len(all) != 3 {
		t.Errorf("pages of one: %v", all)
	}
}

func TestDescribeSubnets(t *testing.T) {
	b, _ := newPlacementFixture(t)
	p := newPair(t, b)
	out, _ := placementBoth(t, p, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("tag:karpenter.sh/discovery", "demo")}}, p.b.DescribeSubnets, p.client.DescribeSubnets)
	want := []ec2types.Subnet{{
		SubnetId: aws.String(subnetB), AvailabilityZone: aws.String("us-east-1b"), AvailabilityZoneId: aws.String("use1-az4"),
		AvailableIpAddressCount: aws.Int32(3), State: "available", VpcId: aws.String(defaultSubnetVPC), OwnerId: aws.String(DefaultAccountID),
		SubnetArn: aws.String("arn:aws:ec2:us-east-1:" + DefaultAccountID + ":subnet/" + subnetB),
		Tags:      []ec2types.Tag{{Key: aws.String("karpenter.sh/discovery"), Value: aws.String("demo")}},
	}}
	if diff := cmp.Diff(want, out.Subnets, ignoreUnexported); diff != "" {
		t.Errorf("tagged subnet (-want +got):\n%s", diff)
	}
	out, _ = placementBoth(t, p, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("available-ip-address-count", "0")}}, p.b.DescribeSubnets, p.client.DescribeSubnets)
	if len(out.Subnets) != 1 || *out.Subnets[0].SubnetId != subnetFull || *out.Subnets[0].AvailabilityZone != "us-east-1c" {
		t.Errorf("full subnets: %v", out.Subnets)
	}
	_, err := placementBoth(t, p, &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-0ffffffffffffffff"}}, p.b.DescribeSubnets, p.client.DescribeSubnets)
	if diff := cmp.Diff(&errInfo{CodeInvalidSubnetIDNotFound, "The subnet ID 'subnet-0ffffffffffffffff' does not exist", 400}, err); diff != "" {
		t.Errorf("unknown subnet (-want +got):\n%s", diff)
	}
}

func TestPlacementMutationsRefuseBadInput(t *testing.T) {
	b, _ := newPlacementFixture(t)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"reservation ID", b.PutCapacityReservation(ec2types.CapacityReservation{CapacityReservationId: aws.String("r-1")}), `capacity reservation ID "r-1"`},
		{"reservation zone", b.PutCapacityReservation(ec2types.CapacityReservation{CapacityReservationId: aws.String("cr-1"), InstanceType: aws.String("m5.large"),
			AvailabilityZone: aws.String("eu-west-1a"), TotalInstanceCount: aws.Int32(1)}), `zone "eu-west-1a" (ID "") is not a loaded zone`},
		{"reservation count", b.PutCapacityReservation(ec2types.CapacityReservation{CapacityReservationId: aws.String("cr-1"), InstanceType: aws.String("m5.large"),
			AvailabilityZone: aws.String("us-east-1a"), TotalInstanceCount: aws.Int32(1), AvailableInstanceCount: aws.Int32(2)}), "AvailableInstanceCount 2 is not between 0 and the total 1"},
		{"subnet ID", b.PutSubnet(ec2types.Subnet{SubnetId: aws.String("sn-1")}), `subnet ID "sn-1"`},
		{"capacity type", b.SetCapacity(Capacity{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "reserved"}), `capacity type "reserved"`},
		{"capacity zone", b.SetCapacity(Capacity{InstanceType: "m5.large", Zone: "us-east-1z", CapacityType: "spot"}), `zone "us-east-1z" is not a loaded zone`},
		{"zone in use", b.LoadZones(nil, nil), "capacity reservation " + crOpen + " is in zone us-east-1a"},
		{"zone region", New(Options{}).LoadZones([]ec2types.AvailabilityZone{{ZoneName: aws.String("eu-west-1a"), ZoneId: aws.String("euw1-az3"), RegionName: aws.String("eu-west-1")}}, nil),
			"region eu-west-1 is not the backend's region us-east-1"},
		{"offering zone", New(Options{}).LoadZones([]ec2types.AvailabilityZone{{ZoneName: aws.String("us-east-1a"), ZoneId: aws.String("use1-az2")}},
			[]ec2types.InstanceTypeOffering{{InstanceType: "m5.large", Location: aws.String("use1-az1"), LocationType: "availability-zone-id"}}), `availability-zone-id "use1-az1" is not one of the zones`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", tc.err, tc.want)
			}
		})
	}
}

// FuzzPlacementHandler posts any body to the placement operations: every
// answer is the operation's document or an EC2 error document, never a
// panic.
func FuzzPlacementHandler(f *testing.F) {
	for _, seed := range []string{
		"Action=DescribeAvailabilityZones&AllAvailabilityZones=true&Filter.1.Name=zone-type&Filter.1.Value.1=local-zone",
		"Action=DescribeAvailabilityZones&ZoneName.1=us-east-1a&ZoneId.1=use1-az4",
		"Action=DescribeInstanceTypeOfferings&LocationType=availability-zone-id&MaxResults=5&Filter.1.Name=instance-type&Filter.1.Value.1=m5.*",
		"Action=DescribeInstanceTypeOfferings&NextToken=AQ",
		"Action=DescribeCapacityReservations&CapacityReservationId.1=" + crOpen + "&Filter.1.Name=state&Filter.1.Value.1=active",
		"Action=DescribeSubnets&SubnetId.1=" + subnetA + "&MaxResults=1000",
		"Action=CreateFleet&Type=instant&TargetCapacitySpecification.TotalTargetCapacity=2&TargetCapacitySpecification.DefaultTargetCapacityType=spot" +
			"&LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName=lt&LaunchTemplateConfigs.1.Overrides.1.InstanceType=m5.large" +
			"&LaunchTemplateConfigs.1.Overrides.1.SubnetId=" + subnetB + "&LaunchTemplateConfigs.1.Overrides.2.InstanceType=c5.large&LaunchTemplateConfigs.1.Overrides.2.AvailabilityZone=us-east-1a",
		"Action=CreateFleet&LaunchTemplateConfigs.0.Overrides.1.InstanceType=x&TagSpecification.1.Tag.1.Key=k",
	} {
		f.Add(seed)
	}
	b, _ := newPlacementFixture(f)
	h := b.Handler()
	documents := []string{"DescribeAvailabilityZonesResponse", "DescribeInstanceTypeOfferingsResponse", "DescribeCapacityReservationsResponse",
		"DescribeSubnetsResponse", "CreateFleetResponse", "DescribeImagesResponse", "DescribeInstanceTypesResponse", "DisableImageResponse"}
	f.Fuzz(func(t *testing.T, body string) {
		status, doc, raw := post(t, h, http.MethodPost, body)
		switch {
		case status == 200:
			if !slices.Contains(documents, doc.XMLName.Local) || doc.RequestID == "" {
				t.Fatalf("status 200 with document %q:\n%s", doc.XMLName.Local, raw)
			}
		case status >= 400 && status < 600:
			if doc.XMLName.Local != "Response" || len(doc.Errors) != 1 || doc.Errors[0].Code == "" || doc.Errors[0].Message == "" {
				t.Fatalf("status %d without an EC2 error document:\n%s", status, raw)
			}
		default:
			t.Fatalf("status %d:\n%s", status, raw)
		}
	})
}
