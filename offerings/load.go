package offerings

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// ZonesAPI is the one EC2 operation LoadZones calls. DescribeAvailabilityZones
// is not paginated, so the SDK has no interface of its own for it;
// *ec2.Client satisfies this one.
type ZonesAPI interface {
	DescribeAvailabilityZones(ctx context.Context, in *ec2.DescribeAvailabilityZonesInput, optFns ...func(*ec2.Options)) (*ec2.DescribeAvailabilityZonesOutput, error)
}

// RegionAPI is what Load calls: zones, instance-type offerings and
// capacity reservations. *ec2.Client satisfies it.
type RegionAPI interface {
	ZonesAPI
	ec2.DescribeInstanceTypeOfferingsAPIClient
	ec2.DescribeCapacityReservationsAPIClient
}

// LoadOptions configures Load. The zero value reads offerings by zone
// name and every active or scheduled reservation of the account.
type LoadOptions struct {
	// ByZoneID reads instance-type offerings by zone ID
	// (LocationType availability-zone-id) instead of by name; the result
	// is the same region.
	ByZoneID bool
	// Reservations narrows the capacity reservations read.
	Reservations ReservationQuery
}

// Load reads what EC2 says the region of client offers, every page of
// every answer: its zones (opted in or not), the instance types each
// offers, and its capacity reservations. InstanceTypes is every type
// offered somewhere or reserved. Subnets are left nil (not considered);
// set them from LoadSubnets when launches use known subnets. A failed
// call fails the load, wrapping the SDK's error (errors.As finds the
// smithy.APIError): no partial region is presented as complete.
func Load(ctx context.Context, client RegionAPI, opts LoadOptions) (Region, error) {
	zones, name, err := loadZones(ctx, client)
	if err != nil {
		return Region{}, err
	}
	offered, err := LoadOffered(ctx, client, zones, opts.ByZoneID)
	if err != nil {
		return Region{}, err
	}
	reserved, err := LoadReservations(ctx, client, opts.Reservations)
	if err != nil {
		return Region{}, err
	}
	types := map[string]bool{}
	for _, ts := range offered {
		for _, t := range ts {
			types[t] = true
		}
	}
	for _, o := range reserved {
		types[o.InstanceType] = true
	}
	r := Region{Name: name, Zones: zones, InstanceTypes: slices.Sorted(maps.Keys(types)), Offered: offered, Reserved: reserved}
	if err := r.Validate(); err != nil {
		return Region{}, err
	}
	return r, nil
}

// LoadZones reads every zone of the client's region, opted in or not
// (AllAvailabilityZones), sorted by name.
func LoadZones(ctx context.Context, client ZonesAPI) ([]Zone, error) {
	zones, _, err := loadZones(ctx, client)
	return zones, err
}

func loadZones(ctx context.Context, client ZonesAPI) ([]Zone, string, error) {
	out, err := client.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{AllAvailabilityZones: aws.Bool(true)})
	if err != nil {
		return nil, "", fmt.Errorf("offerings: describing availability zones: %w", err)
	}
	zones := make([]Zone, 0, len(out.AvailabilityZones))
	region := ""
	for _, z := range out.AvailabilityZones {
		zone, err := ZoneFromEC2(z)
		if err != nil {
			return nil, "", err
		}
		zones = append(zones, zone)
		region = aws.ToString(z.RegionName)
	}
	slices.SortFunc(zones, func(a, b Zone) int { return strings.Compare(a.Name, b.Name) })
	return zones, region, nil
}

// ZoneFromEC2 converts one zone of a DescribeAvailabilityZones answer. A
// zone without a name or ID, or of a zone type or opt-in status EC2 did
// not have when this package was written, is an error naming it.
func ZoneFromEC2(z ec2types.AvailabilityZone) (Zone, error) {
	out := Zone{Name: aws.ToString(z.ZoneName), ID: aws.ToString(z.ZoneId), State: string(z.State), ParentZone: aws.ToString(z.ParentZoneName)}
	if out.Name == "" || out.ID == "" {
		return Zone{}, fmt.Errorf("offerings: a zone of the answer lacks its name or ID (name %q, ID %q)", out.Name, out.ID)
	}
	zt := aws.ToString(z.ZoneType)
	if zt == "" {
		zt = "availability-zone"
	}
	if err := out.Type.UnmarshalText([]byte(zt)); err != nil {
		return Zone{}, fmt.Errorf("offerings: zone %s: %w; a newer version of this package may know it", out.Name, err)
	}
	opt := string(z.OptInStatus)
	if opt == "" {
		opt = "opt-in-not-required"
	}
	if err := out.OptInStatus.UnmarshalText([]byte(opt)); err != nil {
		return Zone{}, fmt.Errorf("offerings: zone %s: %w", out.Name, err)
	}
	return out, nil
}

