package compat_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

var updateCatalog = flag.Bool("update-catalog", false, "regenerate catalog.jsonl.gz from ec2fake's catalog and testdata/retired-instance-types.tsv")

// TestCatalogFile: InstanceTypeByName gives, for every type of ec2fake's
// catalog, exactly what InstanceTypeFromEC2 reads from its
// DescribeInstanceTypes entry, and for the six retired types what their
// recorded labels and VPC limits say; nothing else is in it.
func TestCatalogFile(t *testing.T) {
	want := catalogRows(t)
	if *updateCatalog {
		var raw bytes.Buffer
		z, _ := gzip.NewWriterLevel(&raw, gzip.BestCompression)
		for _, it := range want {
			b, err := json.Marshal(it)
			if err != nil {
				t.Fatal(err)
			}
			z.Write(append(b, '\n'))
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("catalog.jsonl.gz", raw.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range want {
		got, ok := compat.InstanceTypeByName(w.Name)
		if !ok {
			t.Errorf("%s: not in the embedded catalog; regenerate it with -update-catalog", w.Name)
			continue
		}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("%s (-want +got)\n%s", w.Name, diff)
		}
	}
	if _, ok := compat.InstanceTypeByName("zz9.large"); ok {
		t.Errorf("a type no catalog lists is found")
	}
	got, _ := compat.InstanceTypeByName("m5.large")
	got.OS[0], got.Network.Cards[0].Interfaces = "x", 99
	if again, _ := compat.InstanceTypeByName("m5.large"); again.OS[0] == "x" || again.Network.Cards[0].Interfaces == 99 {
		t.Errorf("a caller's change reached the catalog")
	}
}

// catalogRows are the catalog's types as InstanceTypeFromEC2 reads ec2fake's
// catalog (mac types, which run no EKS node, left out), then the retired
// types, sorted by name.
func catalogRows(t *testing.T) []compat.InstanceType {
	_, infos := ec2fake.DefaultCatalog()
	var out []compat.InstanceType
	for _, info := range infos {
		if it, err := compat.InstanceTypeFromEC2(info); err == nil {
			out = append(out, it)
		}
	}
	out = append(out, retiredTypes(t)...)
	slices.SortFunc(out, func(a, b compat.InstanceType) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// retiredTypes reads testdata/retired-instance-types.tsv (labels) and the
// types' rows of Karpenter's VPC limits.
func retiredTypes(t *testing.T) []compat.InstanceType {
	limits := map[string][]string{}
	for _, f := range tsvRows(t, "../ec2fake/catalog/upstream/karpenter-v1.14.1-vpc-limits.tsv") {
		limits[f[0]] = f
	}
	var out []compat.InstanceType
	for _, f := range tsvRows(t, "testdata/retired-instance-types.tsv") {
		labels := map[string]string{}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			labels[k] = v
		}
		it, err := compat.InstanceTypeFromLabels(labels)
		if err != nil {
			t.Fatalf("%s: %v", f[0], err)
		}
		l, ok := limits[f[0]]
		if !ok {
			t.Fatalf("%s: not in Karpenter's VPC limits", f[0])
		}
		it.Network = network(t, l)
		out = append(out, it)
	}
	return out
}

// network reads a VPC limits row: name, interfaces, IPv4 per interface,
// default card, cards (index:interfaces,…), trunking, branch interfaces.
func network(t *testing.T, f []string) compat.Network {
	n := compat.Network{Interfaces: atoi(t, f[1]), IPv4PerInterface: atoi(t, f[2]), DefaultCard: atoi(t, f[3]), BranchInterfaces: atoi(t, f[6])}
	for _, c := range strings.Split(f[4], ",") {
		i, m, _ := strings.Cut(c, ":")
		n.Cards = append(n.Cards, compat.NetworkCard{Index: atoi(t, i), Interfaces: atoi(t, m)})
	}
	return n
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func tsvRows(t *testing.T, path string) [][]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := s.Text(); line != "" && !strings.HasPrefix(line, "#") {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	return rows
}
