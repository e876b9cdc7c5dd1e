package userdata

import (
	"encoding/base64"
	"flag"
	"slices"
	"testing"

	"github.com/ec2select/ec2select/compat"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testCA is a syntactically valid CABundle: base64 of a PEM certificate
// block (the DER inside is not a real certificate; Render does not parse it).
func testCA() string {
	return base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUEc2lMA==\n-----END CERTIFICATE-----\n"))
}

func baseConfig() Config {
	return Config{
		ClusterName:       "my-cluster",
		APIServerEndpoint: "https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com",
		CABundle:          testCA(),
		ClusterCIDR:       "10.100.0.0/16",
	}
}

// mustLint lints data; a nil required means Karpenter v1's
// [UnregisteredTaint], the requirement most tests check against (pass
// []Taint{} for none).
func mustLint(t *testing.T, f compat.AMIFamily, data []byte, required []Taint) Report {
	t.Helper()
	if required == nil {
		required = []Taint{UnregisteredTaint()}
	}
	r, err := Lint(f, data, required)
	if err != nil {
		t.Fatalf("Lint(%v) error: %v", f, err)
	}
	return r
}

func codes(r Report) []Code {
	var out []Code
	for _, p := range r.Problems {
		out = append(out, p.Code)
	}
	return out
}

// configuredTaints are the taints of a report that the userData sets, the
// kubelet's own left out, in the report's order.
func configuredTaints(r Report) []Taint {
	var out []Taint
	for _, t := range r.Taints {
		if t.Source != SourceKubelet {
			out = append(out, t.Taint)
		}
	}
	return out
}

// wantRegistered is what a Joins report of family f must list for the
// configured taints: each marked required when it matches a required
// taint, plus the kubelet's cloud-provider taint on the families whose boot
// agent runs it with --cloud-provider=external (bootstrap.sh, nodeadm,
// Bottlerocket's aws-k8s variants; not Windows, whose bootstrap script
// is not published).
func wantRegistered(f compat.AMIFamily, configured, required []Taint) []RegisteredTaint {
	out := []RegisteredTaint{}
	for _, t := range configured {
		src := SourceUser
		for _, r := range required {
			if r.Key == t.Key && r.Effect == t.Effect {
				src = SourceRequired
			}
		}
		out = append(out, RegisteredTaint{Taint: t, Source: src})
	}
	if !f.IsWindows() {
		out = append(out, RegisteredTaint{Taint: Taint{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: NoSchedule}, Source: SourceKubelet})
	}
	slices.SortFunc(out, func(a, b RegisteredTaint) int { return compareTaints(a.Taint, b.Taint) })
	return out
}

func ptr[T any](v T) *T { return &v }
