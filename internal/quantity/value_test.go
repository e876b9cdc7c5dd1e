package quantity

import (
	"errors"
	"math"
	"testing"
)

// TestScaled: the value in a unit, rounded down and up. The rounding up is
// resource.Quantity's (k8s.io/apimachinery v0.35.3 quantity.go lines
// 813-835 and amount.go lines 95-101: Value and MilliValue round away from
// zero).
func TestScaled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in          string
		scale       int
		floor, ceil int64
		err         error
	}{
		{"100m", -3, 100, 100, nil},
		{"1.5", -3, 1500, 1500, nil},
		{"0.1m", -3, 0, 1, nil},
		{"1Ki", -3, 1024000, 1024000, nil},
		{"1.5Gi", 0, 1610612736, 1610612736, nil},
		{"0.5", 0, 0, 1, nil},
		{"1.9", 0, 1, 2, nil},
		{"1e3", 0, 1000, 1000, nil},
		{"1.G", 0, 1_000_000_000, 1_000_000_000, nil},
		{"+", 0, 0, 0, nil},
		{"e-10", 0, 0, 0, ErrNumeric},
		{"1e-40", 0, 0, 1, nil},        // far below a unit: still one when rounded up
		{"0.9999999999", 0, 0, 1, nil}, // exact, not rounded to nano first
		{"-1.5", 0, -2, -1, nil},       // floor and ceil of a negative value
		{"-0.5m", -3, -1, 0, nil},      //
		{"9223372036854775807", 0, math.MaxInt64, math.MaxInt64, nil},
		{"9223372036854775808", 0, 0, 0, ErrRange},
		{"-9223372036854775808", 0, math.MinInt64, math.MinInt64, nil},
		{"-8Ei", 0, math.MinInt64, math.MinInt64, nil},
		{"8Ei", 0, 0, 0, ErrRange},
		{"7.999999999999999999Ei", 0, math.MaxInt64 - 1, math.MaxInt64, nil},
		{"9223372036854775806.5", 0, math.MaxInt64 - 1, math.MaxInt64, nil},
		{"9223372036854775807.5", 0, 0, 0, ErrRange}, // the floor fits, the ceiling does not
		{"18446744073709551615.5", 0, 0, 0, ErrRange},
		{"10E", 0, 0, 0, ErrRange},
		{"9E", 0, 9e18, 9e18, nil},
		{"9E", -3, 0, 0, ErrRange},
		{"1e2147483648", 0, 0, 1, nil}, // the exponent wraps to −2^31 as an int32: tiny
		{"1e4294967296", 0, 1, 1, nil}, // wraps to 0 (suffix.go line 194)
		{"12345678901234567890123e-10", 0, 1234567890123, 1234567890124, nil},
		{"0.000000000000000000001234e21", -3, 1234, 1234, nil},
		{"1n", -9, 1, 1, nil},
		{"1n", -3, 0, 1, nil},
		{"5k", 3, 5, 5, nil},
		{"5", 3, 0, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q, err := Parse(tt.in)
			var floor, ceil int64
			if err == nil {
				floor, ceil, err = q.Scaled(tt.scale)
			}
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) || floor != tt.floor || ceil != tt.ceil {
				t.Errorf("%q at 10^%d = %d, %d, %v; want %d, %d, %v", tt.in, tt.scale, floor, ceil, err, tt.floor, tt.ceil, tt.err)
			}
		})
	}
}

// TestScaledAllocs: the amounts kubelet settings hold ("1.5Gi", "100m",
// "0.000000001") scale in 128-bit arithmetic, without allocating.
func TestScaledAllocs(t *testing.T) {
	for _, s := range []string{"1.5Gi", "100m", "0.000000001", "9223372036854775807", "7.999999999999999999Ei"} {
		q, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, func() { _, _, _ = q.Scaled(-3) }); n != 0 {
			t.Errorf("%q: Scaled allocates %v times, want 0", s, n)
		}
	}
}
