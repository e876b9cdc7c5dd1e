package capacity

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
)

// refSnapshot is a snapshot as encoding/json reads it: the reference the
// hand-written decoder is checked against.
type refSnapshot struct {
	Version int64
	Entries [][]json.RawMessage
	AMIs    []string
	Sum     string
}

// fact is an entry as the tests compare them.
type fact struct {
	Type, AMI        string
	Memory, Observed int64
}

// refDecode decodes a snapshot with encoding/json and checks its sum with
// hash/crc32, independently of decodeSnapshot.
func refDecode(data []byte) ([]fact, error) {
	var s refSnapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	if s.Version != SnapshotVersion {
		return nil, fmt.Errorf("version %d", s.Version)
	}
	h := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	var facts []fact
	for _, e := range s.Entries {
		var f fact
		var ami int64
		if len(e) != 4 {
			return nil, fmt.Errorf("entry of %d fields", len(e))
		}
		for i, dst := range []any{&f.Type, &ami, &f.Memory, &f.Observed} {
			if err := json.Unmarshal(e[i], dst); err != nil {
				return nil, err
			}
		}
		if ami < 0 || ami >= int64(len(s.AMIs)) {
			return nil, fmt.Errorf("AMI index %d", ami)
		}
		f.AMI = s.AMIs[ami]
		h.Write(append([]byte(f.Type), 0))
		for _, n := range []int64{ami, f.Memory, f.Observed} {
			h.Write(binary.BigEndian.AppendUint64(nil, uint64(n)))
		}
		facts = append(facts, f)
	}
	for _, id := range s.AMIs {
		h.Write(append([]byte(id), 0))
	}
	if want := fmt.Sprintf("%08x", h.Sum32()); s.Sum != want {
		return nil, fmt.Errorf("sum %s, want %s", s.Sum, want)
	}
	return facts, nil
}

// put joins r into c as Merge would at now.
func put(c *Cache, r record, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.join(r, now.Unix(), c.horizon(now))
}

// contents lists the live entries of c, sorted, without touching the LRU
// order.
func contents(c *Cache) []fact {
	var out []fact
	now := c.now()
	for r := range c.entries.oldestFirst() {
		if r.observed > c.horizon(now) {
			out = append(out, fact{r.instanceType, r.amiID, r.memory, r.observed})
		}
	}
	slices.SortFunc(out, func(a, b fact) int {
		return cmp.Or(strings.Compare(a.Type, b.Type), strings.Compare(a.AMI, b.AMI))
	})
	return out
}

// joinModel is the naive join: per key, the live entry with the least memory,
// then the latest time, with times ahead of now counted as now.
func joinModel(now time.Time, ttl time.Duration, inputs ...[]fact) []fact {
	best := map[[2]string]fact{}
	for _, in := range inputs {
		for _, f := range in {
			f.Observed = min(f.Observed, now.Unix())
			if ttl > 0 && !now.Before(time.Unix(f.Observed, 0).Add(ttl)) {
				continue
			}
			k := [2]string{f.Type, f.AMI}
			if old, ok := best[k]; !ok || f.Memory < old.Memory || f.Memory == old.Memory && f.Observed > old.Observed {
				best[k] = f
			}
		}
	}
	var out []fact
	for _, f := range best {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b fact) int {
		return cmp.Or(strings.Compare(a.Type, b.Type), strings.Compare(a.AMI, b.AMI))
	})
	return out
}

const ttl = 2 * time.Hour

var epoch = time.Unix(1_763_820_000, 0)

