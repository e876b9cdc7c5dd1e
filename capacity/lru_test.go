package capacity

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestTableIsAnLRU runs random operations on a table and on a plain
// slice kept in use order, and requires the same contents, in the same
// order, after each.
func TestTableIsAnLRU(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.IntRange(1, 5).Draw(t, "size")
		tbl := newTable(size)
		var model []record // least recently used first
		find := func(k key) int {
			return slices.IndexFunc(model, func(r record) bool { return r.key == k })
		}
		keyGen := rapid.Custom(func(t *rapid.T) key {
			return key{rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "f", "g"}).Draw(t, "type"), "ami-0a"}
		})
		t.Repeat(map[string]func(*rapid.T){
			"put": func(t *rapid.T) {
				r := record{key: keyGen.Draw(t, "key"), memory: rapid.Int64Range(1, 9).Draw(t, "memory")}
				wantEvicted := false
				if i := find(r.key); i >= 0 {
					model = slices.Delete(model, i, i+1)
				} else if len(model) == size {
					model, wantEvicted = model[1:], true
				}
				model = append(model, r)
				if got := tbl.put(r); got != wantEvicted {
					t.Fatalf("put(%v) evicted = %v; want %v", r.key, got, wantEvicted)
				}
			},
			"get": func(t *rapid.T) {
				k := keyGen.Draw(t, "key")
				i := find(k)
				got, ok := tbl.get(k)
				if ok != (i >= 0) || ok && got != model[i] {
					t.Fatalf("get(%v) = %v, %v; want it held: %v", k, got, ok, i >= 0)
				}
				if ok {
					model = append(slices.Delete(model, i, i+1), got)
				}
			},
			"peek": func(t *rapid.T) {
				k := keyGen.Draw(t, "key")
				i := find(k)
				if got, ok := tbl.peek(k); ok != (i >= 0) || ok && got != model[i] {
					t.Fatalf("peek(%v) = %v, %v; want it held: %v", k, got, ok, i >= 0)
				}
			},
			"remove": func(t *rapid.T) {
				k := keyGen.Draw(t, "key")
				if i := find(k); i >= 0 {
					model = slices.Delete(model, i, i+1)
				}
				tbl.remove(k)
			},
			"reserve": func(t *rapid.T) {
				tbl.reserve(rapid.IntRange(0, 10).Draw(t, "n")) // a no-op unless empty
			},
			"": func(t *rapid.T) {
				got := slices.Collect(tbl.oldestFirst())
				if !slices.Equal(got, model) || tbl.len() != len(model) {
					t.Fatalf("holds %v (len %d); want %v", got, tbl.len(), model)
				}
				if len(tbl.slots) > size+1 {
					t.Fatalf("%d slots for a bound of %d: removed slots are not reused", len(tbl.slots)-1, size)
				}
			},
		})
	})
}
