// Package quantity reads Kubernetes resource quantities ("500Mi", "1.5",
// "100m", "2e3") exactly as k8s.io/apimachinery's resource.ParseQuantity
// does (v0.35.3), without depending on it: [Parse] accepts what it
// accepts, refuses what it refuses with its error texts, and keeps the
// exact value. [Quantity.Scaled] gives the value in a unit (bytes,
// millicores), rounded down and up, or [ErrRange] beyond int64;
// [FormatBinary] and [FormatDecimal] write an amount back in a form Parse
// reads as the same amount.
//
// The grammar ParseQuantity implements is looser than the one it
// documents; the rules are on [Parse], and the differential test in
// examples/karpenter checks them, and the values capacity computes with
// [Quantity.Scaled], against the real function. It is internal: capacity
// (ParseQuantity, FormatQuantity, reservations and eviction thresholds)
// and userdata (KubeletConfig validation) share it.
//
// Everything here is a pure function on immutable values, safe for
// concurrent use.
package quantity
