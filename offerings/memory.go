package offerings

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// DefaultMemorySize is the number of scopes a Memory remembers when
// MemoryOptions.Size is zero: every offering of a large region failing at
// once.
const DefaultMemorySize = 50_000

// MaxMemorySize is the largest MemoryOptions.Size.
const MaxMemorySize = math.MaxInt32 - 1

// Backoff is how long the marks of one class last: Initial for the first
// failure in a scope, doubling with every further failure in a row, never
// more than Max. A failure counts as "in a row" when it comes within
// Window after the previous mark ran out; a later one starts again at
// Initial.
type Backoff struct {
	Initial time.Duration `json:"initial"`
	Max     time.Duration `json:"max"`
	// Window is how long a scope's failures are remembered after its mark
	// runs out; zero means Max.
	Window time.Duration `json:"window,omitempty"`
}

// DefaultBackoff returns the back-off a Memory uses for class c when
// MemoryOptions.Backoff does not say:
//
//	offering-unavailable, subnet-unavailable  3m doubling to 48m
//	account-limit                             5m doubling to 1h20m
//	throttled                                 5s doubling to 2m40s
//	server-error, unknown                     30s doubling to 8m
//
// Three minutes is Karpenter's fixed time for an unavailable offering
// (karpenter-provider-aws v1.14.1 pkg/cache/cache.go:31,
// UnavailableOfferingsTTL), which it never lengthens however often the
// offering fails (kubernetes-sigs/karpenter #3198); each maximum is four
// doublings. Configuration errors make no mark, so they have no back-off.
func DefaultBackoff(c Class) Backoff {
	switch c {
	case OfferingUnavailable, SubnetUnavailable:
		return Backoff{Initial: 3 * time.Minute, Max: 48 * time.Minute}
	case AccountLimit:
		return Backoff{Initial: 5 * time.Minute, Max: 80 * time.Minute}
	case Throttled:
		return Backoff{Initial: 5 * time.Second, Max: 160 * time.Second}
	}
	return Backoff{Initial: 30 * time.Second, Max: 8 * time.Minute}
}

