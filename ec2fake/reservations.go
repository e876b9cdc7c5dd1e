package ec2fake

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Capacity reservation error codes (EC2 API reference, error codes).
const (
	CodeInvalidCapacityReservationIDNotFound  = "InvalidCapacityReservationId.NotFound"
	CodeInvalidCapacityReservationIDMalformed = "InvalidCapacityReservationId.Malformed"
)

// reservationIDPattern is a capacity reservation ID: EC2's (cr- and 17 hex
// digits) and the shorter ones test suites write, as Karpenter's
// EC2NodeClass status admits them (karpenter-provider-aws v1.14.1
// pkg/apis/v1/ec2nodeclass_status.go:92).
var reservationIDPattern = regexp.MustCompile(`^cr-[0-9a-z]+$`)

const tokenOpReservations byte = 'r'

const maxReservationResults = 1000

var reservationStates = []ec2types.CapacityReservationState{
	ec2types.CapacityReservationStateActive, ec2types.CapacityReservationStateExpired, ec2types.CapacityReservationStateCancelled,
	ec2types.CapacityReservationStatePending, ec2types.CapacityReservationStateFailed, ec2types.CapacityReservationStateScheduled,
	ec2types.CapacityReservationStatePaymentPending, ec2types.CapacityReservationStatePaymentFailed,
}

// PutCapacityReservation adds cr, or replaces the reservation with its ID.
// CapacityReservationId (cr-…), InstanceType, TotalInstanceCount and the
// zone (AvailabilityZone or AvailabilityZoneId, of a loaded zone) are
// required. Defaults: AvailableInstanceCount the total, OwnerId the
// account, InstancePlatform Linux/UNIX, Tenancy default,
// InstanceMatchCriteria open, ReservationType default, State active,
// EndDateType limited when EndDate is set (else unlimited), CreateDate and
// StartDate the backend's clock, and the ARN. Describes report the state
// at the backend's clock: a capacity block before its StartDate is
// scheduled, and a reservation past its EndDate expired.
func (b *Backend) PutCapacityReservation(cr ec2types.CapacityReservation) error {
	cr = clone(cr)
	now := b.clock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.prepareReservation(&cr, now); err != nil {
		return fmt.Errorf("ec2fake: PutCapacityReservation: %w", err)
	}
	id := *cr.CapacityReservationId
	i, found := slices.BinarySearchFunc(b.place.reservations, id, compareReservationID)
	if found {
		b.place.reservations[i] = &cr
	} else {
		b.place.reservations = slices.Insert(b.place.reservations, i, &cr)
	}
	return nil
}

func compareReservationID(r *ec2types.CapacityReservation, id string) int {
	return strings.Compare(*r.CapacityReservationId, id)
}

// prepareReservation checks cr and fills its defaults; b.mu must be held.
func (b *Backend) prepareReservation(cr *ec2types.CapacityReservation, now time.Time) error {
	id := aws.ToString(cr.CapacityReservationId)
	if !reservationIDPattern.MatchString(id) {
		return fmt.Errorf("capacity reservation ID %q is not cr- followed by lowercase letters or digits", id)
	}
	if t := aws.ToString(cr.InstanceType); !instanceTypePattern.MatchString(t) {
		return fmt.Errorf("capacity reservation %s: instance type %q is not of the form family.size", id, t)
	}
	if err := b.placeInZone(&cr.AvailabilityZone, &cr.AvailabilityZoneId); err != nil {
		return fmt.Errorf("capacity reservation %s: %w", id, err)
	}
	total := aws.ToInt32(cr.TotalInstanceCount)
	if cr.TotalInstanceCount == nil || total < 0 {
		return fmt.Errorf("capacity reservation %s: TotalInstanceCount must be set and not negative", id)
	}
	if cr.AvailableInstanceCount == nil {
		cr.AvailableInstanceCount = aws.Int32(total)
	}
	if n := *cr.AvailableInstanceCount; n < 0 || n > total {
		return fmt.Errorf("capacity reservation %s: AvailableInstanceCount %d is not between 0 and the total %d", id, n, total)
	}
	return b.defaultReservation(cr, now)
}

