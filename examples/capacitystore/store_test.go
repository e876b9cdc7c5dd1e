package capacitystore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ec2select/ec2select/capacity"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// TestConfigMapLimit pins MaxPartBytes to the real API server: a ConfigMap
// of exactly MaxPartBytes of binaryData is accepted, one byte more is
// refused as too long.
func TestConfigMapLimit(t *testing.T) {
	cms := clientset(t, apiServer(t)).CoreV1().ConfigMaps("default")
	for _, tc := range []struct {
		name  string
		bytes int
		ok    bool
	}{
		{"at the limit", MaxPartBytes, true},
		{"a byte over", MaxPartBytes + 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: storeName(t)},
				BinaryData: map[string][]byte{KeyPart: bytes.Repeat([]byte{0xa5}, tc.bytes)}}
			_, err := cms.Create(context.Background(), cm, metav1.CreateOptions{})
			switch {
			case tc.ok && err != nil:
				t.Fatalf("%d bytes: %v", tc.bytes, err)
			case !tc.ok && !apierrors.IsInvalid(err):
				t.Fatalf("%d bytes: got %v, want the API server to refuse it as invalid", tc.bytes, err)
			case !tc.ok && !strings.Contains(err.Error(), fmt.Sprintf("may not be more than %d bytes", MaxPartBytes)):
				t.Errorf("%d bytes: the refusal %q does not name the limit", tc.bytes, err)
			}
		})
	}
}

// TestReplicasWriteConcurrently: three replicas observe different nodes,
// some of the same type under the same AMI with different figures, and
// save in a loop while their writes are delayed at random and their
// watches merge each other's writes. Afterwards the ConfigMap holds the
// union of every observation, each key at its minimum, and so does every
// replica; conflicts happened and were resolved.
func TestReplicasWriteConcurrently(t *testing.T) {
	for _, tc := range []struct {
		name      string
		partBytes int
	}{
		{"one ConfigMap", 0},
		{"split over parts", 2 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Name: storeName(t), Interval: 40 * time.Millisecond, PartBytes: tc.partBytes, Retries: 100}
			all := nodes(t, 900)
			want := model{}
			var observed [3][]node
			for i, n := range all {
				r := i % 3
				if i%4 == 0 { // a node every replica sees, each a different figure
					for r := range observed {
						m := n
						m.memory -= int64(r+1) << 20 * int64(i%3+1)
						observed[r] = append(observed[r], m)
						want.add(m)
					}
					continue
				}
				observed[r] = append(observed[r], n)
				want.add(n)
			}
			ctx, stop := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			replicas := make([]*capacity.Cache, 3)
			stores := make([]*Store, 3)
			errs := make(chan error, 100)
			for r := range replicas {
				f := &faults{delay: func() time.Duration { return time.Duration(rand.IntN(25)) * time.Millisecond }}
				replicas[r] = newCache(t)
				o.Writer = fmt.Sprintf("replica-%d", r)
				stores[r] = newStore(t, withFaults(apiServer(t), f), replicas[r], o)
				wg.Go(func() { stores[r].Start(ctx) })
			}
			var writers sync.WaitGroup
			for r := range replicas {
				writers.Go(func() {
					for chunk := range slicesChunk(observed[r], 25) {
						for _, n := range chunk {
							if err := observe(replicas[r], n); err != nil {
								errs <- err
								return
							}
						}
						if err := stores[r].Save(ctx); err != nil {
							errs <- fmt.Errorf("replica %d: %w", r, err)
							return
						}
					}
				})
			}
			writers.Wait()
			stop()
			wg.Wait() // each Start saves once more as it returns
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if err := want.check(loaded(t, apiServer(t), o)); err != nil {
				t.Errorf("the ConfigMap: %v", err)
			}
			var conflicts, loads int64
			for r, s := range stores {
				if err := s.Load(context.Background()); err != nil {
					t.Fatal(err)
				}
				if err := want.check(replicas[r]); err != nil {
					t.Errorf("replica %d: %v", r, err)
				}
				conflicts, loads = conflicts+s.Stats().Conflicts, loads+s.Stats().Loads
			}
			t.Logf("%d keys from %d nodes; %d conflicts resolved, %d heads merged", len(want), len(all), conflicts, loads)
			if conflicts == 0 {
				t.Error("no write conflicted with another: the test did not exercise concurrency")
			}
		})
	}
}

