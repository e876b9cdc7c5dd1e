package capacitystore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/ec2select/ec2select/capacity"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"pgregory.net/rapid"
)

// TestReplicasConverge is the store's law, in process: whatever the
// interleaving of observations, snapshots exchanged and merged directly,
// saves, loads, watch events delivered late or out of order, and writes of
// other replicas landing between a replica's read and its write (409
// Conflict, then read, merge and write again), once every replica has
// saved and loaded, every replica's Cache holds exactly the merge of all
// observations: each key at its minimum. And no part is left that the
// head does not reference.
func TestReplicasConverge(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newMachine(t)
		t.Repeat(map[string]func(*rapid.T){
			"observe":  m.observe,
			"save":     m.save,
			"load":     m.load,
			"deliver":  m.deliver,
			"exchange": m.exchange,
			"":         m.check,
		})
		m.settle(t)
	})
}

// machine is N replicas sharing a fake API server.
type machine struct {
	api    *fake.Clientset
	caches []*capacity.Cache
	stores []*Store
	want   model
	heads  []*corev1.ConfigMap // every head written, for late watch events
	logged []string
	nested bool // a replica's write is landing inside another's
	draw   *rapid.T
}

var (
	propertyTypes = []struct{ name, arch string }{{"m5.large", "amd64"}, {"m6g.large", "arm64"}, {"c7i.xlarge", "amd64"}, {"r8g.2xlarge", "arm64"}}
	propertyAMIs  = []string{"ami-0a1b2c3d4e5f60718", "ami-0fedcba9876543210", "ami-00000000000000001"}
)

func newMachine(t *rapid.T) *machine {
	m := &machine{api: apiFake(), want: model{}, draw: t}
	o := Options{Name: "capacity", Writer: "replica", PartBytes: rapid.SampledFrom([]int{MaxPartBytes, 64, 100}).Draw(t, "partBytes"),
		Log: slog.New(logged{&m.logged})}
	n := rapid.IntRange(2, 4).Draw(t, "replicas")
	clock := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for i := range n {
		c, err := capacity.New(capacity.Options{Now: func() time.Time { return clock }})
		if err != nil {
			t.Fatal(err)
		}
		o.Writer = fmt.Sprint("replica-", i)
		s, err := New(interfering{m.api.CoreV1(), func() { m.interfere(i) }}, c, o)
		if err != nil {
			t.Fatal(err)
		}
		s.pause = func(context.Context, int) error { return nil }
		m.caches, m.stores = append(m.caches, c), append(m.stores, s)
	}
	return m
}

func (m *machine) replica(t *rapid.T) int {
	return rapid.IntRange(0, len(m.stores)-1).Draw(t, "replica")
}

func (m *machine) observe(t *rapid.T) {
	typ := rapid.SampledFrom(propertyTypes).Draw(t, "type")
	n := node{typ.name, typ.arch, rapid.SampledFrom(propertyAMIs).Draw(t, "ami"), rapid.Int64Range(1, 64).Draw(t, "GiB") << 30}
	if err := observe(m.caches[m.replica(t)], n); err != nil {
		t.Fatal(err)
	}
	m.want.add(n)
}

// save saves a replica's Cache. Giving up after Options.Retries
// conflicts is allowed (the next save writes it); any other error is not.
func (m *machine) save(t *rapid.T) {
	err := m.stores[m.replica(t)].Save(context.Background())
	if err != nil && !isConflict(errors.Unwrap(err)) {
		t.Fatal(err)
	}
	m.record()
}

