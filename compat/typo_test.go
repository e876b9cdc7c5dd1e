package compat

import (
	"errors"
	"strings"
	"testing"
)

// TestTypoHints: the first eleven rows are Karpenter's own
// (kubernetes-sigs/karpenter 2266468104f3, pkg/scheduling/
// requirements_test.go:550-571), which it checks against an unconstrained
// receiver with AllowUndefinedWellKnownLabels; here each is checked that
// way and strictly. The rest are hints Karpenter's rule misses or makes at
// random.
func TestTypoHints(t *testing.T) {
	node := FromNodeLabels(map[string]string{LabelInstanceType: "m5.large", LabelArch: ArchAMD64, "example.com/team": "a"})
	tests := []struct {
		key      string
		receiver Requirements
		want     string
	}{
		{"zone", Requirements{}, LabelZone},
		{"region", Requirements{}, LabelRegion},
		{"nodepool", Requirements{}, LabelNodePool},
		{"instance-type", Requirements{}, LabelInstanceType},
		{"arch", Requirements{}, LabelArch},
		{"capacity-type", Requirements{}, LabelCapacityType},
		{"topology.kubernetesio/zone", Requirements{}, LabelZone},
		{"node.io/zone", Requirements{}, LabelZone},
		{"topology.kubernetes.io/regio", Requirements{}, LabelRegion},
		{"node.kubernetes.io/region", Requirements{}, LabelRegion},
		{"karpenter/nodepool", Requirements{}, LabelNodePool},
		{"deployment", Requirements{}, ""},
		// Karpenter's rule misses these; two edits catch them.
		{"kubernetes.io/arhc", Requirements{}, LabelArch},
		{"karpenter.k8s.aws/instance-gpu-cout", node, LabelInstanceGPUCount},
		// A key of the receiver.
		{"example.com/teams", node, "example.com/team"},
		// Karpenter's rule also matches instance-type for "type"; the
		// closest name part decides.
		{"example.com/capacity-type", Requirements{}, LabelCapacityType},
		{"example.com/unrelated", node, ""},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			in := MustRequirements(req(tt.key, Exists))
			for _, opts := range [][]Option{nil, {AllowUndefinedWellKnown()}} {
				err := tt.receiver.Compatible(in, opts...)
				var ie *IncompatibleError
				if !errors.As(err, &ie) {
					t.Fatalf("Compatible = %v; want an *IncompatibleError", err)
				}
				if ie.TypoOf != tt.want {
					t.Errorf("TypoOf = %q; want %q", ie.TypoOf, tt.want)
				}
				hint := `(typo of "` + tt.want + `"?)`
				if got := strings.Contains(err.Error(), hint); got != (tt.want != "") {
					t.Errorf("error %q: contains %s = %v", err, hint, got)
				}
				if tt.want != "" && !strings.Contains(ie.Fix, "if you meant "+tt.want) {
					t.Errorf("Fix %q does not suggest %s", ie.Fix, tt.want)
				}
			}
		})
	}
}

// A well-known key is no typo, even where the receiver lacks it.
func TestNoTypoHintForWellKnownKeys(t *testing.T) {
	err := Requirements{}.Compatible(MustRequirements(req(LabelZone, In, "us-east-1a")))
	var ie *IncompatibleError
	if !errors.As(err, &ie) || ie.TypoOf != "" {
		t.Errorf("Compatible = %v; want no typo hint", err)
	}
}
