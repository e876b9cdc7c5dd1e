package offerings

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ec2select/ec2select/ec2fake"
)

var benchNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// benchRegion is the size: every catalog instance type (1,366) in
// six zones, each offered as spot and on-demand everywhere and with a
// reservation per type and zone: 1,366 × 6 × 3 offerings.
func benchRegion(tb testing.TB) Region {
	tb.Helper()
	_, infos := ec2fake.DefaultCatalog()
	r := Region{Name: "us-east-1", Offered: map[string][]string{}}
	for i := range 6 {
		r.Zones = append(r.Zones, Zone{Name: fmt.Sprintf("us-east-1%c", 'a'+i), ID: fmt.Sprintf("use1-az%d", i+1), Type: AvailabilityZone, OptInStatus: OptInNotRequired, State: "available"})
	}
	for _, info := range infos {
		r.InstanceTypes = append(r.InstanceTypes, string(info.InstanceType))
	}
	for _, z := range r.Zones {
		r.Offered[z.Name] = slices.Clone(r.InstanceTypes)
		for _, t := range r.InstanceTypes {
			r.Reserved = append(r.Reserved, Offering{InstanceType: t, Zone: z.Name, CapacityType: Reserved,
				Reservation: &Reservation{ID: fmt.Sprintf("cr-%s%s", z.ID[5:], t[:1]) + fmt.Sprint(len(r.Reserved)), Type: ReservationDefault, Total: 2, Available: 1}})
		}
	}
	slices.SortFunc(r.Reserved, Compare) // as Load returns them
	return r
}

// benchMarks are n marks made the way a Memory makes them: 95% capacity
// errors on single offerings, the rest spot quota errors per type, from a
// fixed seed.
func benchMarks(tb testing.TB, r Region, n int) []Mark {
	tb.Helper()
	m, err := NewMemory(MemoryOptions{Now: func() time.Time { return benchNow }})
	if err != nil {
		tb.Fatal(err)
	}
	offerings := r.Offerings()
	rng := rand.New(rand.NewPCG(35, 9616))
	for m.Len() < n {
		o := offerings[rng.IntN(len(offerings))]
		code := "InsufficientInstanceCapacity"
		if rng.IntN(20) == 0 && o.CapacityType == Spot {
			code = "MaxSpotInstanceCountExceeded"
		}
		m.Observe(Failure{Offering: o, Code: code})
	}
	marks := m.Marks()
	if len(marks) != n {
		tb.Fatalf("%d marks, want %d", len(marks), n)
	}
	return marks
}

func BenchmarkAssess(b *testing.B) {
	r := benchRegion(b)
	marks := benchMarks(b, r, 1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Assess(r, marks, benchNow); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObserve records one capacity error in a memory holding 1,000
// marks: /fresh on an offering whose mark has run out (a new mark is made
// and stored: the clock moves on an hour each time), /same on one that is
// still marked (the mark is returned as it is).
func BenchmarkObserve(b *testing.B) {
	r := benchRegion(b)
	offerings := r.Offerings()
	now := benchNow
	m, err := NewMemory(MemoryOptions{Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	for _, o := range offerings[:1000] {
		m.Observe(Failure{Offering: o, Code: "InsufficientInstanceCapacity"})
	}
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			now = now.Add(time.Hour)
			m.Observe(Failure{Offering: offerings[i%1000], Code: "InsufficientInstanceCapacity"})
			i++
		}
	})
	b.Run("same", func(b *testing.B) {
		b.ReportAllocs()
		f := Failure{Offering: offerings[0], Code: "InsufficientInstanceCapacity"}
		for b.Loop() {
			m.Observe(f)
		}
	})
}

// BenchmarkLoad reads us-east-1 from ec2fake's catalog over HTTP with a
// real *ec2.Client: 9 zones, 6,298 offerings by zone in 7 pages, and the
// reservations.
func BenchmarkLoad(b *testing.B) {
	srv := ec2fake.NewServer(ec2fake.NewWithCatalog(ec2fake.Options{}))
	b.Cleanup(srv.Close)
	client := ec2fake.NewClient(srv.URL)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(ctx, client, LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
