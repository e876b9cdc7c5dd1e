package karpenter_test

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/userdata"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"
)

// bigExponent finds an exponent of four or more digits, on which
// resource.ParseQuantity spends unbounded time ("1e-999999999").
var bigExponent = regexp.MustCompile(`[eE][+-]?[0-9]{4}`)

// reporter is what the checks need of a *testing.T or a *rapid.T.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// checkQuantity asserts that userdata accepts a reserved memory quantity
// exactly when the kubelet does: Kubernetes' own parser reads it and its
// sign is not negative (k8s.io/kubernetes@v1.35.3 cmd/kubelet/app/server.go
// parseResourceList L1335-1341, so "-0" is accepted).
func checkQuantity(t reporter, s string) {
	t.Helper()
	q, parseErr := resource.ParseQuantity(s)
	wantOK := parseErr == nil && q.Sign() >= 0
	err := userdata.KubeletConfig{SystemReserved: map[string]string{"memory": s}}.Validate()
	if (err == nil) != wantOK {
		t.Errorf("%q: userdata says %v; resource.ParseQuantity says %v", s, err, parseErr)
	}
	checkValues(t, s)
}

// checkValues asserts that capacity.ParseQuantity reads s as the kubelet
// and scheduler do: the amount resource.Quantity's Value (memory, bytes)
// and MilliValue (cpu, millicores) give, refusing what ParseQuantity
// refuses and negative amounts, and refusing as beyond int64 only an
// amount that is. At k8s.io/apimachinery v0.35.3
// pkg/api/resource/quantity.go, ParseQuantity (lines 278-392) keeps the
// int64 fast path exact and rounds the slow path up to a nanounit (lines
// 373-375), which cannot move a ceiling in bytes or millicores; it caps
// a binary amount at math.MaxInt64 (lines 379-381); Value and MilliValue
// (lines 813-835) round up and overflow silently, hence the range check
// against Cmp, which is exact.
func checkValues(t reporter, s string) {
	t.Helper()
	q, parseErr := resource.ParseQuantity(s)
	for _, c := range []struct {
		r     capacity.Resource
		value func(*resource.Quantity) int64
		max   resource.Quantity
	}{
		{capacity.ResourceMemory, (*resource.Quantity).Value, *resource.NewQuantity(math.MaxInt64, resource.DecimalSI)},
		{capacity.ResourceCPU, (*resource.Quantity).MilliValue, *resource.NewMilliQuantity(math.MaxInt64, resource.DecimalSI)},
	} {
		got, err := capacity.ParseQuantity(c.r, s)
		switch {
		case parseErr != nil || q.Sign() < 0:
			if err == nil {
				t.Errorf("capacity reads %s %q as %d; resource.ParseQuantity gives %v, sign %d", c.r, s, got, parseErr, q.Sign())
			}
		case err != nil:
			capped := q.Cmp(c.max) == 0 && q.Format == resource.BinarySI
			if !strings.Contains(err.Error(), "beyond int64") || (q.Cmp(c.max) <= 0 && !capped) {
				t.Errorf("capacity refuses %s %q (%v); resource.ParseQuantity reads %s, in range", c.r, s, err, q.String())
			}
		default:
			if want := c.value(&q); got != want {
				t.Errorf("capacity reads %s %q as %d; resource.Quantity says %d", c.r, s, got, want)
			}
		}
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
	// Values: rounding, the int64 bounds in bytes and millicores, the
	// binary cap, the slow path's digit rule, deep fractions.
	"0.1m", "0.5", "1.9", "0.9999999999", "1.5n", "-0.0000000001", "-1e-40", "1e-40", "+", "Ki", "Ti", "Pi", "+Ei",
	"0Ei", "e-10", ".e-10", "9223372036854775807m", "9223372036854775808m", "9223372036854775.807", "9223372036854775.8071",
	"8Ei", "7.999999999999999999Ei", "9007199254740991.9990234375Ki", "9E", "10E", "12345678901234567890123e-10",
	"0.000000000000000000001234e21", "123456789012345678.9", "1.23456789012345678901234567890", "1e4294967296",
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

// TestQuantityValuesAgreeWithKubernetes draws quantities from the grammar
// (signs, leading zeros, fractions, every suffix, exponents within ±40 so
// that ParseQuantity's slow path stays quick) and checks what userdata
// accepts and what capacity reads against resource.ParseQuantity.
func TestQuantityValuesAgreeWithKubernetes(t *testing.T) {
	suffixes := []string{"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	rapid.Check(t, func(rt *rapid.T) {
		s := rapid.SampledFrom([]string{"", "", "+", "-"}).Draw(rt, "sign") + rapid.StringMatching(`[0-9]{0,22}`).Draw(rt, "int")
		if rapid.Bool().Draw(rt, "dot") {
			s += "." + rapid.StringMatching(`[0-9]{0,22}`).Draw(rt, "frac")
		}
		if rapid.Bool().Draw(rt, "named") {
			s += rapid.SampledFrom(suffixes).Draw(rt, "suffix")
		} else {
			s += rapid.SampledFrom([]string{"e", "E", "e+", "e-"}).Draw(rt, "e") + strconv.Itoa(rapid.IntRange(0, 40).Draw(rt, "exp"))
		}
		checkQuantity(rt, s)
	})
}
