package capacity

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
)

// DefaultSize is the number of (instance type, AMI) entries a Cache holds
// when Options.Size is zero: every type of a large catalog under a dozen
// AMIs.
const DefaultSize = 10_000

// Options configures a Cache. The zero value means the defaults.
type Options struct {
	// Size bounds the number of (instance type, AMI) entries; the least
	// recently used is evicted first. Zero means DefaultSize.
	Size int
	// TTL is how long an entry lives after it was last recorded or
	// confirmed. Zero means entries never expire: an AMI ID names one
	// immutable image, so what a type reports under it does not drift.
	TTL time.Duration
	// Now is the clock TTLs are measured against. Nil means time.Now.
	// Expiry is checked lazily, on access; the Cache starts no goroutine.
	Now func() time.Time
}

// Cache holds the memory nodes really report, learned per (instance type,
// AMI). It is safe for concurrent use.
type Cache struct {
	entries *lru.Cache[key, record]
	ttl     time.Duration
	now     func() time.Time
	// write serializes every read-modify-write (Observe, expiry), so that
	// "keep the minimum" holds under concurrency; lookups do not take it.
	write sync.Mutex

	hits, misses, evictions, expired, recorded, refused atomic.Int64
}

type key struct{ instanceType, amiID string }

type record struct {
	memory  int64     // bytes
	expires time.Time // zero: never
}

