package capacity

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
)

// refSnapshot is a snapshot as json.Unmarshal reads it, leniently: the
// reference Merge's strict reader is checked against.
type refSnapshot struct {
	Version          int64
	Types, AMIs      []string
	Type, AMI        []int64
	Memory, Observed []int64
	Sum              string
}

// fact is an entry as the tests compare them.
type fact struct {
	Type, AMI        string
	Memory, Observed int64
}

// refDecode decodes a snapshot with json.Unmarshal and checks its sum with
// a hash/crc32 hash, independently of readSnapshot.
func refDecode(data []byte) ([]fact, error) {
	var s refSnapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	if s.Version != SnapshotVersion {
		return nil, fmt.Errorf("version %d", s.Version)
	}
	n := len(s.Memory)
	if len(s.Type) != n || len(s.AMI) != n || len(s.Observed) != n {
		return nil, errors.New("columns of different lengths")
	}
	h := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	writeInts := func(v ...int64) {
		for _, x := range v {
			h.Write(binary.BigEndian.AppendUint64(nil, uint64(x)))
		}
	}
	writeInts(int64(len(s.Types)), int64(len(s.AMIs)))
	for _, name := range append(slices.Clone(s.Types), s.AMIs...) {
		h.Write(append([]byte(name), 0))
	}
	var facts []fact
	for i := range n {
		if s.Type[i] < 0 || s.Type[i] >= int64(len(s.Types)) || s.AMI[i] < 0 || s.AMI[i] >= int64(len(s.AMIs)) {
			return nil, fmt.Errorf("entry %d: index out of range", i)
		}
		writeInts(s.Type[i], s.AMI[i], s.Memory[i], s.Observed[i])
		facts = append(facts, fact{s.Types[s.Type[i]], s.AMIs[s.AMI[i]], s.Memory[i], s.Observed[i]})
	}
	if want := fmt.Sprintf("%08x", h.Sum32()); s.Sum != want {
		return nil, fmt.Errorf("sum %s, want %s", s.Sum, want)
	}
	return facts, nil
}

// put joins f into c as Merge would at now.
func put(c *Cache, f fact, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.join(key{f.Type, f.AMI}, record{f.Memory, f.Observed}, now.Unix(), c.horizon(now))
}

// held lists every entry of c, live or not, least recently used first,
// without touching the LRU order.
func held(c *Cache) []fact {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []fact
	keys := c.entries.Keys()
	for i, r := range c.entries.Values() {
		out = append(out, fact{keys[i].instanceType, keys[i].amiID, r.memory, r.observed})
	}
	return out
}

// live lists the live entries of c, least recently used first, without
// touching the LRU order.
func live(c *Cache) []fact {
	horizon := c.horizon(c.now())
	return slices.DeleteFunc(held(c), func(f fact) bool { return f.Observed <= horizon })
}

