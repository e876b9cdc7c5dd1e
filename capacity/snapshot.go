package capacity

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"reflect"
	"slices"
)

// SnapshotVersion is the version of the encoding [Cache.Snapshot] writes
// and the only one [Cache.Merge] reads. Version 1, which ec2select wrote
// before its third release wave, held an array per entry; Merge refuses
// it with an error that asks for a new snapshot.
const SnapshotVersion = 2

// MaxSnapshotSize is the largest snapshot, in bytes, that Merge reads and
// Snapshot writes: about 500,000 entries of typical names, far beyond
// every instance type of EC2 under a dozen AMIs, and small enough that a
// corrupted snapshot cannot make a controller allocate without bound. (A
// Kubernetes ConfigMap holds at most 1 MiB: about 30,000 entries.)
const MaxSnapshotSize = 16 << 20

// wire is a snapshot as its JSON holds it; see [Cache.Snapshot].
type wire struct {
	Version  int64    `json:"version"`
	Types    []string `json:"types"`
	AMIs     []string `json:"amis"`
	Type     []int    `json:"type"`
	AMI      []int    `json:"ami"`
	Memory   []int64  `json:"memory"`
	Observed []int64  `json:"observed"`
	Sum      string   `json:"sum"`
}

// members are the members of a snapshot, in the order Snapshot writes
// them and wire.fields points at them, and what each must be.
var members = [...]member{
	{"version", "an integer"}, {"types", "an array of instance-type names"}, {"amis", "an array of AMI IDs"},
	{"type", "an array of indices into types"}, {"ami", "an array of indices into amis"},
	{"memory", "an array of integers"}, {"observed", "an array of integers"}, {"sum", "a string"},
}

type member struct{ name, what string }

func (w *wire) fields() [len(members)]any {
	return [...]any{&w.Version, &w.Types, &w.AMIs, &w.Type, &w.AMI, &w.Memory, &w.Observed, &w.Sum}
}

// Snapshot encodes the live entries of c for [Cache.Merge], in a replica or
// after a restart. The encoding is one JSON object on one line (wrapped
// here):
//
//	{"version":2,"types":["m5.large","m6g.large"],"amis":["ami-0abc","ami-0def"],
//	"type":[0,1],"ami":[0,1],"memory":[7926000000,7810000000],
//	"observed":[1763820000,1763820060],"sum":"e1f4a36f"}
//
// version is [SnapshotVersion]. types and amis list each instance type and
// AMI ID the entries use, once, in order of first use. The entries are
// columns: entry i is the instance type types[type[i]] under the AMI
// amis[ami[i]], the lowest memory seen, memory[i] bytes, and when that was
// last recorded or confirmed, observed[i], in Unix seconds (the TTL runs
// from it). Entries run from least to most recently used, so merging a
// snapshot into an empty Cache restores the LRU order too. sum guards the
// content against corruption: the CRC-32C (Castagnoli), as 8 lowercase hex
// digits, of the lengths of types and amis, then each name in them and a
// zero byte, then each entry's type, ami, memory and observed, every
// integer as 8 bytes, big-endian.
//
// Expired entries are left out. Snapshot fails only when the encoding
// would exceed [MaxSnapshotSize], which a Cache of the default size cannot
// reach.
func (c *Cache) Snapshot() ([]byte, error) {
	horizon := c.horizon(c.now())
	c.mu.Lock()
	keys, records := c.entries.Keys(), c.entries.Values() // both least recently used first
	c.mu.Unlock()
	n := len(keys)
	w := wire{Version: SnapshotVersion, Types: []string{}, AMIs: []string{},
		Type: make([]int, 0, n), AMI: make([]int, 0, n), Memory: make([]int64, 0, n), Observed: make([]int64, 0, n)}
	types, amis := map[string]int{}, map[string]int{}
	for i, k := range keys {
		if records[i].observed <= horizon {
			continue // expired
		}
		w.Type = append(w.Type, intern(types, &w.Types, k.instanceType))
		w.AMI = append(w.AMI, intern(amis, &w.AMIs, k.amiID))
		w.Memory = append(w.Memory, records[i].memory)
		w.Observed = append(w.Observed, records[i].observed)
	}
	w.Sum = w.sum()
	out, err := json.Marshal(&w)
	switch {
	case err != nil:
		return nil, fmt.Errorf("capacity: encoding a snapshot: %v", err) // cannot happen: wire holds strings and integers
	case len(out) > c.limit:
		return nil, fmt.Errorf("capacity: a snapshot of %d entries is %d bytes, more than the MaxSnapshotSize (%d) Merge reads; lower Options.Size", len(w.Memory), len(out), c.limit)
	}
	return out, nil
}

