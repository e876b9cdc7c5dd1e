package karpenter_test

import (
	"regexp"
	"testing"

	"github.com/ec2select/ec2select/userdata"
	"k8s.io/apimachinery/pkg/api/resource"
)

// bigExponent finds an exponent of four or more digits, on which
// resource.ParseQuantity spends unbounded time ("1e-999999999").
var bigExponent = regexp.MustCompile(`[eE][+-]?[0-9]{4}`)

// checkQuantity asserts that userdata accepts a reserved memory quantity
// exactly when the kubelet does: Kubernetes' own parser reads it and its
// sign is not negative (k8s.io/kubernetes@v1.35.3 cmd/kubelet/app/server.go
// parseResourceList L1335-1341, so "-0" is accepted).
func checkQuantity(t *testing.T, s string) {
	t.Helper()
	q, parseErr := resource.ParseQuantity(s)
	wantOK := parseErr == nil && q.Sign() >= 0
	err := userdata.KubeletConfig{SystemReserved: map[string]string{"memory": s}}.Validate()
	if (err == nil) != wantOK {
		t.Errorf("%q: userdata says %v; resource.ParseQuantity says %v", s, err, parseErr)
	}
}

func TestQuantityAgreesWithKubernetes(t *testing.T) {
	for _, s := range quantitySeeds {
		t.Run(s, func(t *testing.T) { checkQuantity(t, s) })
	}
}

var quantitySeeds = []string{
	"0", "1", "100Mi", "1Gi", "1.5Gi", "100m", "1e3", "1E3", "1e-3", "1.", ".5", "+1", "-1", "-0",
	"1Ki", "1ki", "1K", "1k", "1M", "1Mi", "1Ti", "1Pi", "1Ei", "1E", "1P", "1T", "1G", "1n", "1u",
	"", " ", "1 Gi", "Gi", "1Gib", "0x10", "1_000", "1.2.3", "1e", "1e+", "e3", "1i", "1.0e2Mi",
	"9223372036854775807", "9223372036854775808", "99999999999999999999999Ei", "0.000000001",
	"1e999", "1e-999", "+.5", "-.5", "00", "01Gi", "١",
}

func FuzzQuantityAgreesWithKubernetes(f *testing.F) {
	for _, s := range quantitySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 40 || bigExponent.MatchString(s) {
			t.Skip("ParseQuantity hangs on huge exponents")
		}
		checkQuantity(t, s)
	})
}
