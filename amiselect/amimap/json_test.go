package amimap

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
)

// TestAMIJSON: an AMI round-trips through JSON with its requirements as a
// list and its variant as a word; zero times are left out; a bad
// requirement or variant is an error naming it.
func TestAMIJSON(t *testing.T) {
	a := AMI{
		ID: "ami-0a230000000000002", Name: "amazon-eks-node-al2023-x86_64-nvidia-1.32-v20250403", Arch: compat.ArchAMD64,
		Family: compat.AL2023, Variant: NVIDIA, Release: "v20250403",
		Created: time.Date(2025, 4, 3, 16, 41, 47, 0, time.UTC), CreationDate: "2025-04-03T16:41:47.000Z",
		Requirements: NVIDIA.Requirements().Intersect(compat.FromLabels(map[string]string{compat.LabelArch: compat.ArchAMD64})),
	}
	data, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Variant":"nvidia"`, `"Requirements":[{"Key":"karpenter.k8s.aws/instance-gpu-count","Operator":"Exists"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON lacks %s: %s", want, data)
		}
	}
	if strings.Contains(string(data), "DeprecationTime") || strings.Contains(string(data), "0001-01-01") {
		t.Errorf("JSON has a zero time: %s", data)
	}
	var back AMI
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	equal := cmp.Comparer(func(x, y compat.Requirements) bool { return x.Equal(y) })
	if diff := cmp.Diff(a, back, equal); diff != "" {
		t.Errorf("round trip (-sent +back):\n%s", diff)
	}
	for _, tc := range []struct{ json, want string }{
		{`{"ID":"ami-1","Variant":"gpu"}`, `amimap: "gpu" is not a variant; use one of ["unspecified" "standard" "nvidia" "neuron"]`},
		{`{"ID":"ami-1","Variant":"standard","Requirements":[{"Key":"k","Operator":"Gt","Values":["x"]}]}`, "amimap: AMI ami-1: "},
	} {
		if err := json.Unmarshal([]byte(tc.json), &back); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Unmarshal(%s) = %v, want %q", tc.json, err, tc.want)
		}
	}
}
