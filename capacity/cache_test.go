package capacity

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
)

func arch(a string) compat.Requirements {
	return compat.MustRequirements(compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{a}})
}

// testAMIs are a standard and an NVIDIA AMI for amd64 and a standard one
// for arm64, NVIDIA first as in #7925.
func testAMIs() []amiselect.AMI {
	return []amiselect.AMI{
		{ID: "ami-nvidia", Name: "nvidia-x86_64", Arch: compat.ArchAMD64, Variant: amiselect.NVIDIA, Requirements: amiselect.NVIDIA.Requirements().Intersect(arch(compat.ArchAMD64))},
		{ID: "ami-std", Name: "standard-x86_64", Arch: compat.ArchAMD64, Variant: amiselect.Standard, Requirements: amiselect.Standard.Requirements().Intersect(arch(compat.ArchAMD64))},
		{ID: "ami-arm", Name: "standard-aarch64", Arch: compat.ArchARM64, Variant: amiselect.Standard, Requirements: amiselect.Standard.Requirements().Intersect(arch(compat.ArchARM64))},
	}
}

// testTypes are instance types and the AMI each maps to under testAMIs.
var testTypes = []struct {
	it  compat.InstanceType
	ami string
}{
	{compat.InstanceType{Name: "m5.large", Family: "m5", Category: "m", Generation: 5, Size: "large", Arch: compat.ArchAMD64, VCPU: 2, MemoryMiB: 8192}, "ami-std"},
	{compat.InstanceType{Name: "c5.xlarge", Family: "c5", Category: "c", Generation: 5, Size: "xlarge", Arch: compat.ArchAMD64, VCPU: 4, MemoryMiB: 8192}, "ami-std"},
	{compat.InstanceType{Name: "m6g.large", Family: "m6g", Category: "m", Generation: 6, Size: "large", Arch: compat.ArchARM64, VCPU: 2, MemoryMiB: 8192}, "ami-arm"},
	{compat.InstanceType{Name: "g4dn.xlarge", Family: "g4dn", Category: "g", Generation: 4, Size: "xlarge", Arch: compat.ArchAMD64, VCPU: 4, MemoryMiB: 16384,
		GPUCount: 1, GPUManufacturer: "nvidia", GPUName: "t4", GPUMemoryMiB: 16384}, "ami-nvidia"},
}

func labelsOf(it compat.InstanceType) map[string]string {
	l := it.Labels()
	l[compat.LabelOS] = compat.OSLinux
	l[compat.LabelZone] = "us-east-1a"
	return l
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestNewValidates(t *testing.T) {
	for _, o := range []Options{{Size: -1}, {Size: MaxSize + 1}, {TTL: -time.Second}} {
		if _, err := New(o); err == nil || !strings.HasPrefix(err.Error(), "capacity: Options.") {
			t.Errorf("New(%+v) = %v; want an error naming the option", o, err)
		}
	}
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Memory("m5.large", "ami-std"); ok {
		t.Error("a new cache must be empty")
	}
}

func TestObserveRefusals(t *testing.T) {
	c, _ := New(Options{})
	m5 := labelsOf(testTypes[0].it)
	m5[compat.LabelHostname] = "ip-10-0-0-9"
	noType := labelsOf(testTypes[0].it)
	delete(noType, compat.LabelInstanceType)
	arm := labelsOf(testTypes[2].it)
	tests := []struct {
		name string
		o    Observation
		amis []amiselect.AMI
		want error
		text string
	}{
		{"no instance type", Observation{NodeLabels: noType, ImageID: "ami-std", MemoryBytes: 1}, testAMIs(), ErrNoInstanceType, "instance-type label"},
		{"zero memory", Observation{NodeLabels: m5, ImageID: "ami-std"}, testAMIs(), ErrInvalidMemory, "node ip-10-0-0-9 reports 0 bytes"},
		{"negative memory", Observation{NodeLabels: m5, ImageID: "ami-std", MemoryBytes: -5}, testAMIs(), ErrInvalidMemory, "-5 bytes"},
		{"no image", Observation{NodeLabels: m5, MemoryBytes: 1}, testAMIs(), ErrNoImage, "no image ID"},
		{"unknown image", Observation{NodeLabels: m5, ImageID: "ami-gone", MemoryBytes: 1}, testAMIs(), ErrUnknownImage, "runs ami-gone"},
		{"empty list", Observation{NodeLabels: m5, ImageID: "ami-std", MemoryBytes: 1}, nil, ErrUnknownImage, "none of the 0 selected AMIs"},
		{"not the mapping", Observation{NodeLabels: m5, ImageID: "ami-nvidia", MemoryBytes: 1}, testAMIs(), ErrNotMapped, "m5.large maps to ami-std"},
		{"nothing compatible", Observation{NodeLabels: arm, ImageID: "ami-std", MemoryBytes: 1}, testAMIs()[:2], ErrNoCompatible, "kubernetes.io/arch"},
	}
	for _, tt := range tests {
		ok, err := c.Observe(tt.o, tt.amis)
		if ok || !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) || !strings.HasPrefix(err.Error(), "capacity: ") {
			t.Errorf("%s: Observe = %v, %v; want false and an error wrapping %v containing %q", tt.name, ok, err, tt.want, tt.text)
		}
	}
	if st := c.Stats(); st.Refused != int64(len(tests)) || st.Recorded != 0 || st.Len != 0 {
		t.Errorf("Stats = %+v; want %d refused and nothing stored", st, len(tests))
	}
}

