// Command capacitylearning shows problem 2 (karpenter-provider-aws #7925):
// a Bottlerocket alias puts the NVIDIA AMIs first, Karpenter's lenient,
// first-match lookup filed a plain m5.large node under the NVIDIA AMI and so
// never learned its real memory. capacity.Cache learns it under the AMI the
// node really runs, and the next launch is sized by it. Then what was
// learned outlives a restart (a snapshot in a file) and is shared by two
// replicas (each merges the other's snapshot).
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
)

func main() { cli.Main(command.Name, run) }

var command = cli.Command{Name: "capacitylearning", Usage: `Usage: go run ./examples/capacitylearning

It shows problem 2 (karpenter-provider-aws #7925): a Bottlerocket alias puts
the NVIDIA AMIs first, Karpenter's lenient, first-match lookup filed a plain
m5.large node under the NVIDIA AMI and so never learned its real memory.
capacity.Cache learns it under the AMI the node really runs, and the next
launch is sized by it.
`}

// run parses args (only -h) and runs the walk-through, keeping the
// snapshot files in a temporary directory.
func run(ctx context.Context, w io.Writer, args []string) error {
	if help, err := command.Parse(command.FlagSet(), w, args); help || err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "capacitylearning")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	return demo(ctx, w, dir)
}

const (
	podMemoryMiB    = 7570          // what the pending pod requests
	reportedBytes   = 7_926_000_000 // what an m5.large Bottlerocket node reports (simulated)
	overheadPercent = 7.5           // Karpenter's default VM_MEMORY_OVERHEAD_PERCENT, for types not yet learned
)

// cacheOptions are every replica's: Karpenter's 60-day TTL
// (karpenter-provider-aws pkg/cache/cache.go, DiscoveredCapacityCacheTTL)
// and a fixed clock, so that the snapshots printed are the same each run.
var cacheOptions = capacity.Options{
	TTL: 60 * 24 * time.Hour,
	Now: func() time.Time { return time.Date(2025, 10, 8, 9, 30, 0, 0, time.UTC) },
}

// demo writes the walk-through to w, keeping snapshot files in dir.
func demo(ctx context.Context, w io.Writer, dir string) error {
	cache, mapping, amis, err := learn(ctx, w)
	if err != nil {
		return err
	}
	restarted, err := restart(w, cache, mapping, filepath.Join(dir, "capacity.json"))
	if err != nil {
		return err
	}
	return replicas(w, restarted, mapping, amis, dir)
}