// New returns an empty Cache, or an error naming the bad option.
func New(o Options) (*Cache, error) {
	switch {
	case o.Size < 0:
		return nil, fmt.Errorf("capacity: Options.Size is %d; use a positive size, or 0 for the default of %d", o.Size, DefaultSize)
	case o.TTL < 0:
		return nil, fmt.Errorf("capacity: Options.TTL is %v; use a positive duration, or 0 for entries that never expire", o.TTL)
	}
	if o.Size == 0 {
		o.Size = DefaultSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	entries, err := lru.New[key, record](o.Size)
	if err != nil {
		return nil, fmt.Errorf("capacity: %w", err)
	}
	return &Cache{entries: entries, ttl: o.TTL, now: o.Now}, nil
}

// Memory returns the memory, in bytes, learned for nodes of instanceType
// running the AMI amiID, and whether there is one. A lookup counts as a
// use for the LRU order.
func (c *Cache) Memory(instanceType, amiID string) (int64, bool) {
	k := key{instanceType, amiID}
	r, ok := c.entries.Get(k)
	if ok && c.ttl > 0 && !c.now().Before(r.expires) {
		c.expire(k)
		ok = false
	}
	if !ok {
		c.misses.Add(1)
		return 0, false
	}
	c.hits.Add(1)
	return r.memory, true
}

// expire removes k if it is still expired: an Observe may have refreshed
// it since the caller looked.
func (c *Cache) expire(k key) {
	c.write.Lock()
	defer c.write.Unlock()
	if r, ok := c.entries.Peek(k); ok && !c.now().Before(r.expires) {
		c.entries.Remove(k)
		c.expired.Add(1)
	}
}

// Observation is what a registered node says about its capacity.
type Observation struct {
	// NodeLabels are the node's labels as the kubelet and the provisioner
	// set them; node.kubernetes.io/instance-type is required.
	NodeLabels map[string]string
	// ImageID is the AMI the node was launched from.
	ImageID string
	// MemoryBytes is the memory capacity the node reports.
	MemoryBytes int64
}

// Reasons Observe refuses an observation; match them with errors.Is.
var (
	ErrNoInstanceType = errors.New("node has no node.kubernetes.io/instance-type label")
	ErrInvalidMemory  = errors.New("memory must be a positive number of bytes")
	ErrNoImage        = errors.New("observation has no image ID")
	ErrUnknownImage   = errors.New("the node's image is not among the selected AMIs")
	ErrNoCompatible   = errors.New("no selected AMI is compatible with the node")
	ErrNotMapped      = errors.New("the node's image is not the AMI its instance type maps to")
)

// Observe records what a node reports, keyed by its instance type and the
// AMI it runs, when that AMI is the one amis (in selection order) maps the
// node to. The node's requirements come from its labels
// ([compat.FromNodeLabels]: a node without GPU labels has no GPU) and are
// compared strictly, so a plain node is never filed under an NVIDIA AMI
// (karpenter-provider-aws #7925). A lower figure replaces a higher one; an
// equal one refreshes the TTL; a higher one is ignored. It reports whether
// it recorded, and when it refused, an error saying why that wraps one of
// the Err values.
func (c *Cache) Observe(o Observation, amis []amiselect.AMI) (bool, error) {
	ok, err := c.observe(o, amis)
	if err != nil {
		c.refused.Add(1)
	}
	return ok, err
}

func (c *Cache) observe(o Observation, amis []amiselect.AMI) (bool, error) {
	instanceType := o.NodeLabels[compat.LabelInstanceType]
	if instanceType == "" {
		instanceType = o.NodeLabels["beta.kubernetes.io/instance-type"]
	}
	node := nodeName(o.NodeLabels, instanceType)
	switch {
	case instanceType == "":
		return false, fmt.Errorf("capacity: %s: %w", node, ErrNoInstanceType)
	case o.MemoryBytes <= 0:
		return false, fmt.Errorf("capacity: %s reports %d bytes of memory: %w", node, o.MemoryBytes, ErrInvalidMemory)
	case o.ImageID == "":
		return false, fmt.Errorf("capacity: %s: %w", node, ErrNoImage)
	}
	known := false
	for i := range amis {
		known = known || amis[i].ID == o.ImageID
	}
	if !known {
		return false, fmt.Errorf("capacity: %s runs %s, which none of the %d selected AMIs is; it was launched from an AMI no longer selected: %w", node, o.ImageID, len(amis), ErrUnknownImage)
	}
	reqs := compat.FromNodeLabels(o.NodeLabels)
	chosen := -1
	for i := range amis {
		if _, conflict := reqs.Conflict(amis[i].Requirements); !conflict {
			chosen = i
			break
		}
	}
	if chosen < 0 {
		var running *amiselect.AMI
		for i := range amis {
			if amis[i].ID == o.ImageID {
				running = &amis[i]
				break
			}
		}
		return false, fmt.Errorf("capacity: %s runs %s, but no selected AMI is compatible with its labels (%v): %w", node, o.ImageID, reqs.Compatible(running.Requirements), ErrNoCompatible)
	}
	if got := amis[chosen]; got.ID != o.ImageID {
		return false, fmt.Errorf("capacity: %s runs %s, but %s maps to %s (%s), which new nodes will run; what this node reports says nothing about them: %w", node, o.ImageID, instanceType, got.ID, got.Name, ErrNotMapped)
	}

	k := key{instanceType, o.ImageID}
	var expires time.Time
	now := c.now()
	if c.ttl > 0 {
		expires = now.Add(c.ttl)
	}
	c.write.Lock()
	defer c.write.Unlock()
	if old, ok := c.entries.Peek(k); ok && (c.ttl == 0 || now.Before(old.expires)) && old.memory < o.MemoryBytes {
		return false, nil // keep the minimum seen
	}
	if c.entries.Add(k, record{memory: o.MemoryBytes, expires: expires}) {
		c.evictions.Add(1)
	}
	c.recorded.Add(1)
	return true, nil
}

// nodeName names a node in errors: its hostname if labelled, else its type.
func nodeName(labels map[string]string, instanceType string) string {
	if h := labels[compat.LabelHostname]; h != "" {
		return "node " + h
	}
	if instanceType != "" {
		return "a " + instanceType + " node"
	}
	return "a node"
}

// Apply returns the instance types of m's groups, in m's order, each with
// MemoryMiB replaced by the memory learned for it under its group's AMI
// (floored to whole MiB) where there is one; the others are returned as
// they are. Unmapped types are not returned: no node can launch as them.
func (c *Cache) Apply(m amiselect.Mapping) []compat.InstanceType {
	n := 0
	for _, g := range m.Groups {
		n += len(g.InstanceTypes)
	}
	out := make([]compat.InstanceType, 0, n)
	for _, g := range m.Groups {
		for _, it := range g.InstanceTypes {
			if mem, ok := c.Memory(it.Name, g.AMI.ID); ok {
				it.MemoryMiB = mem / (1 << 20)
			}
			out = append(out, it)
		}
	}
	return out
}

// Stats counts what a Cache has done since it was made.
type Stats struct {
	Hits, Misses int64 // Memory lookups (Apply's included) that found an entry, or not
	Evictions    int64 // entries dropped to respect Size
	Expired      int64 // entries dropped because their TTL ran out
	Recorded     int64 // observations stored (lower, or equal to refresh)
	Refused      int64 // observations rejected with an error
	Len          int   // entries held now
}

// Stats returns the counters as of now.
func (c *Cache) Stats() Stats {
	return Stats{
		Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evictions.Load(), Expired: c.expired.Load(),
		Recorded: c.recorded.Load(), Refused: c.refused.Load(), Len: c.entries.Len(),
	}
}
