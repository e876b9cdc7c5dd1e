package capacitystore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/ec2select/ec2select/capacity"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/util/validation"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// Defaults of Options.
const (
	DefaultNamespace = "default"
	DefaultName      = "ec2select-capacity"
	DefaultInterval  = 30 * time.Second
	DefaultRetries   = 8
	// MaxPartBytes is the most data one ConfigMap holds: the API server
	// refuses a ConfigMap whose data and binaryData values add up to more
	// than 1 MiB (kubernetes v1.35.3, pkg/apis/core/validation/validation.go
	// line 7781, against core.MaxSecretSize in pkg/apis/core/types.go line
	// 6570; keys do not count). It is Options.PartBytes' default and most.
	MaxPartBytes = 1 << 20
	// DefaultMaxParts is enough parts for any snapshot a capacity.Cache
	// writes (capacity.MaxSnapshotSize), even if it did not compress.
	DefaultMaxParts = capacity.MaxSnapshotSize/MaxPartBytes + 1
	// OrphanAge is how old a part no head references must be before
	// Start's sweep deletes it: far longer than any write takes, so that a
	// part another replica has just written for the head it is about to
	// write is never taken for an orphan.
	OrphanAge = 10 * time.Minute
)

// Options configures a Store. The zero value means the defaults.
type Options struct {
	// Namespace and Name place the head ConfigMap; parts are named after
	// it. Zero means DefaultNamespace and DefaultName.
	Namespace, Name string
	// Writer names this replica in the head's AnnotationWriter, for people
	// reading it; a pod name is a good choice. Zero means the host name.
	Writer string
	// Interval is how often Start saves, when there is something to save.
	// Zero means DefaultInterval.
	Interval time.Duration
	// PartBytes is the most compressed snapshot one ConfigMap holds; a
	// larger one is split over parts of this size. Zero means MaxPartBytes,
	// which is also the most.
	PartBytes int
	// MaxParts is the most ConfigMaps a snapshot may be split over; Save
	// refuses a larger one with a TooLargeError. Zero means DefaultMaxParts.
	MaxParts int
	// Retries is how many conflicts (another replica wrote first) one Save
	// resolves, each by reading, merging and writing again, before it gives
	// up until the next. Zero means DefaultRetries.
	Retries int
	// Log receives what Start cannot return: a head it refused, a failed
	// save or watch. Nil means slog.Default().
	Log *slog.Logger
	// Now is the clock orphaned parts' age is measured against. Nil means
	// time.Now.
	Now func() time.Time
}

// Store keeps a capacity.Cache's snapshot in ConfigMaps, so that what one
// replica learned survives its restart and reaches the others. It is safe
// for concurrent use: loads, saves and watch events take turns, and never
// hold the Cache's own lock across an API call.
type Store struct {
	client corev1client.ConfigMapsGetter
	cache  *capacity.Cache
	o      Options
	log    *slog.Logger

	// op makes Load, Save and watch events take turns, API calls included:
	// each reads and updates seen, and a save must not interleave with a
	// merge of the head it replaces.
	op   sync.Mutex
	seen head
	// recorded is the Cache's Stats().Recorded when the last save that
	// succeeded took its snapshot; dirty is set when the head was deleted.
	// Start saves when either says there is something the head lacks.
	recorded int64
	dirty    bool

	mu    sync.Mutex // guards stats alone, so Stats never waits for the API
	stats Stats

	pause func(ctx context.Context, conflicts int) error // backoff; tests that count no time skip it
}

// head is what this Store last knew of the head ConfigMap, from reading
// or writing it: the Cache holds everything the head held at rv.
type head struct {
	known bool     // false until read or written, and after a conflict
	rv    string   // its resourceVersion; "" when there is no head
	parts []string // the parts it spans; deleted when it is replaced
}

// Stats counts what a Store has done since it was made.
type Stats struct {
	Loads     int64 // heads read and merged: by Load, by watch events, after conflicts
	Saves     int64 // heads written
	Conflicts int64 // writes another replica's write came before (409 Conflict), each then read, merged and written again
	Refused   int64 // heads refused as unreadable (CorruptError)
	Parts     int   // ConfigMaps the last head read or written spans: 1 unless split
	Bytes     int   // the compressed size of the last snapshot read or written
}

