// Command tworeplicas runs two replicas of a controller that embeds a
// capacity.Cache against a real kube-apiserver and etcd (controller-runtime's
// envtest, from KUBEBUILDER_ASSETS), each with a capacitystore.Store, and
// prints what each knows after the other learned it: a figure one replica
// records reaches the other through the ConfigMap and its watch, the lower
// of two figures wins on both, and a third replica, started after both,
// knows everything as soon as it has loaded.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/capacitystore"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

func main() {
	ctrllog.SetLogger(logr.Discard()) // envtest's own logging, which says nothing here
	cli.Main(command.Name, run)
}

var command = cli.Command{Name: "tworeplicas", Usage: `Usage: KUBEBUILDER_ASSETS=$(.ci/envtest-assets) go -C examples/capacitystore run ./tworeplicas

(from the repository root: the example is in a module of its own, which keeps
Kubernetes modules out of the library's). It starts a kube-apiserver and etcd with
controller-runtime's envtest, runs two replicas of a controller that embeds a
capacity.Cache and a capacitystore.Store, and prints what each knows after
the other learned it, and what a third replica started afterwards knows.
`}

// run parses args (only -h), starts the API server and runs the replicas.
func run(ctx context.Context, w io.Writer, args []string) error {
	if help, err := command.Parse(command.FlagSet(), w, args); help || err != nil {
		return err
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return errors.New("KUBEBUILDER_ASSETS is not set: from the repository root, run KUBEBUILDER_ASSETS=$(.ci/envtest-assets) go -C examples/capacitystore run ./tworeplicas (the first run builds kube-apiserver and etcd)")
	}
	env := &envtest.Environment{ControlPlaneStartTimeout: 2 * time.Minute}
	cfg, err := env.Start()
	if err != nil {
		return fmt.Errorf("starting the API server: %w", err)
	}
	defer env.Stop()
	return demo(ctx, w, cfg)
}

// clock is every replica's: observation times, and so the snapshots, are
// the same each run.
func clock() time.Time { return time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC) }

// A replica is one controller process: its Cache and its Store.
type replica struct {
	name  string
	cache *capacity.Cache
	store *capacitystore.Store
	done  chan struct{}
}