// contents lists the live entries of c, sorted.
func contents(c *Cache) []fact {
	out := live(c)
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
		put(c, fact{
			Type:     rapid.SampledFrom([]string{"m5.large", "c5.xlarge", "m6g.large"}).Draw(t, label+" type"),
			AMI:      rapid.SampledFrom([]string{"ami-0a", "ami-0b"}).Draw(t, label+" ami"),
			Memory:   rapid.Int64Range(1, 3).Draw(t, label+" memory"),
			Observed: at.Unix() - rapid.Int64Range(0, 7200).Draw(t, label+" age"),
		}, at)
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
		if n := c.entries.Len(); n > size {
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
		put(c, fact{rapid.SampledFrom(names).Draw(t, "type"), rapid.SampledFrom(amis).Draw(t, "ami"),
			rapid.Int64Range(1, 1<<40).Draw(t, "memory"), epoch.Unix() - rapid.Int64Range(0, 3*3600).Draw(t, "age")}, epoch)
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
		if diff := gocmp.Diff(live(c), held(restored)); diff != "" {
			t.Fatalf("the restored cache holds other entries, or in another LRU order (-live before +restored):\n%s", diff)
		}
		for _, f := range held(c) {
			want, wantOK := c.Memory(f.Type, f.AMI)
			if got, ok := restored.Memory(f.Type, f.AMI); got != want || ok != wantOK {
				t.Fatalf("Memory(%s, %s) = %d, %v after a restart; was %d, %v", f.Type, f.AMI, got, ok, want, wantOK)
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
			bad = bytes.Replace(bad, []byte(`{"version":2,`), []byte(`{"version":3,`), 1)
		}
		before, stats := snapshot(t, target), target.Stats()
		err := target.Merge(bad)
		if err == nil {
			if diff := gocmp.Diff(contents(merged(t, 64, good)), contents(merged(t, 64, bad))); diff != "" {
				t.Fatalf("Merge accepted a damaged snapshot that means something else (-good +damaged):\n%s\n%s", diff, bad)
			}
			return
		}
		if !strings.HasPrefix(err.Error(), "capacity: the snapshot") {
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
	if want := `{"version":2,"types":[],"amis":[],"type":[],"ami":[],"memory":[],"observed":[],"sum":"` + refSum(t, empty) + `"}`; string(empty) != want {
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
	want := `{"version":2,"types":["c5.xlarge","m6g.large","g4dn.xlarge"],"amis":["ami-std","ami-arm","ami-nvidia"],` +
		`"type":[0,1,2],"ami":[0,1,2],"memory":[2147483648,3221225472,4294967296],"observed":[1763820060,1763820120,1763820180],` +
		`"sum":"` + refSum(t, got) + `"}`
	if string(got) != want {
		t.Errorf("Snapshot =\n%s\nwant\n%s", got, want)
	}
}

// TestLargeSnapshotMatchesReference: a snapshot of 10,000 entries, whose
// sum is folded in over many runs of its buffer, is read by the reference
// decoder as the cache holds it.
func TestLargeSnapshotMatchesReference(t *testing.T) {
	c := bigCache(t, 10_000, fixedClock)
	facts, err := refDecode(snapshot(t, c))
	if err != nil {
		t.Fatalf("reference decoder: %v", err)
	}
	if diff := gocmp.Diff(held(c), facts); diff != "" {
		t.Errorf("(-held +snapshot):\n%s", diff)
	}
}

// refSum reads a snapshot's sum after checking it with the reference
// decoder.
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
// reordered and with escaped characters: the same JSON value, the same
// content.
func TestMergeReadsAnySpelling(t *testing.T) {
	c, _ := New(Options{Now: func() time.Time { return epoch }})
	put(c, fact{"m5.large", "ami-0a", 7, epoch.Unix()}, epoch)
	put(c, fact{"c5.xlarge", "ami-0b", 9, epoch.Unix() - 5}, epoch)
	s := snapshot(t, c)
	var indented bytes.Buffer
	if err := json.Indent(&indented, s, "\t", "  "); err != nil {
		t.Fatal(err)
	}
	reordered := fmt.Sprintf(`{ "sum" : %q, "observed": [%d, %d], "memory": [7, 9], "ami": [0, 1], "type": [0, 1],`+
		` "amis": ["ami-0a", "ami-0b"], "types": ["m5.large", "c5.xlarge"], "version": 2 }`+"\n",
		refSum(t, s), epoch.Unix(), epoch.Unix()-5)
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

// TestMergeErrors pins the error for each kind of bad snapshot. The
// content is checked before the sum, so most rows need no true sum.
func TestMergeErrors(t *testing.T) {
	const sum0 = `"sum":"00000000"`
	const none = `"types":[],"amis":[],"type":[],"ami":[],"memory":[],"observed":[]`
	v2 := func(members string) string { return `{"version":2,` + members + `}` }
	// one is a snapshot of one entry of m5.large under ami-0a.
	one := func(typ, ami, memory, observed string) string {
		return v2(`"types":["m5.large"],"amis":["ami-0a"],"type":[` + typ + `],"ami":[` + ami + `],"memory":[` + memory + `],"observed":[` + observed + `],` + sum0)
	}
	tests := []struct{ name, data, want string }{
		{"empty input", ``, `truncated: its JSON stops at byte 0`},
		{"not JSON", `capacity`, `at byte 0: invalid character 'c' looking for beginning of value`},
		{"not an object", `[]`, `found [ where an object starts`},
		{"no version", `{` + none + `,` + sum0 + `}`, `no "version" member`},
		{"no sum", v2(none), `no "sum" member`},
		{"no column", v2(`"types":[],"amis":[],"type":[],"ami":[],"memory":[],` + sum0), `no "observed" member`},
		{"version 0", `{"version":0,` + none + `,` + sum0 + `}`, `version 0; no such version exists`},
		{"future version", `{"version":3,` + none + `,` + sum0 + `}`, `version 3, newer than the version 2 this library reads; upgrade`},
		{"future version, new shape", `{"version":3,"entries":{"m5.large":{}},"checksum":"x"}`, `version 3, newer`},
		{"version 1's shape", `{"version":1,"entries":[],"amis":[],` + sum0 + `}`, `version 1, which this library no longer reads; take a new snapshot`},
		{"version as a string", `{"version":"2",` + none + `,` + sum0 + `}`, `"version" is not an integer: json: cannot unmarshal string`},
		{"unknown member", v2(none + `,"ttl":5,` + sum0), `unknown member "ttl"`},
		{"member in another case", v2(none + `,"Sum":"00000000"`), `unknown member "Sum"`},
		{"member twice", v2(`"version":2,` + none + `,` + sum0), `member "version" appears twice`},
		{"wrong sum", v2(none + `,"sum":"00000001"`), `sum is "00000001", but its content sums to "`},
		{"sum as a number", v2(none + `,"sum":1`), `"sum" is not a string: json: cannot unmarshal number`},
		{"null column", v2(`"types":[],"amis":[],"type":[],"ami":[],"memory":null,"observed":[],` + sum0), `"memory" is not an array of integers: null`},
		{"object for a column", v2(`"types":[],"amis":[],"type":{},"ami":[],"memory":[],"observed":[],` + sum0), `"type" is not an array of indices into types: json: cannot unmarshal object`},
		{"columns of different lengths", one(`0`, `0`, `7`, `0,1`), `its columns differ in length: type 1, ami 1, memory 1, observed 2`},
		{"type index out of range", one(`1`, `0`, `7`, `0`), `entry 0 has type 1, but types has 1 names`},
		{"negative type index", one(`-1`, `0`, `7`, `0`), `entry 0 has type -1`},
		{"AMI index out of range", one(`0`, `1`, `7`, `0`), `entry 0 has ami 1, but amis has 1 IDs`},
		{"index beyond int64", one(`9223372036854775808`, `0`, `7`, `0`), `"type" is not an array of indices into types: json: cannot unmarshal number 9223372036854775808`},
		{"type twice", v2(`"types":["m5.large","m5.large"],"amis":[],"type":[],"ami":[],"memory":[],"observed":[],` + sum0), `types lists m5.large twice`},
		{"AMI twice", v2(`"types":[],"amis":["ami-0a","ami-0a"],"type":[],"ami":[],"memory":[],"observed":[],` + sum0), `amis lists ami-0a twice`},
		{"AMI with a space", v2(`"types":[],"amis":["ami 0a"],"type":[],"ami":[],"memory":[],"observed":[],` + sum0), `amis has "ami 0a": an instance type or image ID must be`},
		{"empty type", v2(`"types":[""],"amis":[],"type":[],"ami":[],"memory":[],"observed":[],` + sum0), `types has "": an instance type`},
		{"null name", v2(`"types":[null],"amis":[],"type":[],"ami":[],"memory":[],"observed":[],` + sum0), `types has "": an instance type`},
		{"zero memory", one(`0`, `0`, `0`, `0`), `entry 0 (m5.large under ami-0a) has memory 0; it must be a positive number of bytes`},
		{"negative memory", one(`0`, `0`, `-7`, `0`), `has memory -7`},
		{"negative time", one(`0`, `0`, `7`, `-1`), `entry 0 (m5.large under ami-0a) was observed at -1, before 1970`},
		{"key twice", one(`0,0`, `0,0`, `7,8`, `0,0`), `entry 1 repeats m5.large under ami-0a`},
		{"fraction", one(`0`, `0`, `7.5`, `0`), `"memory" is not an array of integers: json: cannot unmarshal number 7.5`},
		{"exponent", one(`0`, `0`, `7e9`, `0`), `cannot unmarshal number 7e9`},
		{"leading zero", one(`0`, `0`, `07`, `0`), `invalid character '7' after array element`},
		{"overflow", one(`0`, `0`, `9223372036854775808`, `0`), `cannot unmarshal number 9223372036854775808`},
		{"string for a number", one(`0`, `0`, `"7"`, `0`), `"memory" is not an array of integers: json: cannot unmarshal string`},
		{"trailing comma", one(`0,`, `0`, `7`, `0`), `invalid character ']' looking for beginning of value`},
		{"trailing data", v2(none+`,`+sum0) + `{}`, `data after the snapshot's object`},
		{"trailing garbage", v2(none+`,`+sum0) + `x`, `data after the snapshot's object`},
		{"control character", v2("\"types\":[\"m5\n.large\"]"), `invalid character '\n' in string literal`},
		{"bad escape", v2(`"types":["m5\x.large"]`), `invalid character 'x' in string escape code`},
		{"unterminated", `{"version":2,"types":["m5.large`, `truncated: its JSON stops at byte 31`},
		{"truncated", `{"version":2,"types":["m5.large"],"amis":["ami-0a"],"type":[0,`, `truncated: its JSON stops at byte 62`},
		{"too large", `{"version":2}` + strings.Repeat(" ", MaxSnapshotSize), `is 16777229 bytes, more than MaxSnapshotSize (16777216)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := New(Options{})
			err := c.Merge([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "capacity: the snapshot") {
				t.Errorf("Merge = %v; want an error containing %q", err, tc.want)
			}
			if c.Stats().Len != 0 {
				t.Error("a refused Merge added entries")
			}
		})
	}
}

// TestMergeVersion1 merges testdata/snapshot-v1.json, which Cache.Snapshot
// wrote at commit 7503554 (the last to write version 1), into a cache with
// entries of its own: it is refused with an error that asks for a new
// snapshot, and nothing changes.
func TestMergeVersion1(t *testing.T) {
	v1, err := os.ReadFile(filepath.Join("testdata", "snapshot-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := New(Options{TTL: ttl, Now: func() time.Time { return epoch }})
	put(c, fact{"m5.large", "ami-std", 9, epoch.Unix()}, epoch)
	before, stats := held(c), c.Stats()
	err = c.Merge(v1)
	const want = "capacity: the snapshot is version 1, which this library no longer reads; take a new snapshot with Cache.Snapshot (version 2) and discard this one: the Cache relearns its figures from nodes meanwhile"
	if err == nil || err.Error() != want {
		t.Errorf("Merge(version 1) = %v; want %s", err, want)
	}
	if diff := gocmp.Diff(before, held(c)); diff != "" || c.Stats() != stats {
		t.Errorf("a refused version-1 snapshot changed the cache (-before +after):\n%s", diff)
	}
}

// TestSnapshotTooLarge lowers the size limit to what a few entries take:
// Snapshot must refuse rather than write what Merge will not read, and
// Merge must refuse what is larger.
func TestSnapshotTooLarge(t *testing.T) {
	c, _ := New(Options{})
	for i := range 10 {
		put(c, fact{fmt.Sprintf("m5.%dxlarge", i), "ami-0a", 1 << 33, 1}, epoch)
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
	put(src, fact{"m5.large", "ami-0a", 7, epoch.Add(24 * time.Hour).Unix()}, epoch.Add(24*time.Hour))
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
		return record{memory: mem, observed: epoch.Add(-ago).Unix()}
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
			c.entries.Add(k, tc.held)
			src, _ := New(Options{Now: func() time.Time { return epoch }})
			src.entries.Add(k, tc.in)
			if err := c.Merge(snapshot(t, src)); err != nil {
				t.Fatal(err)
			}
			got, _ := c.entries.Peek(k)
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
		c.entries.Add(key{name, "ami-0a"}, record{memory: 5, observed: epoch.Unix()})
	}
	c.Memory("a.large", "ami-0a") // b is now the least recently used
	src, _ := New(Options{Now: func() time.Time { return epoch }})
	for _, name := range []string{"d.large", "e.large"} {
		put(src, fact{name, "ami-0a", 5, epoch.Unix()}, epoch)
	}
	if err := c.Merge(snapshot(t, src)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range held(c) {
		got = append(got, f.Type)
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
	doc := `{"version":2,"types":["m5.large","m6g.large"],"amis":["ami-0abc","ami-0def"],` +
		`"type":[0,1],"ami":[0,1],"memory":[7926000000,7810000000],` +
		`"observed":[1763820000,1763820060],"sum":"e1f4a36f"}`
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

// TestMergeIntoEmptySkipsExpired: merging into an empty cache (a
// restart) keeps only live entries, and counts them as merged.
func TestMergeIntoEmptySkipsExpired(t *testing.T) {
	src, _ := New(Options{Now: func() time.Time { return epoch }})
	put(src, fact{"m5.large", "ami-0a", 7, epoch.Add(-2 * ttl).Unix()}, epoch)
	put(src, fact{"c5.large", "ami-0a", 5, epoch.Unix()}, epoch)
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
