package capacity_test

import (
	"testing"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
)

// benchExpression is nodeadm's documented prefix-delegation expression,
// capped as max-pods-calculator.sh caps it.
const benchExpression = "((default_enis * ((ips_per_eni - 1) * 16)) + 2) < 250 ? ((default_enis * ((ips_per_eni - 1) * 16)) + 2) : 250"

// BenchmarkEstimateCatalogExpression estimates every catalog type under
// one compiled maxPodsExpression; the budget is 10 ms.
func BenchmarkEstimateCatalogExpression(b *testing.B) {
	types := estCatalog()
	e := mustEstimator(b, capacity.Launch{Family: compat.AL2023, MaxPodsExpression: benchExpression}, capacity.EstimateOptions{})
	b.ReportAllocs()
	for b.Loop() {
		if ests := e.EstimateAll(types); len(ests) != len(types) {
			b.Fatal(len(ests))
		}
	}
}

// BenchmarkParseMaxPodsExpression compiles one expression; the budget is
// 1 ms.
func BenchmarkParseMaxPodsExpression(b *testing.B) {
	if _, err := capacity.ParseMaxPodsExpression(benchExpression); err != nil {
		b.Fatal(err) // and builds the environment outside the loop
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := capacity.ParseMaxPodsExpression(benchExpression); err != nil {
			b.Fatal(err)
		}
	}
}
