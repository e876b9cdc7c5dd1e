// Package offerings says where an instance type can launch: in which zone,
// as which capacity type (on-demand, spot, or from a capacity reservation),
// whether it can launch there now, and, if not, why; what a failed launch
// means for the next one; and in which order to try the offerings.
//
// An [Offering] is one (instance type, zone, capacity type, reservation)
// combination. Its [Offering.Requirements] use Karpenter's well-known keys,
// so a NodePool's requirements filter offerings with the same algebra
// (package compat) that filters instance types.
//
//   - What exists: a [Region] (zones, the types each zone offers,
//     reservations, subnets), read by [Load], [LoadZones], [LoadOffered],
//     [LoadReservations] and [LoadSubnets] over the narrowest EC2
//     interfaces, every page; or written by hand.
//   - What can launch: [Assess] judges every offering of a region at an
//     instant against the live marks, with exactly one [Reason] for each
//     that cannot.
//   - What a failure means: [Classify] and [ClassifyError] give every EC2
//     error code one [Class] and one [Scope]; [FleetOutcome] and
//     [RunInstancesOutcome] read a launch's answer, whole-call errors
//     included, into an [Outcome].
//   - What to remember: a [Memory] turns failures into [Mark]s with a
//     back-off per scope ([Backoff]) and forgets them lazily on its clock.
//   - What to try: [Candidates] orders the offerings a NodePool may use,
//     reserved first, then by price ([CandidateOptions].Price) or spot
//     before on-demand, with the reason for every offering it skips.
//   - What it costs: a [PriceBook] prices each offering (see Prices
//     below), and [PriceBook.CandidatePrice] is [CandidateOptions].Price.
//
// # Prices
//
// A [PriceBook] prices an offering as [Term]s, each with its amount,
// source and as-of time: the base (the on-demand list price per region,
// [OS] and tenancy; the latest spot price per zone and product
// description, with [SpotStats] over a window when asked; a capacity
// reservation's marginal price, 0), then the caller's [Discounts] in
// AWS's billing order (reserved instances, Savings Plans, an enterprise
// percentage). [Price.Explain] prints every term. A price no source has
// is unknown, with the reason, never taken from another region; the
// caller says what that means ([UnknownPrice]: last, or not a candidate).
//
// Books are built from [PriceSnapshot]s: [EmbeddedPriceSnapshot]
// (Karpenter v1.14.1's tables, dated), [LoadPriceSnapshot] (the Price List
// Query API with Karpenter's filters and DescribeSpotPriceHistory, through
// real SDK clients; [PricingRegion] chooses the endpoint) and
// [ReadPriceSnapshot] (one written with [PriceSnapshot.WriteTo]).
// [PriceBook.CandidatePrice] is the price hook of [CandidateOptions].
//
// Values of this package are immutable once built and safe to share
// between goroutines; a [Memory] is safe for concurrent use. Nothing
// starts a goroutine, keeps global state or panics on bad input. Enums
// ([CapacityType], [ReservationType], [ZoneType], [OptInStatus], [Class],
// [Scope], [ReasonCode], [UnknownPrice], [OS], [TermKind]) marshal as text.
package offerings
