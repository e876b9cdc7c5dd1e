// Package offerings says where an instance type can launch: in which zone,
// as which capacity type (on-demand, spot, or from a capacity reservation),
// whether it can launch there now, and, if not, why.
//
// An [Offering] is one (instance type, zone, capacity type, reservation)
// combination. Its [Offering.Requirements] use Karpenter's well-known keys,
// so a NodePool's requirements filter offerings with the same algebra
// (package compat) that filters instance types.
//
// Values of this package are immutable once built and safe to share
// between goroutines.
package offerings