func (m *machine) load(t *rapid.T) {
	if err := m.stores[m.replica(t)].Load(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// deliver hands a replica a watch event for any head written so far: the
// latest, or one it may have seen or written long ago.
func (m *machine) deliver(t *rapid.T) {
	if len(m.heads) == 0 {
		t.Skip("no head written yet")
	}
	cm := rapid.SampledFrom(m.heads).Draw(t, "head")
	if err := m.stores[m.replica(t)].handle(context.Background(), watch.Event{Type: watch.Modified, Object: cm.DeepCopy()}); err != nil {
		t.Fatal(err)
	}
}

// exchange merges one replica's snapshot into another's Cache directly.
func (m *machine) exchange(t *rapid.T) {
	from, to := m.replica(t), m.replica(t)
	snapshot, err := m.caches[from].Snapshot()
	if err == nil {
		err = m.caches[to].Merge(snapshot)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// interfere runs before replica i's write of the head reaches the API
// server: another replica may save first, so that i's write conflicts.
func (m *machine) interfere(i int) {
	if m.nested || !rapid.Bool().Draw(m.draw, "interfere") {
		return
	}
	// Drawn without a filter: a filter that gives up skips the step by a
	// panic, which would abandon i's write midway, as a crash does.
	j := rapid.IntRange(0, len(m.stores)-2).Draw(m.draw, "interferer")
	if j >= i {
		j++
	}
	m.nested = true
	defer func() { m.nested = false }()
	if err := m.stores[j].Save(context.Background()); err != nil && !isConflict(errors.Unwrap(err)) {
		m.draw.Fatal(err)
	}
	m.record()
}

// record keeps the head as it is now, for deliver.
func (m *machine) record() {
	cm, err := m.api.CoreV1().ConfigMaps(DefaultNamespace).Get(context.Background(), "capacity", metav1.GetOptions{})
	if err == nil && (len(m.heads) == 0 || m.heads[len(m.heads)-1].ResourceVersion != cm.ResourceVersion) {
		m.heads = append(m.heads, cm)
	}
}

// check holds between any two steps: whatever the head holds was
// observed, and no figure in it is below the least observed for its key.
func (m *machine) check(t *rapid.T) {
	if len(m.logged) > 0 {
		t.Fatalf("a replica logged: %q", m.logged)
	}
	c := loadFake(t, m.api, m.stores[0].o)
	for k, least := range m.want {
		if got, ok := c.Memory(k.typ, k.ami); ok && got < least {
			t.Fatalf("the head holds %d for %s under %s, below the least observed, %d", got, k.typ, k.ami, least)
		}
	}
	if n := c.Stats().Len; n > len(m.want) {
		t.Fatalf("the head holds %d entries; only %d keys were observed", n, len(m.want))
	}
}

// settle has every replica save, then every replica load; each must then
// hold exactly what was observed, at its minimum.
func (m *machine) settle(t *rapid.T) {
	ctx := context.Background()
	m.nested = true // no more interference: each save succeeds
	for i, s := range m.stores {
		if err := s.Save(ctx); err != nil {
			t.Fatalf("replica %d saves: %v", i, err)
		}
	}
	for i, s := range m.stores {
		if err := s.Load(ctx); err != nil {
			t.Fatalf("replica %d loads: %v", i, err)
		}
		if err := m.want.check(m.caches[i]); err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
	}
	if err := m.want.check(loadFake(t, m.api, m.stores[0].o)); err != nil {
		t.Fatalf("the head: %v", err)
	}
	list, _ := m.api.CoreV1().ConfigMaps(DefaultNamespace).List(ctx, metav1.ListOptions{})
	var parts []string
	for _, cm := range list.Items {
		if cm.Labels[LabelRole] == "part" {
			parts = append(parts, cm.Name)
		}
	}
	if referenced := m.stores[len(m.stores)-1].seen.parts; !sameSet(parts, referenced) {
		t.Fatalf("parts left: %v; the head references %v", parts, referenced)
	}
}

// loadFake returns a new Cache loaded from the fake API server.
func loadFake(t *rapid.T, api *fake.Clientset, o Options) *capacity.Cache {
	c, _ := capacity.New(capacity.Options{})
	s, err := New(api.CoreV1(), c, o)
	if err == nil {
		err = s.Load(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// apiFake returns client-go's fake clientset, made to treat ConfigMaps as
// the API server does in what the store relies on: each write gets a new
// resourceVersion, an update of another resourceVersion than the stored
// one is refused with 409 Conflict, and an immutable ConfigMap cannot be
// updated. (client-go's object tracker checks none of this.)
func apiFake() *fake.Clientset {
	api := fake.NewClientset()
	// A plain tracker: the fake's own manages fields, and builds a REST
	// mapper on every write, which is most of the property's time.
	tracker := k8stesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder())
	api.PrependReactor("*", "*", k8stesting.ObjectReaction(tracker))
	gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
	version := 0
	write := func(cm *corev1.ConfigMap, store func(runtime.Object, string, ...metav1.CreateOptions) error) (bool, runtime.Object, error) {
		version++
		cm.ResourceVersion = strconv.Itoa(version)
		if err := store(cm, cm.Namespace); err != nil {
			return true, nil, err
		}
		return true, cm, nil
	}
	api.PrependReactor("create", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		cm := a.(k8stesting.CreateAction).GetObject().(*corev1.ConfigMap).DeepCopy()
		return write(cm, func(o runtime.Object, ns string, _ ...metav1.CreateOptions) error { return tracker.Create(gvr, o, ns) })
	})
	api.PrependReactor("update", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		cm := a.(k8stesting.UpdateAction).GetObject().(*corev1.ConfigMap).DeepCopy()
		old, err := tracker.Get(gvr, cm.Namespace, cm.Name)
		if err != nil {
			return true, nil, err
		}
		stored := old.(*corev1.ConfigMap)
		switch {
		case stored.ResourceVersion != cm.ResourceVersion:
			return true, nil, apierrors.NewConflict(gvr.GroupResource(), cm.Name, fmt.Errorf("resourceVersion %s, stored %s", cm.ResourceVersion, stored.ResourceVersion))
		case stored.Immutable != nil && *stored.Immutable:
			return true, nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("ConfigMap").GroupKind(), cm.Name, nil)
		}
		return write(cm, func(o runtime.Object, ns string, _ ...metav1.CreateOptions) error { return tracker.Update(gvr, o, ns) })
	})
	return api
}

// interfering is a client whose updates first run before: the moment
// another replica's write can land between a replica's read and its own.
type interfering struct {
	corev1client.ConfigMapsGetter
	before func()
}

func (i interfering) ConfigMaps(ns string) corev1client.ConfigMapInterface {
	return interferingConfigMaps{i.ConfigMapsGetter.ConfigMaps(ns), i.before}
}

type interferingConfigMaps struct {
	corev1client.ConfigMapInterface
	before func()
}

func (c interferingConfigMaps) Update(ctx context.Context, cm *corev1.ConfigMap, o metav1.UpdateOptions) (*corev1.ConfigMap, error) {
	c.before()
	return c.ConfigMapInterface.Update(ctx, cm, o)
}

// logged collects what a Store logs at level Warn and above, which in the
// property no step may cause.
type logged struct{ records *[]string }

func (l logged) Enabled(_ context.Context, level slog.Level) bool { return level >= slog.LevelWarn }
func (l logged) WithAttrs([]slog.Attr) slog.Handler               { return l }
func (l logged) WithGroup(string) slog.Handler                    { return l }
func (l logged) Handle(_ context.Context, r slog.Record) error {
	text := r.Message
	r.Attrs(func(a slog.Attr) bool { text += " " + a.String(); return true })
	*l.records = append(*l.records, text)
	return nil
}
