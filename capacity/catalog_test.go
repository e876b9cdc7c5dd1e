package capacity_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// aliases are every AMI family a Term's alias names.
var aliases = []compat.AMIFamily{
	compat.AL2, compat.AL2023, compat.Bottlerocket,
	compat.Windows2019, compat.Windows2022, compat.Windows2025,
}

// kubernetesVersion finds the Kubernetes minor version in an EKS AMI name:
// "amazon-eks-node-1.32-v…", "…-standard-1.32-v…",
// "bottlerocket-aws-k8s-1.32-…", "…-EKS_Optimized-1.32-2025.04.14".
var kubernetesVersion = regexp.MustCompile(`-(1\.\d+)-`)

// selection is one alias resolved at one Kubernetes version.
type selection struct {
	name string // "bottlerocket@latest on 1.32"
	amis []amiselect.AMI
}

// catalogSelections resolves every alias at every Kubernetes version
// ec2fake's catalog holds, whatever those are, skipping the pairs a
// family does not publish (al2 after 1.32). It fails if the catalog
// yields no version, or if al2023 or bottlerocket (published for every
// version EKS supports) resolve to nothing at one.
func catalogSelections(t *testing.T) ([]selection, []compat.InstanceType) {
	t.Helper()
	images, infos := ec2fake.DefaultCatalog()
	var versions []string
	for _, img := range images {
		if m := kubernetesVersion.FindStringSubmatch(*img.Name); m != nil && !slices.Contains(versions, m[1]) {
			versions = append(versions, m[1])
		}
	}
	if len(versions) == 0 {
		t.Fatal("no Kubernetes version found in the catalog's image names")
	}
	slices.Sort(versions)
	backend := ec2fake.NewWithCatalog(ec2fake.Options{})
	var sels []selection
	for _, v := range versions {
		for _, f := range aliases {
			term := []amiselect.Term{{Alias: f.Alias() + "@latest"}}
			opts := amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: v}}
			if _, err := amiselect.Queries(term, opts.Query); err != nil {
				t.Logf("%s on %s: not published (%v)", term[0].Alias, v, err)
				continue
			}
			sel, err := amiselect.Resolve(context.Background(), backend, term, opts)
			if err != nil {
				t.Fatalf("%s on %s: %v", term[0].Alias, v, err)
			}
			if len(sel.AMIs) == 0 && (f == compat.AL2023 || f == compat.Bottlerocket) {
				t.Fatalf("%s on %s resolves to no AMI; the catalog lacks a family EKS publishes for every version", term[0].Alias, v)
			}
			sels = append(sels, selection{term[0].Alias + " on " + v, sel.AMIs})
		}
	}
	var types []compat.InstanceType
	for _, info := range infos {
		if it, err := compat.InstanceTypeFromEC2(info); err == nil {
			types = append(types, it)
		}
	}
	return sels, types
}

// runningLabels are the labels of a node of it that runs ami: as
// nodeLabels, with the OS and Windows build the AMI pins, which the
// kubelet reports from the running OS. A type that cannot run that OS
// cannot run the AMI; its node keeps Linux, and claims the image anyway.
func runningLabels(it compat.InstanceType, ami amiselect.AMI) map[string]string {
	labels := nodeLabels(it, "ip-10-0-0-1")
	os := pinned(ami.Requirements, compat.LabelOS)
	if os == "" || !slices.Contains(it.OS, os) {
		return labels
	}
	labels[compat.LabelOS] = os
	if build := pinned(ami.Requirements, compat.LabelWindowsBuild); build != "" {
		labels[compat.LabelWindowsBuild] = build
	}
	return labels
}

// pinned returns the one value r requires for key, or "".
func pinned(r compat.Requirements, key string) string {
	rs, ok := r.Get(key)
	if !ok || len(rs) != 1 || rs[0].Operator != compat.In || len(rs[0].Values) != 1 {
		return ""
	}
	return rs[0].Values[0]
}