// LoadOffered reads, for every zone of zones the account may use, the
// instance types EC2 offers there (DescribeInstanceTypeOfferings by zone
// name, or by zone ID when byZoneID, every page with the SDK paginator),
// keyed by zone name, each list sorted. An offering in a location zones
// does not list is an error: the zones are stale.
func LoadOffered(ctx context.Context, client ec2.DescribeInstanceTypeOfferingsAPIClient, zones []Zone, byZoneID bool) (map[string][]string, error) {
	names := map[string]string{}
	loc := ec2types.LocationTypeAvailabilityZone
	for _, z := range zones {
		names[z.Name] = z.Name
		if byZoneID {
			delete(names, z.Name)
			names[z.ID] = z.Name
		}
	}
	if byZoneID {
		loc = ec2types.LocationTypeAvailabilityZoneId
	}
	offered := map[string][]string{}
	pages := ec2.NewDescribeInstanceTypeOfferingsPaginator(client, &ec2.DescribeInstanceTypeOfferingsInput{LocationType: loc, MaxResults: aws.Int32(1000)},
		func(o *ec2.DescribeInstanceTypeOfferingsPaginatorOptions) { o.StopOnDuplicateToken = true })
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("offerings: describing instance type offerings by %s: %w", loc, err)
		}
		for _, o := range page.InstanceTypeOfferings {
			where := aws.ToString(o.Location)
			zone, ok := names[where]
			if !ok {
				return nil, fmt.Errorf("offerings: EC2 offers %s in %s %q, which DescribeAvailabilityZones did not list; load the zones again", o.InstanceType, loc, where)
			}
			offered[zone] = append(offered[zone], string(o.InstanceType))
		}
	}
	for z, ts := range offered {
		slices.Sort(ts)
		offered[z] = slices.Compact(ts)
	}
	return offered, nil
}

// ReservationQuery narrows the capacity reservations LoadReservations
// reads. The zero value reads every active or scheduled reservation the
// account can see.
type ReservationQuery struct {
	// IDs names reservations (cr-…); empty means all.
	IDs []string
	// Filters are DescribeCapacityReservations filters (tag:KEY,
	// instance-match-criteria, owner-id, …), ANDed with the state filter.
	Filters []ec2types.Filter
}

// LoadReservations reads capacity reservations (every page) and converts
// each with ReservationFromEC2. Only active and scheduled reservations are
// asked for: scheduled ones are capacity blocks before their window,
// which Assess reports as not started.
func LoadReservations(ctx context.Context, client ec2.DescribeCapacityReservationsAPIClient, q ReservationQuery) ([]Offering, error) {
	in := &ec2.DescribeCapacityReservationsInput{
		CapacityReservationIds: slices.Clone(q.IDs),
		Filters:                append([]ec2types.Filter{{Name: aws.String("state"), Values: []string{"active", "scheduled"}}}, q.Filters...),
	}
	if len(q.IDs) == 0 {
		in.MaxResults = aws.Int32(1000) // not allowed with IDs (karpenter-provider-aws v1.14.1 pkg/providers/capacityreservation/types.go:68)
	}
	var out []Offering
	pages := ec2.NewDescribeCapacityReservationsPaginator(client, in, func(o *ec2.DescribeCapacityReservationsPaginatorOptions) { o.StopOnDuplicateToken = true })
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("offerings: describing capacity reservations: %w", err)
		}
		for _, cr := range page.CapacityReservations {
			o, err := ReservationFromEC2(cr)
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		}
	}
	slices.SortFunc(out, Compare)
	return slices.CompactFunc(out, func(a, b Offering) bool { return a.Key() == b.Key() }), nil
}

