package capacity_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// FuzzParseQuantity: ParseQuantity never panics and never returns a
// negative amount; and every value the kubelet's own validation accepts
// (userdata.KubeletConfig.Validate, which follows resource.ParseQuantity)
// the estimator can read, unless it is beyond int64.
func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"100m", "1.5Gi", "2e3", "+", ".", "1.G", "0.0001", "1e-40", "9E", "10E", "1Ei", "-1", "1e2147483648", "Ki", "5%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range []capacity.Resource{capacity.ResourceCPU, capacity.ResourceMemory, capacity.ResourcePods} {
			if v, err := capacity.ParseQuantity(r, s); err == nil && v < 0 {
				t.Fatalf("ParseQuantity(%s, %q) = %d", r, s, v)
			}
		}
		k := userdata.KubeletConfig{KubeReserved: map[string]string{"cpu": s, "memory": s}}
		if k.Validate() != nil {
			return
		}
		if _, err := capacity.NewEstimator(capacity.Launch{Family: compat.AL2023, Kubelet: k}, capacity.EstimateOptions{}); err != nil && !strings.Contains(err.Error(), "beyond int64") {
			t.Fatalf("Validate accepts %q but the estimator does not: %v", s, err)
		}
	})
}

// FuzzParseMaxPodsTable: the parser never panics, and a table it reads,
// written back one line per type, reads back the same.
func FuzzParseMaxPodsTable(f *testing.F) {
	f.Add("# c\nm5.large 29\nm5.xlarge\t58\r\n")
	f.Add("a 1\na 2\n")
	f.Add("a b c\n")
	f.Fuzz(func(t *testing.T, text string) {
		tbl, err := capacity.ParseMaxPodsTable(text)
		if err != nil {
			return
		}
		var b strings.Builder
		var names []string
		for _, line := range strings.Split(text, "\n") {
			if f := strings.Fields(line); len(f) == 2 && !strings.HasPrefix(f[0], "#") {
				v, ok := tbl.Lookup(f[0])
				if !ok {
					t.Fatalf("%q read, but %s is not in the table", text, f[0])
				}
				fmt.Fprintf(&b, "%s %d\n", f[0], v)
				names = append(names, f[0])
			}
		}
		again, err := capacity.ParseMaxPodsTable(b.String())
		if err != nil || again.Len() != tbl.Len() || tbl.Len() != len(names) {
			t.Fatalf("re-reading %q: %v, %d types, want %d", b.String(), err, again.Len(), tbl.Len())
		}
		for _, n := range names {
			if x, _ := again.Lookup(n); func() int64 { y, _ := tbl.Lookup(n); return y }() != x {
				t.Fatalf("%s differs after re-reading", n)
			}
		}
	})
}
