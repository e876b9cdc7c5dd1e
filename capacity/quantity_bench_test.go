package capacity_test

import (
	"testing"

	"github.com/ec2select/ec2select/capacity"
)

// BenchmarkParseQuantity reads the shapes a NodePool's kubelet settings
// hold: millicores, binary and decimal suffixes, an exponent and a
// fraction.
func BenchmarkParseQuantity(b *testing.B) {
	inputs := []struct {
		r capacity.Resource
		s string
	}{
		{capacity.ResourceCPU, "100m"}, {capacity.ResourceCPU, "1.5"}, {capacity.ResourceMemory, "1.5Gi"},
		{capacity.ResourceMemory, "500Mi"}, {capacity.ResourceMemory, "2e3"}, {capacity.ResourceEphemeralStorage, "10G"},
		{capacity.ResourceMemory, "0.000000001"}, {capacity.ResourceCPU, "1Ki"},
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range inputs {
			if _, err := capacity.ParseQuantity(in.r, in.s); err != nil {
				b.Fatal(err)
			}
		}
	}
}