// intern returns name's index in *table, adding it on first use.
func intern(index map[string]int, table *[]string, name string) int {
	i, ok := index[name]
	if !ok {
		i = len(*table)
		index[name] = i
		*table = append(*table, name)
	}
	return i
}

// sum returns the sum Snapshot documents for w's content. Its columns are
// of equal length.
func (w *wire) sum() string {
	table := crc32.MakeTable(crc32.Castagnoli)
	var crc uint32
	buf := binary.BigEndian.AppendUint64(make([]byte, 0, 64<<10), uint64(len(w.Types)))
	buf = binary.BigEndian.AppendUint64(buf, uint64(len(w.AMIs)))
	for _, name := range slices.Concat(w.Types, w.AMIs) {
		buf = append(append(buf, name...), 0)
	}
	for i := range w.Memory {
		for _, v := range [...]int64{int64(w.Type[i]), int64(w.AMI[i]), w.Memory[i], w.Observed[i]} {
			buf = binary.BigEndian.AppendUint64(buf, uint64(v))
		}
		if len(buf) >= 60<<10 { // the CRC instruction wants long runs
			crc, buf = crc32.Update(crc, table, buf), buf[:0]
		}
	}
	return fmt.Sprintf("%08x", crc32.Update(crc, table, buf))
}

// Merge adds what another Cache learned, from its [Cache.Snapshot]. It
// reads the snapshot with encoding/json as the shape Snapshot writes and
// nothing else: one object with exactly Snapshot's members, each once (in
// any order, spaced as JSON allows), nothing after it, and a value of
// Snapshot's type for each. It then checks it whole: columns of one
// length, valid names listed once, indices in range, positive memory, no
// (instance type, AMI) twice, and the sum. If any of this fails, or the
// snapshot is larger than [MaxSnapshotSize] or of another version, Merge
// returns an error saying what is wrong and changes nothing.
//
// Each entry then joins the one held for its key by the rule Observe
// follows: the lower memory wins, with its own observation time; on equal
// memory the later time wins (an equal figure refreshes the TTL). Entries
// expired at the time of the merge take no part: a live figure beats an
// expired lower one, and an expired one is not merged. A time ahead of
// this Cache's clock counts as now, so a replica whose clock runs ahead,
// or a bad time, cannot make a figure outlive its TTL here. Merge holds
// the Cache's lock while entries join, so other calls see all of a
// snapshot or none of it.
//
// Keeping, per key, the best under one fixed order makes merging
// commutative, associative and idempotent: replicas may exchange snapshots
// through any store, in any order, any number of times, and hold the same
// figures once each has merged the others' (at the same clock). Only the
// Size bound breaks this, because a bound forgets, and what it forgets
// depends on what came first: merged entries are added in the snapshot's
// order as the most recently used, and the least recently used entries
// are evicted to keep within Size.
func (c *Cache) Merge(snapshot []byte) error {
	w, err := readSnapshot(snapshot, c.limit)
	if err != nil {
		return err
	}
	now := c.now()
	latest, horizon := now.Unix(), c.horizon(now)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, memory := range w.Memory {
		c.join(key{w.Types[w.Type[i]], w.AMIs[w.AMI[i]]}, record{memory, w.Observed[i]}, latest, horizon)
	}
	return nil
}