func (b *Backend) defaultReservation(cr *ec2types.CapacityReservation, now time.Time) error {
	id := *cr.CapacityReservationId
	setDefault(&cr.InstancePlatform, ec2types.CapacityReservationInstancePlatformLinuxUnix)
	setDefault(&cr.Tenancy, ec2types.CapacityReservationTenancyDefault)
	setDefault(&cr.InstanceMatchCriteria, ec2types.InstanceMatchCriteriaOpen)
	setDefault(&cr.ReservationType, ec2types.CapacityReservationTypeDefault)
	setDefault(&cr.State, ec2types.CapacityReservationStateActive)
	if cr.EndDate != nil {
		setDefault(&cr.EndDateType, ec2types.EndDateTypeLimited)
	}
	setDefault(&cr.EndDateType, ec2types.EndDateTypeUnlimited)
	switch {
	case !slices.Contains(cr.InstanceMatchCriteria.Values(), cr.InstanceMatchCriteria):
		return fmt.Errorf("capacity reservation %s: instance match criteria %q; use open or targeted", id, cr.InstanceMatchCriteria)
	case !slices.Contains(cr.ReservationType.Values(), cr.ReservationType):
		return fmt.Errorf("capacity reservation %s: reservation type %q; use one of %v", id, cr.ReservationType, cr.ReservationType.Values())
	case !slices.Contains(reservationStates, cr.State):
		return fmt.Errorf("capacity reservation %s: state %q; use one of %v", id, cr.State, reservationStates)
	case cr.StartDate != nil && cr.EndDate != nil && !cr.EndDate.After(*cr.StartDate):
		return fmt.Errorf("capacity reservation %s: EndDate %s is not after StartDate %s", id, cr.EndDate.Format(time.RFC3339), cr.StartDate.Format(time.RFC3339))
	}
	if aws.ToString(cr.OwnerId) == "" {
		cr.OwnerId = aws.String(b.accountID())
	}
	if cr.CreateDate == nil {
		cr.CreateDate = aws.Time(now.UTC().Truncate(time.Second))
	}
	if cr.StartDate == nil {
		cr.StartDate = cr.CreateDate
	}
	if cr.CapacityReservationArn == nil {
		cr.CapacityReservationArn = aws.String(fmt.Sprintf("arn:aws:ec2:%s:%s:capacity-reservation/%s", b.region(), *cr.OwnerId, id))
	}
	return nil
}

// setDefault sets an enum that is empty.
func setDefault[T ~string](v *T, def T) {
	if *v == "" {
		*v = def
	}
}

// placeInZone fills a zone name or ID from the other, checking that the
// zone exists; b.mu must be held.
func (b *Backend) placeInZone(name, id **string) error {
	n, i := aws.ToString(*name), aws.ToString(*id)
	for _, z := range b.place.zones {
		if (n == "" || n == *z.ZoneName) && (i == "" || i == *z.ZoneId) && (n != "" || i != "") {
			*name, *id = aws.String(*z.ZoneName), aws.String(*z.ZoneId)
			return nil
		}
	}
	return fmt.Errorf("zone %q (ID %q) is not a loaded zone (LoadZones, or NewWithCatalog's zone catalog)", n, i)
}

// effectiveState is the reservation's state at now: EC2 moves a capacity
// block from scheduled to active at its start, and any reservation with
// an end to expired at its end.
func effectiveState(cr *ec2types.CapacityReservation, now time.Time) ec2types.CapacityReservationState {
	if cr.State != ec2types.CapacityReservationStateActive && cr.State != ec2types.CapacityReservationStateScheduled {
		return cr.State
	}
	switch {
	case cr.EndDate != nil && !cr.EndDate.After(now):
		return ec2types.CapacityReservationStateExpired
	case cr.ReservationType == ec2types.CapacityReservationTypeCapacityBlock && cr.StartDate != nil && cr.StartDate.After(now):
		return ec2types.CapacityReservationStateScheduled
	}
	return ec2types.CapacityReservationStateActive
}

var reservationFilters = map[string]func(*ec2types.CapacityReservation, valueSet) bool{
	"instance-type":           func(r *ec2types.CapacityReservation, vs valueSet) bool { return vs.optional(r.InstanceType) },
	"owner-id":                func(r *ec2types.CapacityReservation, vs valueSet) bool { return vs.optional(r.OwnerId) },
	"instance-platform":       func(r *ec2types.CapacityReservation, vs valueSet) bool { return enum(vs, r.InstancePlatform) },
	"availability-zone":       func(r *ec2types.CapacityReservation, vs valueSet) bool { return vs.optional(r.AvailabilityZone) },
	"tenancy":                 func(r *ec2types.CapacityReservation, vs valueSet) bool { return enum(vs, r.Tenancy) },
	"outpost-arn":             func(r *ec2types.CapacityReservation, vs valueSet) bool { return vs.optional(r.OutpostArn) },
	"state":                   func(r *ec2types.CapacityReservation, vs valueSet) bool { return enum(vs, r.State) },
	"start-date":              func(r *ec2types.CapacityReservation, vs valueSet) bool { return vs.timep(r.StartDate) },
	"end-date":                func(r *ec2types.CapacityReservation, vs valueSet) bool { return vs.timep(r.EndDate) },
	"end-date-type":           func(r *ec2types.CapacityReservation, vs valueSet) bool { return enum(vs, r.EndDateType) },
	"instance-match-criteria": func(r *ec2types.CapacityReservation, vs valueSet) bool { return enum(vs, r.InstanceMatchCriteria) },
	"placement-group-arn":     func(r *ec2types.CapacityReservation, vs valueSet) bool { return vs.optional(r.PlacementGroupArn) },
	"tag-key":                 func(r *ec2types.CapacityReservation, vs valueSet) bool { return anyTagKey(r.Tags, vs) },
}