// drawSnapshot draws a replica's snapshot: a few of a small set of keys, so
// that replicas share keys, with memories that tie and times around epoch,
// some expired and some ahead of it (a replica whose clock runs ahead).
func drawSnapshot(t *rapid.T, label string) []byte {
	at := epoch.Add(time.Duration(rapid.IntRange(-3, 1).Draw(t, label+" clock")) * time.Hour)
	c, err := New(Options{Size: 100, TTL: ttl, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	for range rapid.IntRange(0, 8).Draw(t, label+" entries") {
		k := key{
			rapid.SampledFrom([]string{"m5.large", "c5.xlarge", "m6g.large"}).Draw(t, label+" type"),
			rapid.SampledFrom([]string{"ami-0a", "ami-0b"}).Draw(t, label+" ami"),
		}
		r := record{key: k, memory: rapid.Int64Range(1, 3).Draw(t, label+" memory"),
			observed: at.Unix() - rapid.Int64Range(0, 7200).Draw(t, label+" age")}
		put(c, r, at)
	}
	s, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// merged returns a Cache at epoch that has merged snapshots in order.
func merged(t interface{ Fatalf(string, ...any) }, size int, snapshots ...[]byte) *Cache {
	c, err := New(Options{Size: size, TTL: ttl, Now: func() time.Time { return epoch }})
	if err != nil {
		t.Fatalf("%v", err)
	}
	for i, s := range snapshots {
		if err := c.Merge(s); err != nil {
			t.Fatalf("Merge(snapshot %d): %v\n%s", i, err, s)
		}
	}
	return c
}

func snapshot(t interface{ Fatalf(string, ...any) }, c *Cache) []byte {
	s, err := c.Snapshot()
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	return s
}

// TestMergeLaws checks that merging is commutative, associative and
// idempotent, and agrees with the naive join of what encoding/json reads
// from the snapshots.
func TestMergeLaws(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := drawSnapshot(t, "a"), drawSnapshot(t, "b"), drawSnapshot(t, "c")
		var inputs [][]fact
		for _, s := range [][]byte{a, b, c} {
			facts, err := refDecode(s)
			if err != nil {
				t.Fatalf("encoding/json cannot read a snapshot: %v\n%s", err, s)
			}
			inputs = append(inputs, facts)
		}
		abc := contents(merged(t, 100, a, b, c))
		if diff := gocmp.Diff(joinModel(epoch, ttl, inputs...), abc); diff != "" {
			t.Fatalf("merge disagrees with the naive join (-model +merge):\n%s", diff)
		}
		if diff := gocmp.Diff(contents(merged(t, 100, a, b)), contents(merged(t, 100, b, a))); diff != "" {
			t.Fatalf("not commutative (-ab +ba):\n%s", diff)
		}
		ab, bc := snapshot(t, merged(t, 100, a, b)), snapshot(t, merged(t, 100, b, c))
		if diff := gocmp.Diff(contents(merged(t, 100, ab, c)), contents(merged(t, 100, a, bc))); diff != "" {
			t.Fatalf("not associative (-(ab)c +a(bc)):\n%s", diff)
		}
		if diff := gocmp.Diff(contents(merged(t, 100, a)), contents(merged(t, 100, a, a))); diff != "" {
			t.Fatalf("not idempotent (-a +aa):\n%s", diff)
		}
		m := merged(t, 100, a, b)
		before := snapshot(t, m)
		if err := m.Merge(before); err != nil {
			t.Fatal(err)
		}
		if after := snapshot(t, m); !bytes.Equal(before, after) {
			t.Fatalf("merging a cache's own snapshot changed it:\n%s\n%s", before, after)
		}
	})
}

// TestMergeBounded merges into caches too small for what arrives: the
// bound holds, and every entry kept is one that arrived, not a blend.
func TestMergeBounded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.IntRange(1, 4).Draw(t, "size")
		snaps := [][]byte{drawSnapshot(t, "a"), drawSnapshot(t, "b"), drawSnapshot(t, "c")}
		c := merged(t, size, snaps...)
		if n := c.entries.len(); n > size {
			t.Fatalf("a cache of size %d holds %d entries", size, n)
		}
		arrived := map[fact]bool{}
		for _, s := range snaps {
			facts, _ := refDecode(s)
			for _, f := range facts {
				f.Observed = min(f.Observed, epoch.Unix())
				arrived[f] = true
			}
		}
		for _, f := range contents(c) {
			if !arrived[f] {
				t.Fatalf("the cache holds %+v, which no snapshot had", f)
			}
		}
		if big := merged(t, 100, snaps...); len(contents(big)) <= size {
			if diff := gocmp.Diff(contents(big), contents(c)); diff != "" {
				t.Fatalf("with room for everything, the bound changed the result (-unbounded +bounded):\n%s", diff)
			}
		}
	})
}