func TestObserveKeepsMinimumAndExpires(t *testing.T) {
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c, _ := New(Options{TTL: time.Hour, Now: clk.now})
	m5 := labelsOf(testTypes[0].it)
	observe := func(mem int64) bool {
		t.Helper()
		ok, err := c.Observe(Observation{NodeLabels: m5, ImageID: "ami-std", MemoryBytes: mem}, testAMIs())
		if err != nil {
			t.Fatalf("Observe(%d): %v", mem, err)
		}
		return ok
	}
	memory := func() int64 {
		got, _ := c.Memory("m5.large", "ami-std")
		return got
	}
	if !observe(800) || memory() != 800 {
		t.Fatalf("first observation not stored: %d", memory())
	}
	if observe(900) || memory() != 800 {
		t.Errorf("a higher figure replaced the minimum: %d", memory())
	}
	if !observe(700) || memory() != 700 {
		t.Errorf("a lower figure did not replace the minimum: %d", memory())
	}
	clk.advance(50 * time.Minute)
	if !observe(700) {
		t.Error("an equal figure must refresh the TTL")
	}
	clk.advance(50 * time.Minute) // 100 minutes after 700 was first seen, 50 after the refresh
	if memory() != 700 {
		t.Error("the refreshed entry expired early")
	}
	clk.advance(10 * time.Minute)
	if _, ok := c.Memory("m5.large", "ami-std"); ok {
		t.Error("the entry outlived its TTL")
	}
	if !observe(900) || memory() != 900 {
		t.Errorf("after expiry a fresh figure must be stored: %d", memory())
	}
	if st := c.Stats(); st.Expired != 1 || st.Len != 1 {
		t.Errorf("Stats = %+v; want 1 expired, 1 held", st)
	}
}

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	c, _ := New(Options{Size: 2})
	for _, tt := range testTypes[:3] {
		if ok, err := c.Observe(Observation{NodeLabels: labelsOf(tt.it), ImageID: tt.ami, MemoryBytes: 1 << 30}, testAMIs()); !ok || err != nil {
			t.Fatalf("Observe(%s): %v, %v", tt.it.Name, ok, err)
		}
		if tt.it.Name == "c5.xlarge" {
			c.Memory("m5.large", "ami-std") // m5 becomes the most recent
		}
	}
	if _, ok := c.Memory("c5.xlarge", "ami-std"); ok {
		t.Error("c5.xlarge, the least recently used, should have been evicted")
	}
	for _, k := range []struct{ it, ami string }{{"m5.large", "ami-std"}, {"m6g.large", "ami-arm"}} {
		if _, ok := c.Memory(k.it, k.ami); !ok {
			t.Errorf("%s was evicted; it was used more recently", k.it)
		}
	}
	if st := c.Stats(); st.Evictions != 1 || st.Len != 2 {
		t.Errorf("Stats = %+v; want 1 eviction, 2 held", st)
	}
}

