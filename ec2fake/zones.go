package ec2fake

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Operation names of the zones, offerings, reservations, subnets and
// launches a Backend serves, as used in Fault.Operation, SetLatency and
// Call.Operation.
const (
	OpDescribeAvailabilityZones     = "DescribeAvailabilityZones"
	OpDescribeInstanceTypeOfferings = "DescribeInstanceTypeOfferings"
	OpDescribeCapacityReservations  = "DescribeCapacityReservations"
	OpDescribeSubnets               = "DescribeSubnets"
	OpCreateFleet                   = "CreateFleet"
)

var placementOperations = []string{OpDescribeAvailabilityZones, OpDescribeInstanceTypeOfferings, OpDescribeCapacityReservations, OpDescribeSubnets, OpCreateFleet}

// placeState is what the Backend knows of its region's zones, the
// instance types each offers, the capacity reservations and subnets, and
// the capacity scripted for launches. It lives in Backend, guarded by b.mu.
type placeState struct {
	zones        []ec2types.AvailabilityZone     // sorted by name
	offered      map[string][]string             // zone name → instance types, sorted
	reservations []*ec2types.CapacityReservation // sorted by ID
	subnets      []*ec2types.Subnet              // sorted by ID
	capacity     map[capacityKey]*capacityLeft
	launched     uint64 // instances launched, numbering their IDs
	fleets       uint64
}

// Zone types and opt-in statuses EC2 reports.
var (
	zoneTypes    = []string{"availability-zone", "local-zone", "wavelength-zone"}
	zoneOptIns   = []string{"opt-in-not-required", "opted-in", "not-opted-in"}
	zoneStates   = []string{"available", "information", "impaired", "unavailable", "constrained"}
	locationKind = []string{string(ec2types.LocationTypeAvailabilityZone), string(ec2types.LocationTypeAvailabilityZoneId)}
)

