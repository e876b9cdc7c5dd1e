package ec2fake

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/ec2select/ec2select/ec2fake/internal/sdkfield"
)

// Launch error codes CreateFleet reports per override (EC2 API reference,
// error codes; karpenter-provider-aws v1.14.1 pkg/errors/errors.go:53-65).
const (
	CodeInsufficientInstanceCapacity      = "InsufficientInstanceCapacity"
	CodeInsufficientFreeAddressesInSubnet = "InsufficientFreeAddressesInSubnet"
	CodeReservationCapacityExceeded       = "ReservationCapacityExceeded"
)

// Capacity scripts what EC2 has left of one offering: the next Instances
// launches of InstanceType in Zone as CapacityType succeed, and every one
// after fails with Code ("3 instances, then InsufficientInstanceCapacity").
// An offering without a script has unlimited capacity.
type Capacity struct {
	InstanceType string
	// Zone is the zone's name.
	Zone string
	// CapacityType is "spot" or "on-demand", as CreateFleet's
	// DefaultTargetCapacityType says it. Launches into a capacity
	// reservation are bounded by the reservation instead.
	CapacityType string
	// Instances is how many more instances launch; 0 means none.
	Instances int
	// Code is the error each launch after those fails with; empty means
	// InsufficientInstanceCapacity. Message is its message; empty means
	// EC2's for that code, where the fake knows it.
	Code    string
	Message string
}

type capacityKey struct{ instanceType, zone, capacityType string }

type capacityLeft struct {
	instances     int
	code, message string
}

// SetCapacity scripts the capacity of one offering, replacing its script.
// The zone must be loaded and the capacity type spot or on-demand.
func (b *Backend) SetCapacity(c Capacity) error {
	switch {
	case !instanceTypePattern.MatchString(c.InstanceType):
		return fmt.Errorf("ec2fake: SetCapacity: instance type %q is not of the form family.size", c.InstanceType)
	case c.CapacityType != "spot" && c.CapacityType != "on-demand":
		return fmt.Errorf("ec2fake: SetCapacity: capacity type %q; use spot or on-demand (a reservation bounds itself: PutCapacityReservation)", c.CapacityType)
	case c.Instances < 0:
		return fmt.Errorf("ec2fake: SetCapacity: negative instance count %d", c.Instances)
	}
	if c.Code == "" {
		c.Code = CodeInsufficientInstanceCapacity
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.zoneByName(c.Zone) == nil {
		return fmt.Errorf("ec2fake: SetCapacity: zone %q is not a loaded zone", c.Zone)
	}
	if b.place.capacity == nil {
		b.place.capacity = map[capacityKey]*capacityLeft{}
	}
	b.place.capacity[capacityKey{c.InstanceType, c.Zone, c.CapacityType}] = &capacityLeft{instances: c.Instances, code: c.Code, message: c.Message}
	return nil
}

// ClearCapacity removes every capacity script: every offering has
// unlimited capacity again.
func (b *Backend) ClearCapacity() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.place.capacity = nil
}

// override is one launch template override of a request, resolved.
type override struct {
	config   int // index of its launch template config
	spec     *ec2types.FleetLaunchTemplateSpecification
	req      ec2types.FleetLaunchTemplateOverridesRequest
	zone     *ec2types.AvailabilityZone
	subnet   *ec2types.Subnet // nil when the request names only a zone
	weight   float64
	priority float64
	order    int
}

// fleetPlan is a validated CreateFleet request.
type fleetPlan struct {
	targets   []fleetTarget // capacity type and units wanted, in launch order
	overrides []override
	useODCR   bool // on-demand launches use matching open reservations first
}

type fleetTarget struct {
	capacityType ec2types.DefaultTargetCapacityType
	units        float64
}

// createFleet launches an instant fleet. Overrides are tried in priority
// order (lowest Priority first, then request order; ec2fake knows no
// prices, so every allocation strategy reads as prioritized), each taking
// as many instances as its capacity, its subnet's free addresses and, for
// reserved launches, its reservations allow. An override that runs out
// adds one error; the answer lists what launched and every error, as
// EC2's instant fleets do, even when nothing launched.
func (b *Backend) createFleet(in *ec2.CreateFleetInput) (*ec2.CreateFleetOutput, *apiError) {
	if aerr := checkFleetShape(in); aerr != nil {
		return nil, aerr
	}
	now := b.clock()
	b.mu.Lock()
	defer b.mu.Unlock()
	plan, aerr := b.planFleet(in)
	if aerr != nil {
		return nil, aerr
	}
	if aws.ToBool(in.DryRun) {
		return nil, &apiError{code: CodeDryRunOperation, message: dryRunMessage, status: http.StatusPreconditionFailed}
	}
	b.place.fleets++
	out := &ec2.CreateFleetOutput{
		FleetId:   aws.String(fmt.Sprintf("fleet-%08x-0000-4000-8000-%012x", b.place.fleets, b.place.fleets)),
		Errors:    []ec2types.CreateFleetError{},
		Instances: []ec2types.CreateFleetInstance{},
	}
	for _, t := range plan.targets {
		b.launchTarget(out, plan, t, now)
	}
	return out, nil
}

