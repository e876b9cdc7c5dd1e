package capacity

import "iter"

// table is the Cache's bounded LRU of records. It is not safe for
// concurrent use; the Cache guards it with its mutex.
//
// The records live in one slice of slots, linked from least to most
// recently used by slot index, and a map finds a key's slot. Adding a
// record allocates nothing once the slice and map have grown (or been
// reserved) to the bound, and the garbage collector sees two objects, not
// one per entry: this is what lets Merge restore 100,000 entries in tens
// of milliseconds. (golang-lru, which the first version used, allocates an
// element per entry and cannot be presized: half of Merge's time.)
type table struct {
	index map[key]int32
	// slots[0] is the sentinel: its next is the least recently used slot
	// and its prev the most recently used, 0 when the table is empty.
	slots []slot
	free  int32 // a slot freed by remove, linked by next; 0 if none
	size  int   // the bound
}

type slot struct {
	record
	prev, next int32
}

func newTable(size int) *table {
	return &table{index: make(map[key]int32), slots: make([]slot, 1), size: size}
}

// reserve makes room for n more records without growing, up to the
// bound, when the table is empty: a Merge into a new Cache.
func (t *table) reserve(n int) {
	if len(t.index) > 0 {
		return
	}
	n = min(n, t.size)
	t.index = make(map[key]int32, n)
	t.slots = make([]slot, 1, n+1)
	t.free = 0
}

func (t *table) len() int { return len(t.index) }

// peek returns k's record without counting a use.
func (t *table) peek(k key) (record, bool) {
	i, ok := t.index[k]
	if !ok {
		return record{}, false
	}
	return t.slots[i].record, true
}

// get returns k's record and makes it the most recently used.
func (t *table) get(k key) (record, bool) {
	i, ok := t.index[k]
	if !ok {
		return record{}, false
	}
	t.unlink(i)
	t.push(i)
	return t.slots[i].record, true
}

// put stores r under its key as the most recently used, evicting the
// least recently used record when the table is full, and reports whether
// it evicted.
func (t *table) put(r record) (evicted bool) {
	if i, ok := t.index[r.key]; ok {
		t.replace(i, r)
		return false
	}
	return t.insert(r)
}

// replace stores r in slot i, which holds r's key, as the most recently
// used.
func (t *table) replace(i int32, r record) {
	t.slots[i].record = r
	t.unlink(i)
	t.push(i)
}

// insert adds r, whose key the table does not hold, as the most recently
// used, evicting the least recently used record when the table is full,
// and reports whether it evicted.
func (t *table) insert(r record) (evicted bool) {
	var i int32
	switch {
	case len(t.index) >= t.size:
		i = t.slots[0].next
		delete(t.index, t.slots[i].key)
		t.unlink(i)
		evicted = true
	case t.free != 0:
		i = t.free
		t.free = t.slots[i].next
	default:
		i = int32(len(t.slots))
		t.slots = append(t.slots, slot{})
	}
	t.slots[i].record = r
	t.index[r.key] = i
	t.push(i)
	return evicted
}

// remove drops k's record, if there is one.
func (t *table) remove(k key) {
	i, ok := t.index[k]
	if !ok {
		return
	}
	delete(t.index, k)
	t.unlink(i)
	t.slots[i] = slot{next: t.free} // drop the names for the collector
	t.free = i
}

// oldestFirst yields the records from least to most recently used.
func (t *table) oldestFirst() iter.Seq[record] {
	return func(yield func(record) bool) {
		for i := t.slots[0].next; i != 0; i = t.slots[i].next {
			if !yield(t.slots[i].record) {
				return
			}
		}
	}
}

// push links slot i in as the most recently used.
func (t *table) push(i int32) {
	last := t.slots[0].prev
	t.slots[i].prev, t.slots[i].next = last, 0
	t.slots[last].next = i
	t.slots[0].prev = i
}

// unlink takes slot i out of the list.
func (t *table) unlink(i int32) {
	s := &t.slots[i]
	t.slots[s.prev].next = s.next
	t.slots[s.next].prev = s.prev
}
