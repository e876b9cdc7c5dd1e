package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/capacity"
)

func TestParseResources(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		pods     bool
		want     capacity.Quantities
		err      string
	}{
		{"empty", "", false, capacity.Quantities{}, ""},
		{"pod", "cpu=500m,memory=1Gi", false, capacity.Quantities{CPU: 500, Memory: 1 << 30}, ""},
		{"spaces and storage", " cpu=2 , ephemeral-storage=10G", false, capacity.Quantities{CPU: 2000, EphemeralStorage: 10_000_000_000}, ""},
		{"daemons", "cpu=150m,memory=300Mi,pods=4", true, capacity.Quantities{CPU: 150, Memory: 300 << 20, Pods: 4}, ""},
		{"pods for a pod", "pods=2", false, capacity.Quantities{}, `"pods" is not a resource; use cpu, memory or ephemeral-storage`},
		{"unknown", "gpu=1", true, capacity.Quantities{}, `"gpu" is not a resource; use cpu, memory, ephemeral-storage or pods`},
		{"twice", "cpu=1,cpu=2", false, capacity.Quantities{}, "entry 2: cpu is given twice"},
		{"no value", "cpu", false, capacity.Quantities{}, `entry 1: "cpu" is not key=quantity`},
		{"bad quantity", "memory=1GB", false, capacity.Quantities{}, "entry 1: memory quantity"},
		{"negative", "cpu=-1", false, capacity.Quantities{}, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseResources(tc.in, tc.pods)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("parseResources(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parseResources(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// What formatResources writes, parseResources reads back.
func TestResourcesRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		q := capacity.Quantities{
			CPU:              rapid.Int64Range(0, 1<<20).Draw(t, "cpu"),
			Memory:           rapid.Int64Range(0, 1<<50).Draw(t, "memory"),
			EphemeralStorage: rapid.Int64Range(0, 1<<50).Draw(t, "storage"),
			Pods:             rapid.Int64Range(0, 1000).Draw(t, "pods"),
		}
		got, err := parseResources(formatResources(q, true), true)
		if err != nil {
			t.Fatalf("parseResources(formatResources(%v)) = %v", q, err)
		}
		if got != q {
			t.Fatalf("round trip of %v gave %v (via %q)", q, got, formatResources(q, true))
		}
	})
}

// limitedBy names the resource of which fewest pods fit, as CheckFit
// counts them: with that resource one pod larger, one pod fewer fits.
func TestLimitedBy(t *testing.T) {
	t.Parallel()
	alloc := capacity.Quantities{CPU: 1930, Memory: 7030 << 20, EphemeralStorage: 18 << 30, Pods: 29}
	for _, tc := range []struct {
		name string
		req  capacity.FitRequest
		want capacity.Resource
	}{
		{"cpu", capacity.FitRequest{Pod: capacity.Quantities{CPU: 500, Memory: 1 << 30}}, capacity.ResourceCPU},
		{"memory", capacity.FitRequest{Pod: capacity.Quantities{CPU: 100, Memory: 2 << 30}}, capacity.ResourceMemory},
		{"pods", capacity.FitRequest{Pod: capacity.Quantities{CPU: 10, Memory: 10 << 20}}, capacity.ResourcePods},
		{"daemons take the memory", capacity.FitRequest{Pod: capacity.Quantities{CPU: 100, Memory: 100 << 20}, Daemons: capacity.Quantities{Memory: 7000 << 20}}, capacity.ResourceMemory},
		{"not even the daemons", capacity.FitRequest{Pod: capacity.Quantities{CPU: 1}, Daemons: capacity.Quantities{Memory: 8 << 30}}, capacity.ResourceMemory},
		{"a tie goes to the first resource", capacity.FitRequest{Pod: capacity.Quantities{CPU: 1930, Memory: 7030 << 20}}, capacity.ResourceCPU},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := limitedBy(alloc, tc.req); got != tc.want {
				t.Errorf("limitedBy = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestVersionRange(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"1.33":                "1.33",
		"1.29 1.30":           "1.29 and 1.30",
		"1.29 1.30 1.31":      "1.29 to 1.31",
		"1.29 1.31 1.32":      "1.29, 1.31 and 1.32",
		"1.29 1.30 1.31 1.33": "1.29, 1.30, 1.31 and 1.33",
	} {
		if got := versionRange(strings.Fields(in)); got != want {
			t.Errorf("versionRange(%s) = %q, want %q", in, got, want)
		}
	}
}
