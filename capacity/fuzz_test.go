package capacity

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// FuzzMerge feeds Merge arbitrary bytes. It must never panic; what it
// refuses must leave the cache empty; what it accepts, encoding/json must
// read too, with the same entries and a sum hash/crc32 agrees with, and the
// cache must then hold their naive join.
func FuzzMerge(f *testing.F) {
	c, _ := New(Options{Now: func() time.Time { return epoch }})
	for i, name := range []string{"m5.large", "c5.xlarge", "m6g.large"} {
		put(c, record{key: key{name, "ami-0a"}, memory: int64(7 + i), observed: epoch.Unix() - int64(i)}, epoch)
	}
	put(c, record{key: key{"g4dn.xlarge", "ami-0b"}, memory: 15 << 30, observed: epoch.Unix()}, epoch)
	good, _ := c.Snapshot()
	var indented bytes.Buffer
	_ = json.Indent(&indented, good, "", "  ")
	empty, _ := New(Options{})
	none, _ := empty.Snapshot()
	for _, seed := range [][]byte{good, indented.Bytes(), none, good[:len(good)/2], []byte(`{"version":2}`), []byte(`{"version":1,"entries":[["a",0,1,0]],"amis":["b"],"sum":"0"}`)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _ := New(Options{TTL: ttl, Now: func() time.Time { return epoch }})
		if err := c.Merge(data); err != nil {
			if c.entries.len() != 0 {
				t.Fatalf("Merge refused (%v) but added entries", err)
			}
			return
		}
		facts, err := refDecode(data)
		if err != nil {
			t.Fatalf("Merge accepted what encoding/json and hash/crc32 refuse (%v):\n%q", err, data)
		}
		if diff := gocmp.Diff(joinModel(epoch, ttl, facts), contents(c)); diff != "" {
			t.Fatalf("Merge disagrees with the naive join of what encoding/json read (-model +merge):\n%s", diff)
		}
	})
}

// FuzzPlainEntry holds the fast path that reads entries as Snapshot writes
// them to the general one: whatever plainEntry accepts, entry must accept
// too, with the same entry and end.
func FuzzPlainEntry(f *testing.F) {
	for _, seed := range []string{
		`["m5.large",0,8096,1763820000]`, "\n" + `["m5.large",12,1,0],`, `["m5.large",0,0,0]`,
		`["m5.large",01,5,5]`, `["m5.large",-1,5,5]`, `["m5.large",1,5,5.0]`, `["c5.large",1,5,5]`,
		`["m5.large",1,5,1234567890123456789]`, `[ "m5.large",1,5,5]`, `["m5.large",1,5,5 ]`,
		`["m5.large",2147483648,5,5]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		newDecoder := func() *decoder {
			return &decoder{data: data, names: map[string]int32{"m5.large": 0}, list: []string{"m5.large"}}
		}
		fast := newDecoder()
		e, ok := fast.plainEntry()
		if !ok {
			if fast.pos != 0 {
				t.Fatalf("plainEntry refused %q but moved to byte %d", data, fast.pos)
			}
			return
		}
		slow := newDecoder()
		want, err := slow.entry(0)
		if err != nil {
			t.Fatalf("plainEntry read %q, which entry refuses: %v", data, err)
		}
		if e != want || fast.pos != slow.pos {
			t.Fatalf("plainEntry read %q as %+v up to byte %d; entry as %+v up to byte %d", data, e, fast.pos, want, slow.pos)
		}
	})
}