// TestMapAndObserveAgree checks, for every (instance type, AMI) pair of
// the catalog under every alias at every Kubernetes version, that Observe
// records what a node of the type running the AMI reports exactly when
// Map gives the type that AMI, and otherwise refuses for the reason Map
// implies: Map decides from the type's facts, Observe from the node's
// labels, and both through amiselect.Choose.
func TestMapAndObserveAgree(t *testing.T) {
	sels, types := catalogSelections(t)
	pairs := 0
	for _, sel := range sels {
		mapping := amiselect.Map(types, sel.amis)
		cache, err := capacity.New(capacity.Options{Size: len(types) * len(sel.amis)})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range types {
			mapped, ok := mapping.AMIFor(it.Name)
			for _, ami := range sel.amis {
				pairs++
				labels := runningLabels(it, ami)
				recorded, err := cache.Observe(capacity.Observation{NodeLabels: labels, ImageID: ami.ID, MemoryBytes: 1 << 30}, sel.amis)
				switch {
				case ok && mapped.ID == ami.ID:
					if !recorded || err != nil {
						t.Errorf("%s: Map gives %s %s, but Observe of a node running it = %v, %v", sel.name, it.Name, ami, recorded, err)
					}
				case ok && !errors.Is(err, capacity.ErrNotMapped):
					t.Errorf("%s: Map gives %s %s; a node on %s: Observe = %v, %v; want ErrNotMapped", sel.name, it.Name, mapped, ami, recorded, err)
				case !ok && !errors.Is(err, capacity.ErrNoCompatible):
					t.Errorf("%s: Map leaves %s unmapped; a node on %s: Observe = %v, %v; want ErrNoCompatible", sel.name, it.Name, ami, recorded, err)
				}
			}
		}
	}
	if pairs == 0 {
		t.Fatal("no (instance type, AMI) pair checked")
	}
	t.Logf("%d selections, %d instance types, %d pairs", len(sels), len(types), pairs)
}

// TestApplyLeavesFactsAlone learns a figure for every mapped type of the
// catalog under every alias and version, and checks that Apply returns
// each type exactly as mapped, its labels and requirements included, with
// the learned figure beside it. Rewriting MemoryMiB, as Apply once did,
// moved m5.large's instance-memory label from 8192 to 7764.
func TestApplyLeavesFactsAlone(t *testing.T) {
	sels, types := catalogSelections(t)
	covered := map[string]bool{}
	for _, sel := range sels {
		mapping := amiselect.Map(types, sel.amis)
		cache, err := capacity.New(capacity.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range mapping.Groups {
			for _, it := range g.InstanceTypes {
				mem := it.MemoryMiB<<20 - 400<<20 // what a node reports is less
				if _, err := cache.Observe(capacity.Observation{NodeLabels: runningLabels(it, g.AMI), ImageID: g.AMI.ID, MemoryBytes: mem}, sel.amis); err != nil {
					t.Fatalf("%s: %v", sel.name, err)
				}
			}
		}
		byName := map[string]compat.InstanceType{}
		for _, it := range types {
			byName[it.Name] = it
		}
		for _, c := range cache.Apply(mapping) {
			before := byName[c.InstanceType.Name]
			covered[before.Name] = true
			if want := before.MemoryMiB<<20 - 400<<20; !c.Learned || c.MemoryBytes != want {
				t.Errorf("%s: %s: Apply gives %d bytes (learned %v); want %d", sel.name, before.Name, c.MemoryBytes, c.Learned, want)
			}
			if diff := cmp.Diff(before.Labels(), c.InstanceType.Labels()); diff != "" {
				t.Errorf("%s: %s: Apply changed the labels (-before +after):\n%s", sel.name, before.Name, diff)
			}
			if diff := cmp.Diff(before.Requirements().List(), c.InstanceType.Requirements().List()); diff != "" {
				t.Errorf("%s: %s: Apply changed the requirements (-before +after):\n%s", sel.name, before.Name, diff)
			}
		}
	}
	for _, it := range types {
		if !covered[it.Name] && it.Arch != "" {
			t.Logf("%s maps under no alias", it.Name)
		}
	}
	if len(covered) == 0 {
		t.Fatal("Apply returned no instance type")
	}
}