func lookupReservationFilter(name string) (func(*ec2types.CapacityReservation, valueSet) bool, bool) {
	if key, ok := strings.CutPrefix(name, "tag:"); ok && key != "" {
		return func(r *ec2types.CapacityReservation, vs valueSet) bool { return tagValue(r.Tags, key, vs) }, true
	}
	m, ok := reservationFilters[name]
	return m, ok
}

func anyTagKey(tags []ec2types.Tag, vs valueSet) bool {
	return slices.ContainsFunc(tags, func(t ec2types.Tag) bool { return vs.optional(t.Key) })
}

func tagValue(tags []ec2types.Tag, key string, vs valueSet) bool {
	return slices.ContainsFunc(tags, func(t ec2types.Tag) bool { return aws.ToString(t.Key) == key && vs.optional(t.Value) })
}

// describeCapacityReservations pages through the reservations by ID, each
// with its state at the backend's clock.
func (b *Backend) describeCapacityReservations(in *ec2.DescribeCapacityReservationsInput) (*ec2.DescribeCapacityReservationsOutput, *apiError) {
	limit, aerr := reservationLimit(in)
	if aerr != nil {
		return nil, aerr
	}
	filters, aerr := compileFilters(in.Filters, lookupReservationFilter, nil)
	if aerr != nil {
		return nil, aerr
	}
	ids := sortedUnique(in.CapacityReservationIds)
	fp := newFingerprinter(tokenOpReservations)
	fp.filters(in.Filters)
	fp.strs("ids", ids)
	after, aerr := pageAfter(in.NextToken, tokenOpReservations, fp.h, reservationIDPattern.MatchString)
	if aerr != nil {
		return nil, aerr
	}
	now := b.clock()
	b.mu.RLock()
	defer b.mu.RUnlock()
	candidates, aerr := b.namedReservations(ids)
	if aerr != nil {
		return nil, aerr
	}
	if aws.ToBool(in.DryRun) {
		return nil, &apiError{code: CodeDryRunOperation, message: dryRunMessage, status: http.StatusPreconditionFailed}
	}
	out := &ec2.DescribeCapacityReservationsOutput{CapacityReservations: []ec2types.CapacityReservation{}}
	for _, r := range candidates {
		if after != "" && *r.CapacityReservationId <= after {
			continue
		}
		c := clone(*r)
		c.State = effectiveState(r, now)
		if !matchAll(filters, &c) {
			continue
		}
		if limit > 0 && len(out.CapacityReservations) == limit {
			tok := encodeToken(tokenOpReservations, fp.h, *out.CapacityReservations[limit-1].CapacityReservationId)
			out.NextToken = &tok
			break
		}
		out.CapacityReservations = append(out.CapacityReservations, c)
	}
	return out, nil
}

// reservationLimit checks MaxResults: 1 to 1000, and not with
// CapacityReservationIds (karpenter-provider-aws v1.14.1
// pkg/providers/capacityreservation/types.go:68 leaves it out for that
// reason).
func reservationLimit(in *ec2.DescribeCapacityReservationsInput) (int, *apiError) {
	if in.MaxResults == nil {
		return 0, nil
	}
	n := int(*in.MaxResults)
	switch {
	case len(in.CapacityReservationIds) > 0:
		return 0, newAPIError(CodeInvalidParameterCombination, "The parameter CapacityReservationIds cannot be used with the parameter MaxResults")
	case n < 1 || n > maxReservationResults:
		return 0, newAPIError(CodeInvalidParameterValue, "Value ( %d ) for parameter maxResults is invalid. Expecting a value between 1 and %d.", n, maxReservationResults)
	}
	return n, nil
}

// namedReservations returns the reservations the request names (all of
// them when it names none); b.mu must be held.
func (b *Backend) namedReservations(ids []string) ([]*ec2types.CapacityReservation, *apiError) {
	if len(ids) == 0 {
		return b.place.reservations, nil
	}
	out := make([]*ec2types.CapacityReservation, 0, len(ids))
	for _, id := range ids {
		if !reservationIDPattern.MatchString(id) {
			return nil, newAPIError(CodeInvalidCapacityReservationIDMalformed, "Invalid id: \"%s\" (expecting \"cr-...\")", id)
		}
		i, ok := slices.BinarySearchFunc(b.place.reservations, id, compareReservationID)
		if !ok {
			return nil, newAPIError(CodeInvalidCapacityReservationIDNotFound, "The capacity reservation ID '%s' does not exist", id)
		}
		out = append(out, b.place.reservations[i])
	}
	return out, nil
}

// DescribeCapacityReservations implements
// ec2.DescribeCapacityReservationsAPIClient; see DescribeImages for errors
// and options.
func (b *Backend) DescribeCapacityReservations(ctx context.Context, in *ec2.DescribeCapacityReservationsInput, _ ...func(*ec2.Options)) (*ec2.DescribeCapacityReservationsOutput, error) {
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpDescribeCapacityReservations, in, b.describeCapacityReservations)
	return result(OpDescribeCapacityReservations, out, requestID, aerr, ctxErr)
}