// start makes a replica and starts its Store, as a manager would.
func start(ctx context.Context, cfg *rest.Config, name string) (*replica, error) {
	clients, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	cache, err := capacity.New(capacity.Options{TTL: 60 * 24 * time.Hour, Now: clock})
	if err != nil {
		return nil, err
	}
	store, err := capacitystore.New(clients.CoreV1(), cache, capacitystore.Options{
		Writer: name, Interval: time.Hour, Log: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		return nil, err
	}
	r := &replica{name, cache, store, make(chan struct{})}
	go func() { store.Start(ctx); close(r.done) }()
	return r, nil
}

// node is one registered node a replica observes.
type node struct {
	host   string
	typ    compat.InstanceType
	ami    amiselect.AMI
	memory int64
}

func (r *replica) observe(w io.Writer, n node, amis []amiselect.AMI) error {
	labels := n.typ.Labels()
	labels[compat.LabelHostname] = n.host
	if _, err := r.cache.Observe(capacity.Observation{NodeLabels: labels, ImageID: n.ami.ID, MemoryBytes: n.memory}, amis); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s observes %s: %s under %s reports %d MiB\n", r.name, n.host, n.typ.Name, n.ami.ID, n.memory>>20)
	return nil
}

func (r *replica) save(ctx context.Context, w io.Writer) error {
	if err := r.store.Save(ctx); err != nil {
		return err
	}
	st := r.store.Stats()
	entries := "entries"
	if r.cache.Stats().Len == 1 {
		entries = "entry"
	}
	fmt.Fprintf(w, "%s saves: ConfigMap %s/%s, %d %s, %d bytes compressed\n", r.name, capacitystore.DefaultNamespace, capacitystore.DefaultName,
		r.cache.Stats().Len, entries, st.Bytes)
	return nil
}

// await waits until r holds memory for key, as its watch delivers it.
func (r *replica) await(ctx context.Context, key node, memory int64) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		if got, ok := r.cache.Memory(key.typ.Name, key.ami.ID); ok && got == memory {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not learn %s under %s within 30s", r.name, key.typ.Name, key.ami.ID)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// demo runs the replicas against the API server cfg reaches.
func demo(ctx context.Context, w io.Writer, cfg *rest.Config) error {
	amis, types, err := catalog(ctx)
	if err != nil {
		return err
	}
	mapping := amiselect.Map(types, amis)
	ami := func(typ string) amiselect.AMI { a, _ := mapping.AMIFor(typ); return a }
	large, graviton := types[0], types[1]
	if large.Name != "m5.large" {
		large, graviton = graviton, large
	}
	fmt.Fprintf(w, "al2023@latest for Kubernetes 1.32 maps %s to %s and %s to %s.\n\n", large.Name, ami(large.Name).ID, graviton.Name, ami(graviton.Name).ID)

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	a, err := start(ctx, cfg, "replica-a")
	if err != nil {
		return err
	}
	b, err := start(ctx, cfg, "replica-b")
	if err != nil {
		return err
	}
	first := node{"ip-10-0-1-17.ec2.internal", large, ami(large.Name), 7_926_000_000}
	if err := a.observe(w, first, amis); err != nil {
		return err
	}
	if err := a.save(ctx, w); err != nil {
		return err
	}
	if err := b.await(ctx, first, first.memory); err != nil {
		return err
	}
	fmt.Fprintf(w, "replica-b's watch delivers it: %s\n\n", knows(b, first))

	lower := node{"ip-10-0-2-8.ec2.internal", large, ami(large.Name), first.memory - 2<<20}
	arm := node{"ip-10-0-2-9.ec2.internal", graviton, ami(graviton.Name), 7_870_000_000}
	for _, n := range []node{lower, arm} {
		if err := b.observe(w, n, amis); err != nil {
			return err
		}
	}
	if err := b.save(ctx, w); err != nil {
		return err
	}
	for _, n := range []node{lower, arm} {
		if err := a.await(ctx, n, n.memory); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "replica-a's watch delivers it: %s; %s\n\n", knows(a, first), knows(a, arm))

	c, err := start(ctx, cfg, "replica-c")
	if err != nil {
		return err
	}
	if err := c.await(ctx, arm, arm.memory); err != nil {
		return err
	}
	fmt.Fprintln(w, "replica-c starts from the ConfigMap. What each replica knows:")
	fmt.Fprintf(w, "  %-10s %-21s %11s %11s %11s\n", "TYPE", "AMI", a.name, b.name, c.name)
	for _, n := range []node{first, arm} {
		fmt.Fprintf(w, "  %-10s %-21s", n.typ.Name, n.ami.ID)
		for _, r := range []*replica{a, b, c} {
			m, _ := r.cache.Memory(n.typ.Name, n.ami.ID)
			fmt.Fprintf(w, " %7d MiB", m>>20)
		}
		fmt.Fprintln(w)
	}
	stop()
	for _, r := range []*replica{a, b, c} {
		<-r.done
	}
	fmt.Fprintf(w, "\nreplica-a: %d saved, %d loaded; replica-b: %d saved, %d loaded; replica-c: %d loaded.\n",
		a.store.Stats().Saves, a.store.Stats().Loads, b.store.Stats().Saves, b.store.Stats().Loads, c.store.Stats().Loads)
	return nil
}

// knows says what r holds for n's instance type under n's AMI.
func knows(r *replica, n node) string {
	m, ok := r.cache.Memory(n.typ.Name, n.ami.ID)
	if !ok {
		return fmt.Sprintf("%s knows nothing of %s", r.name, n.typ.Name)
	}
	return fmt.Sprintf("%s knows %s = %d MiB", r.name, n.typ.Name, m>>20)
}

// catalog selects al2023@latest for Kubernetes 1.32 from the fake EC2's
// embedded catalog, and reads m5.large and m6g.large.
func catalog(ctx context.Context) ([]amiselect.AMI, []compat.InstanceType, error) {
	backend := ec2fake.NewWithCatalog(ec2fake.Options{})
	sel, err := amiselect.Resolve(ctx, backend, []amiselect.Term{{Alias: "al2023@latest"}},
		amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: "1.32"}})
	if err != nil {
		return nil, nil, err
	}
	types, err := cli.InstanceTypes(ctx, backend, "m5.large", "m6g.large")
	return sel.AMIs, types, err
}
