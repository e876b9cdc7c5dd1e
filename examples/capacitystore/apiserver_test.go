package capacitystore

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// The tests that need an API server share one real kube-apiserver and etcd,
// started by controller-runtime's envtest from KUBEBUILDER_ASSETS the first
// time one asks, and stopped by TestMain. Each test keeps its own store
// name, so they do not see each other's ConfigMaps.
var shared struct {
	once sync.Once
	env  *envtest.Environment
	cfg  *rest.Config
	err  error
}

func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard()) // else controller-runtime complains, with a stack, that none was set
	code := m.Run()
	if shared.env != nil {
		if err := shared.env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the API server:", err)
		}
	}
	os.Exit(code)
}

// apiServer returns a configuration for the shared API server, starting it
// on first use. Without KUBEBUILDER_ASSETS it fails, saying how to build
// the binaries: these tests are about the real server, and never skip.
func apiServer(t testing.TB) *rest.Config {
	t.Helper()
	cfg, err := sharedAPIServer()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func sharedAPIServer() (*rest.Config, error) {
	shared.once.Do(func() {
		if os.Getenv("KUBEBUILDER_ASSETS") == "" {
			shared.err = errors.New("KUBEBUILDER_ASSETS is not set: these tests run a real kube-apiserver and etcd; from the repository root, run\n\tKUBEBUILDER_ASSETS=$(.ci/envtest-assets) go -C examples/capacitystore test ./...\n(the first run builds them)")
			return
		}
		shared.env = &envtest.Environment{ControlPlaneStartTimeout: 2 * time.Minute, ControlPlaneStopTimeout: time.Minute}
		shared.cfg, shared.err = shared.env.Start()
	})
	if shared.err != nil {
		return nil, shared.err
	}
	return rest.CopyConfig(shared.cfg), nil
}

// clientset returns a clientset for cfg, which t may have changed.
func clientset(t testing.TB, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// storeName returns a store name of t's own: the end of its name, in the
// letters a ConfigMap name allows, and a hash of the whole.
func storeName(t testing.TB) string {
	var b strings.Builder
	for _, r := range strings.ToLower(t.Name()) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	name := b.String()
	return fmt.Sprintf("%s-%08x", strings.Trim(name[max(0, len(name)-30):], "-"), crc32.ChecksumIEEE([]byte(t.Name())))
}

// A node is what one registered node reports: its instance type and
// architecture, the AMI it runs and its memory.
type node struct {
	typ, arch, ami string
	memory         int64
}

func (n node) key() key { return key{n.typ, n.ami} }

type key struct{ typ, ami string }

// observe records n in c as Observe would for a node of a real cluster,
// with the AMI a selector chose for its architecture.
func observe(c *capacity.Cache, n node) error {
	ami := amiselect.AMI{ID: n.ami, Arch: n.arch, Requirements: compat.MustRequirements(
		compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{n.arch}})}
	labels := map[string]string{compat.LabelInstanceType: n.typ, compat.LabelArch: n.arch}
	_, err := c.Observe(capacity.Observation{NodeLabels: labels, ImageID: n.ami, MemoryBytes: n.memory}, []amiselect.AMI{ami})
	return err
}

// catalogTypes returns the instance types of the embedded catalog.
func catalogTypes(t testing.TB) []compat.InstanceType {
	t.Helper()
	_, infos := ec2fake.DefaultCatalog()
	types := make([]compat.InstanceType, 0, len(infos))
	for _, info := range infos {
		if it, err := compat.InstanceTypeFromEC2(info); err == nil {
			types = append(types, it)
		}
	}
	if len(types) < 1000 {
		t.Fatalf("the catalog has %d instance types", len(types))
	}
	return types
}

// amiID returns the i-th of a run of AMI IDs.
func amiID(i int) string { return fmt.Sprintf("ami-%017x", 0x0a5e1ec7000+i) }

// nodes returns n nodes, one per (instance type, AMI) of the catalog's
// types under as many AMIs as it takes, each reporting 90–99% of its
// type's memory.
func nodes(t testing.TB, n int) []node {
	types := catalogTypes(t)
	out := make([]node, n)
	for i := range out {
		it := types[i%len(types)]
		out[i] = node{it.Name, it.Arch, amiID(i / len(types)), it.MemoryMiB << 20 * int64(90+i%10) / 100}
	}
	return out
}

// want is a model of what replicas learn together: each key's minimum.
type model map[key]int64

func (w model) add(n node) {
	if old, ok := w[n.key()]; !ok || n.memory < old {
		w[n.key()] = n.memory
	}
}

// check reports how c differs from w: every key of w at its figure, and
// nothing else.
func (w model) check(c *capacity.Cache) error {
	var diffs []string
	for k, m := range w {
		if got, ok := c.Memory(k.typ, k.ami); !ok || got != m {
			diffs = append(diffs, fmt.Sprintf("%s under %s: %d (held %t), want %d", k.typ, k.ami, got, ok, m))
		}
	}
	if n := c.Stats().Len; n != len(w) {
		diffs = append(diffs, fmt.Sprintf("the cache holds %d entries, want %d", n, len(w)))
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%d differences, the first: %s", len(diffs), strings.Join(diffs[:min(len(diffs), 5)], "; "))
	}
	return nil
}

func newCache(t testing.TB) *capacity.Cache {
	t.Helper()
	c, err := capacity.New(capacity.Options{Size: capacity.MaxSize})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newStore(t testing.TB, cfg *rest.Config, c *capacity.Cache, o Options) *Store {
	t.Helper()
	s, err := New(clientset(t, cfg).CoreV1(), c, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// loaded returns a new replica's Cache, loaded from the store o names.
func loaded(t testing.TB, cfg *rest.Config, o Options) *capacity.Cache {
	t.Helper()
	c := newCache(t)
	if err := newStore(t, cfg, c, o).Load(context.Background()); err != nil {
		t.Fatalf("a new replica loads: %v", err)
	}
	return c
}

// faults is a transport that delays each write, and can kill the
// replica while it sends one: the API server receives half the request's
// body and a closed connection, and every later request of the replica
// fails, as if its process were gone.
type faults struct {
	next  http.RoundTripper
	delay func() time.Duration // before each POST and PUT; nil for none
	kill  atomic.Pointer[func(*http.Request) bool]
	dead  atomic.Bool
}

// withFaults returns cfg with f's faults injected into its transport.
func withFaults(cfg *rest.Config, f *faults) *rest.Config {
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		f.next = rt
		return f
	}
	return cfg
}

func (f *faults) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.dead.Load() {
		return nil, errKilled
	}
	if r.Method != http.MethodPost && r.Method != http.MethodPut {
		return f.next.RoundTrip(r)
	}
	if f.delay != nil {
		time.Sleep(f.delay())
	}
	if kill := f.kill.Load(); kill != nil && (*kill)(r) && r.ContentLength > 1 && f.dead.CompareAndSwap(false, true) {
		r = r.Clone(r.Context())
		r.Body = &cutBody{r.Body, r.ContentLength / 2}
	}
	return f.next.RoundTrip(r)
}

// killWhen kills the replica during the first write that matches.
func (f *faults) killWhen(match func(*http.Request) bool) { f.kill.Store(&match) }

// cutBody ends a request body with an error after n bytes.
type cutBody struct {
	body io.ReadCloser
	n    int64
}

var errKilled = errors.New("the replica was killed while sending this request")

func (c *cutBody) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errKilled
	}
	n, err := c.body.Read(p[:min(int64(len(p)), c.n)])
	c.n -= int64(n)
	return n, err
}

func (c *cutBody) Close() error { return c.body.Close() }
