// Package compat is the requirement algebra under every other package of
// ec2select: node-selector requirements with exact set semantics, the facts
// and labels of EC2 instance types, and a strict, GPU- and
// architecture-aware compatibility check that explains itself.
//
// # Requirements
//
// A [Requirement] is a plain value mirroring corev1.NodeSelectorRequirement
// (plus Karpenter's Gte and Lte). [NewRequirements] validates and compiles
// a list of them into [Requirements], an immutable set with one constraint
// per key; requirements on the same key intersect. Each constraint is read
// as a predicate over one label of a node:
//
//	In v...        present, and one of v
//	NotIn v...     absent, or none of v
//	Exists         present
//	DoesNotExist   absent
//	Gt n / Gte n   present, and an integer > n / >= n
//	Lt n / Lte n   present, and an integer < n / <= n
//
// This is Karpenter core's model (plain sets, complement sets, inclusive
// integer bounds) with the "absent" case made explicit, and it agrees with
// Karpenter's compatibility matrix everywhere Karpenter is right. Where
// Karpenter is wrong, this package does the mathematically right thing:
// two requirements whose integer bounds cross are incompatible even when
// both also exclude values (Karpenter lets two "NotIn" sides pass); Exists
// together with NotIn still requires the label (Karpenter drops the
// Exists); and a contradiction such as In [a] with In [b] is unsatisfiable
// (Karpenter reads it as DoesNotExist). Integer readings use
// strconv.ParseInt, as Karpenter's Atoi does, so "08" satisfies Gt 7.
//
// # Compatibility
//
// Ask with [Requirements.Compatible]: it is the one question, and the other
// forms answer it the same way. It is asymmetric, like Karpenter's: the
// receiver is what exists (an instance type, a node) and the argument is
// what is asked of it (an AMI, an offering, a pod). Keys the receiver does
// not define pass only when the argument accepts a missing label, unless
// [AllowUndefined] or [AllowUndefinedWellKnown] says otherwise. Mapping AMIs
// to instance types must be strict; Karpenter's leniency there is
// karpenter-provider-aws #7925. Failures are *[IncompatibleError] values
// naming the key, both sides, the reason, the fix and, for an undefined
// key, the key that was probably meant. [InstanceType.Compatible] asks the
// same of t.Requirements() without building them, and the Conflict methods
// ([Requirements.Conflict], [InstanceType.Conflict]) give the same answer
// as a key and a bool, allocating nothing, for loops that explain few
// failures.
//
// [Requirement.MinValues] is Karpenter's minValues: it does not change
// what is compatible, and [Requirements.SatisfiesMinValues] checks it
// against a list of instance types.
//
// # Instance types
//
// [LoadInstanceTypes] pages through DescribeInstanceTypes and converts
// each result with [InstanceTypeFromEC2] into an [InstanceType], returning
// the types no EKS node runs on as [SkippedType] values.
// [InstanceTypeFromLabels] turns a type's labels (or a node's, or a
// Karpenter instance type's) back into one; it needs only the name and
// the architecture, and [ReadInstanceTypeLabels] returns a [LabelNote] for
// every other fact it could not read. One table of keys says, per label,
// how Labels, Requirements, FromNodeLabels and InstanceTypeFromLabels treat
// it. Its
// [InstanceType.Requirements] define every instance label (see
// [InstanceLabels]): a type without a GPU is DoesNotExist on
// instance-gpu-count, not silent about it, and every type offers both
// tenancies, as Karpenter's do. [FromNodeLabels] does the same for a real
// node's labels. With AMI requirements in Karpenter's shape (standard:
// no GPU and no accelerator; NVIDIA: a GPU; Neuron: an accelerator) this
// makes the strict comparison GPU-aware: non-GPU types take only standard
// AMIs, NVIDIA types (including g6f, which EC2 reports with a GPU count of
// 0) only NVIDIA AMIs, Neuron types only Neuron AMIs, and the architecture
// always has to match. Facts EC2 does not state, such as the network
// bandwidth of m5.large, come from Karpenter's table (network_bandwidth.tsv).
//
// Instance type names follow the grammar in [ParseInstanceTypeName].
//
// # Values, concurrency and errors
//
// The zero [Requirements] is the empty set, which constrains nothing.
// Requirements values are immutable and safe for concurrent use; copy them
// freely, compare them with [Requirements.Equal]. [InstanceType] is a plain
// struct. Nothing in this package panics on any input except
// [MustRequirements], which is meant for literals. Comparing an instance
// type with an AMI allocates nothing ([Requirements.Conflict],
// [InstanceType.Conflict]); only explaining a failure does.
package compat
