package offerings

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// fakeClock is a clock a test moves.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time          { return c.now }
func (c *fakeClock) Advance(d time.Duration) { c.now = c.now.Add(d) }

func newTestMemory(t testing.TB, o MemoryOptions) (*Memory, *fakeClock) {
	t.Helper()
	c := &fakeClock{now: t0}
	o.Now = c.Now
	m, err := NewMemory(o)
	if err != nil {
		t.Fatal(err)
	}
	return m, c
}

var (
	spotA = Offering{InstanceType: "m5.large", Zone: "us-east-1a", ZoneID: "use1-az2", CapacityType: Spot}
	spotB = Offering{InstanceType: "m5.large", Zone: "us-east-1b", ZoneID: "use1-az4", CapacityType: Spot}
	odA   = Offering{InstanceType: "m5.large", Zone: "us-east-1a", ZoneID: "use1-az2", CapacityType: OnDemand}
	c5A   = Offering{InstanceType: "c5.large", Zone: "us-east-1a", ZoneID: "use1-az2", CapacityType: Spot}
)

func TestNewMemoryRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    MemoryOptions
		want string
	}{
		{"negative size", MemoryOptions{Size: -1}, "MemoryOptions.Size is -1"},
		{"no class", MemoryOptions{Backoff: map[Class]Backoff{0: {Initial: time.Second, Max: time.Second}}}, "names Class(0), which is no class"},
		{"zero initial", MemoryOptions{Backoff: map[Class]Backoff{Throttled: {Max: time.Second}}}, "MemoryOptions.Backoff[throttled]"},
		{"max below initial", MemoryOptions{Backoff: map[Class]Backoff{Throttled: {Initial: 2 * time.Second, Max: time.Second}}}, "0 < Initial <= Max"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewMemory(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewMemory error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// Each failure that comes after the previous mark ran out doubles the
// back-off, up to the cap: 3, 6, 12, 24, 48, 48 minutes.
func TestBackoffDoublesToItsCap(t *testing.T) {
	m, c := newTestMemory(t, MemoryOptions{})
	var got []time.Duration
	for range 6 {
		mark, ok := m.Observe(Failure{Offering: spotA, Code: "InsufficientInstanceCapacity"})
		if !ok {
			t.Fatal("no mark")
		}
		got = append(got, mark.Deadline.Sub(mark.Since))
		c.now = mark.Deadline // retried the moment the mark runs out
	}
	want := []time.Duration{3 * time.Minute, 6 * time.Minute, 12 * time.Minute, 24 * time.Minute, 48 * time.Minute, 48 * time.Minute}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("back-off per failure (-want +got):\n%s", diff)
	}
}

func TestBackoff(t *testing.T) {
	ice := Failure{Offering: spotA, Code: "InsufficientInstanceCapacity"}
	for _, tc := range []struct {
		name  string
		steps func(m *Memory, c *fakeClock)
		want  time.Duration // the length of the mark the last Observe gives
		fails int
	}{
		{"first failure", func(m *Memory, c *fakeClock) {}, 3 * time.Minute, 1},
		{"a failure while marked is the same episode", func(m *Memory, c *fakeClock) {
			m.Observe(ice)
			c.Advance(time.Minute)
		}, 3 * time.Minute, 1},
		{"a success resets the back-off", func(m *Memory, c *fakeClock) {
			m.Observe(ice)
			c.Advance(3 * time.Minute)
			m.Observe(ice)
			c.Advance(6 * time.Minute)
			m.Succeeded(spotA, "")
		}, 3 * time.Minute, 1},
		{"a success of another zone leaves the offering's back-off", func(m *Memory, c *fakeClock) {
			m.Observe(ice)
			c.Advance(3 * time.Minute)
			m.Succeeded(spotB, "")
		}, 6 * time.Minute, 2},
		{"a failure after the window starts over", func(m *Memory, c *fakeClock) {
			m.Observe(ice)
			c.Advance(3*time.Minute + 48*time.Minute) // deadline + window (Max)
		}, 3 * time.Minute, 1},
		{"a failure just inside the window doubles", func(m *Memory, c *fakeClock) {
			m.Observe(ice)
			c.Advance(3*time.Minute + 48*time.Minute - time.Nanosecond)
		}, 6 * time.Minute, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, c := newTestMemory(t, MemoryOptions{})
			tc.steps(m, c)
			mark, _ := m.Observe(ice)
			if d := mark.Deadline.Sub(mark.Since); d != tc.want || mark.Failures != tc.fails {
				t.Errorf("mark %s: back-off %s, failure %d; want %s, %d", mark, d, mark.Failures, tc.want, tc.fails)
			}
		})
	}
}

// Each class marks its scope; a configuration error marks nothing; a
// subnet error without a subnet marks the zone.
func TestObserveScopes(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Failure
		want Mark // the fields naming the scope
		ok   bool
	}{
		{"capacity", Failure{Offering: spotA, Code: "InsufficientInstanceCapacity"},
			Mark{Scope: ScopeOffering, InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: Spot}, true},
		{"vCPU quota", Failure{Offering: odA, Code: "VcpuLimitExceeded"}, Mark{Scope: ScopeTypeCapacityType, InstanceType: "m5.large", CapacityType: OnDemand}, true},
		{"spot role", Failure{Offering: spotA, Code: "AuthFailure.ServiceLinkedRoleCreationNotPermitted"}, Mark{Scope: ScopeCapacityType, CapacityType: Spot}, true},
		{"subnet", Failure{Offering: spotA, SubnetID: "subnet-1", Code: "InsufficientFreeAddressesInSubnet"}, Mark{Scope: ScopeSubnet, Zone: "us-east-1a", SubnetID: "subnet-1"}, true},
		{"subnet unknown", Failure{Offering: spotA, Code: "InsufficientFreeAddressesInSubnet"}, Mark{Scope: ScopeZone, Zone: "us-east-1a"}, true},
		{"throttle", Failure{Offering: spotA, Code: "RequestLimitExceeded"}, Mark{Scope: ScopeAccount}, true},
		{"configuration", Failure{Offering: spotA, Code: "InvalidAMIID.NotFound"}, Mark{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newTestMemory(t, MemoryOptions{})
			mark, ok := m.Observe(tc.f)
			scope := Mark{Scope: mark.Scope, InstanceType: mark.InstanceType, Zone: mark.Zone, CapacityType: mark.CapacityType, ReservationID: mark.ReservationID, SubnetID: mark.SubnetID}
			if ok != tc.ok || scope != tc.want {
				t.Errorf("Observe = %+v, %t; want scope %+v, %t", mark, ok, tc.want, tc.ok)
			}
			if !ok && len(m.Marks()) != 0 {
				t.Errorf("a configuration error left marks: %v", m.Marks())
			}
		})
	}
}