// join puts r under k unless it is expired or the live record there is at
// least as good; times after latest (now) count as latest. The caller
// holds the lock.
func (c *Cache) join(k key, r record, latest, horizon int64) {
	r.observed = min(r.observed, latest)
	if r.observed <= horizon {
		return
	}
	if old, ok := c.entries.Peek(k); ok && old.observed > horizon && !r.beats(old) {
		return
	}
	if c.entries.Add(k, r) {
		c.stats.Evictions++
	}
	c.stats.Merged++
}

// readSnapshot decodes and checks a whole snapshot.
func readSnapshot(data []byte, limit int) (*wire, error) {
	if len(data) > limit {
		return nil, fmt.Errorf("capacity: the snapshot is %d bytes, more than MaxSnapshotSize (%d); it was not written by Cache.Snapshot", len(data), limit)
	}
	w, err := decode(data)
	if err != nil {
		if v, ok := versionOf(data); ok && v != SnapshotVersion {
			return nil, versionError(v) // another version's shape: say so, not what differs
		}
		return nil, err
	}
	if w.Version != SnapshotVersion {
		return nil, versionError(w.Version)
	}
	if err := w.check(); err != nil {
		return nil, err
	}
	return w, nil
}

// decode reads data as one JSON object with exactly the members Snapshot
// writes, each once, and nothing after it. The members are walked as
// tokens, not decoded into wire as a struct, because encoding/json would
// match their names in any case and let a repeated one win silently.
func decode(data []byte) (*wire, error) {
	r := reader{json.NewDecoder(bytes.NewReader(data)), len(data)}
	if t, err := r.dec.Token(); err != nil || t != json.Delim('{') {
		return nil, r.malformed(cmp.Or(err, fmt.Errorf("found %v where an object starts", t)))
	}
	var w wire
	var seen [len(members)]bool
	for r.dec.More() {
		if err := r.member(&w, &seen); err != nil {
			return nil, err
		}
	}
	if _, err := r.dec.Token(); err != nil { // the closing brace
		return nil, r.malformed(err)
	}
	if _, err := r.dec.Token(); err != io.EOF {
		return nil, r.malformed(errors.New("data after the snapshot's object"))
	}
	if i := slices.Index(seen[:], false); i >= 0 {
		return nil, fmt.Errorf("capacity: the snapshot has no %q member; merge a snapshot Cache.Snapshot wrote", members[i].name)
	}
	return &w, nil
}

// reader walks a snapshot's JSON, size bytes, with dec.
type reader struct {
	dec  *json.Decoder
	size int
}

// member reads the next member of the snapshot's object into w.
func (r reader) member(w *wire, seen *[len(members)]bool) error {
	t, err := r.dec.Token()
	if err != nil {
		return r.malformed(err)
	}
	name, _ := t.(string) // Token fails on an object key that is not a string
	i := slices.IndexFunc(members[:], func(m member) bool { return m.name == name })
	switch {
	case i < 0:
		return r.malformed(fmt.Errorf("unknown member %q", name))
	case seen[i]:
		return r.malformed(fmt.Errorf("member %q appears twice", name))
	}
	seen[i] = true
	p := w.fields()[i]
	err = r.dec.Decode(p)
	var wrongType *json.UnmarshalTypeError
	switch {
	case err == nil && isNull(p):
		err = errors.New("null")
	case err == nil:
		return nil
	case !errors.As(err, &wrongType):
		return r.malformed(err)
	}
	return fmt.Errorf("capacity: the snapshot's %q is not %s: %v; merge a snapshot Cache.Snapshot wrote", name, members[i].what, err)
}