// slicesChunk is slices.Chunk.
func slicesChunk[T any](s []T, n int) func(func([]T) bool) {
	return func(yield func([]T) bool) {
		for i := 0; i < len(s); i += n {
			if !yield(s[i:min(i+n, len(s))]) {
				return
			}
		}
	}
}

// TestKilledMidWrite: a replica killed while it sends a write, of the head
// or of one of its parts, leaves the store as it was: a new replica loads
// everything written before, the other replica keeps saving, and the
// parts the killed write left behind are swept once they are old.
func TestKilledMidWrite(t *testing.T) {
	for _, tc := range []struct {
		name      string
		partBytes int
		kill      func(store string) func(*http.Request) bool
	}{
		{"one ConfigMap, killed sending the head", 0, killHead},
		{"split, killed sending a part", 2 << 10, killPart},
		{"split, killed sending the head after its parts", 2 << 10, killHead},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			o := Options{Name: storeName(t), PartBytes: tc.partBytes}
			all := nodes(t, 1500)
			want := model{}
			f := &faults{}
			a, b := newCache(t), newCache(t)
			sa, sb := newStore(t, withFaults(apiServer(t), f), a, o), newStore(t, apiServer(t), b, o)
			for i, n := range all[:1000] {
				observe([]*capacity.Cache{a, b}[i%2], n)
				want.add(n)
			}
			for _, s := range []*Store{sa, sb, sa} {
				if err := s.Save(ctx); err != nil {
					t.Fatal(err)
				}
			}
			for _, n := range all[1000:1200] {
				observe(a, n) // never written: a dies writing them
			}
			f.killWhen(tc.kill(o.Name))
			if err := sa.Save(ctx); !errors.Is(err, errKilled) {
				t.Fatalf("the killed write: got %v, want it to fail", err)
			}
			if err := want.check(loaded(t, apiServer(t), o)); err != nil {
				t.Fatalf("after the kill: %v", err)
			}
			for _, n := range all[1200:] {
				observe(b, n)
				want.add(n)
			}
			if err := sb.Save(ctx); err != nil {
				t.Fatalf("the surviving replica saves: %v", err)
			}
			if err := want.check(loaded(t, apiServer(t), o)); err != nil {
				t.Fatalf("after the surviving replica saved: %v", err)
			}
			// The replica restarts an hour later and sweeps.
			later := newStore(t, apiServer(t), newCache(t), Options{Name: o.Name, PartBytes: o.PartBytes, Now: func() time.Time { return time.Now().Add(time.Hour) }})
			// Start loads and sweeps before it watches; wait for the sweep
			// (a loaded host can take seconds), then stop it.
			ctx, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { later.Start(ctx); close(done) }()
			for deadline := time.Now().Add(10 * time.Second); !sameSet(partsOf(t, o.Name), sb.seen.parts); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Errorf("parts 10s after the restart: %v, want the head's %v", partsOf(t, o.Name), sb.seen.parts)
					break
				}
			}
			stop()
			<-done
		})
	}
}

// killHead matches the update of a store's head; killPart the creation of a
// store's second part (so that one is left behind).
func killHead(store string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		return r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/configmaps/"+store)
	}
}

func killPart(string) func(*http.Request) bool {
	var posts atomic.Int32
	return func(r *http.Request) bool { return r.Method == http.MethodPost && posts.Add(1) == 2 }
}

// partsOf lists the names of store's parts.
func partsOf(t *testing.T, store string) []string {
	t.Helper()
	list, err := clientset(t, apiServer(t)).CoreV1().ConfigMaps(DefaultNamespace).List(context.Background(), metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{LabelStore: store, LabelRole: "part"}).String()})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, cm := range list.Items {
		names = append(names, cm.Name)
	}
	return names
}