// New returns a Store that keeps cache's snapshot in the ConfigMaps
// Options name, through client (a clientset's CoreV1()), or an error
// naming the bad option. It reads nothing until Load, Save or Start.
func New(client corev1client.ConfigMapsGetter, cache *capacity.Cache, o Options) (*Store, error) {
	o.Namespace = cmp.Or(o.Namespace, DefaultNamespace)
	o.Name = cmp.Or(o.Name, DefaultName)
	o.Interval = cmp.Or(o.Interval, DefaultInterval)
	o.PartBytes = cmp.Or(o.PartBytes, MaxPartBytes)
	o.MaxParts = cmp.Or(o.MaxParts, DefaultMaxParts)
	o.Retries = cmp.Or(o.Retries, DefaultRetries)
	if o.Writer == "" {
		o.Writer, _ = os.Hostname()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := o.check(client, cache); err != nil {
		return nil, err
	}
	return &Store{client: client, cache: cache, o: o, log: cmp.Or(o.Log, slog.Default()), pause: pause}, nil
}

func (o *Options) check(client corev1client.ConfigMapsGetter, cache *capacity.Cache) error {
	switch {
	case client == nil || cache == nil:
		return errors.New("capacitystore: New needs a client (a clientset's CoreV1()) and a capacity.Cache")
	case len(validation.IsDNS1123Label(o.Namespace)) > 0:
		return fmt.Errorf("capacitystore: Options.Namespace %q is not a namespace name: %v", o.Namespace, validation.IsDNS1123Label(o.Namespace))
	case !validName(o.Name) || len(o.Name) > 40 || len(validation.IsValidLabelValue(o.Name)) > 0:
		return fmt.Errorf("capacitystore: Options.Name %q must be a ConfigMap name of at most 40 characters (parts add a suffix, and LabelStore holds it): lowercase letters, digits, '-' and '.'", o.Name)
	case o.Interval < 0 || o.PartBytes < 1 || o.PartBytes > MaxPartBytes || o.MaxParts < 1 || o.Retries < 0:
		return fmt.Errorf("capacitystore: Options has Interval %v, PartBytes %d, MaxParts %d, Retries %d; use a positive interval, 1 to %d bytes a part, at least 1 part and 0 or more retries (0 for each default)",
			o.Interval, o.PartBytes, o.MaxParts, o.Retries, MaxPartBytes)
	case len(o.Writer) > 253:
		return fmt.Errorf("capacitystore: Options.Writer %q… is longer than 253 characters; use the pod's name", o.Writer[:253])
	}
	return nil
}

// validName reports whether name may name a ConfigMap.
func validName(name string) bool { return len(validation.IsDNS1123Subdomain(name)) == 0 }

func (s *Store) configMaps() corev1client.ConfigMapInterface {
	return s.client.ConfigMaps(s.o.Namespace)
}

// Stats returns what s has done so far.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func (s *Store) count(f func(*Stats)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.stats)
}

// Load reads the head ConfigMap, and its parts if it is split, and merges
// the snapshot into the Cache. A missing head is not an error: nothing has
// been saved yet. A head that cannot be read is refused with a
// *CorruptError naming it, and nothing is merged.
func (s *Store) Load(ctx context.Context) error {
	s.op.Lock()
	defer s.op.Unlock()
	return s.load(ctx)
}

// load reads the head again when another replica replaced it, and deleted
// its parts, while they were read. A part missing from a head that was not
// replaced was deleted by hand: the head is refused.
func (s *Store) load(ctx context.Context) error {
	for last := ""; ; {
		cm, err := s.configMaps().Get(ctx, s.o.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			s.seen = head{known: true}
			return nil
		case err != nil:
			return fmt.Errorf("capacitystore: reading ConfigMap %s/%s: %w", s.o.Namespace, s.o.Name, err)
		}
		err = s.merge(ctx, cm)
		switch {
		case !errors.Is(err, errPartGone):
			return err
		case cm.ResourceVersion == last:
			return s.refused(s.corrupt(cm.Name, err))
		}
		last = cm.ResourceVersion
	}
}

// merge merges the snapshot head holds into the Cache and records it as
// seen. A head that cannot be read is not recorded as seen, so that Save
// never writes over it.
func (s *Store) merge(ctx context.Context, cm *corev1.ConfigMap) error {
	blob, parts, err := s.read(ctx, cm)
	if err != nil {
		return s.refused(err)
	}
	snapshot, err := decompress(blob)
	if err == nil {
		err = s.cache.Merge(snapshot)
	}
	if err != nil {
		return s.refused(s.corrupt(cm.Name, err))
	}
	s.seen = head{known: true, rv: cm.ResourceVersion, parts: parts}
	s.count(func(st *Stats) { st.Loads++; st.Parts = max(len(parts), 1); st.Bytes = len(blob) })
	return nil
}

func (s *Store) refused(err error) error {
	var corrupt *CorruptError
	if errors.As(err, &corrupt) {
		s.count(func(st *Stats) { st.Refused++ })
	}
	return err
}

