package capacity

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"
)

// SnapshotVersion is the version of the encoding [Cache.Snapshot] writes
// and the only one [Cache.Merge] reads.
const SnapshotVersion = 1

// MaxSnapshotSize is the largest snapshot, in bytes, that Merge reads and
// Snapshot writes: about 450,000 entries of typical names, far beyond
// every instance type of EC2 under a dozen AMIs, and small enough that a
// corrupted snapshot cannot make a controller allocate without bound. (A
// Kubernetes ConfigMap holds at most 1 MiB: about 28,000 entries.)
const MaxSnapshotSize = 16 << 20

// Snapshot encodes the live entries of c for [Cache.Merge], in a replica or
// after a restart. The encoding is one JSON object, an entry a line:
//
//	{"version":1,"entries":[
//	["m5.large",0,7926000000,1763820000],
//	["m6g.large",1,7810000000,1763820060]
//	],"amis":["ami-0abc","ami-0def"],"sum":"10f2434c"}
//
// version is [SnapshotVersion]. entries holds an array per (instance type,
// AMI): the instance type, the index of its AMI in amis, the lowest memory
// seen in bytes, and when that was last recorded or confirmed, in Unix
// seconds (the TTL runs from it). Entries run from least to most recently
// used, so merging a snapshot into an empty Cache restores the LRU order
// too. amis lists each AMI ID the entries use, once. sum guards the
// content against corruption: the CRC-32C (Castagnoli), as 8 lowercase hex
// digits, of each entry in order (the instance type's bytes and a zero
// byte, then the AMI index, memory and time as 8-byte big-endian integers)
// and then each AMI ID's bytes and a zero byte.
//
// Names are printable ASCII without quotes, backslashes or spaces (Observe
// refuses others), so nothing needs escaping. Expired entries are left
// out. Snapshot fails only when the encoding would exceed
// [MaxSnapshotSize], which a Cache of the default size cannot reach.
func (c *Cache) Snapshot() ([]byte, error) {
	out, amis, h, n := c.encodeEntries()
	out = append(out, `],"amis":[`...)
	for i, id := range amis {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, id...)
		out = append(out, '"')
		h.name(id)
	}
	out = append(out, `],"sum":"`...)
	out = fmt.Appendf(out, "%08x", h.value())
	out = append(out, `"}`...)
	if len(out) > c.limit {
		return nil, fmt.Errorf("capacity: a snapshot of %d entries is %d bytes, more than the MaxSnapshotSize (%d) Merge reads; lower Options.Size", n, len(out), c.limit)
	}
	return out, nil
}

// encodeEntries starts a snapshot with its live entries, least recently
// used first, an entry a line, and returns it with the AMI table their
// indices refer to, their sum so far and their count. It holds the lock
// so that the snapshot is of one moment.
func (c *Cache) encodeEntries() (out []byte, amis []string, h sum, n int) {
	horizon := c.horizon(c.now())
	c.mu.Lock()
	defer c.mu.Unlock()
	index := make(map[string]int)
	last, lastAMI := 0, "" // entries often share the previous one's AMI
	out = make([]byte, 0, 64+c.entries.len()*48)
	out = append(out, `{"version":`...)
	out = strconv.AppendInt(out, SnapshotVersion, 10)
	out = append(out, `,"entries":[`...)
	h = newSum()
	for r := range c.entries.oldestFirst() {
		if r.observed <= horizon {
			continue // expired
		}
		i, seen := last, r.amiID == lastAMI
		if !seen {
			if i, seen = index[r.amiID]; !seen {
				i = len(amis)
				index[r.amiID] = i
				amis = append(amis, r.amiID)
			}
			last, lastAMI = i, r.amiID
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, "\n[\""...)
		out = append(out, r.instanceType...)
		out = append(out, `",`...)
		out = strconv.AppendInt(out, int64(i), 10)
		out = append(out, ',')
		out = strconv.AppendInt(out, r.memory, 10)
		out = append(out, ',')
		out = strconv.AppendInt(out, r.observed, 10)
		out = append(out, ']')
		h.entry(r.instanceType, int64(i), r.memory, r.observed)
		n++
	}
	if n > 0 {
		out = append(out, '\n')
	}
	return out, amis, h, n
}

