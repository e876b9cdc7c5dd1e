package capacitystore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
				cpu := cpuTime(b)
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
				b.ReportMetric(float64(cpuTime(b)-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// cpuTime returns the CPU time (user and system) used so far by this
// process and its children, the kube-apiserver and etcd envtest runs: what
// a round trip costs the machine, whatever else loads it. (A round trip is
// one chain of work from client to etcd and back, so on an idle machine its
// wall time is near its CPU time, plus etcd's fsync.)
func cpuTime(b *testing.B) time.Duration {
	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		b.Fatal(err)
	}
	total := time.Duration(self.Utime.Nano() + self.Stime.Nano())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // gone meanwhile
		}
		// After the command, in parentheses: state, ppid, ... utime (14th
		// field of the whole line), stime (15th), in clock ticks of 10 ms.
		fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if len(fields) < 13 || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		utime, _ := strconv.ParseInt(fields[11], 10, 64)
		stime, _ := strconv.ParseInt(fields[12], 10, 64)
		total += time.Duration(utime+stime) * 10 * time.Millisecond
	}
	return total
}