// Save writes the Cache's snapshot to the head ConfigMap (splitting it
// over parts when it does not fit in one), on top of the head this Store
// last read or wrote. When another replica wrote in between, the API
// server refuses the write (409 Conflict); Save then reads the head,
// merges it and writes again, up to Options.Retries times, so that what
// the other replica wrote is kept. It writes over nothing it has not
// merged: a head it cannot read is refused with a *CorruptError and left
// as it is. A snapshot too large for Options.MaxParts is refused with a
// *TooLargeError, and nothing is written.
func (s *Store) Save(ctx context.Context) error {
	s.op.Lock()
	defer s.op.Unlock()
	return s.save(ctx)
}

func (s *Store) save(ctx context.Context) error {
	for conflicts := 0; ; conflicts++ {
		if !s.seen.known {
			if err := s.load(ctx); err != nil {
				return err
			}
		}
		recorded := s.cache.Stats().Recorded // before the snapshot: what is recorded after it is saved next time
		err := s.write(ctx)
		if !isConflict(err) {
			if err == nil {
				s.recorded, s.dirty = recorded, false
			}
			return err
		}
		s.seen.known = false
		s.count(func(st *Stats) { st.Conflicts++ })
		if conflicts == s.o.Retries {
			return fmt.Errorf("capacitystore: saving ConfigMap %s/%s: other replicas wrote first %d times in a row; nothing is lost, it is saved again next time: %w", s.o.Namespace, s.o.Name, conflicts+1, err)
		}
		if err := s.pause(ctx, conflicts); err != nil {
			return err
		}
	}
}

// pause waits a random time before the next attempt after n conflicts, up
// to twice as long each time, so that replicas that collided do not
// collide again.
func pause(ctx context.Context, n int) error {
	limit := 10 * time.Millisecond << min(n, 6)
	t := time.NewTimer(rand.N(limit))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// write writes the Cache's snapshot over the head at s.seen.rv, creating
// it if there is none, and then deletes the parts of the head it replaced.
func (s *Store) write(ctx context.Context) error {
	snapshot, err := s.cache.Snapshot()
	if err != nil {
		return fmt.Errorf("capacitystore: %w", err)
	}
	blob := compress(snapshot)
	cm, parts, err := s.layout(blob)
	if err != nil {
		return err
	}
	names := make([]string, len(parts))
	for i, p := range parts {
		if _, err := s.configMaps().Create(ctx, p, metav1.CreateOptions{}); err != nil {
			s.deleteParts(ctx, names[:i])
			return fmt.Errorf("capacitystore: writing ConfigMap %s/%s, a part of %s: %w", s.o.Namespace, p.Name, s.o.Name, err)
		}
		names[i] = p.Name
	}
	written, err := s.put(ctx, cm)
	if err != nil {
		s.deleteParts(ctx, names)
		return err
	}
	replaced := s.seen.parts
	s.seen = head{known: true, rv: written.ResourceVersion, parts: names}
	s.deleteParts(ctx, replaced)
	s.count(func(st *Stats) { st.Saves++; st.Parts = max(len(parts), 1); st.Bytes = len(blob) })
	return nil
}

// put creates the head, or updates the one at s.seen.rv. An update of a
// head deleted meanwhile is a conflict too.
func (s *Store) put(ctx context.Context, cm *corev1.ConfigMap) (*corev1.ConfigMap, error) {
	var written *corev1.ConfigMap
	var err error
	if s.seen.rv == "" {
		written, err = s.configMaps().Create(ctx, cm, metav1.CreateOptions{})
	} else {
		cm.ResourceVersion = s.seen.rv
		written, err = s.configMaps().Update(ctx, cm, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			err = apierrors.NewConflict(corev1.Resource("configmaps"), cm.Name, err)
		}
	}
	if err != nil && !isConflict(err) {
		err = fmt.Errorf("capacitystore: writing ConfigMap %s/%s: %w", s.o.Namespace, s.o.Name, err)
	}
	return written, err
}

// newer reports whether resource version rv comes after the head s last
// saw. Resource versions are compared as Kubernetes defines them
// (integers); one that is not, unless it is the same, counts as newer.
func (s *Store) newer(rv string) bool {
	if !s.seen.known || s.seen.rv == "" {
		return true
	}
	c, err := resourceversion.CompareResourceVersion(rv, s.seen.rv)
	if err != nil {
		return rv != s.seen.rv
	}
	return c > 0
}

// pending reports whether the Cache may hold something the head lacks:
// an observation recorded since the last save, or a head deleted.
func (s *Store) pending() bool {
	return s.dirty || s.cache.Stats().Recorded != s.recorded
}