func sameSet(a, b []string) bool {
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestNewReplicaKnowsAtOnce: a replica that starts from the ConfigMap
// knows every figure the others saved as soon as it has loaded, before it
// observes anything.
func TestNewReplicaKnowsAtOnce(t *testing.T) {
	o := Options{Name: storeName(t)}
	want := model{}
	writer := newCache(t)
	for _, n := range nodes(t, 10_000) {
		if err := observe(writer, n); err != nil {
			t.Fatal(err)
		}
		want.add(n)
	}
	if err := newStore(t, apiServer(t), writer, o).Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := newCache(t)
	s := newStore(t, apiServer(t), c, o)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Start(ctx); close(done) }()
	defer func() { stop(); <-done }()
	for deadline := time.Now().Add(10 * time.Second); s.Stats().Loads == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the new replica did not load within 10s")
		}
	}
	if err := want.check(c); err != nil {
		t.Errorf("the new replica, once loaded: %v", err)
	}
}

// TestWatchMergesOtherWriters: a running replica merges what another
// writes as its watch delivers it, and skips its own writes.
func TestWatchMergesOtherWriters(t *testing.T) {
	o := Options{Name: storeName(t), Interval: time.Hour}
	all := nodes(t, 300)
	a, b := newCache(t), newCache(t)
	sa, sb := newStore(t, apiServer(t), a, o), newStore(t, apiServer(t), b, o)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { sa.Start(ctx) })
	wg.Go(func() { sb.Start(ctx) })
	want := model{}
	for i, chunk := range [][]node{all[:100], all[100:200], all[200:]} {
		for _, n := range chunk {
			observe(b, n)
			want.add(n)
		}
		if err := sb.Save(ctx); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); want.check(a) != nil; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("write %d: replica A has not merged it after 10s: %v", i+1, want.check(a))
			}
		}
	}
	stop()
	wg.Wait()
	if got := sb.Stats(); got.Loads != 0 || got.Saves != 3 {
		t.Errorf("the writer's stats: %+v, want 3 saves and no load of its own writes", got)
	}
	if got := sa.Stats(); got.Loads < 3 || got.Saves != 0 {
		t.Errorf("the reader's stats: %+v, want a load of each of the 3 writes and no save", got)
	}
}

