package capacity

import (
	"fmt"
	"testing"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
)

func BenchmarkMemory(b *testing.B) {
	c, _ := New(Options{})
	tt := testTypes[0]
	if _, err := c.Observe(Observation{NodeLabels: labelsOf(tt.it), ImageID: tt.ami, MemoryBytes: 1 << 33}, testAMIs()); err != nil {
		b.Fatal(err)
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := c.Memory("m5.large", "ami-std"); !ok {
				b.Fatal("miss")
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, ok := c.Memory("m5.large", "ami-std"); !ok {
					b.Fatal("miss")
				}
			}
		})
	})
}

func TestMemoryAllocs(t *testing.T) {
	c, _ := New(Options{TTL: 1 << 40})
	tt := testTypes[0]
	if _, err := c.Observe(Observation{NodeLabels: labelsOf(tt.it), ImageID: tt.ami, MemoryBytes: 1 << 33}, testAMIs()); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { c.Memory("m5.large", "ami-std") }); n != 0 {
		t.Errorf("Memory allocates %v times per call; want 0", n)
	}
}

func BenchmarkObserve(b *testing.B) {
	c, _ := New(Options{})
	amis := testAMIs()
	labels := labelsOf(testTypes[3].it) // g4dn: matched against the second AMI
	labels[compat.LabelHostname] = "ip-10-0-0-1"
	labels[compat.LabelCapacityType] = "spot"
	labels[compat.LabelNodePool] = "default"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Observe(Observation{NodeLabels: labels, ImageID: "ami-nvidia", MemoryBytes: 1 << 34}, amis); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApply(b *testing.B) {
	var types []compat.InstanceType
	for i := range 800 {
		tt := testTypes[i%len(testTypes)]
		it := tt.it
		it.Name = fmt.Sprintf("%s-%d", it.Name, i)
		types = append(types, it)
	}
	c, _ := New(Options{})
	m := amiselect.Map(types, testAMIs())
	for _, g := range m.Groups {
		for i, it := range g.InstanceTypes {
			if i%2 == 0 { // half the types have a learned figure
				c.entries.Add(key{it.Name, g.AMI.ID}, record{memory: 1 << 33})
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if got := c.Apply(m); len(got) != 800 {
			b.Fatalf("Apply returned %d types", len(got))
		}
	}
}
