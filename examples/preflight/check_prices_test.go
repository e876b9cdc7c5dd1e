package main

import (
	"strings"
	"testing"
)

// Each NodePool's cheapest types come from the embedded snapshot for the
// region preflight knows; a region the snapshot lacks prices nothing,
// rather than borrowing us-east-1's prices as Karpenter's fallback does
// (karpenter-provider-aws v1.14.1 pkg/providers/pricing/pricing.go:452-463).
func TestCheapestOnDemand(t *testing.T) {
	for _, tc := range []struct{ region, want string }{
		{"", "cheapest on demand in us-east-1 (assumed: no -region given; the embedded price snapshot): c6g.medium 0.034 USD/h, c7g.medium 0.0363 USD/h, c6gd.medium 0.0384 USD/h\n"},
		{"us-east-1", "cheapest on demand in us-east-1 (from -region; the embedded price snapshot): c6g.medium 0.034 USD/h"},
		{"eu-west-1", "cheapest on demand in eu-west-1 (from -region; the embedded price snapshot): none priced; 835 types unpriced (unknown, never another region's price)\n"},
	} {
		args := []string{"testdata/clean.yaml"}
		if tc.region != "" {
			args = append([]string{"-region", tc.region}, args...)
		}
		out, _ := runArgs(t, "", args...)
		if !strings.Contains(out, tc.want) {
			t.Errorf("-region %q: output lacks %q:\n%s", tc.region, tc.want, out)
		}
	}
}