// duration is the length of the mark made by the failures-th failure in a
// row: Initial × 2^(failures-1), at most Max.
func (b Backoff) duration(failures int) time.Duration {
	d := b.Initial
	for i := 1; i < failures && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

func (b Backoff) window() time.Duration {
	if b.Window == 0 {
		return b.Max
	}
	return b.Window
}

// MemoryOptions configures a Memory. The zero value means the defaults.
type MemoryOptions struct {
	// Size bounds the number of scopes remembered; the least recently
	// touched is forgotten first. Zero means DefaultMemorySize; at most
	// MaxMemorySize.
	Size int
	// Now is the clock marks are made and judged by. Nil means time.Now.
	// Marks run out lazily, when read; the Memory starts no goroutine.
	// Now is called outside the Memory's lock.
	Now func() time.Time
	// Backoff overrides DefaultBackoff per class; classes it lacks keep
	// the default.
	Backoff map[Class]Backoff
}

// Memory remembers which launches failed recently: errors go in (Observe,
// Record) and marks come out (Marks), each with its scope and deadline,
// with a back-off per scope that doubles on failures in a row, is capped,
// and is reset by a success in the scope. It is bounded (golang-lru's
// simplelru under the Memory's own lock, as capacity.Cache uses it) and
// safe for concurrent use.
type Memory struct {
	mu      sync.Mutex
	entries *simplelru.LRU[scopeKey, Mark]
	now     func() time.Time
	backoff [Unknown + 1]Backoff // by class
	size    int
}

// NewMemory returns an empty Memory, or an error naming the bad option.
func NewMemory(o MemoryOptions) (*Memory, error) {
	if o.Size < 0 || o.Size > MaxMemorySize {
		return nil, fmt.Errorf("offerings: MemoryOptions.Size is %d; use a size from 1 to %d, or 0 for the default of %d", o.Size, MaxMemorySize, DefaultMemorySize)
	}
	var backoff [Unknown + 1]Backoff
	for c := OfferingUnavailable; c <= Unknown; c++ {
		backoff[c] = DefaultBackoff(c)
	}
	for c, b := range o.Backoff {
		if c < OfferingUnavailable || c > Unknown {
			return nil, fmt.Errorf("offerings: MemoryOptions.Backoff names %s, which is no class", c)
		}
		if b.Initial <= 0 || b.Max < b.Initial || b.Window < 0 {
			return nil, fmt.Errorf("offerings: MemoryOptions.Backoff[%s] is %+v; use 0 < Initial <= Max and a Window of 0 (meaning Max) or more", c, b)
		}
		backoff[c] = b
	}
	if o.Size == 0 {
		o.Size = DefaultMemorySize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	entries, _ := simplelru.NewLRU[scopeKey, Mark](o.Size, nil) // size checked above: golang-lru's only condition
	return &Memory{entries: entries, now: o.Now, backoff: backoff, size: o.Size}, nil
}

// Failure is one failed launch of one offering: the offering, the subnet
// the launch used (if known), and EC2's error.
type Failure struct {
	Offering Offering `json:"offering"`
	SubnetID string   `json:"subnetID,omitempty"`
	Code     string   `json:"code"`
	Message  string   `json:"message,omitempty"`
}

// Classification classifies f's code.
func (f Failure) Classification() Classification { return Classify(f.Code) }

// Observe records one failure and returns the mark that now holds for its
// scope, or false when its class makes no mark (Configuration: the request
// is wrong, and no waiting fixes it). A failure while its scope is still
// marked belongs to the same episode (launches already under way when the
// first failed) and leaves the mark as it is; the first failure after the
// mark ran out doubles the back-off.
func (m *Memory) Observe(f Failure) (Mark, bool) {
	c := Classify(f.Code)
	if c.Class == Configuration {
		return Mark{}, false
	}
	key := scopeFor(c.Scope, f.Offering, f.SubnetID)
	b := m.backoff[c.Class]
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	failures := 1
	if prev, ok := m.entries.Get(key); ok {
		switch {
		case prev.Live(now):
			return prev, true
		case now.Before(prev.Deadline.Add(m.backoff[prev.Class].window())):
			failures = prev.Failures + 1
		}
	}
	mark := Mark{
		Scope: key.scope, InstanceType: key.instanceType, Zone: key.zone, CapacityType: key.capacityType,
		ReservationID: key.reservationID, SubnetID: key.subnetID,
		Code: f.Code, Class: c.Class, Message: f.Message, Failures: failures, Since: now, Deadline: now.Add(b.duration(failures)),
	}
	if key.scope == ScopeSubnet {
		mark.Zone = f.Offering.Zone // where the subnet is, for the reader
	}
	m.entries.Add(key, mark)
	return mark, true
}

// Succeeded records that o launched (in subnet, if known): every scope
// that covers it, from the offering to the account, is cleared and its
// back-off starts over.
func (m *Memory) Succeeded(o Offering, subnet string) {
	keys := []scopeKey{
		offeringScope(o),
		scopeFor(ScopeTypeCapacityType, o, ""),
		scopeFor(ScopeCapacityType, o, ""),
		scopeFor(ScopeZone, o, ""),
		scopeFor(ScopeAccount, o, ""),
	}
	if subnet != "" {
		keys = append(keys, scopeFor(ScopeSubnet, o, subnet))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		m.entries.Remove(k)
	}
}

// Record observes an Outcome: the launches first, so that each clears
// what it disproves, then the failures, which mark what this launch
// found out. It returns the marks that hold afterwards for the failures'
// scopes, sorted.
func (m *Memory) Record(o Outcome) []Mark {
	for _, l := range o.Launched {
		m.Succeeded(l.Offering, l.SubnetID)
	}
	var marks []Mark
	for _, f := range o.Failures {
		if mark, ok := m.Observe(f); ok && !slices.ContainsFunc(marks, func(x Mark) bool { return x.key() == mark.key() }) {
			marks = append(marks, mark)
		}
	}
	slices.SortFunc(marks, compareMarks)
	return marks
}

// Marks returns the marks that hold now, sorted by scope and what they
// name. Scopes whose memory has run out are forgotten as they are read.
func (m *Memory) Marks() []Mark {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Mark
	for _, k := range m.entries.Keys() {
		mark, _ := m.entries.Peek(k)
		if !now.Before(mark.Deadline.Add(m.backoff[mark.Class].window())) {
			m.entries.Remove(k)
			continue
		}
		if mark.Live(now) {
			out = append(out, mark)
		}
	}
	slices.SortFunc(out, compareMarks)
	return out
}

// Len returns the number of scopes remembered: those marked now and those
// whose failures still count towards the next back-off.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.entries.Len()
}
