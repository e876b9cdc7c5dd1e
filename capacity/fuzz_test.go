package capacity

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// FuzzMerge feeds Merge arbitrary bytes. It must never panic; what it
// refuses must leave the cache empty; what it accepts, the lenient
// reference decoder (json.Unmarshal and a hash/crc32 hash) must read too,
// and the cache must then hold the naive join of its entries.
func FuzzMerge(f *testing.F) {
	c, _ := New(Options{Now: func() time.Time { return epoch }})
	for i, name := range []string{"m5.large", "c5.xlarge", "m6g.large"} {
		put(c, fact{name, "ami-0a", int64(7 + i), epoch.Unix() - int64(i)}, epoch)
	}
	put(c, fact{"g4dn.xlarge", "ami-0b", 15 << 30, epoch.Unix()}, epoch)
	good, _ := c.Snapshot()
	var indented bytes.Buffer
	_ = json.Indent(&indented, good, "", "  ")
	empty, _ := New(Options{})
	none, _ := empty.Snapshot()
	v1, err := os.ReadFile(filepath.Join("testdata", "snapshot-v1.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{good, indented.Bytes(), none, good[:len(good)/2], v1, []byte(`{"version":3}`),
		[]byte(`{"version":2,"types":["a"],"amis":["b"],"type":[0],"ami":[0],"memory":[1],"observed":[0],"sum":"0"}`)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _ := New(Options{TTL: ttl, Now: func() time.Time { return epoch }})
		if err := c.Merge(data); err != nil {
			if c.entries.Len() != 0 || c.Stats() != (Stats{}) {
				t.Fatalf("Merge refused (%v) but changed the cache", err)
			}
			return
		}
		facts, err := refDecode(data)
		if err != nil {
			t.Fatalf("Merge accepted what the reference decoder refuses (%v):\n%q", err, data)
		}
		if diff := gocmp.Diff(joinModel(epoch, ttl, facts), contents(c)); diff != "" {
			t.Fatalf("Merge disagrees with the naive join of what the reference decoder read (-model +merge):\n%s", diff)
		}
	})
}