// sum computes a snapshot's "sum": CRC-32C (Castagnoli, as hash/crc32
// computes it) of the byte stream Snapshot documents, gathered into long
// runs for the CRC instruction. A CRC catches every change confined to 32
// consecutive bits, so any one altered field.
type sum struct {
	crc uint32
	buf []byte
}

func newSum() sum { return sum{buf: make([]byte, 0, 64<<10)} }

// name adds s and a zero byte.
func (h *sum) name(s string) {
	h.buf = append(h.buf, s...)
	h.buf = append(h.buf, 0)
	h.spill()
}

func (h *sum) entry(instanceType string, ami, memory, observed int64) {
	h.buf = append(h.buf, instanceType...)
	h.buf = append(h.buf, 0)
	h.buf = binary.BigEndian.AppendUint64(h.buf, uint64(ami))
	h.buf = binary.BigEndian.AppendUint64(h.buf, uint64(memory))
	h.buf = binary.BigEndian.AppendUint64(h.buf, uint64(observed))
	h.spill()
}

// spill folds the buffer into the CRC once it is long.
func (h *sum) spill() {
	if len(h.buf) >= 60<<10 {
		h.crc = crc32.Update(h.crc, crc32.MakeTable(crc32.Castagnoli), h.buf)
		h.buf = h.buf[:0]
	}
}

func (h *sum) value() uint32 {
	h.crc = crc32.Update(h.crc, crc32.MakeTable(crc32.Castagnoli), h.buf)
	h.buf = h.buf[:0]
	return h.crc
}

// Merge adds what another Cache learned, from its [Cache.Snapshot]. The
// snapshot is decoded and checked whole first: if any of it is malformed,
// truncated, altered (its sum disagrees), larger than [MaxSnapshotSize] or
// of another version, Merge returns an error saying so and changes
// nothing. Any JSON spelling of the encoding is read (whitespace, members
// in any order, escapes), but integers must be written as integers.
//
// Each entry then joins the one held for its key by the rule Observe
// follows: the lower memory wins, with its own observation time; on equal
// memory the later time wins (an equal figure refreshes the TTL). Entries
// expired at the time of the merge take no part: a live figure beats an
// expired lower one, and an expired one is not merged. A time ahead of
// this Cache's clock counts as now, so a replica whose clock runs ahead,
// or a bad time, cannot make a figure outlive its TTL here.
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
	s, err := decodeSnapshot(snapshot, c.limit)
	if err != nil {
		return err
	}
	now := c.now()
	latest, horizon := now.Unix(), c.horizon(now)
	for rest := s.entries; len(rest) > 0; {
		batch := rest[:min(len(rest), mergeBatch)]
		rest = rest[len(batch):]
		c.joinAll(s, batch, latest, horizon, len(rest))
	}
	return nil
}

// mergeBatch is how many entries Merge joins per hold of the lock: enough
// to make the lock's cost vanish, few enough that a lookup waits well
// under a millisecond.
const mergeBatch = 4096

// joinAll joins each entry of batch, from s, under the lock; rest more
// follow.
func (c *Cache) joinAll(s *decoded, batch []packed, latest, horizon int64, rest int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries.reserve(len(batch) + rest)
	var merged, evicted int64
	for _, e := range batch {
		if ok, ev := c.join(s.record(e), latest, horizon); ok {
			merged++
			if ev {
				evicted++
			}
		}
	}
	c.merged.Add(merged)
	c.evictions.Add(evicted)
}

// join puts in under its key unless it is expired or the live record
// there is at least as good; times after latest (now) count as latest. It
// reports whether it put in, and whether that evicted another record. The
// caller holds the lock.
func (c *Cache) join(in record, latest, horizon int64) (merged, evicted bool) {
	in.observed = min(in.observed, latest)
	if in.observed <= horizon {
		return false, false
	}
	i, ok := c.entries.index[in.key]
	switch {
	case !ok:
		return true, c.entries.insert(in)
	case c.entries.slots[i].observed > horizon && !in.beats(c.entries.slots[i].record):
		return false, false
	}
	c.entries.replace(i, in)
	return true, false
}

// beats reports whether r wins over old: less memory, or as little and
// observed later.
func (r record) beats(old record) bool {
	return r.memory < old.memory || r.memory == old.memory && r.observed > old.observed
}
