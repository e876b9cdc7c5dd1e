package capacity

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultSize is the number of (instance type, AMI) entries a Cache holds
// when Options.Size is zero: every type of a large catalog under a dozen
// AMIs.
const DefaultSize = 10_000

// MaxSize is the largest Options.Size: far more entries than memory holds.
const MaxSize = math.MaxInt32 - 1

// Options configures a Cache. The zero value means the defaults.
type Options struct {
	// Size bounds the number of (instance type, AMI) entries; the least
	// recently used is evicted first. Zero means DefaultSize; at most
	// MaxSize.
	Size int
	// TTL is how long an entry lives after it was last recorded or
	// confirmed, to the second. Zero means entries never expire: an AMI ID
	// names one immutable image, so what a type reports under it does not
	// drift. (Karpenter keeps its figures 60 days.)
	TTL time.Duration
	// Now is the clock TTLs are measured against. Nil means time.Now.
	// Expiry is checked lazily, on access; the Cache starts no goroutine.
	// Now is called outside the Cache's lock, so it may use the Cache.
	Now func() time.Time
}

// Cache holds the memory nodes really report, learned per (instance type,
// AMI). It is safe for concurrent use.
type Cache struct {
	// mu guards entries. Observe and expiry hold it for their whole
	// read-modify-write, so "keep the minimum" holds under concurrency;
	// Snapshot holds it throughout, so a snapshot is of one moment; Merge
	// takes it a batch of entries at a time, so lookups wait for a batch,
	// not for the whole snapshot.
	mu      sync.Mutex
	entries *table
	ttl     time.Duration
	now     func() time.Time
	// limit is MaxSnapshotSize; tests lower it to reach it cheaply.
	limit int

	hits, misses, evictions, expired, recorded, refused, merged atomic.Int64
}

type key struct{ instanceType, amiID string }

// record is one learned figure. observed is when it was last recorded or
// confirmed, in Unix seconds: the TTL runs from it, and replicas compare
// it when they merge. The key is kept beside the figure so that a
// snapshot reads the LRU's values alone.
type record struct {
	key
	memory   int64 // bytes
	observed int64
}

// horizon returns the time, in Unix seconds, that a record must have been
// observed after to be live at now: observed + TTL > now exactly when
// observed > now - TTL, and observed is whole seconds.
func (c *Cache) horizon(now time.Time) int64 {
	if c.ttl == 0 {
		return math.MinInt64
	}
	return now.Add(-c.ttl).Unix()
}

// New returns an empty Cache, or an error naming the bad option.
func New(o Options) (*Cache, error) {
	switch {
	case o.Size < 0 || o.Size > MaxSize:
		return nil, fmt.Errorf("capacity: Options.Size is %d; use a size from 1 to %d, or 0 for the default of %d", o.Size, MaxSize, DefaultSize)
	case o.TTL < 0:
		return nil, fmt.Errorf("capacity: Options.TTL is %v; use a positive duration, or 0 for entries that never expire", o.TTL)
	}
	if o.Size == 0 {
		o.Size = DefaultSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Cache{entries: newTable(o.Size), ttl: o.TTL, now: o.Now, limit: MaxSnapshotSize}, nil
}

// Memory returns the memory, in bytes, learned for nodes of instanceType
// running the AMI amiID, and whether there is one. A lookup counts as a
// use for the LRU order.
func (c *Cache) Memory(instanceType, amiID string) (int64, bool) {
	k := key{instanceType, amiID}
	var now time.Time // without a TTL nothing expires, and no clock is read
	if c.ttl > 0 {
		now = c.now() // outside the lock: Options.Now is the caller's code
	}
	horizon := c.horizon(now)
	c.mu.Lock()
	r, ok := c.entries.get(k)
	if ok && r.observed <= horizon {
		c.entries.remove(k)
		c.expired.Add(1)
		ok = false
	}
	c.mu.Unlock()
	if !ok {
		c.misses.Add(1)
		return 0, false
	}
	c.hits.Add(1)
	return r.memory, true
}

// Stats counts what a Cache has done since it was made.
type Stats struct {
	Hits, Misses int64 // Memory lookups (Apply's included) that found an entry, or not
	Evictions    int64 // entries dropped to respect Size
	Expired      int64 // entries dropped because their TTL ran out
	Recorded     int64 // observations stored (lower, or equal to refresh)
	Refused      int64 // observations rejected with an error
	Merged       int64 // entries Merge took from snapshots (new, lower, or as low and later)
	Len          int   // entries held now
}

// Stats returns the counters as of now.
func (c *Cache) Stats() Stats {
	return Stats{
		Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evictions.Load(), Expired: c.expired.Load(),
		Recorded: c.recorded.Load(), Refused: c.refused.Load(), Merged: c.merged.Load(), Len: c.len(),
	}
}

func (c *Cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries.len()
}
