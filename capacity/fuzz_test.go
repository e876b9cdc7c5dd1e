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
			if c.entries.Len() != 0 {
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