func checkFleetShape(in *ec2.CreateFleetInput) *apiError {
	switch {
	case in.Type != ec2types.FleetTypeInstant:
		return newAPIError(CodeUnsupported, "Fleet type %q is valid in EC2 but ec2fake serves only instant fleets (the default is maintain); set Type to instant.", in.Type)
	case in.TargetCapacitySpecification == nil || in.TargetCapacitySpecification.TotalTargetCapacity == nil:
		return newAPIError(CodeMissingParameter, "The request must contain the parameter TargetCapacitySpecification.TotalTargetCapacity")
	case len(in.LaunchTemplateConfigs) == 0:
		return newAPIError(CodeMissingParameter, "The request must contain the parameter LaunchTemplateConfigs")
	case in.TargetCapacitySpecification.TargetCapacityUnitType != "" && in.TargetCapacitySpecification.TargetCapacityUnitType != ec2types.TargetCapacityUnitTypeUnits:
		return newAPIError(CodeUnsupported, "TargetCapacityUnitType %s is valid in EC2 but ec2fake counts units only.", in.TargetCapacitySpecification.TargetCapacityUnitType)
	}
	return nil
}

// planFleet resolves targets and overrides; b.mu must be held.
func (b *Backend) planFleet(in *ec2.CreateFleetInput) (*fleetPlan, *apiError) {
	targets, aerr := fleetTargets(in.TargetCapacitySpecification)
	if aerr != nil {
		return nil, aerr
	}
	plan := &fleetPlan{targets: targets}
	if o := in.OnDemandOptions; o != nil && o.CapacityReservationOptions != nil {
		plan.useODCR = o.CapacityReservationOptions.UsageStrategy == ec2types.FleetCapacityReservationUsageStrategyUseCapacityReservationsFirst
	}
	for i, c := range in.LaunchTemplateConfigs {
		spec, aerr := launchTemplateOf(i, c.LaunchTemplateSpecification)
		if aerr != nil {
			return nil, aerr
		}
		for j, o := range c.Overrides {
			ov, aerr := b.resolveOverride(i, j, o)
			if aerr != nil {
				return nil, aerr
			}
			ov.spec, ov.order = spec, len(plan.overrides)
			plan.overrides = append(plan.overrides, ov)
		}
	}
	if len(plan.overrides) == 0 {
		return nil, newAPIError(CodeInvalidParameterValue, "The fleet request names no launch template overrides; ec2fake models no launch templates, so each override must name an InstanceType and a SubnetId or AvailabilityZone.")
	}
	slices.SortStableFunc(plan.overrides, func(a, c override) int { return cmp.Compare(a.priority, c.priority) })
	return plan, nil
}

// fleetTargets splits the total target into capacity types: explicit
// on-demand and spot targets first, the rest in the default type.
func fleetTargets(t *ec2types.TargetCapacitySpecificationRequest) ([]fleetTarget, *apiError) {
	total := float64(aws.ToInt32(t.TotalTargetCapacity))
	od, spot := float64(aws.ToInt32(t.OnDemandTargetCapacity)), float64(aws.ToInt32(t.SpotTargetCapacity))
	switch {
	case total < 1:
		return nil, newAPIError(CodeInvalidParameterValue, "TotalTargetCapacity must be at least 1")
	case od < 0 || spot < 0 || od+spot > total:
		return nil, newAPIError(CodeInvalidParameterValue, "OnDemandTargetCapacity (%v) and SpotTargetCapacity (%v) exceed TotalTargetCapacity (%v)", od, spot, total)
	}
	def := t.DefaultTargetCapacityType
	switch def {
	case ec2types.DefaultTargetCapacityTypeSpot, ec2types.DefaultTargetCapacityTypeOnDemand, ec2types.DefaultTargetCapacityTypeCapacityBlock:
	case "":
		return nil, newAPIError(CodeMissingParameter, "The request must contain the parameter TargetCapacitySpecification.DefaultTargetCapacityType")
	default:
		return nil, newAPIError(CodeUnsupported, "DefaultTargetCapacityType %q is not one ec2fake launches (spot, on-demand, capacity-block).", def)
	}
	var out []fleetTarget
	if od > 0 {
		out = append(out, fleetTarget{ec2types.DefaultTargetCapacityTypeOnDemand, od})
	}
	if spot > 0 {
		out = append(out, fleetTarget{ec2types.DefaultTargetCapacityTypeSpot, spot})
	}
	if rest := total - od - spot; rest > 0 {
		out = append(out, fleetTarget{def, rest})
	}
	return out, nil
}