// Marks lists what holds now; a mark ends exactly at its deadline, and a
// scope is forgotten once its window has passed.
func TestMarksExpire(t *testing.T) {
	m, c := newTestMemory(t, MemoryOptions{})
	ice, _ := m.Observe(Failure{Offering: spotA, Code: "InsufficientInstanceCapacity"}) // 3 minutes, remembered 48 more
	vcpu, _ := m.Observe(Failure{Offering: odA, Code: "VcpuLimitExceeded"})             // 5 minutes, remembered 80 more
	c.now = ice.Deadline.Add(-time.Nanosecond)
	if got := len(m.Marks()); got != 2 {
		t.Errorf("a nanosecond before the first deadline: %d marks, want 2", got)
	}
	c.now = ice.Deadline
	if got := m.Marks(); len(got) != 1 || got[0].Scope != ScopeTypeCapacityType {
		t.Errorf("at the first deadline: %v, want only the vCPU mark", got)
	}
	c.now = vcpu.Deadline
	if got := m.Marks(); len(got) != 0 || m.Len() != 2 {
		t.Errorf("at the second deadline: %v, Len %d; want no mark, 2 scopes still counting failures", got, m.Len())
	}
	c.now = ice.Deadline.Add(48 * time.Minute)
	if m.Marks(); m.Len() != 1 {
		t.Errorf("Len %d once the first window passed, want 1", m.Len())
	}
	c.now = vcpu.Deadline.Add(80 * time.Minute)
	if m.Marks(); m.Len() != 0 {
		t.Errorf("Len %d once both windows passed, want 0", m.Len())
	}
}

// The memory holds at most Size scopes, forgetting the least recently
// touched.
func TestMemoryBounded(t *testing.T) {
	m, _ := newTestMemory(t, MemoryOptions{Size: 2})
	for _, o := range []Offering{spotA, spotB, c5A} {
		m.Observe(Failure{Offering: o, Code: "InsufficientInstanceCapacity"})
	}
	var zones []string
	for _, mark := range m.Marks() {
		zones = append(zones, mark.InstanceType+" "+mark.Zone)
	}
	if diff := cmp.Diff([]string{"c5.large us-east-1a", "m5.large us-east-1b"}, zones); diff != "" {
		t.Errorf("marks kept (-want +got):\n%s", diff)
	}
}

// Record applies the launches first: a launch clears the scopes covering
// it, and the failures of the same answer mark theirs afterwards.
func TestRecord(t *testing.T) {
	m, _ := newTestMemory(t, MemoryOptions{})
	m.Observe(Failure{Offering: spotB, Code: "RequestLimitExceeded"}) // an account mark from before
	got := m.Record(Outcome{
		Launched: []Launched{{Offering: spotB, InstanceIDs: []string{"i-1"}}},
		Failures: []Failure{
			{Offering: spotA, Code: "InsufficientInstanceCapacity"},
			{Offering: spotA, Code: "InsufficientInstanceCapacity"},
			{Offering: odA, Code: "InvalidAMIID.NotFound"},
		},
	})
	if len(got) != 1 || got[0].Scope != ScopeOffering || got[0].Zone != "us-east-1a" {
		t.Errorf("Record = %v, want one mark on m5.large us-east-1a spot", got)
	}
	if marks := m.Marks(); len(marks) != 1 {
		t.Errorf("marks after Record: %v (the launch should have cleared the account mark)", marks)
	}
}

func TestMarkString(t *testing.T) {
	m, _ := newTestMemory(t, MemoryOptions{})
	mark, _ := m.Observe(Failure{Offering: spotA, Code: "InsufficientInstanceCapacity"})
	want := "InsufficientInstanceCapacity (offering-unavailable) for offering m5.large us-east-1a spot: not retried until 2026-11-01T12:03:00Z (failure 1 in a row, back-off 3m0s)"
	if got := mark.String(); got != want {
		t.Errorf("String() = %q\nwant        %q", got, want)
	}
}