// noisy returns n nodes, as nodes does, whose figures vary byte by byte,
// and a Cache whose clock puts each observation at another second of the
// last 60 days: a snapshot that compresses about as badly as a real one
// can.
func noisy(t testing.TB, n int) ([]node, *capacity.Cache) {
	all := nodes(t, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range all {
		all[i].memory -= r.Int64N(all[i].memory / 10)
	}
	now := time.Now()
	c, err := capacity.New(capacity.Options{Size: capacity.MaxSize, Now: func() time.Time {
		return now.Add(-time.Duration(r.Int64N(60*24*3600)) * time.Second)
	}})
	if err != nil {
		t.Fatal(err)
	}
	return all, c
}

// TestSnapshotOverTheLimit: a snapshot whose compressed form is over a
// ConfigMap's 1 MiB is split over parts the real API server accepts, and
// read back whole; with too few parts allowed it is refused with a
// TooLargeError and nothing is written, never a truncated snapshot.
func TestSnapshotOverTheLimit(t *testing.T) {
	ctx := context.Background()
	all, big := noisy(t, 150_000)
	want := model{}
	for _, n := range all {
		if err := observe(big, n); err != nil {
			t.Fatal(err)
		}
		want.add(n)
	}

	t.Run("split", func(t *testing.T) {
		o := Options{Name: storeName(t)}
		s := newStore(t, apiServer(t), big, o)
		if err := s.Save(ctx); err != nil {
			t.Fatal(err)
		}
		st := s.Stats()
		t.Logf("%d entries: %d bytes compressed, %d ConfigMaps", len(want), st.Bytes, st.Parts)
		if st.Bytes <= MaxPartBytes || st.Parts != (st.Bytes+MaxPartBytes-1)/MaxPartBytes {
			t.Fatalf("%d bytes in %d parts: want over %d bytes, in parts of at most %d", st.Bytes, st.Parts, MaxPartBytes, MaxPartBytes)
		}
		if err := want.check(loaded(t, apiServer(t), o)); err != nil {
			t.Error(err)
		}
	})

	t.Run("refused", func(t *testing.T) {
		o := Options{Name: storeName(t), MaxParts: 1}
		small := newCache(t)
		before := model{}
		for _, n := range nodes(t, 100) {
			observe(small, n)
			before.add(n)
		}
		if err := newStore(t, apiServer(t), small, o).Save(ctx); err != nil {
			t.Fatal(err)
		}
		cms := clientset(t, apiServer(t)).CoreV1().ConfigMaps(DefaultNamespace)
		head, _ := cms.Get(ctx, o.Name, metav1.GetOptions{})
		err := newStore(t, apiServer(t), big, o).Save(ctx)
		var tooLarge *TooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Parts < 2 || tooLarge.MaxParts != 1 || tooLarge.Store != o.Name {
			t.Fatalf("got %v, want a TooLargeError for %s", err, o.Name)
		}
		for _, text := range []string{"default/" + o.Name, "Options.MaxParts (1)", "nothing was written"} {
			if !strings.Contains(err.Error(), text) {
				t.Errorf("the error %q lacks %q", err, text)
			}
		}
		after, _ := cms.Get(ctx, o.Name, metav1.GetOptions{})
		if after.ResourceVersion != head.ResourceVersion || len(partsOf(t, o.Name)) > 0 {
			t.Errorf("the refused save wrote: head %s → %s, parts %v", head.ResourceVersion, after.ResourceVersion, partsOf(t, o.Name))
		}
		if err := before.check(loaded(t, apiServer(t), o)); err != nil {
			t.Error(err)
		}
	})
}

// syncBuffer is a log replicas write to concurrently.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestCorruptConfigMap: a ConfigMap of the store edited by hand is refused
// with a CorruptError naming it and saying how to recover; nothing of it is
// merged and no replica writes over it; the replicas keep learning, and
// once the store's ConfigMaps are deleted, as the error says, they write
// everything they know anew.
func TestCorruptConfigMap(t *testing.T) {
	for _, tc := range []struct {
		name      string
		partBytes int
		edit      func(t *testing.T, cms corev1client.ConfigMapInterface, head *corev1.ConfigMap) (named string)
		why       string
		// repaired: the head itself is as the first replica wrote it, and
		// so it may write over it, knowing all it held.
		repaired bool
	}{
		{"a figure changed in the snapshot", 0, editHead(func(cm *corev1.ConfigMap) {
			snapshot, _ := decompress(cm.BinaryData[KeySnapshot])
			cm.BinaryData[KeySnapshot] = compress(bytes.Replace(snapshot, []byte(`"memory":[`), []byte(`"memory":[1`), 1))
		}), "altered or corrupted after Cache.Snapshot wrote it", false},
		{"the snapshot not compressed", 0, editHead(func(cm *corev1.ConfigMap) {
			cm.BinaryData[KeySnapshot], _ = decompress(cm.BinaryData[KeySnapshot])
		}), "its snapshot is not gzip data", false},
		{"the key renamed", 0, editHead(func(cm *corev1.ConfigMap) {
			cm.BinaryData = map[string][]byte{"snapshot.gz": cm.BinaryData[KeySnapshot]}
		}), `it holds binaryData "snapshot.gz", where capacitystore writes`, false},
		{"a note added", 0, editHead(func(cm *corev1.ConfigMap) { cm.Data = map[string]string{"note": "do not touch"} }),
			`it holds data "note", binaryData "snapshot.json.gz"`, false},
		{"the list of parts edited", 2 << 10, editHead(func(cm *corev1.ConfigMap) {
			cm.Data[KeyParts] = strings.Replace(cm.Data[KeyParts], `"bytes":`, `"bytes":1`, 1)
		}), "where its parts.json says", false},
		{"a part replaced", 2 << 10, replacePart, "with SHA-256", true},
		{"a part deleted", 2 << 10, deletePart, "it lists a part that does not exist", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var log syncBuffer
			o := Options{Name: storeName(t), PartBytes: tc.partBytes, Interval: 20 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&log, nil))}
			all := nodes(t, 600)
			want := model{}
			a := newCache(t)
			sa := newStore(t, apiServer(t), a, o)
			for _, n := range all[:300] {
				observe(a, n)
				want.add(n)
			}
			if err := sa.Save(ctx); err != nil {
				t.Fatal(err)
			}
			running, stop := context.WithCancel(ctx)
			var wg sync.WaitGroup
			wg.Go(func() { sa.Start(running) })
			defer func() { stop(); wg.Wait() }()

			cms := clientset(t, apiServer(t)).CoreV1().ConfigMaps(DefaultNamespace)
			head, err := cms.Get(ctx, o.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			named := tc.edit(t, cms, head)
			edited, _ := cms.Get(ctx, o.Name, metav1.GetOptions{})

			b := newCache(t)
			sb := newStore(t, apiServer(t), b, o)
			err = sb.Load(ctx)
			var corrupt *CorruptError
			if !errors.As(err, &corrupt) || corrupt.Name != named || corrupt.Namespace != DefaultNamespace || corrupt.Store != o.Name {
				t.Fatalf("a new replica loads: got %v, want a CorruptError naming %s", err, named)
			}
			for _, text := range []string{"ConfigMap default/" + named + " cannot be read", tc.why, "kubectl delete configmap -n default -l capacitystore.ec2select.io/store=" + o.Name} {
				if !strings.Contains(err.Error(), text) {
					t.Errorf("the error %q lacks %q", err, text)
				}
			}
			if n := b.Stats().Len; n != 0 {
				t.Errorf("the refused ConfigMap gave the new replica %d entries", n)
			}

			// Both replicas keep learning, and neither writes over it.
			for i, n := range all[300:] {
				observe([]*capacity.Cache{a, b}[i%2], n)
				want.add(n)
			}
			if err := sb.Save(ctx); !errors.As(err, &corrupt) {
				t.Errorf("the new replica saves over it: got %v, want a CorruptError", err)
			}
			wg.Go(func() { sb.Start(running) })
			time.Sleep(10 * o.Interval)
			if now, _ := cms.Get(ctx, o.Name, metav1.GetOptions{}); now.ResourceVersion != edited.ResourceVersion && !tc.repaired {
				t.Fatalf("a replica wrote over the ConfigMap edited by hand")
			}
			if !strings.Contains(log.String(), "ConfigMap default/"+named+" cannot be read") && !tc.repaired {
				t.Errorf("the replicas' log does not name the ConfigMap:\n%s", log.String())
			}

			// The fix the error gives.
			if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: LabelStore + "=" + o.Name}); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(10 * time.Second); want.check(loadedQuietly(t, o)) != nil; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("10s after the ConfigMaps were deleted: %v", want.check(loadedQuietly(t, o)))
				}
			}
		})
	}
}

