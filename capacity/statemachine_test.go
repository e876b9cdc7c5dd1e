package capacity

import (
	"slices"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
)

// model is a naive reference for Cache: a map and a recency list.
type model struct {
	size    int
	ttl     time.Duration
	entries map[key]modelEntry
	recency []key // least recent first
}

type modelEntry struct {
	memory  int64
	expires time.Time // zero: never
}

func (m *model) touch(k key) {
	m.recency = slices.DeleteFunc(m.recency, func(x key) bool { return x == k })
	m.recency = append(m.recency, k)
}

func (m *model) memory(k key, now time.Time) (int64, bool) {
	r, ok := m.entries[k]
	if !ok {
		return 0, false
	}
	if m.ttl > 0 && !now.Before(r.expires) {
		delete(m.entries, k)
		m.recency = slices.DeleteFunc(m.recency, func(x key) bool { return x == k })
		return 0, false
	}
	m.touch(k)
	return r.memory, true
}

func (m *model) observe(k key, mem int64, now time.Time) bool {
	if old, ok := m.entries[k]; ok && (m.ttl == 0 || now.Before(old.expires)) && old.memory < mem {
		return false
	}
	var expires time.Time
	if m.ttl > 0 {
		expires = now.Add(m.ttl)
	}
	if _, ok := m.entries[k]; !ok && len(m.entries) == m.size {
		delete(m.entries, m.recency[0])
		m.recency = m.recency[1:]
	}
	m.entries[k] = modelEntry{memory: mem, expires: expires}
	m.touch(k)
	return true
}

// TestStateMachine drives a Cache and the model with the same random
// observations, lookups, resets, clock advances and size pressure.
func TestStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		clk := &clock{t: time.Unix(1_700_000_000, 0)}
		size := rapid.IntRange(1, 4).Draw(t, "size")
		ttl := time.Duration(rapid.IntRange(0, 3).Draw(t, "ttlHours")) * time.Hour
		c, err := New(Options{Size: size, TTL: ttl, Now: clk.now})
		if err != nil {
			t.Fatal(err)
		}
		m := &model{size: size, ttl: ttl, entries: map[key]modelEntry{}}
		amis := testAMIs()
		t.Repeat(map[string]func(*rapid.T){
			"observe": func(t *rapid.T) {
				tt := rapid.SampledFrom(testTypes).Draw(t, "type")
				image := rapid.SampledFrom([]string{tt.ami, tt.ami, "ami-std", "ami-nvidia", "ami-other"}).Draw(t, "image")
				mem := rapid.Int64Range(1, 5).Draw(t, "memory")
				got, err := c.Observe(Observation{NodeLabels: labelsOf(tt.it), ImageID: image, MemoryBytes: mem}, amis)
				if image != tt.ami {
					if got || err == nil {
						t.Fatalf("Observe(%s on %s) = %v, %v; want a refusal", tt.it.Name, image, got, err)
					}
					return
				}
				if want := m.observe(key{tt.it.Name, image}, mem, clk.now()); got != want || err != nil {
					t.Fatalf("Observe(%s, %d) = %v, %v; model says %v", tt.it.Name, mem, got, err, want)
				}
			},
			"memory": func(t *rapid.T) {
				tt := rapid.SampledFrom(testTypes).Draw(t, "type")
				k := key{tt.it.Name, tt.ami}
				got, ok := c.Memory(k.instanceType, k.amiID)
				want, wantOK := m.memory(k, clk.now())
				if got != want || ok != wantOK {
					t.Fatalf("Memory(%v) = %d, %v; model says %d, %v", k, got, ok, want, wantOK)
				}
			},
			"reset": func(t *rapid.T) {
				c.Reset()
				m.entries, m.recency = map[key]modelEntry{}, nil
			},
			"advance": func(t *rapid.T) {
				clk.advance(time.Duration(rapid.IntRange(1, 90).Draw(t, "minutes")) * time.Minute)
			},
			"": func(t *rapid.T) {
				if got := c.Stats().Len; got != len(m.entries) {
					t.Fatalf("cache holds %d entries; model %d", got, len(m.entries))
				}
			},
		})
	})
}

// TestConcurrentUse runs Observe, Memory, Apply, Snapshot and Merge from
// many goroutines; under -race it checks the locking, and after it the
// minimum must win.
func TestConcurrentUse(t *testing.T) {
	c, _ := New(Options{TTL: time.Hour})
	amis := testAMIs()
	var types []compat.InstanceType
	for _, tt := range testTypes {
		types = append(types, tt.it)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				tt := testTypes[(g+i)%len(testTypes)]
				mem := int64(1000 + (g*200+i)%500)
				if _, err := c.Observe(Observation{NodeLabels: labelsOf(tt.it), ImageID: tt.ami, MemoryBytes: mem}, amis); err != nil {
					t.Error(err)
					return
				}
				c.Memory(tt.it.Name, tt.ami)
				if i%50 == 0 {
					_ = c.Apply(mapOf(types))
				}
				if i%40 == 0 {
					s, err := c.Snapshot()
					if err == nil {
						err = c.Merge(s)
					}
					if err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, tt := range testTypes {
		if got, ok := c.Memory(tt.it.Name, tt.ami); !ok || got != 1000 {
			t.Errorf("Memory(%s) = %d, %v; want the minimum, 1000", tt.it.Name, got, ok)
		}
	}
}
