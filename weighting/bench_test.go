package weighting

import (
	"fmt"
	"testing"

	"github.com/ec2select/ec2select/compat"
)

// benchCatalog makes n instance types: 50 families of 16 sizes, in a
// scrambled order.
func benchCatalog(b *testing.B, n int) []compat.InstanceType {
	sizes := []string{"medium", "large", "xlarge", "2xlarge", "3xlarge", "4xlarge", "6xlarge", "8xlarge", "9xlarge",
		"12xlarge", "16xlarge", "18xlarge", "24xlarge", "32xlarge", "48xlarge", "metal"}
	var families []string
	for _, cat := range []string{"c", "m", "r", "x", "i", "z", "t", "g", "p", "d"} {
		for _, gen := range []string{"5", "6", "7", "8"} {
			for _, suffix := range []string{"i", "g", "i-flex", "a", "gd"} {
				if len(families) < 50 {
					families = append(families, cat+gen+suffix)
				}
			}
		}
	}
	var types []compat.InstanceType
	for i := 0; len(types) < n; i++ {
		f, s := families[i%len(families)], sizes[(i/len(families)+i*5)%len(sizes)] // unique for i < 800
		types = append(types, mkType(b, f+"."+s))
	}
	return types
}

func benchPolicy() Policy {
	return Policy{Tiers: []Tier{
		{Name: "flex", Weight: 100, Families: []string{"c*-flex", "m*-flex"}},
		{Name: "graviton", Weight: 80, Families: []string{"*g", "*gd"}, Requirements: []compat.Requirement{{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchARM64}}}},
		{Name: "current", Weight: 60, Families: []string{"c7*", "m7*", "r7*"}, Requirements: []compat.Requirement{{Key: compat.LabelInstanceCPU, Operator: compat.Gte, Values: []string{"4"}}}},
		{Name: "big", Weight: 40, Families: []string{"*.metal", "*.48xlarge"}},
		{Name: "rest", Weight: 1, Families: []string{"*"}},
	}}
}

func BenchmarkRank(b *testing.B) {
	for _, n := range []int{100, 800} {
		types := benchCatalog(b, n)
		prices := make(map[string]float64, n)
		for i, it := range types {
			prices[it.Name] = float64(i%37) / 10
		}
		opts := RankOptions{Price: func(name string) (float64, bool) { p, ok := prices[name]; return p, ok }}
		p := benchPolicy()
		b.Run(fmt.Sprintf("types=%d/tiers=5", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Rank(types, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkNodePools(b *testing.B) {
	for _, n := range []int{100, 800} {
		types := benchCatalog(b, n)
		p := benchPolicy()
		base := NodePool{Name: "default", NodeClassRef: NodeClassRef{Name: "default"}}
		b.Run(fmt.Sprintf("types=%d/tiers=5", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.NodePools(types, base); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNodePoolsMinValues is NodePools with a base minValues on an
// instance key, which every tier's NodePool must meet within the catalog.
func BenchmarkNodePoolsMinValues(b *testing.B) {
	types := benchCatalog(b, 800)
	p := benchPolicy()
	base := NodePool{Name: "default", NodeClassRef: NodeClassRef{Name: "default"},
		Requirements: []compat.Requirement{{Key: compat.LabelInstanceFamily, Operator: compat.Exists, MinValues: 1}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.NodePools(types, base); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeYAML(b *testing.B) {
	np := fullPool()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := np.EncodeYAML(); err != nil {
			b.Fatal(err)
		}
	}
}