// learn is #7925 before and after: the old lookup files nothing, Observe
// learns m5.large's memory, and the second launch is sized by it.
func learn(ctx context.Context, w io.Writer) (*capacity.Cache, amiselect.Mapping, []amiselect.AMI, error) {
	fmt.Fprintln(w, `Problem 2, karpenter-provider-aws #7925: a Bottlerocket alias resolves to NVIDIA and standard AMIs,
NVIDIA newest. Karpenter matched a plain m5.large node to the NVIDIA AMI, saw that the node ran another
image, recorded nothing, and kept launching nodes too small for the pod.`)

	backend := ec2fake.NewWithCatalog(ec2fake.Options{})
	opts := amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: "1.32"}}
	sel, err := amiselect.Resolve(ctx, backend, []amiselect.Term{{Alias: "bottlerocket@latest"}}, opts)
	if err != nil {
		return nil, amiselect.Mapping{}, nil, err
	}
	fmt.Fprintf(w, "\nbottlerocket@latest (Kubernetes 1.32) selects %s, in selection order:\n", cli.AMIs(sel.AMIs))
	for _, a := range sel.AMIs {
		fmt.Fprintf(w, "  %s  %-21s %-5s %-8s %s\n", a.Created.Format("2006-01-02 15:04"), a.ID, a.Arch, a.Variant, a.Name)
	}

	types, err := cli.InstanceTypes(ctx, backend, "m5.large", "m5.xlarge") // smallest memory first
	if err != nil {
		return nil, amiselect.Mapping{}, nil, err
	}
	mapping := amiselect.Map(types, sel.AMIs)
	cache, err := capacity.New(cacheOptions)
	if err != nil {
		return nil, mapping, nil, err
	}
	fmt.Fprintf(w, "\nA pod requests %d MiB. First launch, nothing learned yet:\n", podMemoryMiB)
	launch(w, cache, mapping)
	standard, _ := mapping.AMIFor("m5.large")
	fmt.Fprintf(w, "The node runs %s and reports %d MiB: the pod does not fit.\n", standard, reportedBytes>>20)

	// Karpenter before #7923: requirements from the NodeClaim, which has no
	// GPU keys, compared leniently; the first AMI that passes wins.
	claim := compat.MustRequirements(
		compat.Requirement{Key: compat.LabelInstanceType, Operator: compat.In, Values: []string{"m5.large"}},
		compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchAMD64}},
		compat.Requirement{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"on-demand"}},
	)
	fmt.Fprintf(w, "\nKarpenter's old lookup, the NodeClaim's requirements compared leniently, first match:\n  %s\n", claim)
	var picked amiselect.AMI
	for _, a := range sel.AMIs {
		if claim.Compatible(a.Requirements, compat.AllowUndefinedWellKnown()) == nil {
			picked = a
			break
		}
	}
	if picked.ID != standard.ID {
		fmt.Fprintf(w, "  picks %s, not the node's image: nothing recorded, m5.large again\n", picked)
	}

	// The node's labels: its type's single-valued instance labels (none for
	// a GPU it lacks), as Karpenter sets them, and the node's own.
	labels := types[0].Labels()
	labels[compat.LabelHostname] = "ip-10-0-1-17.ec2.internal"
	labels[compat.LabelCapacityType] = "on-demand"
	fmt.Fprintln(w, "\ncapacity.Cache.Observe, the node's own labels compared strictly:")
	var ie *compat.IncompatibleError
	if errors.As(compat.FromNodeLabels(labels).Compatible(picked.Requirements), &ie) {
		fmt.Fprintf(w, "  %s needs %s;\n  the node has %s\n", picked, ie.Required, ie.Instance)
	}
	recorded, err := cache.Observe(capacity.Observation{NodeLabels: labels, ImageID: standard.ID, MemoryBytes: reportedBytes}, sel.AMIs)
	if err != nil {
		return nil, amiselect.Mapping{}, nil, err
	}
	learned, _ := cache.Memory("m5.large", standard.ID)
	fmt.Fprintf(w, "  recorded %t: m5.large under %s = %d MiB\n", recorded, standard.ID, learned>>20)

	fmt.Fprintln(w, "\nSecond launch, sized by Cache.Apply:")
	launch(w, cache, mapping)

	// A node launched before the alias moved on still runs the old release.
	old, err := amiselect.Resolve(ctx, backend, []amiselect.Term{{Alias: "bottlerocket@1.42.0"}}, opts)
	if err != nil {
		return nil, amiselect.Mapping{}, nil, err
	}
	stale, _ := amiselect.Map(types[:1], old.AMIs).AMIFor("m5.large")
	labels[compat.LabelHostname] = "ip-10-0-7-42.ec2.internal"
	_, err = cache.Observe(capacity.Observation{NodeLabels: labels, ImageID: stale.ID, MemoryBytes: reportedBytes - 1<<20}, sel.AMIs)
	fmt.Fprintf(w, "\nA node still on the previous release (%s) reports 1 MiB less:\n", stale.Name)
	fmt.Fprintf(w, "  refused (ErrUnknownImage: %t): %v\n", errors.Is(err, capacity.ErrUnknownImage), err)
	learned, _ = cache.Memory("m5.large", standard.ID)
	s := cache.Stats()
	fmt.Fprintf(w, "  cache: %d recorded, %d refused; m5.large still %d MiB\n", s.Recorded, s.Refused, learned>>20)
	return cache, mapping, sel.AMIs, nil
}