// ReservationFromEC2 converts one capacity reservation into its reserved
// offering. As Karpenter reads them (karpenter-provider-aws v1.14.1
// pkg/apis/v1/ec2nodeclass_status.go:221-275): an empty reservation type
// is default; match criteria other than open and targeted, and types
// other than default and capacity-block, are refused by name, so a new
// kind of reservation is never taken for an old one. A state other than
// active or scheduled is refused too: such a reservation launches
// nothing.
func ReservationFromEC2(cr ec2types.CapacityReservation) (Offering, error) {
	id := aws.ToString(cr.CapacityReservationId)
	r := &Reservation{
		ID: id, OwnerID: aws.ToString(cr.OwnerId), Interruptible: aws.ToBool(cr.Interruptible),
		Total: aws.ToInt32(cr.TotalInstanceCount), Available: aws.ToInt32(cr.AvailableInstanceCount),
		Start: aws.ToTime(cr.StartDate), End: aws.ToTime(cr.EndDate),
	}
	switch cr.InstanceMatchCriteria {
	case ec2types.InstanceMatchCriteriaOpen:
	case ec2types.InstanceMatchCriteriaTargeted:
		r.Targeted = true
	default:
		return Offering{}, fmt.Errorf("offerings: capacity reservation %s: instance match criteria %q is neither open nor targeted", id, cr.InstanceMatchCriteria)
	}
	rt := string(cr.ReservationType)
	if rt == "" {
		rt = "default"
	}
	if err := r.Type.UnmarshalText([]byte(rt)); err != nil {
		return Offering{}, fmt.Errorf("offerings: capacity reservation %s: %w", id, err)
	}
	if s := cr.State; s != ec2types.CapacityReservationStateActive && s != ec2types.CapacityReservationStateScheduled {
		return Offering{}, fmt.Errorf("offerings: capacity reservation %s is %q; only active and scheduled reservations launch", id, s)
	}
	o := Offering{InstanceType: aws.ToString(cr.InstanceType), Zone: aws.ToString(cr.AvailabilityZone), ZoneID: aws.ToString(cr.AvailabilityZoneId), CapacityType: Reserved, Reservation: r}
	if err := o.Validate(); err != nil {
		return Offering{}, err
	}
	return o, nil
}

// LoadSubnets reads the subnets in (nil: every subnet the account sees;
// set Filters or SubnetIds to a NodeClass's selection), every page, and
// converts each available one with SubnetFromEC2, sorted by ID. Subnets
// in any other state take no launch and are left out.
func LoadSubnets(ctx context.Context, client ec2.DescribeSubnetsAPIClient, in *ec2.DescribeSubnetsInput) ([]Subnet, error) {
	if in == nil {
		in = &ec2.DescribeSubnetsInput{}
	}
	var out []Subnet
	pages := ec2.NewDescribeSubnetsPaginator(client, in, func(o *ec2.DescribeSubnetsPaginatorOptions) { o.StopOnDuplicateToken = true })
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("offerings: describing subnets: %w", err)
		}
		for _, s := range page.Subnets {
			if s.State != ec2types.SubnetStateAvailable {
				continue
			}
			sub, err := SubnetFromEC2(s)
			if err != nil {
				return nil, err
			}
			out = append(out, sub)
		}
	}
	slices.SortFunc(out, func(a, b Subnet) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// SubnetFromEC2 converts one subnet; one without an ID or zone is an
// error naming it.
func SubnetFromEC2(s ec2types.Subnet) (Subnet, error) {
	out := Subnet{ID: aws.ToString(s.SubnetId), Zone: aws.ToString(s.AvailabilityZone), ZoneID: aws.ToString(s.AvailabilityZoneId), AvailableIPv4: aws.ToInt32(s.AvailableIpAddressCount)}
	if out.ID == "" || out.Zone == "" {
		return Subnet{}, fmt.Errorf("offerings: a subnet of the answer lacks its ID or zone (ID %q, zone %q)", out.ID, out.Zone)
	}
	return out, nil
}

// NoSpot returns, sorted, the instance types of infos that EC2 does not
// sell as spot: their SupportedUsageClasses lack spot. It is what
// Region.NoSpot holds.
func NoSpot(infos []ec2types.InstanceTypeInfo) []string {
	var out []string
	for _, info := range infos {
		if !slices.Contains(info.SupportedUsageClasses, ec2types.UsageClassTypeSpot) {
			out = append(out, string(info.InstanceType))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// LoadNoSpot describes the instance types named (all of them when names
// is empty), every page, in requests of at most 100 names as EC2 allows,
// and returns NoSpot of the answer.
func LoadNoSpot(ctx context.Context, client ec2.DescribeInstanceTypesAPIClient, names []string) ([]string, error) {
	var infos []ec2types.InstanceTypeInfo
	for batch := range batches(names, 100) {
		in := &ec2.DescribeInstanceTypesInput{}
		for _, n := range batch {
			in.InstanceTypes = append(in.InstanceTypes, ec2types.InstanceType(n))
		}
		pages := ec2.NewDescribeInstanceTypesPaginator(client, in, func(o *ec2.DescribeInstanceTypesPaginatorOptions) { o.StopOnDuplicateToken = true })
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				return nil, fmt.Errorf("offerings: describing instance types: %w", err)
			}
			infos = append(infos, page.InstanceTypes...)
		}
	}
	return NoSpot(infos), nil
}

// batches yields names in slices of at most n, and one empty slice for no
// names at all (describe everything).
func batches(names []string, n int) func(func([]string) bool) {
	return func(yield func([]string) bool) {
		if len(names) == 0 {
			yield(nil)
			return
		}
		for len(names) > 0 {
			k := min(n, len(names))
			if !yield(names[:k]) {
				return
			}
			names = names[k:]
		}
	}
}
