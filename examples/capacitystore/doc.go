// Package capacitystore keeps what a [capacity.Cache] learned in Kubernetes
// ConfigMaps, so that it survives a controller's restarts and leader
// changes and reaches every replica: a replica that takes over knows what
// the last leader learned, and nodes are not launched too small again one
// failover later (karpenter-provider-aws #7925).
//
// It is written as a controller author would write it, with client-go, and
// tested against a real kube-apiserver and etcd (controller-runtime's
// envtest); it lives in a module of its own so that the library stays free
// of Kubernetes modules.
//
// # Use
//
// [New] takes a clientset's CoreV1(), the Cache and [Options]. Add the
// [Store] to a controller-runtime manager (mgr.Add(store)), or run
// [Store.Start] in a goroutine: it loads the ConfigMap, merges every write
// of another replica as its watch delivers it, and saves on an interval
// when the Cache recorded something since. [Store.Save] saves now (after a
// node registered, say), [Store.Load] loads now. It needs get, list,
// watch, create, update and delete on ConfigMaps in its namespace.
//
// # Layout and size
//
// The head ConfigMap, Options.Name (DefaultName) in Options.Namespace,
// holds the Cache's snapshot, gzip-compressed, in binaryData under
// [KeySnapshot]. Compression is always used: a snapshot is JSON columns
// that compress 3 to 15 times (10,000 entries: 317 KB, 20 to 108 KB
// compressed), and every replica's watch receives every write. The API
// server refuses a ConfigMap holding more than 1 MiB ([MaxPartBytes]);
// a compressed snapshot larger than Options.PartBytes (at most that) is
// split over immutable part ConfigMaps NAME-GENERATION-INDEX, each holding
// its bytes under [KeyPart], and the head then holds, under [KeyParts] in
// data, the parts' names in order with the whole's length and SHA-256. A
// snapshot that would need more than Options.MaxParts ConfigMaps is
// refused with a [*TooLargeError], and nothing is written: a snapshot is
// stored whole or not at all. (The Cache's own bound, capacity.MaxSnapshotSize,
// comes first with the defaults: 16 MiB uncompressed, about 500,000
// entries.) Every ConfigMap of a store carries [LabelStore] with its name,
// so that kubectl get configmap -l capacitystore.ec2select.io/store=NAME
// lists them.
//
// # Keys
//
// The Cache is keyed by (instance type, AMI ID), and so is what the store
// holds: a figure learned under an AMI is never applied to another, and
// replicas that select different AMIs share what they have in common. One
// store per Cache: replicas of one controller share one Options.Name; two
// controllers with caches of different meaning use two names.
//
// # Concurrency between replicas
//
// Every write is an update conditioned on the resourceVersion of the head
// the writer last merged or wrote, so the API server refuses it (409
// Conflict) if another replica wrote in between. The writer then reads the
// head, merges it and writes again (up to Options.Retries times, with
// backoff), so no replica's observations are lost: every head written
// holds everything the head it replaced held. Merging keeps each key's
// minimum and is commutative, associative and idempotent, so replicas
// agree whatever the order of their writes. Parts are named afresh for
// each write and deleted by the writer that replaced the head referencing
// them; a replica killed between writing parts and the head leaves parts
// no head references, and [Store.Start] deletes those older than
// [OrphanAge] when it starts. A head or part that cannot be read (edited
// by hand) is refused with a [*CorruptError] naming it, never merged and
// never written over; the replicas keep learning in memory, and write
// everything anew once the store's ConfigMaps are deleted.
//
// # TTL
//
// The Cache's Options.TTL applies as it does in memory: a snapshot carries
// each entry's observation time, entries expired at the time of a merge are
// not merged, and a write leaves them out, so expired entries leave the
// ConfigMap at the next write. An observation that confirms a figure
// refreshes its time, and is saved like any other. Replicas should share
// one TTL and one Size: a smaller Size evicts, and its next write leaves
// out what it evicted.
//
// A Store is safe for concurrent use; its loads, saves and watch events
// take turns, and none holds the Cache's lock across an API call.
package capacitystore