// LoadZones replaces the region's zones and the instance types they offer.
// Each zone needs ZoneName and ZoneId; RegionName defaults to the
// backend's region (Options.Region) and must be it; State defaults to
// available, OptInStatus to opt-in-not-required, ZoneType to
// availability-zone, NetworkBorderGroup and GroupName to the region;
// ParentZoneId, when set, names a zone of the list and sets
// ParentZoneName. Each offering names its zone by name (LocationType
// availability-zone) or by ID (availability-zone-id). Reservations and
// subnets must stay in zones that remain. If anything is invalid, nothing
// changes and the error names it.
func (b *Backend) LoadZones(zones []ec2types.AvailabilityZone, offerings []ec2types.InstanceTypeOffering) error {
	prepared, err := b.prepareZones(zones)
	if err != nil {
		return fmt.Errorf("ec2fake: LoadZones: %w", err)
	}
	offered, err := offeredByZone(prepared, offerings)
	if err != nil {
		return fmt.Errorf("ec2fake: LoadZones: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	names := map[string]bool{}
	for _, z := range prepared {
		names[*z.ZoneName] = true
	}
	for _, r := range b.place.reservations {
		if !names[aws.ToString(r.AvailabilityZone)] {
			return fmt.Errorf("ec2fake: LoadZones: capacity reservation %s is in zone %s, which the new zones lack; delete it first", aws.ToString(r.CapacityReservationId), aws.ToString(r.AvailabilityZone))
		}
	}
	for _, s := range b.place.subnets {
		if !names[aws.ToString(s.AvailabilityZone)] {
			return fmt.Errorf("ec2fake: LoadZones: subnet %s is in zone %s, which the new zones lack; delete it first", aws.ToString(s.SubnetId), aws.ToString(s.AvailabilityZone))
		}
	}
	b.place.zones, b.place.offered = prepared, offered
	return nil
}

func (b *Backend) prepareZones(zones []ec2types.AvailabilityZone) ([]ec2types.AvailabilityZone, error) {
	region := b.region()
	out := make([]ec2types.AvailabilityZone, len(zones))
	byID := map[string]string{}
	for i, z := range zones {
		z = clone(z)
		if err := defaultZone(&z, region); err != nil {
			return nil, fmt.Errorf("zones[%d]: %w", i, err)
		}
		if _, dup := byID[*z.ZoneId]; dup {
			return nil, fmt.Errorf("zones[%d]: zone ID %s listed twice", i, *z.ZoneId)
		}
		byID[*z.ZoneId] = *z.ZoneName
		out[i] = z
	}
	slices.SortFunc(out, func(a, c ec2types.AvailabilityZone) int { return strings.Compare(*a.ZoneName, *c.ZoneName) })
	for i := range out {
		if i > 0 && *out[i].ZoneName == *out[i-1].ZoneName {
			return nil, fmt.Errorf("zone %s listed twice", *out[i].ZoneName)
		}
		if p := aws.ToString(out[i].ParentZoneId); p != "" {
			parent, ok := byID[p]
			if !ok {
				return nil, fmt.Errorf("zone %s: parent zone ID %s is not one of the zones", *out[i].ZoneName, p)
			}
			out[i].ParentZoneName = aws.String(parent)
		}
	}
	return out, nil
}

// defaultZone fills a zone's defaults and checks its values.
func defaultZone(z *ec2types.AvailabilityZone, region string) error {
	if aws.ToString(z.ZoneName) == "" || aws.ToString(z.ZoneId) == "" {
		return fmt.Errorf("zone %q (ID %q) needs ZoneName and ZoneId", aws.ToString(z.ZoneName), aws.ToString(z.ZoneId))
	}
	name := *z.ZoneName
	if r := aws.ToString(z.RegionName); r != "" && r != region {
		return fmt.Errorf("zone %s: region %s is not the backend's region %s (Options.Region)", name, r, region)
	}
	z.RegionName = aws.String(region)
	if z.State == "" {
		z.State = ec2types.AvailabilityZoneStateAvailable
	}
	if z.OptInStatus == "" {
		z.OptInStatus = ec2types.AvailabilityZoneOptInStatusOptInNotRequired
	}
	if aws.ToString(z.ZoneType) == "" {
		z.ZoneType = aws.String("availability-zone")
	}
	switch {
	case !slices.Contains(zoneStates, string(z.State)):
		return fmt.Errorf("zone %s: state %q is none of %v", name, z.State, zoneStates)
	case !slices.Contains(zoneOptIns, string(z.OptInStatus)):
		return fmt.Errorf("zone %s: opt-in status %q is none of %v", name, z.OptInStatus, zoneOptIns)
	case !slices.Contains(zoneTypes, *z.ZoneType):
		return fmt.Errorf("zone %s: zone type %q is none of %v", name, *z.ZoneType, zoneTypes)
	}
	if aws.ToString(z.NetworkBorderGroup) == "" {
		z.NetworkBorderGroup = aws.String(region)
	}
	if aws.ToString(z.GroupName) == "" {
		z.GroupName = aws.String(region + "-zg-1")
	}
	return nil
}

// offeredByZone indexes offerings by zone name.
func offeredByZone(zones []ec2types.AvailabilityZone, offerings []ec2types.InstanceTypeOffering) (map[string][]string, error) {
	name := map[string]string{}
	for _, z := range zones {
		name[*z.ZoneName] = *z.ZoneName
		name["id:"+*z.ZoneId] = *z.ZoneName
	}
	offered := map[string][]string{}
	for i, o := range offerings {
		t, loc := string(o.InstanceType), aws.ToString(o.Location)
		if !instanceTypePattern.MatchString(t) {
			return nil, fmt.Errorf("offerings[%d]: instance type %q is not of the form family.size", i, t)
		}
		key := loc
		switch o.LocationType {
		case ec2types.LocationTypeAvailabilityZone:
		case ec2types.LocationTypeAvailabilityZoneId:
			key = "id:" + loc
		default:
			return nil, fmt.Errorf("offerings[%d]: location type %q; use one of %v", i, o.LocationType, locationKind)
		}
		zone, ok := name[key]
		if !ok {
			return nil, fmt.Errorf("offerings[%d]: %s %q is not one of the zones", i, o.LocationType, loc)
		}
		offered[zone] = append(offered[zone], t)
	}
	for z, types := range offered {
		slices.Sort(types)
		offered[z] = slices.Compact(types)
	}
	return offered, nil
}

// usableZone reports whether the account may use z: EC2 lists offerings
// only for the zones it has (or needs no) opt-in for.
func usableZone(z *ec2types.AvailabilityZone) bool {
	return z.OptInStatus != ec2types.AvailabilityZoneOptInStatusNotOptedIn
}

// zoneFilters are DescribeAvailabilityZones' filters (EC2 API reference).
var zoneFilters = map[string]func(*ec2types.AvailabilityZone, valueSet) bool{
	"group-long-name":  func(z *ec2types.AvailabilityZone, vs valueSet) bool { return vs.optional(z.GroupLongName) },
	"group-name":       func(z *ec2types.AvailabilityZone, vs valueSet) bool { return vs.optional(z.GroupName) },
	"opt-in-status":    func(z *ec2types.AvailabilityZone, vs valueSet) bool { return enum(vs, z.OptInStatus) },
	"parent-zone-id":   func(z *ec2types.AvailabilityZone, vs valueSet) bool { return vs.optional(z.ParentZoneId) },
	"parent-zone-name": func(z *ec2types.AvailabilityZone, vs valueSet) bool { return vs.optional(z.ParentZoneName) },
	"region-name":      func(z *ec2types.AvailabilityZone, vs valueSet) bool { return vs.optional(z.RegionName) },
	"state":            func(z *ec2types.AvailabilityZone, vs valueSet) bool { return enum(vs, z.State) },
	"zone-id":          func(z *ec2types.AvailabilityZone, vs valueSet) bool { return vs.optional(z.ZoneId) },
	"zone-name":        func(z *ec2types.AvailabilityZone, vs valueSet) bool { return vs.optional(z.ZoneName) },
	"zone-type":        func(z *ec2types.AvailabilityZone, vs valueSet) bool { return vs.optional(z.ZoneType) },
	"message": func(z *ec2types.AvailabilityZone, vs valueSet) bool {
		return slices.ContainsFunc(z.Messages, func(m ec2types.AvailabilityZoneMessage) bool { return vs.optional(m.Message) })
	},
}

func lookupZoneFilter(name string) (func(*ec2types.AvailabilityZone, valueSet) bool, bool) {
	m, ok := zoneFilters[name]
	return m, ok
}

// describeAvailabilityZones answers as EC2 does: without
// AllAvailabilityZones only the zones the account may use, unless named;
// named zones that do not exist are InvalidParameterValue.
func (b *Backend) describeAvailabilityZones(in *ec2.DescribeAvailabilityZonesInput) (*ec2.DescribeAvailabilityZonesOutput, *apiError) {
	filters, aerr := compileFilters(in.Filters, lookupZoneFilter, nil)
	if aerr != nil {
		return nil, aerr
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	named, aerr := b.namedZones(in.ZoneNames, in.ZoneIds)
	if aerr != nil {
		return nil, aerr
	}
	if aws.ToBool(in.DryRun) {
		return nil, &apiError{code: CodeDryRunOperation, message: dryRunMessage, status: http.StatusPreconditionFailed}
	}
	out := &ec2.DescribeAvailabilityZonesOutput{AvailabilityZones: []ec2types.AvailabilityZone{}}
	for i := range b.place.zones {
		z := &b.place.zones[i]
		switch {
		case named != nil && !named[*z.ZoneName]:
		case named == nil && !aws.ToBool(in.AllAvailabilityZones) && !usableZone(z):
		case matchAll(filters, z):
			out.AvailabilityZones = append(out.AvailabilityZones, clone(*z))
		}
	}
	return out, nil
}

// namedZones resolves ZoneNames and ZoneIds to a set of zone names, nil
// when the request names none.
func (b *Backend) namedZones(names, ids []string) (map[string]bool, *apiError) {
	if len(names) == 0 && len(ids) == 0 {
		return nil, nil
	}
	set := map[string]bool{}
	for _, n := range names {
		if !slices.ContainsFunc(b.place.zones, func(z ec2types.AvailabilityZone) bool { return *z.ZoneName == n }) {
			return nil, newAPIError(CodeInvalidParameterValue, "Invalid availability zone: [%s]", n)
		}
		set[n] = true
	}
	for _, id := range ids {
		i := slices.IndexFunc(b.place.zones, func(z ec2types.AvailabilityZone) bool { return *z.ZoneId == id })
		if i < 0 {
			return nil, newAPIError(CodeInvalidParameterValue, "Invalid availability zone id: [%s]", id)
		}
		set[*b.place.zones[i].ZoneName] = true
	}
	return set, nil
}

// zoneByName returns the zone named name, or nil; b.mu must be held.
func (b *Backend) zoneByName(name string) *ec2types.AvailabilityZone {
	i, ok := slices.BinarySearchFunc(b.place.zones, name, func(z ec2types.AvailabilityZone, n string) int { return strings.Compare(*z.ZoneName, n) })
	if !ok {
		return nil
	}
	return &b.place.zones[i]
}

// Instance type offerings are paged in the order of (location, instance
// type), and a token records the last pair returned.
const (
	tokenOpTypeOfferings       byte = 'o'
	maxTypeOfferingsResults         = 1000
	defaultTypeOfferingsPage        = 1000
	typeOfferingTokenSeparator      = "\x00"
)

var typeOfferingFilters = map[string]func(*ec2types.InstanceTypeOffering, valueSet) bool{
	"instance-type": func(o *ec2types.InstanceTypeOffering, vs valueSet) bool { return enum(vs, o.InstanceType) },
	"location":      func(o *ec2types.InstanceTypeOffering, vs valueSet) bool { return vs.optional(o.Location) },
}

func lookupTypeOfferingFilter(name string) (func(*ec2types.InstanceTypeOffering, valueSet) bool, bool) {
	m, ok := typeOfferingFilters[name]
	return m, ok
}

// describeInstanceTypeOfferings lists, for the location type asked
// (region by default), every instance type offered in every location the
// account may use.
func (b *Backend) describeInstanceTypeOfferings(in *ec2.DescribeInstanceTypeOfferingsInput) (*ec2.DescribeInstanceTypeOfferingsOutput, *apiError) {
	loc := in.LocationType
	switch loc {
	case "":
		loc = ec2types.LocationTypeRegion
	case ec2types.LocationTypeRegion, ec2types.LocationTypeAvailabilityZone, ec2types.LocationTypeAvailabilityZoneId:
	case ec2types.LocationTypeOutpost:
		return nil, newAPIError(CodeUnsupported, "LocationType outpost is valid in EC2 but ec2fake models no Outposts.")
	default:
		return nil, newAPIError(CodeInvalidParameterValue, "Value (%s) for parameter locationType is invalid. Valid values: region, availability-zone, availability-zone-id, outpost", loc)
	}
	limit, aerr := checkMaxResults(in.MaxResults, maxTypeOfferingsResults)
	if aerr != nil {
		return nil, aerr
	}
	if limit == 0 {
		limit = defaultTypeOfferingsPage
	}
	filters, aerr := compileFilters(in.Filters, lookupTypeOfferingFilter, nil)
	if aerr != nil {
		return nil, aerr
	}
	fp := newFingerprinter(tokenOpTypeOfferings)
	fp.str(string(loc))
	fp.filters(in.Filters)
	after, aerr := pageAfter(in.NextToken, tokenOpTypeOfferings, fp.h, func(s string) bool { return strings.Contains(s, typeOfferingTokenSeparator) })
	if aerr != nil {
		return nil, aerr
	}
	if aws.ToBool(in.DryRun) {
		return nil, &apiError{code: CodeDryRunOperation, message: dryRunMessage, status: http.StatusPreconditionFailed}
	}
	b.mu.RLock()
	all := b.typeOfferingsLocked(loc)
	b.mu.RUnlock()
	out := &ec2.DescribeInstanceTypeOfferingsOutput{InstanceTypeOfferings: []ec2types.InstanceTypeOffering{}}
	start, _ := slices.BinarySearchFunc(all, after, func(o ec2types.InstanceTypeOffering, k string) int { return strings.Compare(typeOfferingKey(o), k) })
	for _, o := range all[start:] {
		if after != "" && typeOfferingKey(o) == after {
			continue
		}
		if !matchAll(filters, &o) {
			continue
		}
		if len(out.InstanceTypeOfferings) == limit {
			tok := encodeToken(tokenOpTypeOfferings, fp.h, typeOfferingKey(out.InstanceTypeOfferings[limit-1]))
			out.NextToken = &tok
			break
		}
		out.InstanceTypeOfferings = append(out.InstanceTypeOfferings, o)
	}
	return out, nil
}

func typeOfferingKey(o ec2types.InstanceTypeOffering) string {
	return aws.ToString(o.Location) + typeOfferingTokenSeparator + string(o.InstanceType)
}

// typeOfferingsLocked lists every offering for one location type in page
// order; b.mu must be held.
func (b *Backend) typeOfferingsLocked(loc ec2types.LocationType) []ec2types.InstanceTypeOffering {
	var out []ec2types.InstanceTypeOffering
	if loc == ec2types.LocationTypeRegion {
		set := map[string]bool{}
		for _, z := range b.place.zones {
			if usableZone(&z) {
				for _, t := range b.place.offered[*z.ZoneName] {
					set[t] = true
				}
			}
		}
		region := b.region()
		for _, t := range slices.Sorted(maps.Keys(set)) {
			out = append(out, ec2types.InstanceTypeOffering{InstanceType: ec2types.InstanceType(t), Location: aws.String(region), LocationType: loc})
		}
		return out
	}
	for _, z := range b.place.zones {
		if !usableZone(&z) {
			continue
		}
		where := *z.ZoneName
		if loc == ec2types.LocationTypeAvailabilityZoneId {
			where = *z.ZoneId
		}
		for _, t := range b.place.offered[*z.ZoneName] {
			out = append(out, ec2types.InstanceTypeOffering{InstanceType: ec2types.InstanceType(t), Location: aws.String(where), LocationType: loc})
		}
	}
	slices.SortFunc(out, func(a, c ec2types.InstanceTypeOffering) int {
		return strings.Compare(typeOfferingKey(a), typeOfferingKey(c))
	})
	return out
}

// pageAfter decodes a NextToken: the key to continue after, "" for the
// first page, or InvalidParameterValue.
func pageAfter(token *string, op byte, fingerprint uint64, validKey func(string) bool) (string, *apiError) {
	if aws.ToString(token) == "" {
		return "", nil
	}
	after, ok := decodeToken(*token, op, fingerprint, validKey)
	if !ok {
		return "", newAPIError(CodeInvalidParameterValue, invalidNextTokenMessage)
	}
	return after, nil
}

// DescribeAvailabilityZones implements the EC2 operation; see
// DescribeImages for errors and options.
func (b *Backend) DescribeAvailabilityZones(ctx context.Context, in *ec2.DescribeAvailabilityZonesInput, _ ...func(*ec2.Options)) (*ec2.DescribeAvailabilityZonesOutput, error) {
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpDescribeAvailabilityZones, in, b.describeAvailabilityZones)
	return result(OpDescribeAvailabilityZones, out, requestID, aerr, ctxErr)
}

// DescribeInstanceTypeOfferings implements
// ec2.DescribeInstanceTypeOfferingsAPIClient; see DescribeImages for errors
// and options.
func (b *Backend) DescribeInstanceTypeOfferings(ctx context.Context, in *ec2.DescribeInstanceTypeOfferingsInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypeOfferingsOutput, error) {
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpDescribeInstanceTypeOfferings, in, b.describeInstanceTypeOfferings)
	return result(OpDescribeInstanceTypeOfferings, out, requestID, aerr, ctxErr)
}
