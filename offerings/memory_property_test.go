package offerings

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// memoryModel is a naive model of Memory: a map of scopes, each with its
// last mark, judged by the rules as the documentation states them.
type memoryModel struct {
	now   time.Time
	marks map[scopeKey]Mark
}

var (
	propertyOfferings = []Offering{spotA, spotB, odA, c5A,
		{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: Reserved, Reservation: &Reservation{ID: "cr-1", Type: ReservationDefault, Total: 1, Available: 1}}}
	propertyCodes = []string{"InsufficientInstanceCapacity", "VcpuLimitExceeded", "InsufficientFreeAddressesInSubnet", "RequestLimitExceeded",
		"InternalError", "AuthFailure.ServiceLinkedRoleCreationNotPermitted", "InvalidAMIID.NotFound", "NeverHeardOf"}
)

func (mm *memoryModel) observe(f Failure) (Mark, bool) {
	c := Classify(f.Code)
	if c.Class == Configuration {
		return Mark{}, false
	}
	key := scopeFor(c.Scope, f.Offering, f.SubnetID)
	failures := 1
	if prev, ok := mm.marks[key]; ok {
		if mm.now.Before(prev.Deadline) {
			return prev, true
		}
		if mm.now.Before(prev.Deadline.Add(DefaultBackoff(prev.Class).window())) {
			failures = prev.Failures + 1
		}
	}
	b := DefaultBackoff(c.Class)
	d := b.Initial
	for range failures - 1 {
		d = min(d*2, b.Max)
	}
	mark := Mark{Scope: key.scope, InstanceType: key.instanceType, Zone: key.zone, CapacityType: key.capacityType, ReservationID: key.reservationID,
		SubnetID: key.subnetID, Code: f.Code, Class: c.Class, Message: f.Message, Failures: failures, Since: mm.now, Deadline: mm.now.Add(d)}
	if key.scope == ScopeSubnet {
		mark.Zone = f.Offering.Zone
	}
	mm.marks[key] = mark
	return mark, true
}

func (mm *memoryModel) succeeded(o Offering, subnet string) {
	for k := range mm.marks {
		m := mm.marks[k]
		if m.Covers(o) || (m.Scope == ScopeSubnet && subnet != "" && m.SubnetID == subnet) {
			delete(mm.marks, k)
		}
	}
}

func (mm *memoryModel) live() []Mark {
	var out []Mark
	for _, m := range mm.marks {
		if m.Live(mm.now) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, compareMarks)
	return out
}

// Memory agrees with the naive model under any sequence of failures,
// successes and clock moves; every mark it lists holds (its deadline is
// after now), so a mark never outlives its deadline; each mark lasts
// Initial × 2^(failures-1), capped; and a success starts the back-off
// over.
func TestMemoryMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		clock := &fakeClock{now: t0}
		m, err := NewMemory(MemoryOptions{Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		model := &memoryModel{now: t0, marks: map[scopeKey]Mark{}}
		subnet := rapid.SampledFrom([]string{"", "subnet-1", "subnet-2"})
		t.Repeat(map[string]func(*rapid.T){
			"observe": func(t *rapid.T) {
				f := Failure{Offering: rapid.SampledFrom(propertyOfferings).Draw(t, "offering"), Code: rapid.SampledFrom(propertyCodes).Draw(t, "code"),
					SubnetID: subnet.Draw(t, "subnet")}
				got, gotOK := m.Observe(f)
				want, wantOK := model.observe(f)
				if gotOK != wantOK || !cmp.Equal(got, want) {
					t.Fatalf("Observe(%+v) = %v, %t; the model says %v, %t", f, got, gotOK, want, wantOK)
				}
				if ok := gotOK; ok {
					b := DefaultBackoff(got.Class)
					if d := got.Deadline.Sub(got.Since); d != b.duration(got.Failures) || d > b.Max || got.Failures < 1 {
						t.Fatalf("mark %s lasts %s for failure %d", got, d, got.Failures)
					}
				}
			},
			"succeed": func(t *rapid.T) {
				o, s := rapid.SampledFrom(propertyOfferings).Draw(t, "offering"), subnet.Draw(t, "subnet")
				m.Succeeded(o, s)
				model.succeeded(o, s)
				if mark, ok := m.Observe(Failure{Offering: o, Code: "InsufficientInstanceCapacity"}); !ok || mark.Failures != 1 {
					t.Fatalf("after a success, the offering's next failure is %v; want failure 1", mark)
				}
				model.observe(Failure{Offering: o, Code: "InsufficientInstanceCapacity"})
			},
			"advance": func(t *rapid.T) {
				d := rapid.SampledFrom([]time.Duration{time.Nanosecond, time.Second, time.Minute, 3 * time.Minute, time.Hour, 3 * time.Hour}).Draw(t, "by")
				// Land exactly on a deadline, or just before it, now and then.
				if live := model.live(); len(live) > 0 && rapid.Bool().Draw(t, "to a deadline") {
					target := rapid.SampledFrom(live).Draw(t, "mark").Deadline
					d = target.Sub(clock.now) - rapid.SampledFrom([]time.Duration{0, time.Nanosecond}).Draw(t, "minus")
				}
				clock.Advance(d)
				model.now = clock.now
			},
			"": func(t *rapid.T) {
				got := m.Marks()
				for _, mark := range got {
					if !mark.Deadline.After(clock.now) {
						t.Fatalf("Marks() at %s lists %s, whose deadline has passed", clock.now, mark)
					}
				}
				if diff := cmp.Diff(model.live(), got); diff != "" {
					t.Fatalf("marks at %s (-model +memory):\n%s", clock.now, diff)
				}
			},
		})
	})
}