func TestApply(t *testing.T) {
	c, _ := New(Options{})
	var types []compat.InstanceType
	for _, tt := range testTypes {
		types = append(types, tt.it)
	}
	m := amiselect.Map(types, testAMIs())
	if _, err := c.Observe(Observation{NodeLabels: labelsOf(testTypes[0].it), ImageID: "ami-std", MemoryBytes: 7_900 << 20}, testAMIs()); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Type, AMI string
		Memory    int64
		Learned   bool
	}
	var got []row
	for _, cp := range c.Apply(m) {
		got = append(got, row{cp.InstanceType.Name, cp.AMI.ID, cp.MemoryBytes, cp.Learned})
		for _, tt := range testTypes {
			if tt.it.Name == cp.InstanceType.Name {
				if diff := cmp.Diff(tt.it, cp.InstanceType); diff != "" {
					t.Errorf("Apply changed %s (-want +got):\n%s", tt.it.Name, diff)
				}
			}
		}
	}
	// Groups in AMI order (nvidia, std, arm), types in input order.
	want := []row{
		{"g4dn.xlarge", "ami-nvidia", 0, false},
		{"m5.large", "ami-std", 7_900 << 20, true},
		{"c5.xlarge", "ami-std", 0, false},
		{"m6g.large", "ami-arm", 0, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Apply (-want +got):\n%s", diff)
	}
}

func mapOf(types []compat.InstanceType) amiselect.Mapping { return amiselect.Map(types, testAMIs()) }

// TestNowOutsideTheLock: Options.Now is the caller's code, so the Cache
// reads it before taking its lock; a clock that looks at the Cache (here,
// its Stats) must not deadlock it.
func TestNowOutsideTheLock(t *testing.T) {
	var c *Cache
	c, _ = New(Options{TTL: time.Hour, Now: func() time.Time {
		_ = c.Stats()
		return epoch
	}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tt := testTypes[0]
		if _, err := c.Observe(Observation{NodeLabels: labelsOf(tt.it), ImageID: tt.ami, MemoryBytes: 1 << 30}, testAMIs()); err != nil {
			t.Error(err)
		}
		c.Memory(tt.it.Name, tt.ami)
		s, err := c.Snapshot()
		if err == nil {
			err = c.Merge(s)
		}
		if err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the Cache deadlocked on a clock that reads it")
	}
}

// TestReset: Reset empties the cache and zeroes its counters, and keeps
// its options: the size bound, the TTL and the clock.
func TestReset(t *testing.T) {
	clk := &clock{t: epoch}
	c, _ := New(Options{Size: 2, TTL: time.Hour, Now: clk.now})
	observeAll := func() {
		t.Helper()
		for _, tt := range testTypes[:3] {
			if _, err := c.Observe(Observation{NodeLabels: labelsOf(tt.it), ImageID: tt.ami, MemoryBytes: 1 << 30}, testAMIs()); err != nil {
				t.Fatal(err)
			}
		}
	}
	observeAll()
	c.Memory("m6g.large", "ami-arm")
	c.Memory("m5.large", "ami-std") // evicted: a miss
	c.Reset()
	if diff := cmp.Diff(Stats{}, c.Stats()); diff != "" {
		t.Errorf("Stats after Reset (-want +got):\n%s", diff)
	}
	if _, ok := c.Memory("m6g.large", "ami-arm"); ok {
		t.Error("an entry outlived Reset")
	}
	observeAll() // Size is still 2
	clk.advance(time.Hour)
	c.Memory("m6g.large", "ami-arm") // TTL is still an hour, on the same clock
	want := Stats{Misses: 2, Evictions: 1, Expired: 1, Recorded: 3, Len: 1}
	if diff := cmp.Diff(want, c.Stats()); diff != "" {
		t.Errorf("Stats after Reset and reuse (-want +got):\n%s", diff)
	}
}

// TestResetIsAtomic resets a cache while another goroutine merges one
// snapshot of 10,000 entries into it over and over: every look between
// them must see all of the snapshot or none of it. (A merge long enough
// that the resetter waits over a millisecond gets the lock handed over at
// the first chance a merge gives up the lock.) Under -race it also checks
// the locking.
func TestResetIsAtomic(t *testing.T) {
	const n = 10_000
	src, _ := New(Options{Now: func() time.Time { return epoch }})
	for i := range n {
		put(src, fact{fmt.Sprintf("m5.%dxlarge", i), "ami-0a", 1 << 30, epoch.Unix()}, epoch)
	}
	s := snapshot(t, src)
	c, _ := New(Options{Now: func() time.Time { return epoch }})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 20 {
			if err := c.Merge(s); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		c.Reset()
		if st := c.Stats(); st.Len != 0 && st.Len != n || st.Merged != 0 && st.Merged != n {
			t.Fatalf("Stats = %+v after a Reset; want none or all of the snapshot's %d entries", st, n)
		}
	}
}