func launchTemplateOf(i int, s *ec2types.FleetLaunchTemplateSpecificationRequest) (*ec2types.FleetLaunchTemplateSpecification, *apiError) {
	if s == nil || (aws.ToString(s.LaunchTemplateId) == "" && aws.ToString(s.LaunchTemplateName) == "") {
		return nil, newAPIError(CodeMissingParameter, "LaunchTemplateConfigs.%d.LaunchTemplateSpecification needs a LaunchTemplateId or LaunchTemplateName", i+1)
	}
	return &ec2types.FleetLaunchTemplateSpecification{LaunchTemplateId: s.LaunchTemplateId, LaunchTemplateName: s.LaunchTemplateName, Version: s.Version}, nil
}

// resolveOverride places one override in a zone (and subnet); b.mu must
// be held.
func (b *Backend) resolveOverride(i, j int, o ec2types.FleetLaunchTemplateOverridesRequest) (override, *apiError) {
	where := fmt.Sprintf("LaunchTemplateConfigs.%d.Overrides.%d", i+1, j+1)
	ov := override{config: i, req: o, weight: 1, priority: math.Inf(1)}
	switch {
	case o.InstanceRequirements != nil:
		return ov, newAPIError(CodeUnsupported, "%s.InstanceRequirements is valid in EC2 but ec2fake launches named instance types only; set InstanceType.", where)
	case !instanceTypePattern.MatchString(string(o.InstanceType)):
		return ov, newAPIError(CodeInvalidParameterValue, "%s.InstanceType %q is not an instance type", where, o.InstanceType)
	}
	if w := aws.ToFloat64(o.WeightedCapacity); o.WeightedCapacity != nil && w > 0 {
		ov.weight = w
	}
	if o.Priority != nil {
		ov.priority = *o.Priority
	}
	if id := aws.ToString(o.SubnetId); id != "" {
		if ov.subnet = b.subnetByID(id); ov.subnet == nil {
			return ov, newAPIError(CodeInvalidSubnetIDNotFound, "The subnet ID '%s' does not exist", id)
		}
		if z := aws.ToString(o.AvailabilityZone); z != "" && z != *ov.subnet.AvailabilityZone {
			return ov, newAPIError(CodeInvalidParameterValue, "%s: subnet %s is in %s, not in AvailabilityZone %s", where, id, *ov.subnet.AvailabilityZone, z)
		}
		ov.zone = b.zoneByName(*ov.subnet.AvailabilityZone)
		return ov, nil
	}
	zoneID, _ := sdkfield.Get[*string](&o, "AvailabilityZoneId") // ec2 v1.315.0 on
	zone, id := aws.ToString(o.AvailabilityZone), aws.ToString(zoneID)
	if zone == "" && id != "" {
		if i := slices.IndexFunc(b.place.zones, func(z ec2types.AvailabilityZone) bool { return *z.ZoneId == id }); i >= 0 {
			zone = *b.place.zones[i].ZoneName
		}
	}
	if ov.zone = b.zoneByName(zone); ov.zone == nil {
		return ov, newAPIError(CodeInvalidParameterValue, "%s: Invalid availability zone: [%s]; name a SubnetId, or a loaded AvailabilityZone or AvailabilityZoneId", where, cmp.Or(zone, id))
	}
	return ov, nil
}

