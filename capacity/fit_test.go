package capacity_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
)

func fitEstimates(t *testing.T) []capacity.Estimate {
	t.Helper()
	m5x := m5large
	m5x.Name, m5x.Size, m5x.VCPU, m5x.MemoryMiB, m5x.Network = "m5.xlarge", "xlarge", 4, 16384, capacity4(4, 15)
	t3 := compat.InstanceType{Name: "t3.small", VCPU: 2, MemoryMiB: 2048, Hypervisor: "nitro", Network: capacity4(3, 4)}
	unknown := compat.InstanceType{Name: "zz9.large", VCPU: 2, MemoryMiB: 8192}
	e := mustEstimator(t, capacity.Launch{Family: compat.AL2023}, capacity.EstimateOptions{})
	return e.EstimateAll([]compat.InstanceType{t3, m5large, m5x, unknown})
}

func TestCheckFit(t *testing.T) {
	ests := fitEstimates(t)
	daemons := capacity.Quantities{CPU: 200, Memory: mib(300), Pods: 3}
	for _, tc := range []struct {
		name  string
		req   capacity.FitRequest
		fit   []string
		holds []int64
		short map[string][]string // instance type → "resource by cause-kind"
	}{
		{
			name:  "small pod fits everywhere known",
			req:   capacity.FitRequest{Pod: capacity.Quantities{CPU: 100, Memory: mib(128)}, Daemons: daemons},
			fit:   []string{"t3.small", "m5.large", "m5.xlarge"},
			holds: []int64{8, 17, 37, 0},
		},
		{
			// m5.large: 7030Mi allocatable; 7000Mi + 300Mi of daemons
			// need 7300Mi, and kube-reserved (574Mi) takes most.
			name:  "memory short by kube-reserved",
			req:   capacity.FitRequest{Pod: capacity.Quantities{CPU: 500, Memory: mib(7000)}, Daemons: daemons},
			fit:   []string{"m5.xlarge"},
			holds: []int64{0, 0, 2, 0},
			short: map[string][]string{"t3.small": {"memory by capacity"}, "m5.large": {"memory by kube-reserved"}},
		},
		{
			// 30 pods + 3 daemons exceed m5.large's 29: max pods itself.
			name:  "pods short by max pods",
			req:   capacity.FitRequest{Pod: capacity.Quantities{CPU: 10}, Count: 30, Daemons: daemons},
			fit:   []string{"m5.xlarge"},
			holds: []int64{8, 26, 55, 0},
			short: map[string][]string{"t3.small": {"pods by capacity"}, "m5.large": {"pods by capacity"}},
		},
		{
			// The 2-vCPU types have 1930m allocatable: 200m of daemons and
			// 1730m fit exactly; 1731m is short by 1m.
			name:  "exactly allocatable fits",
			req:   capacity.FitRequest{Pod: capacity.Quantities{CPU: 1730}, Daemons: daemons},
			fit:   []string{"t3.small", "m5.large", "m5.xlarge"},
			holds: []int64{1, 1, 2, 0},
		},
		{
			name:  "one millicore short",
			req:   capacity.FitRequest{Pod: capacity.Quantities{CPU: 1731}, Daemons: daemons},
			fit:   []string{"m5.xlarge"},
			holds: []int64{0, 0, 2, 0},
			short: map[string][]string{"t3.small": {"cpu by kube-reserved"}, "m5.large": {"cpu by kube-reserved"}},
		},
		{
			name:  "cpu short on every type",
			req:   capacity.FitRequest{Pod: capacity.Quantities{CPU: 4000}},
			holds: []int64{0, 0, 0, 0},
			short: map[string][]string{"t3.small": {"cpu by capacity"}, "m5.large": {"cpu by capacity"}, "m5.xlarge": {"cpu by kube-reserved"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fit, err := capacity.CheckFit(ests, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.fit, fit.Fitting()); diff != "" {
				t.Errorf("fitting (-want +got)\n%s\n%s", diff, fit)
			}
			var holds []int64
			short := map[string][]string{}
			for _, v := range fit.Verdicts {
				holds = append(holds, v.Holds)
				for _, s := range v.Short {
					short[v.InstanceType] = append(short[v.InstanceType], s.Resource.String()+" by "+s.Cause.Kind.String())
				}
			}
			if diff := cmp.Diff(tc.holds, holds); diff != "" {
				t.Errorf("holds (-want +got)\n%s", diff)
			}
			if tc.short == nil {
				tc.short = map[string][]string{}
			}
			if diff := cmp.Diff(tc.short, short); diff != "" {
				t.Errorf("short (-want +got)\n%s\n%s", diff, fit)
			}
			if last := fit.Verdicts[3]; last.Unresolved == "" || last.Fits {
				t.Errorf("zz9.large: %+v; want unresolved", last)
			}
		})
	}
}

func TestFitString(t *testing.T) {
	fit, err := capacity.CheckFit(fitEstimates(t), capacity.FitRequest{
		Pod:     capacity.Quantities{CPU: 500, Memory: mib(7000)},
		Daemons: capacity.Quantities{CPU: 200, Memory: mib(300), Pods: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := fit.String()
	for _, want := range []string{
		"1 of 4 instance types hold 1 × (cpu=500m memory=7000Mi ephemeral-storage=0) + daemons (cpu=200m memory=300Mi ephemeral-storage=0 pods=3): need cpu=700m memory=7300Mi ephemeral-storage=0 pods=4\n",
		"  fit: m5.xlarge\n",
		"  m5.large: holds 0\n    memory: needs 7300Mi, allocatable 7030Mi, short by 270Mi (memory kube-reserved 574Mi: nodeadm: 11 × 29 max pods + 255 MiB [family rule;",
		"  t3.small: holds 0\n    memory: needs 7300Mi, allocatable 1330Mi, short by 5970Mi (memory capacity 1806Mi: measured-overhead model",
		"  zz9.large: cannot tell: zz9.large has no interface facts",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

func TestCheckFitErrors(t *testing.T) {
	for _, tc := range []struct {
		req capacity.FitRequest
		err string
	}{
		{capacity.FitRequest{Count: -1}, "FitRequest.Count is -1"},
		{capacity.FitRequest{Pod: capacity.Quantities{Memory: -1}}, "FitRequest.Pod has memory -1"},
		{capacity.FitRequest{Daemons: capacity.Quantities{Pods: -2}}, "FitRequest.Daemons has pods -2"},
	} {
		if _, err := capacity.CheckFit(nil, tc.req); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("CheckFit(%+v) = %v, want %q", tc.req, err, tc.err)
		}
	}
}
