package capacity

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
)

func BenchmarkMemory(b *testing.B) {
	c, _ := New(Options{})
	tt := testTypes[0]
	if _, err := c.Observe(Observation{NodeLabels: labelsOf(tt.it), ImageID: tt.ami, MemoryBytes: 1 << 33}, testAMIs()); err != nil {
		b.Fatal(err)
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := c.Memory("m5.large", "ami-std"); !ok {
				b.Fatal("miss")
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, ok := c.Memory("m5.large", "ami-std"); !ok {
					b.Fatal("miss")
				}
			}
		})
	})
}

func TestMemoryAllocs(t *testing.T) {
	c, _ := New(Options{TTL: 1 << 40})
	tt := testTypes[0]
	if _, err := c.Observe(Observation{NodeLabels: labelsOf(tt.it), ImageID: tt.ami, MemoryBytes: 1 << 33}, testAMIs()); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { c.Memory("m5.large", "ami-std") }); n != 0 {
		t.Errorf("Memory allocates %v times per call; want 0", n)
	}
}

func BenchmarkObserve(b *testing.B) {
	c, _ := New(Options{})
	amis := testAMIs()
	labels := labelsOf(testTypes[3].it) // g4dn: matched against the second AMI
	labels[compat.LabelHostname] = "ip-10-0-0-1"
	labels[compat.LabelCapacityType] = "spot"
	labels[compat.LabelNodePool] = "default"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Observe(Observation{NodeLabels: labels, ImageID: "ami-nvidia", MemoryBytes: 1 << 34}, amis); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApply(b *testing.B) {
	var types []compat.InstanceType
	for i := range 800 {
		tt := testTypes[i%len(testTypes)]
		it := tt.it
		it.Name = fmt.Sprintf("%s-%d", it.Name, i)
		types = append(types, it)
	}
	c, _ := New(Options{})
	m := amiselect.Map(types, testAMIs())
	for _, g := range m.Groups {
		for i, it := range g.InstanceTypes {
			if i%2 == 0 { // half the types have a learned figure
				c.entries.Add(key{it.Name, g.AMI.ID}, record{memory: 1 << 33})
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if got := c.Apply(m); len(got) != 800 {
			b.Fatalf("Apply returned %d types", len(got))
		}
	}
}

// bigCache returns a Cache of n entries: 500 instance types under n/500
// AMIs, observed over the last day, as a controller of a large fleet
// might hold.
func bigCache(tb testing.TB, n int, now func() time.Time) *Cache {
	c, err := New(Options{Size: n, TTL: 60 * 24 * time.Hour, Now: now})
	if err != nil {
		tb.Fatal(err)
	}
	base := now().Unix()
	for i := range n {
		k := key{fmt.Sprintf("m%dg.%dxlarge", i%7, i%500), fmt.Sprintf("ami-%017x", i/500)}
		c.entries.Add(k, record{memory: 1<<33 - int64(i)<<10, observed: base - int64(i%86_400)})
	}
	return c
}

func BenchmarkSnapshot(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := bigCache(b, n, fixedClock)
			runtime.GC() // so that the first iterations do not pay for bigCache's garbage
			b.ReportAllocs()
			var size int
			for b.Loop() {
				s, err := c.Snapshot()
				if err != nil {
					b.Fatal(err)
				}
				size = len(s)
			}
			b.ReportMetric(float64(size)/float64(n), "bytes/entry")
		})
	}
}

// BenchmarkMerge merges a snapshot into an empty Cache (a restart, with
// nothing else of size alive) and into one that holds the same figures (a
// replica's periodic exchange).
func BenchmarkMerge(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		snap, err := bigCache(b, n, fixedClock).Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		opts := Options{Size: n, TTL: 60 * 24 * time.Hour, Now: fixedClock}
		runtime.GC() // so that the first iterations do not pay for bigCache's garbage
		b.Run(fmt.Sprintf("empty/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c, _ := New(opts)
				if err := c.Merge(snap); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("same/%d", n), func(b *testing.B) {
			c, _ := New(opts)
			if err := c.Merge(snap); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			b.ReportAllocs()
			for b.Loop() {
				if err := c.Merge(snap); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func fixedClock() time.Time { return time.Unix(1_763_820_000, 0) }