// launchTarget fills one capacity type's target from the overrides, in
// order; b.mu must be held.
func (b *Backend) launchTarget(out *ec2.CreateFleetOutput, plan *fleetPlan, t fleetTarget, now time.Time) {
	left := t.units
	for i := range plan.overrides {
		if left <= 0 {
			return
		}
		ov := &plan.overrides[i]
		want := int(math.Ceil(left / ov.weight))
		got, code, msg := b.launchOverride(ov, t.capacityType, want, plan.useODCR, now)
		lifecycle := lifecycleOf(t.capacityType)
		if got > 0 {
			out.Instances = append(out.Instances, b.fleetInstances(ov, lifecycle, got))
			left -= float64(got) * ov.weight
		}
		if got < want && code != "" {
			out.Errors = append(out.Errors, ec2types.CreateFleetError{
				ErrorCode: aws.String(code), ErrorMessage: aws.String(msg), Lifecycle: lifecycle, LaunchTemplateAndOverrides: responseOverride(ov),
			})
		}
	}
}

func lifecycleOf(ct ec2types.DefaultTargetCapacityType) ec2types.InstanceLifecycle {
	switch ct {
	case ec2types.DefaultTargetCapacityTypeSpot:
		return ec2types.InstanceLifecycleSpot
	case ec2types.DefaultTargetCapacityTypeCapacityBlock:
		return "capacity-block" // ec2types.InstanceLifecycleCapacityBlock from ec2 v1.325.0
	}
	return ec2types.InstanceLifecycleOnDemand
}

// launchOverride launches up to want instances of one override and says,
// when it launched fewer, why; b.mu must be held.
func (b *Backend) launchOverride(ov *override, ct ec2types.DefaultTargetCapacityType, want int, useODCR bool, now time.Time) (int, string, string) {
	if code, msg := b.unlaunchable(ov, ct); code != "" {
		return 0, code, msg
	}
	room := want
	if ov.subnet != nil {
		room = min(want, int(aws.ToInt32(ov.subnet.AvailableIpAddressCount)))
	}
	got, code, msg := b.takeCapacity(ov, ct, room, useODCR, now)
	if ov.subnet != nil {
		ov.subnet.AvailableIpAddressCount = aws.Int32(aws.ToInt32(ov.subnet.AvailableIpAddressCount) - int32(got))
	}
	if got < want && code == "" {
		return got, CodeInsufficientFreeAddressesInSubnet, fmt.Sprintf("There are not enough free addresses in subnet '%s' to satisfy the requested number of instances.", *ov.subnet.SubnetId)
	}
	return got, code, msg
}

// takeCapacity launches up to want instances from the override's
// reservations (capacity blocks; open reservations first when the request
// asks) and its scripted capacity.
func (b *Backend) takeCapacity(ov *override, ct ec2types.DefaultTargetCapacityType, want int, useODCR bool, now time.Time) (int, string, string) {
	t, zone := string(ov.req.InstanceType), *ov.zone.ZoneName
	if ct == ec2types.DefaultTargetCapacityTypeCapacityBlock {
		got := b.takeReserved(t, zone, true, want, now)
		if got < want {
			return got, CodeReservationCapacityExceeded, fmt.Sprintf("There is no capacity left in an active capacity block for %s in %s.", t, zone)
		}
		return got, "", ""
	}
	got := 0
	if ct == ec2types.DefaultTargetCapacityTypeOnDemand && useODCR {
		got = b.takeReserved(t, zone, false, want, now)
	}
	n, code, msg := b.takeScripted(t, zone, string(ct), want-got)
	return got + n, code, msg
}

// unlaunchable reports why an override cannot launch at all: its type is
// not offered in its zone, or not sold as spot.
func (b *Backend) unlaunchable(ov *override, ct ec2types.DefaultTargetCapacityType) (string, string) {
	t, zone := string(ov.req.InstanceType), *ov.zone.ZoneName
	if _, offered := slices.BinarySearch(b.place.offered[zone], t); !offered || !usableZone(ov.zone) {
		return CodeUnsupported, fmt.Sprintf("Your requested instance type (%s) is not supported in your requested Availability Zone (%s). Please retry your request by not specifying an Availability Zone or choosing %s.", t, zone, b.zonesOffering(t))
	}
	if info, ok := b.types[t]; ok && ct == ec2types.DefaultTargetCapacityTypeSpot && !slices.Contains(info.SupportedUsageClasses, ec2types.UsageClassTypeSpot) {
		return CodeUnsupported, fmt.Sprintf("The instance type %s is not supported for Spot Instances.", t)
	}
	return "", ""
}

// zonesOffering lists the usable zones offering t, as EC2's message does.
func (b *Backend) zonesOffering(t string) string {
	var zones []string
	for _, z := range b.place.zones {
		if _, ok := slices.BinarySearch(b.place.offered[*z.ZoneName], t); ok && usableZone(&z) {
			zones = append(zones, *z.ZoneName)
		}
	}
	if len(zones) == 0 {
		return "another instance type"
	}
	return strings.Join(zones, ", ")
}

