package capacitystore

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkRoundTrip is one replica's save and another's load through the
// real API server: snapshot, compress, write (an update of the head), read,
// decompress and merge, into a replica that holds the entries already (the
// steady state) or into an empty one (a replica starting). Every entry has
// its own figure and observation time, so the snapshot compresses as badly
// as a real one can (10,000 entries: about 100 KB).
func BenchmarkRoundTrip(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		for _, into := range []string{"holding", "empty"} {
			b.Run(fmt.Sprintf("entries=%d/into=%s", n, into), func(b *testing.B) {
				ctx := context.Background()
				all, writer := noisy(b, n)
				for _, nd := range all {
					if err := observe(writer, nd); err != nil {
						b.Fatal(err)
					}
				}
				cfg := apiServer(b)
				o := Options{Name: storeName(b)}
				w := newStore(b, cfg, writer, o)
				reader := newCache(b)
				r := newStore(b, cfg, reader, o)
				if err := w.Save(ctx); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if into == "empty" {
						reader.Reset()
					}
					if err := w.Save(ctx); err != nil {
						b.Fatal(err)
					}
					if err := r.Load(ctx); err != nil {
						b.Fatal(err)
					}
				}
				if got := reader.Stats().Len; got != n {
					b.Fatalf("the reader holds %d entries, want %d", got, n)
				}
				b.ReportMetric(float64(w.Stats().Bytes), "bytes/write")
			})
		}
	}
}
