// Package offerings says where an instance type can launch: in which zone,
// as which capacity type (on-demand, spot, or from a capacity reservation),
// whether it can launch there now, and, if not, why.
//
// An [Offering] is one (instance type, zone, capacity type, reservation)
// combination. Its [Offering.Requirements] use Karpenter's well-known keys,
// so a NodePool's requirements filter offerings with the same algebra
// (package compat) that filters instance types.
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
// between goroutines.
package offerings