// editHead edits the head as kubectl edit would.
func editHead(edit func(*corev1.ConfigMap)) func(*testing.T, corev1client.ConfigMapInterface, *corev1.ConfigMap) string {
	return func(t *testing.T, cms corev1client.ConfigMapInterface, head *corev1.ConfigMap) string {
		edit(head)
		if _, err := cms.Update(context.Background(), head, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		return head.Name
	}
}

// replacePart replaces the head's first part with one whose bytes differ
// (parts are immutable: it is deleted and created again). The head names
// the parts by their sum, so the head is what is refused.
func replacePart(t *testing.T, cms corev1client.ConfigMapInterface, head *corev1.ConfigMap) string {
	ctx := context.Background()
	m, err := parseManifest(head.Data[KeyParts])
	if err != nil {
		t.Fatal(err)
	}
	part, err := cms.Get(ctx, m.Parts[0], metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, part.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	part.ResourceVersion, part.UID = "", ""
	part.BinaryData[KeyPart][100] ^= 1
	if _, err := cms.Create(ctx, part, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return head.Name
}

// deletePart deletes the head's last part.
func deletePart(t *testing.T, cms corev1client.ConfigMapInterface, head *corev1.ConfigMap) string {
	m, err := parseManifest(head.Data[KeyParts])
	if err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(context.Background(), m.Parts[len(m.Parts)-1], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	return head.Name
}

// loadedQuietly is loaded, returning an empty Cache when loading fails.
func loadedQuietly(t *testing.T, o Options) *capacity.Cache {
	c := newCache(t)
	o.Log = slog.New(slog.DiscardHandler)
	newStore(t, apiServer(t), c, o).Load(context.Background())
	return c
}