// isNull reports whether p, a member just decoded, was null: encoding/json
// leaves a slice nil only then.
func isNull(p any) bool {
	v := reflect.ValueOf(p).Elem()
	return v.Kind() == reflect.Slice && v.IsNil()
}

func (r reader) malformed(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("capacity: the snapshot is truncated: its JSON stops at byte %d; merge a whole snapshot Cache.Snapshot wrote", r.size)
	}
	return fmt.Errorf("capacity: the snapshot is malformed at byte %d: %v; merge a snapshot Cache.Snapshot wrote", r.dec.InputOffset(), err)
}

// check checks what decoding cannot. (encoding/json reads null in a
// number column as 0, which the sum then judges as it judges any figure.)
func (w *wire) check() error {
	n := len(w.Memory)
	if len(w.Type) != n || len(w.AMI) != n || len(w.Observed) != n {
		return corrupted("its columns differ in length: type %d, ami %d, memory %d, observed %d", len(w.Type), len(w.AMI), n, len(w.Observed))
	}
	for _, table := range []struct {
		member string
		names  []string
	}{{"types", w.Types}, {"amis", w.AMIs}} {
		seen := make(map[string]bool, len(table.names))
		for _, name := range table.names {
			switch {
			case !validName(name):
				return corrupted("%s has %q: %v", table.member, name, ErrInvalidName)
			case seen[name]:
				return corrupted("%s lists %s twice", table.member, name)
			}
			seen[name] = true
		}
	}
	seen := make(map[uint64]bool, n) // type<<32 | ami: the checks before it bound both to 32 bits
	for i := range n {
		t, a := w.Type[i], w.AMI[i]
		switch {
		case t < 0 || t >= len(w.Types):
			return corrupted("entry %d has type %d, but types has %d names", i, t, len(w.Types))
		case a < 0 || a >= len(w.AMIs):
			return corrupted("entry %d has ami %d, but amis has %d IDs", i, a, len(w.AMIs))
		case w.Memory[i] < 1:
			return corrupted("entry %d (%s under %s) has memory %d; it must be a positive number of bytes", i, w.Types[t], w.AMIs[a], w.Memory[i])
		case w.Observed[i] < 0:
			return corrupted("entry %d (%s under %s) was observed at %d, before 1970", i, w.Types[t], w.AMIs[a], w.Observed[i])
		case seen[uint64(t)<<32|uint64(a)]:
			return corrupted("entry %d repeats %s under %s", i, w.Types[t], w.AMIs[a])
		}
		seen[uint64(t)<<32|uint64(a)] = true
	}
	if got := w.sum(); got != w.Sum {
		return fmt.Errorf("capacity: the snapshot's sum is %q, but its content sums to %q; it was altered or corrupted after Cache.Snapshot wrote it", w.Sum, got)
	}
	return nil
}

func corrupted(format string, args ...any) error {
	return fmt.Errorf("capacity: the snapshot is corrupted: "+format+"; merge a snapshot Cache.Snapshot wrote", args...)
}

// versionOf finds the version of a snapshot decode refused, so that
// another version's shape is reported as another version rather than as
// corrupted.
func versionOf(data []byte) (int64, bool) {
	var v struct{ Version *int64 }
	if json.Unmarshal(data, &v) != nil || v.Version == nil {
		return 0, false
	}
	return *v.Version, true
}

func versionError(v int64) error {
	switch {
	case v > SnapshotVersion:
		return fmt.Errorf("capacity: the snapshot is version %d, newer than the version %d this library reads; upgrade ec2select on this replica, or merge snapshots from replicas of the same version", v, SnapshotVersion)
	case v == 1:
		return fmt.Errorf("capacity: the snapshot is version 1, which this library no longer reads; take a new snapshot with Cache.Snapshot (version %d) and discard this one: the Cache relearns its figures from nodes meanwhile", SnapshotVersion)
	}
	return fmt.Errorf("capacity: the snapshot has version %d; no such version exists; merge a snapshot Cache.Snapshot wrote", v)
}