// restart saves cache's snapshot to path, as a controller would every few
// minutes or on shutdown, and reads it into a new, empty Cache, as the
// controller that replaces it does on start.
func restart(w io.Writer, cache *capacity.Cache, mapping amiselect.Mapping, path string) (*capacity.Cache, error) {
	snapshot, err := cache.Snapshot()
	if err == nil {
		err = os.WriteFile(path, snapshot, 0o600)
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\nThe controller saves Cache.Snapshot to %s (%d bytes) and restarts:\n", filepath.Base(path), len(snapshot))
	for line := range strings.Lines(string(snapshot)) {
		fmt.Fprintf(w, "  %s", line)
	}
	empty, err := capacity.New(cacheOptions)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(w, "\n\nThird launch, after a restart that loses what was learned, as Karpenter's in-memory cache does:")
	launch(w, empty, mapping)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	damaged := bytes.Replace(data, []byte(`[7926000000]`), []byte(`[7926000001]`), 1)
	fmt.Fprintf(w, "A copy of the file with one digit changed is refused, and nothing merged:\n  %v\n", empty.Merge(damaged))
	if err := empty.Merge(data); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "Third launch, after a restart that merges %s:\n", filepath.Base(path))
	launch(w, empty, mapping)
	return empty, nil
}

// replicas runs a second replica that learned on its own, from a node of
// m5.xlarge and an m5.large that reported 2 MiB less. Each saves its
// snapshot; each merges the other's; both end with the lowest figure for
// each type, whichever merged first.
func replicas(w io.Writer, a *capacity.Cache, mapping amiselect.Mapping, amis []amiselect.AMI, dir string) error {
	b, err := capacity.New(cacheOptions)
	if err != nil {
		return err
	}
	reports := map[string]int64{"m5.large": reportedBytes - 2<<20, "m5.xlarge": 16_100_000_000}
	for i, c := range a.Apply(mapping) {
		labels := c.InstanceType.Labels()
		labels[compat.LabelHostname] = fmt.Sprintf("ip-10-0-2-%d.ec2.internal", i+8)
		o := capacity.Observation{NodeLabels: labels, ImageID: c.AMI.ID, MemoryBytes: reports[c.InstanceType.Name]}
		if _, err := b.Observe(o, amis); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "\nA second replica learned alone: m5.large 2 MiB lower, and m5.xlarge. Each saves, then merges the other's file:")
	pathA, pathB := filepath.Join(dir, "replica-a.json"), filepath.Join(dir, "replica-b.json")
	for _, err := range []error{save(a, pathA), save(b, pathB), mergeFile(a, pathB), mergeFile(b, pathA)} {
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "  %-10s %12s %12s\n", "TYPE", "REPLICA A", "REPLICA B")
	for _, c := range a.Apply(mapping) {
		fromB, _ := b.Memory(c.InstanceType.Name, c.AMI.ID)
		fmt.Fprintf(w, "  %-10s %8d MiB %8d MiB\n", c.InstanceType.Name, c.MemoryBytes>>20, fromB>>20)
	}
	before := a.Stats().Merged
	if err := mergeFile(a, pathB); err != nil {
		return err
	}
	fmt.Fprintf(w, "Merging replica-b.json into replica A again takes %d entries: merging is idempotent.\n", a.Stats().Merged-before)
	return nil
}

func save(c *capacity.Cache, path string) error {
	snapshot, err := c.Snapshot()
	if err != nil {
		return err
	}
	return os.WriteFile(path, snapshot, 0o600)
}

func mergeFile(c *capacity.Cache, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return c.Merge(data)
}

// launch sizes a node for the pod as Karpenter does, by memory alone: the
// learned figure where there is one, otherwise the catalog's less the VM
// overhead; the smallest type that fits wins.
func launch(w io.Writer, cache *capacity.Cache, mapping amiselect.Mapping) {
	chosen := "nothing"
	for _, c := range cache.Apply(mapping) {
		it := c.InstanceType
		estimate, source := c.MemoryBytes>>20, "learned"
		if !c.Learned {
			estimate = int64(float64(it.MemoryMiB) * (100 - overheadPercent) / 100)
			source = fmt.Sprintf("catalog %d MiB less %.1f%%", it.MemoryMiB, overheadPercent)
		}
		fmt.Fprintf(w, "  %-10s %6d MiB (%s)\n", it.Name, estimate, source)
		if chosen == "nothing" && estimate >= podMemoryMiB {
			chosen = it.Name
		}
	}
	fmt.Fprintf(w, "  launches %s\n", chosen)
}
