// Package weighting ranks EC2 instance types by weighted tiers of glob
// patterns ("c7i-flex first, anything else when flex has no capacity") and
// expands the tiers into Karpenter NodePools that are disjoint and valid.
//
// Karpenter cannot say "prefer these families, else anything": a
// requirement value of "*" is not a valid label value, so
// instance-family In ["c7i-flex", "*"] is rejected (karpenter-provider-aws
// #7751), and the workaround, two NodePools weighted 100 and 1, is easy to
// get wrong by hand: the pools overlap, or a hand-written family list goes
// stale when AWS adds a family. A [Policy] states the intent once:
//
//	weighting.Policy{Tiers: []weighting.Tier{
//		{Name: "flex", Weight: 100, Families: []string{"c7i-flex", "m7i-flex"}},
//		{Name: "rest", Weight: 1, Families: []string{"*"}},
//	}}
//
// and [Policy.NodePools] writes the family lists from the catalog of
// instance types.
//
// # Patterns
//
// Each entry of [Tier.Families] is a glob:
//
//	pattern = 1*( letter | digit | "-" | "." | "*" | "?" )   ; lower case, at most one "."
//	"*"     matches any run of characters, including none
//	"?"     matches exactly one character
//
// A pattern without a dot is matched against the instance family, the part
// of the name before the dot ("c7i-flex" for c7i-flex.large): "c7i-flex",
// "c7*", "c*-flex", "*". A pattern with one dot is matched against the whole
// instance-type name: "c7i.*large", "*.metal". A pattern matches the whole
// subject, not a part of it, and there are no character classes or
// escapes. Note that "?" is exactly one character, as in shell globs and
// path.Match, whereas EC2's own describe filters read it as zero or one.
// Patterns are parsed once per call, never per instance type.
//
// # Ranking
//
// [Policy.Rank] puts each instance type in the highest-weight tier that
// admits it: one of its patterns matches and the type satisfies the tier's
// Requirements, evaluated strictly with [compat.InstanceType.Conflict].
// Tier requirements may only use keys that describe an instance type
// ([compat.InstanceLabels]); a capacity type or zone cannot be judged from a
// catalog and belongs in the base NodePool. Weights are 1 to 100 and
// distinct, so the tier is never ambiguous. Types
// no tier admits are listed in [Ranking.Unranked], not dropped. Within a
// tier, types whose price [RankOptions.Price] knows come first, cheapest
// first, and then the rest; ties, and types without prices, are ordered by
// name. The ranking does not depend on the order of its inputs.
// [Ranking.Explain] says why a type is where it is, and [Fallback] gives
// the tier and types a provisioner would try next when higher tiers have no
// capacity.
//
// # NodePools
//
// [NodePool] is a karpenter.sh/v1 NodePool as a plain value: every field
// of the resource, and the metadata fields it does not map kept in
// [NodePool.Unknown]. [DecodeNodePool] reads a manifest as `kubectl apply`
// sends it and the API server creates it (YAML 1.1 scalars, the last of
// duplicate keys, strict field validation, nulls dropped, defaults
// applied for validation); UnmarshalJSON reads a NodePool as the API
// server holds it; [NodePool.EncodeYAML] writes a document. NodePool also
// implements the JSON and YAML marshaling interfaces, so it encodes as the
// whole resource wherever it is embedded.
// [Policy.NodePools] makes one per tier from a base NodePool, named after
// the base and the tier, weighted as the tier, carrying every other field
// of the base, with requirements generated from the catalog:
//
//	karpenter.k8s.aws/instance-family In [families the tier's patterns match]
//	karpenter.k8s.aws/instance-family NotIn [families higher tiers took]  ; for a "*" tier
//	node.kubernetes.io/instance-type NotIn [types higher tiers took from a family in part]
//
// so that, over the catalog, each instance type is admitted by exactly the
// NodePool of the tier that [Policy.Rank] gives it, and by no other. A tier
// whose NodePool would admit nothing is an error; with [Policy.Strict], so
// is a pattern that matches nothing, which catches typos.
// [Order] sorts NodePools the way Karpenter tries them: highest weight
// first, no weight as 0, equal weights by name in reverse byte order.
//
// # Values, concurrency and errors
//
// [Policy], [Tier], [NodePool] and [Ranking] are plain values. Every
// function and method only reads its arguments and returns results that
// share no memory with them (except [Order], whose NodePools keep their own
// slices and maps), so all are safe for concurrent use as long as no one
// modifies the arguments meanwhile. There are no mutable globals and no
// goroutines.
// The zero [RankOptions] ranks without prices; the zero [Policy] has no
// tiers and is invalid.
//
// Nothing panics. A NodePool is checked against Karpenter v1.14.1 whenever
// it is made, encoded or decoded ([NodePool.Validate]): the CRD's schema
// and rules as the API server applies them (nodepool_schema.go, each rule
// with its path in the CRD), then Karpenter's runtime validation, and a
// few stricter rules for what would not work, each documented; its errors
// name every problem by its path in the resource. An invalid policy is
// reported by every method that takes it, as one *[TierError] per problem
// (joined with [errors.Join]), each naming the tier and the fix;
// [Policy.Validate] checks a policy on its own.
package weighting
