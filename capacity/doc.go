// Package capacity learns what nodes really have, per (instance type, AMI),
// so that a provisioner sizes the next launch by what the kubelet reported
// rather than by the published figure minus a guess.
//
// The memory a node reports is below the instance type's published memory,
// and how far below depends on the AMI: Bottlerocket and AL2023 differ, and
// NVIDIA images reserve more than standard ones. A [Cache] records the
// lowest figure seen for each instance type under each AMI ID
// ([Cache.Observe]), and [Cache.Apply] returns it beside each mapped type as
// a [Capacity], leaving the type's facts, labels and requirements alone.
// [Cache.Snapshot] and [Cache.Merge] carry what was learned across
// restarts and between replicas.
//
// # What it fixes
//
// Karpenter learns the same figure, but (karpenter-provider-aws #7925) it
// built the node's requirements from the NodeClaim, whose loose
// requirements lack the GPU keys, compared them leniently with the AMIs in
// order, matched a plain m5.large to the NVIDIA AMI that came first, found
// that the node ran a different image, and so never recorded anything. Observe
// builds the node's requirements from its labels ([compat.FromNodeLabels]:
// no GPU label means no GPU) and files the figure only under the AMI
// [amimap.Choose] picks for them, the rule [amimap.Map] applies to
// instance types. Karpenter also keys its cache by a hash of the whole AMI
// list, so any change to the list forgets everything, and keeps it in
// memory, so a restart forgets too and each replica learns alone; this
// cache is keyed by (instance type, AMI ID), and its snapshots merge by
// keeping the minimum per key, in any order.
//
// # Concurrency, memory and time
//
// A Cache is safe for concurrent use. It is a bounded LRU of
// [Options.Size] entries, hashicorp/golang-lru's simplelru under the
// Cache's own lock; lookups count as uses, and Memory allocates nothing.
// Entries expire [Options.TTL] after they were last recorded, to the
// second, checked lazily against [Options.Now] when they are read: the
// Cache starts no goroutine and needs no Close. [Cache.Reset] empties it
// in place, keeping its options.
//
// # Snapshots
//
// A snapshot is versioned, checksummed JSON, small enough for a ConfigMap
// at the default size; [Cache.Snapshot] documents the encoding and
// [Cache.Merge] how strictly it is read and the rule by which entries
// combine. Merge reads only [SnapshotVersion] 2: a version-1 snapshot,
// written before the encoding became columns, is refused with an error
// asking for a new snapshot, and the Cache relearns from nodes meanwhile.
//
// # What a node has before it launches
//
// An [Estimator] ([NewEstimator]) takes a [Launch] (AMI family, kubelet
// configuration, [Network], volume) and tells, for each instance type,
// what its nodes will have: [Estimator.Estimate] gives capacity, the
// kube-reserved, system-reserved and hard-eviction amounts the kubelet
// takes, and allocatable, each [Term] with its amount, [Source] and
// citation, and [Estimator.EstimateGiven] the same against capacity the
// caller gives ([Given]). Max pods is Capacity.Pods, as the family's boot
// software computes it ([Estimate].MaxPods says how): from the tables it
// ships ([AL2MaxPodsTable], [BottlerocketMaxPodsTable],
// [ParseMaxPodsTable]), AL2's calculator ([MaxPodsCalculator]), or
// nodeadm's maxPodsExpression, CEL compiled and evaluated with cel-go as
// nodeadm does ([ParseMaxPodsExpression], [Expression]; [MaxPodsFormula]
// writes the documented forms). [Estimate.Amount] tells a reservation
// nothing sets from one of 0; what an estimate cannot know is an
// [Unknown] with its [Reason], input and fix, and [Estimate.Err] is the
// one test. Memory is what the Cache learned when it has the type under
// the AMI ([MemoryLookup]), else a [MemoryModel]. [Calculator] is AL2's
// max-pods-calculator.sh on its own; [Estimator.Karpenter] is what
// karpenter-provider-aws predicts, for comparison, and
// [Launch].NodeClassCEL follows Karpenter's alpha expressions for
// kubeReserved and systemReserved ([ParseKarpenterExpression]).
// [CheckFit] says which types hold a [FitRequest] and, for each that does
// not, the resource, the [Shortfall] and the term that causes it. Amounts
// are [Quantities]: millicores, bytes and pods, read and written as
// Kubernetes spells them by [ParseQuantity] and [FormatQuantity]; the
// enums ([Resource], [Kind], [Source], [Reason]) marshal as their names.
package capacity