// takeReserved launches up to want instances into the active reservations
// for t in zone (open ones, or capacity blocks), taking from each.
func (b *Backend) takeReserved(t, zone string, block bool, want int, now time.Time) int {
	got := 0
	for _, r := range b.place.reservations {
		fits := aws.ToString(r.InstanceType) == t && aws.ToString(r.AvailabilityZone) == zone &&
			effectiveState(r, now) == ec2types.CapacityReservationStateActive &&
			(r.ReservationType == ec2types.CapacityReservationTypeCapacityBlock) == block &&
			(block || r.InstanceMatchCriteria == ec2types.InstanceMatchCriteriaOpen)
		if !fits {
			continue
		}
		n := min(want-got, int(aws.ToInt32(r.AvailableInstanceCount)))
		r.AvailableInstanceCount = aws.Int32(aws.ToInt32(r.AvailableInstanceCount) - int32(n))
		if got += n; got == want {
			break
		}
	}
	return got
}

// takeScripted launches up to want instances of an offering's scripted
// capacity (unlimited when unscripted) and gives the script's error when
// it runs out.
func (b *Backend) takeScripted(t, zone, ct string, want int) (int, string, string) {
	left, ok := b.place.capacity[capacityKey{t, zone, ct}]
	if !ok || want <= 0 {
		return max(want, 0), "", ""
	}
	n := min(want, left.instances)
	left.instances -= n
	if n == want {
		return n, "", ""
	}
	msg := left.message
	if msg == "" {
		msg = defaultLaunchMessage(left.code, t, zone, ct)
	}
	return n, left.code, msg
}

// defaultLaunchMessage is EC2's message for the capacity codes it knows.
func defaultLaunchMessage(code, t, zone, ct string) string {
	switch {
	case code == CodeInsufficientInstanceCapacity && ct == "spot":
		return "There is no Spot capacity available that matches your request."
	case code == CodeInsufficientInstanceCapacity:
		return fmt.Sprintf("We currently do not have sufficient %s capacity in the Availability Zone you requested (%s). Our system will be working on provisioning additional capacity.", t, zone)
	}
	return fmt.Sprintf("ec2fake: scripted %s for %s %s %s", code, t, zone, ct)
}

func responseOverride(ov *override) *ec2types.LaunchTemplateAndOverridesResponse {
	o := ov.req
	return &ec2types.LaunchTemplateAndOverridesResponse{
		LaunchTemplateSpecification: ov.spec,
		Overrides: &ec2types.FleetLaunchTemplateOverrides{
			InstanceType: o.InstanceType, SubnetId: o.SubnetId, AvailabilityZone: aws.String(*ov.zone.ZoneName),
			ImageId: o.ImageId, MaxPrice: o.MaxPrice, Priority: o.Priority, WeightedCapacity: o.WeightedCapacity,
		},
	}
}

// fleetInstances numbers n new instances of one override.
func (b *Backend) fleetInstances(ov *override, lifecycle ec2types.InstanceLifecycle, n int) ec2types.CreateFleetInstance {
	ids := make([]string, n)
	for k := range ids {
		b.place.launched++
		ids[k] = fmt.Sprintf("i-%017x", b.place.launched)
	}
	inst := ec2types.CreateFleetInstance{
		LaunchTemplateAndOverrides: responseOverride(ov), Lifecycle: lifecycle, InstanceIds: ids, InstanceType: ov.req.InstanceType,
	}
	// Where the group launched, which ec2 releases before v1.315.0 cannot
	// carry (its override says it too).
	sdkfield.Set(&inst, "AvailabilityZone", ov.zone.ZoneName)
	sdkfield.Set(&inst, "AvailabilityZoneId", ov.zone.ZoneId)
	if ov.subnet != nil {
		sdkfield.Set(&inst, "SubnetId", ov.subnet.SubnetId)
	}
	return inst
}

// CreateFleet implements the EC2 operation for instant fleets; see
// createFleet for what launches, SetCapacity for scripting capacity and
// InjectFault for whole-call errors. Errors and options are as for
// DescribeImages.
func (b *Backend) CreateFleet(ctx context.Context, in *ec2.CreateFleetInput, _ ...func(*ec2.Options)) (*ec2.CreateFleetOutput, error) {
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpCreateFleet, in, b.createFleet)
	return result(OpCreateFleet, out, requestID, aerr, ctxErr)
}