// drawCache draws a cache at epoch with entries of many keys, looked up in
// a random order so that the LRU order is not the order of arrival.
func drawCache(t *rapid.T) *Cache {
	c, err := New(Options{Size: 64, TTL: ttl, Now: func() time.Time { return epoch }})
	if err != nil {
		t.Fatal(err)
	}
	names := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z][a-z0-9.-]{0,20}`), 1, 12, rapid.ID[string]).Draw(t, "types")
	amis := rapid.SliceOfNDistinct(rapid.StringMatching(`ami-[0-9a-f]{8,17}`), 1, 4, rapid.ID[string]).Draw(t, "amis")
	for range rapid.IntRange(0, 40).Draw(t, "entries") {
		k := key{rapid.SampledFrom(names).Draw(t, "type"), rapid.SampledFrom(amis).Draw(t, "ami")}
		put(c, record{key: k, memory: rapid.Int64Range(1, 1<<40).Draw(t, "memory"),
			observed: epoch.Unix() - rapid.Int64Range(0, 3*3600).Draw(t, "age")}, epoch)
		if rapid.Bool().Draw(t, "look up another") {
			c.Memory(rapid.SampledFrom(names).Draw(t, "type"), rapid.SampledFrom(amis).Draw(t, "ami"))
		}
	}
	return c
}

// TestMergeRestores restarts: merging a cache's snapshot into an empty
// cache reproduces Memory for every key, and the LRU order.
func TestMergeRestores(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawCache(t)
		s := snapshot(t, c)
		restored := merged(t, 64, s)
		if again := snapshot(t, restored); !bytes.Equal(s, again) {
			t.Fatalf("the restored cache's snapshot differs:\n%s\n%s", s, again)
		}
		var keys []key // Memory reorders the list, so not while walking it
		for r := range c.entries.oldestFirst() {
			keys = append(keys, r.key)
		}
		for _, k := range keys {
			want, wantOK := c.Memory(k.instanceType, k.amiID)
			if got, ok := restored.Memory(k.instanceType, k.amiID); got != want || ok != wantOK {
				t.Fatalf("Memory(%s, %s) = %d, %v after a restart; was %d, %v", k.instanceType, k.amiID, got, ok, want, wantOK)
			}
		}
	})
}

// TestMergeRefusesDamage damages a valid snapshot (truncates it, changes a
// byte, or gives it a newer version; TestMergeErrors pads one past
// MaxSnapshotSize) and
// merges it into a cache with entries of its own, which must be left
// exactly as it was. A changed byte may leave the snapshot meaning the
// same (whitespace for whitespace); then it must merge as the original.
func TestMergeRefusesDamage(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		good := snapshot(t, drawCache(t))
		target := drawCache(t)
		bad := slices.Clone(good)
		switch rapid.IntRange(0, 2).Draw(t, "damage") {
		case 0:
			bad = bad[:rapid.IntRange(0, len(good)-1).Draw(t, "length")]
		case 1:
			i := rapid.IntRange(0, len(good)-1).Draw(t, "at")
			// Digits for digits are the changes only the sum catches.
			bad[i] = rapid.OneOf(rapid.ByteRange('0', '9'), rapid.Byte()).Filter(func(b byte) bool { return b != good[i] }).Draw(t, "byte")
		case 2:
			bad = bytes.Replace(bad, []byte(`{"version":1,`), []byte(`{"version":2,`), 1)
		}
		before, stats := snapshot(t, target), target.Stats()
		err := target.Merge(bad)
		if err == nil {
			if diff := gocmp.Diff(contents(merged(t, 64, good)), contents(merged(t, 64, bad))); diff != "" {
				t.Fatalf("Merge accepted a damaged snapshot that means something else (-good +damaged):\n%s\n%s", diff, bad)
			}
			return
		}
		if !strings.HasPrefix(err.Error(), "capacity: the snapshot") && !strings.HasPrefix(err.Error(), "capacity: snapshot entry") {
			t.Fatalf("error %q does not say it is about the snapshot", err)
		}
		if after := snapshot(t, target); !bytes.Equal(before, after) || target.Stats() != stats {
			t.Fatalf("a refused Merge changed the cache:\n%s\n%s", before, after)
		}
	})
}

func TestSnapshotEncoding(t *testing.T) {
	clk := &clock{t: epoch}
	c, _ := New(Options{TTL: time.Hour, Now: clk.now})
	empty := snapshot(t, c)
	if want := `{"version":1,"entries":[],"amis":[],"sum":"00000000"}`; string(empty) != want {
		t.Errorf("empty cache: Snapshot =\n%s\nwant\n%s", empty, want)
	}
	for i, tt := range testTypes {
		if _, err := c.Observe(Observation{NodeLabels: labelsOf(tt.it), ImageID: tt.ami, MemoryBytes: int64(i+1) << 30}, testAMIs()); err != nil {
			t.Fatal(err)
		}
		clk.advance(time.Minute)
	}
	c.Memory("m5.large", "ami-std") // now the most recently used
	clk.advance(56*time.Minute + 30*time.Second)
	// m5.large, observed 60m30s ago, has expired; the others have not.
	got := snapshot(t, c)
	want := `{"version":1,"entries":[
["c5.xlarge",0,2147483648,1763820060],
["m6g.large",1,3221225472,1763820120],
["g4dn.xlarge",2,4294967296,1763820180]
],"amis":["ami-std","ami-arm","ami-nvidia"],"sum":"` + refSum(t, got) + `"}`
	if string(got) != want {
		t.Errorf("Snapshot =\n%s\nwant\n%s", got, want)
	}
}

// refSum reads a snapshot's sum after checking it with encoding/json and
// hash/crc32.
func refSum(t *testing.T, s []byte) string {
	t.Helper()
	if _, err := refDecode(s); err != nil {
		t.Fatalf("reference decoder: %v\n%s", err, s)
	}
	var r refSnapshot
	_ = json.Unmarshal(s, &r)
	return r.Sum
}

// TestMergeReadsAnySpelling merges a snapshot indented, with members
// reordered and with escaped characters: the same JSON, the same content.
func TestMergeReadsAnySpelling(t *testing.T) {
	c, _ := New(Options{Now: func() time.Time { return epoch }})
	put(c, record{key: key{"m5.large", "ami-0a"}, memory: 7, observed: epoch.Unix()}, epoch)
	put(c, record{key: key{"c5.xlarge", "ami-0b"}, memory: 9, observed: epoch.Unix() - 5}, epoch)
	s := snapshot(t, c)
	var indented bytes.Buffer
	if err := json.Indent(&indented, s, "\t", "  "); err != nil {
		t.Fatal(err)
	}
	var r refSnapshot
	if err := json.Unmarshal(s, &r); err != nil {
		t.Fatal(err)
	}
	reordered := fmt.Sprintf(`{ "sum" : %q, "amis": ["ami-0a", "ami-0b"], "entries": [["m5.large",0,7,%d],["c5.xlarge",1,9,%d]], "version": 1 }`,
		r.Sum, epoch.Unix(), epoch.Unix()-5)
	escaped := strings.Replace(reordered, `"m5.large"`, `"m5.\u006carge"`, 1)
	escaped = strings.Replace(escaped, `"amis"`, `"am\u0069s"`, 1)
	for _, tc := range []struct{ name, data string }{
		{"compact", string(s)}, {"indented", indented.String()}, {"reordered", reordered}, {"escaped", escaped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := gocmp.Diff(contents(c), contents(merged(t, 10, []byte(tc.data)))); diff != "" {
				t.Errorf("(-written +read):\n%s", diff)
			}
		})
	}
}

// TestMergeErrors pins the error for each kind of bad snapshot.
func TestMergeErrors(t *testing.T) {
	const sum0 = `"sum":"00000000"`
	one := func(entry string) string {
		return `{"version":1,"entries":[` + entry + `],"amis":["ami-0a"],"sum":"00000000"}`
	}
	tests := []struct{ name, data, want string }{
		{"empty input", ``, `at the end: expected '{'`},
		{"not JSON", `capacity`, `at byte 0: expected '{', found 'c'`},
		{"not an object", `[]`, `expected '{', found '['`},
		{"no version", `{"entries":[],"amis":[],` + sum0 + `}`, `no "version" member`},
		{"no sum", `{"version":1,"entries":[],"amis":[]}`, `no "sum" member`},
		{"version 0", `{"version":0,"entries":[],"amis":[],` + sum0 + `}`, `version 0; only version 1 exists`},
		{"future version", `{"version":2,"entries":[],"amis":[],` + sum0 + `}`, `version 2, newer than the version 1 this library reads; upgrade`},
		{"future version, new shape", `{"version":3,"entries":{"m5.large":{}},"checksum":"x"}`, `version 3, newer`},
		{"unknown member", `{"version":1,"entries":[],"amis":[],"ttl":5,` + sum0 + `}`, `unknown member "ttl"`},
		{"member twice", `{"version":1,"version":1,"entries":[],"amis":[],` + sum0 + `}`, `member "version" appears twice`},
		{"wrong sum", `{"version":1,"entries":[],"amis":[],"sum":"00000001"}`, `sum is 00000001, but its content sums to 00000000; it was altered`},
		{"short sum", `{"version":1,"entries":[],"amis":[],"sum":"0000000"}`, `not 8 lowercase hex digits`},
		{"upper-case sum", `{"version":1,"entries":[],"amis":["ami-0A"],"sum":"5C8B2A9E"}`, `not 8 lowercase hex digits`},
		{"AMI index out of range", one(`["m5.large",1,7,0]`), `entry 0 (m5.large) refers to AMI 1, but amis has 1`},
		{"AMI index beyond int32", one(`["m5.large",2147483648,7,0]`), `entry 0 (m5.large): AMI index 2147483648 is beyond any AMI table`},
		{"AMI twice", `{"version":1,"entries":[],"amis":["ami-0a","ami-0a"],` + sum0 + `}`, `AMI ID ami-0a is listed twice`},
		{"AMI with a space", `{"version":1,"entries":[],"amis":["ami 0a"],` + sum0 + `}`, `AMI ID "ami 0a": an instance type or image ID must be`},
		{"empty type", one(`["",0,7,0]`), `entry 0: instance type "": an instance type or image ID must be`},
		{"zero memory", one(`["m5.large",0,0,0]`), `entry 0 (m5.large): memory 0 is below 1`},
		{"negative time", one(`["m5.large",0,7,-1]`), `observation time -1 is below 0`},
		{"negative index", one(`["m5.large",-1,7,0]`), `AMI index -1 is below 0`},
		{"fraction", one(`["m5.large",0,7.5,0]`), `memory must be an integer`},
		{"exponent", one(`["m5.large",0,7e9,0]`), `memory must be an integer`},
		{"leading zero", one(`["m5.large",0,07,0]`), `memory 07 has a leading zero`},
		{"overflow", one(`["m5.large",0,9223372036854775808,0]`), `memory 9223372036854775808 is out of range`},
		{"overflow by length", one(`["m5.large",0,100000000000000000000,0]`), `memory 100000000000000000000 is out of range`},
		{"largest", one(`["m5.large",0,9223372036854775807,-9223372036854775807]`), `observation time -9223372036854775807 is below 0`},
		{"string for a number", one(`["m5.large",0,"7",0]`), `expected a number for memory`},
		{"five fields", one(`["m5.large",0,7,0,0]`), `expected ']', found ','`},
		{"three fields", one(`["m5.large",0,7]`), `expected ',', found ']'`},
		{"trailing comma", one(`["m5.large",0,7,0],`), `expected '['`},
		{"trailing data", `{"version":1,"entries":[],"amis":[],` + sum0 + `}{}`, `unexpected data after the snapshot`},
		{"control character", one("[\"m5\n.large\",0,7,0]"), `control character '\n' in a string`},
		{"bad escape", one(`["m5\x.large",0,7,0]`), `bad escape in a string`},
		{"bad unicode escape", one(`["m5\u00zz.large",0,7,0]`), `bad \u escape in a string`},
		{"unterminated", `{"version":1,"entries":[["m5.large`, `at the end: unterminated string`},
		{"truncated", `{"version":1,"entries":[["m5.large",0,`, `at the end: expected a number for memory`},
		{"too large", `{"version":1}` + strings.Repeat(" ", MaxSnapshotSize), `is 16777229 bytes, more than MaxSnapshotSize (16777216)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := New(Options{})
			err := c.Merge([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "capacity: ") {
				t.Errorf("Merge = %v; want an error containing %q", err, tc.want)
			}
			if c.Stats().Len != 0 {
				t.Error("a refused Merge added entries")
			}
		})
	}
}

// TestSnapshotTooLarge lowers the size limit to what a few entries take:
// Snapshot must refuse rather than write what Merge will not read, and
// Merge must refuse what is larger.
func TestSnapshotTooLarge(t *testing.T) {
	c, _ := New(Options{})
	for i := range 10 {
		put(c, record{key: key{fmt.Sprintf("m5.%dxlarge", i), "ami-0a"}, memory: 1 << 33, observed: 1}, epoch)
	}
	s := snapshot(t, c)
	c.limit = len(s) - 1
	if got, err := c.Snapshot(); err == nil || !strings.Contains(err.Error(), "a snapshot of 10 entries is") || got != nil {
		t.Errorf("Snapshot = %d bytes, %v; want an error naming MaxSnapshotSize", len(got), err)
	}
	if err := c.Merge(s); err == nil || !strings.Contains(err.Error(), "more than MaxSnapshotSize") {
		t.Errorf("Merge = %v; want an error naming MaxSnapshotSize", err)
	}
	c.limit = len(s)
	if err := c.Merge(s); err != nil {
		t.Errorf("Merge of a snapshot exactly at the limit: %v", err)
	}
}

// TestMergeClampsFutureTimes: a figure observed after this cache's now
// counts as observed now, so it expires one TTL from now, not later.
func TestMergeClampsFutureTimes(t *testing.T) {
	clk := &clock{t: epoch}
	src, _ := New(Options{Now: func() time.Time { return epoch.Add(24 * time.Hour) }})
	put(src, record{key: key{"m5.large", "ami-0a"}, memory: 7, observed: epoch.Add(24 * time.Hour).Unix()}, epoch.Add(24*time.Hour))
	c, _ := New(Options{TTL: time.Hour, Now: clk.now})
	if err := c.Merge(snapshot(t, src)); err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Hour - time.Second)
	if _, ok := c.Memory("m5.large", "ami-0a"); !ok {
		t.Fatal("the merged figure expired early")
	}
	clk.advance(time.Second)
	if _, ok := c.Memory("m5.large", "ami-0a"); ok {
		t.Error("a figure from a clock a day ahead outlived its TTL")
	}
}

// TestMergeFollowsObserve: equal memory refreshes the time, lower memory
// wins with its own time, higher memory is ignored, an expired figure
// loses to any live one and is never merged.
func TestMergeFollowsObserve(t *testing.T) {
	k := key{"m5.large", "ami-0a"}
	at := func(mem int64, ago time.Duration) record {
		return record{key: k, memory: mem, observed: epoch.Add(-ago).Unix()}
	}
	tests := []struct {
		name     string
		held, in record
		want     record
		merged   int64
	}{
		{"lower wins with its time", at(9, time.Minute), at(7, time.Hour), at(7, time.Hour), 1},
		{"higher is ignored", at(7, time.Hour), at(9, time.Minute), at(7, time.Hour), 0},
		{"equal and later refreshes", at(7, time.Hour), at(7, time.Minute), at(7, time.Minute), 1},
		{"equal and earlier is ignored", at(7, time.Minute), at(7, time.Hour), at(7, time.Minute), 0},
		{"live beats expired lower", at(1, 3*time.Hour), at(9, time.Minute), at(9, time.Minute), 1},
		{"expired is not merged", at(9, time.Minute), at(1, 3*time.Hour), at(9, time.Minute), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := New(Options{TTL: ttl, Now: func() time.Time { return epoch }})
			c.entries.put(tc.held)
			src, _ := New(Options{Now: func() time.Time { return epoch }})
			src.entries.put(tc.in)
			if err := c.Merge(snapshot(t, src)); err != nil {
				t.Fatal(err)
			}
			got, _ := c.entries.peek(k)
			if got != tc.want || c.Stats().Merged != tc.merged {
				t.Errorf("holds %+v after merging (%d merged); want %+v (%d)", got, c.Stats().Merged, tc.want, tc.merged)
			}
		})
	}
}

// TestMergeEvictsLeastRecentlyUsed: entries merged count as the most
// recently used, in the snapshot's order.
func TestMergeEvictsLeastRecentlyUsed(t *testing.T) {
	c, _ := New(Options{Size: 3, Now: func() time.Time { return epoch }})
	for _, name := range []string{"a.large", "b.large", "c.large"} {
		k := key{name, "ami-0a"}
		c.entries.put(record{key: k, memory: 5, observed: epoch.Unix()})
	}
	c.Memory("a.large", "ami-0a") // b is now the least recently used
	src, _ := New(Options{Now: func() time.Time { return epoch }})
	for _, name := range []string{"d.large", "e.large"} {
		put(src, record{key: key{name, "ami-0a"}, memory: 5, observed: epoch.Unix()}, epoch)
	}
	if err := c.Merge(snapshot(t, src)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for r := range c.entries.oldestFirst() {
		got = append(got, r.instanceType)
	}
	if diff := gocmp.Diff([]string{"a.large", "d.large", "e.large"}, got); diff != "" {
		t.Errorf("LRU order after the merge (-want +got):\n%s", diff)
	}
	if st := c.Stats(); st.Evictions != 2 || st.Merged != 2 {
		t.Errorf("Stats = %+v; want 2 evictions, 2 merged", st)
	}
}

func TestObserveRefusesUnwritableNames(t *testing.T) {
	c, _ := New(Options{})
	labels := labelsOf(testTypes[0].it)
	labels[compat.LabelInstanceType] = `m5."large"`
	_, err := c.Observe(Observation{NodeLabels: labels, ImageID: "ami-std", MemoryBytes: 1}, testAMIs())
	if !errors.Is(err, ErrInvalidName) || !strings.Contains(err.Error(), `"m5.\"large\""`) {
		t.Errorf("Observe = %v; want ErrInvalidName quoting the type", err)
	}
	amis := testAMIs()
	amis[1].ID = "ami std"
	_, err = c.Observe(Observation{NodeLabels: labelsOf(testTypes[0].it), ImageID: "ami std", MemoryBytes: 1}, amis)
	if !errors.Is(err, ErrInvalidName) {
		t.Errorf("Observe = %v; want ErrInvalidName", err)
	}
}

// TestDocumentedSnapshot merges the snapshot Cache.Snapshot's doc shows,
// so that the documented sum stays true.
func TestDocumentedSnapshot(t *testing.T) {
	doc := `{"version":1,"entries":[
["m5.large",0,7926000000,1763820000],
["m6g.large",1,7810000000,1763820060]
],"amis":["ami-0abc","ami-0def"],"sum":"10f2434c"}`
	c, _ := New(Options{TTL: ttl, Now: func() time.Time { return epoch.Add(time.Hour) }})
	if err := c.Merge([]byte(doc)); err != nil {
		t.Fatal(err)
	}
	want := []fact{{"m5.large", "ami-0abc", 7926000000, 1763820000}, {"m6g.large", "ami-0def", 7810000000, 1763820060}}
	if diff := gocmp.Diff(want, contents(c)); diff != "" {
		t.Errorf("(-documented +merged):\n%s", diff)
	}
	if s := snapshot(t, c); string(s) != doc {
		t.Errorf("Snapshot =\n%s\nwant the documented\n%s", s, doc)
	}
}

// TestMergeRepeatedKey: a snapshot that lists a key twice (Snapshot never
// writes one, but Merge reads it) restores into an empty cache as joining
// its entries one by one would: the better figure, in use order.
func TestMergeRepeatedKey(t *testing.T) {
	entries := []fact{
		{"m5.large", "ami-0a", 9, epoch.Unix() - 20},
		{"c5.large", "ami-0a", 5, epoch.Unix() - 10},
		{"m5.large", "ami-0a", 7, epoch.Unix() - 5},
	}
	h := newSum()
	var rows []string
	for _, f := range entries {
		h.entry(f.Type, 0, f.Memory, f.Observed)
		rows = append(rows, fmt.Sprintf(`[%q,0,%d,%d]`, f.Type, f.Memory, f.Observed))
	}
	h.name("ami-0a")
	s := fmt.Sprintf(`{"version":1,"entries":[%s],"amis":["ami-0a"],"sum":"%08x"}`, strings.Join(rows, ","), h.value())
	facts, err := refDecode([]byte(s))
	if err != nil {
		t.Fatalf("reference decoder: %v\n%s", err, s)
	}
	c, _ := New(Options{TTL: ttl, Now: func() time.Time { return epoch }})
	if err := c.Merge([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(joinModel(epoch, ttl, facts), contents(c)); diff != "" {
		t.Errorf("(-joined one by one +merged):\n%s", diff)
	}
	var order []string
	for r := range c.entries.oldestFirst() {
		order = append(order, r.instanceType)
	}
	if diff := gocmp.Diff([]string{"c5.large", "m5.large"}, order); diff != "" {
		t.Errorf("use order (-want +got):\n%s", diff)
	}
}

// TestMergeIntoEmptySkipsExpired: merging into an empty cache (a
// restart) keeps only live entries, and counts them as merged.
func TestMergeIntoEmptySkipsExpired(t *testing.T) {
	src, _ := New(Options{Now: func() time.Time { return epoch }})
	put(src, record{key: key{"m5.large", "ami-0a"}, memory: 7, observed: epoch.Add(-2 * ttl).Unix()}, epoch)
	put(src, record{key: key{"c5.large", "ami-0a"}, memory: 5, observed: epoch.Unix()}, epoch)
	c, _ := New(Options{TTL: ttl, Now: func() time.Time { return epoch }})
	if err := c.Merge(snapshot(t, src)); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Len != 1 || st.Merged != 1 {
		t.Errorf("holds %d entries, %d merged; want the live one", st.Len, st.Merged)
	}
	if _, ok := c.Memory("m5.large", "ami-0a"); ok {
		t.Errorf("the expired entry was restored")
	}
}
