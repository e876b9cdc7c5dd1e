// Package capacity learns what nodes really have, per (instance type, AMI),
// so that a provisioner sizes the next launch by what the kubelet reported
// rather than by the published figure minus a guess.
//
// The memory a node reports is below the instance type's published memory,
// and how far below depends on the AMI: Bottlerocket and AL2023 differ, and
// NVIDIA images reserve more than standard ones. A [Cache] records the
// lowest figure seen for each instance type under each AMI ID, and
// [Cache.Apply] returns it beside each mapped type as a [Capacity],
// leaving the type's facts, labels and requirements as they are.
//
// # What it fixes
//
// Karpenter learns the same figure, but (karpenter-provider-aws #7925) it
// built the node's requirements from the NodeClaim, whose loose
// requirements lack the GPU keys, compared them leniently with the AMIs in
// order, matched a plain m5.large to the NVIDIA AMI that came first, found
// that the node ran a different image, and so never recorded anything: it
// kept launching nodes too small for the pod. [Cache.Observe] builds the
// node's requirements from its labels with [compat.FromNodeLabels] (no GPU
// label means no GPU), compares strictly, and records only when the node
// runs the AMI the mapper picks for its type, saying why when it refuses.
// Karpenter also keys its cache by a hash of the whole AMI list, so any
// change to the list forgets everything; this cache is keyed by
// (instance type, AMI ID), so a new AMI leaves the others' figures alone.
//
// # Concurrency, memory and time
//
// A Cache is safe for concurrent use. It is a bounded LRU
// (github.com/hashicorp/golang-lru/v2) of [Options.Size] entries; lookups
// count as uses. Entries expire [Options.TTL] after they were last
// recorded, checked lazily against [Options.Now] when they are read: the
// Cache starts no goroutine and needs no Close. Memory is a lock, a map
// lookup and no allocation.
package capacity
