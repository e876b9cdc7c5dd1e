package capacity_test

import (
	"testing"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// BenchmarkEstimateCatalog estimates every catalog type (1364) under one
// family; the budget is 5 ms.
func BenchmarkEstimateCatalog(b *testing.B) {
	types := estCatalog()
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023, compat.Bottlerocket, compat.Windows2022} {
		b.Run(string(f), func(b *testing.B) {
			e := mustEstimator(b, capacity.Launch{Family: f, Kubelet: userdata.KubeletConfig{
				KubeReserved: map[string]string{"cpu": "100m"}, EvictionHard: map[string]string{"memory.available": "5%"},
			}}, capacity.EstimateOptions{})
			b.ReportAllocs()
			for b.Loop() {
				if ests := e.EstimateAll(types); len(ests) != len(types) {
					b.Fatal(len(ests))
				}
			}
		})
	}
}

// BenchmarkCheckFit checks one pod against the whole catalog's estimates;
// the budget is 2 ms.
func BenchmarkCheckFit(b *testing.B) {
	e := mustEstimator(b, capacity.Launch{Family: compat.AL2023}, capacity.EstimateOptions{})
	ests := e.EstimateAll(estCatalog())
	req := capacity.FitRequest{Pod: capacity.Quantities{CPU: 3500, Memory: 14 << 30}, Daemons: capacity.Quantities{CPU: 200, Memory: 300 << 20, Pods: 3}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := capacity.CheckFit(ests, req); err != nil {
			b.Fatal(err)
		}
	}
}
