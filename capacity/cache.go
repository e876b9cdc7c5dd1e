package capacity

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
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
	// mu guards entries, golang-lru's unsynchronized LRU (its locked
	// wrapper would be a second lock: every read-modify-write needs this
	// one), and stats. Observe, Merge and expiry hold it for their whole
	// read-modify-write, so "keep the minimum" holds under concurrency;
	// Snapshot holds it while it copies the entries, so a snapshot is of
	// one moment.
	mu      sync.Mutex
	entries *simplelru.LRU[key, record]
	stats   Stats // all but Len
	size    int
	ttl     time.Duration
	now     func() time.Time
	// limit is MaxSnapshotSize; tests lower it to reach it cheaply.
	limit int
}

type key struct{ instanceType, amiID string }

// record is one learned figure. observed is when it was last recorded or
// confirmed, in Unix seconds: the TTL runs from it, and replicas compare
// it when they merge.
type record struct {
	memory   int64 // bytes
	observed int64
}

// beats reports whether r wins over old: less memory, or as little and
// observed later.
func (r record) beats(old record) bool {
	return r.memory < old.memory || r.memory == old.memory && r.observed > old.observed
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
	c := &Cache{size: o.Size, ttl: o.TTL, now: o.Now, limit: MaxSnapshotSize}
	c.entries = c.newLRU()
	return c, nil
}

// newLRU returns an empty LRU of c's size, which New has checked is
// positive, golang-lru's only condition.
func (c *Cache) newLRU() *simplelru.LRU[key, record] {
	entries, _ := simplelru.NewLRU[key, record](c.size, nil)
	return entries
}

// Reset empties c and zeroes its Stats, leaving it as New made it, with
// the same options. It is safe to call while c is in use: every other
// call takes effect wholly before or wholly after it. A fork's tests can
// reset one shared Cache between specs rather than swap the pointer.
func (c *Cache) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = c.newLRU() // a new map, where emptying the old would keep its buckets
	c.stats = Stats{}
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
	defer c.mu.Unlock()
	r, ok := c.entries.Get(k)
	if ok && r.observed <= horizon {
		c.entries.Remove(k)
		c.stats.Expired++
		ok = false
	}
	if !ok {
		c.stats.Misses++
		return 0, false
	}
	c.stats.Hits++
	return r.memory, true
}

// Stats counts what a Cache has done since it was made or last Reset.
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
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Len = c.entries.Len()
	return s
}
