package quantity

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"binary 0", FormatBinary(0), "0"},
		{"binary 7Gi", FormatBinary(7 << 30), "7Gi"},
		{"binary Ki", FormatBinary(7934372 << 10), "7934372Ki"},
		{"binary decimal", FormatBinary(1_000_000_000), "1000000000"},
		{"binary negative", FormatBinary(-3 << 20), "-3Mi"},
		{"binary min", FormatBinary(math.MinInt64), "-8Ei"},
		{"binary max", FormatBinary(math.MaxInt64), "9223372036854775807"},
		{"milli whole", FormatDecimal(2000, -3), "2"},
		{"milli", FormatDecimal(1930, -3), "1930m"},
		{"milli 0", FormatDecimal(0, -3), "0"},
		{"nano", FormatDecimal(1500, -9), "1500n"},
		{"nano micro", FormatDecimal(15000, -9), "15u"},
		{"units", FormatDecimal(42, 0), "42"},
		{"kilo", FormatDecimal(5, 3), "5e3"},
		{"odd scale", FormatDecimal(17, -4), "17e-4"},
		{"odd scale whole", FormatDecimal(170000, -4), "17"},
		{"milli min", FormatDecimal(math.MinInt64, -3), "-9223372036854775808m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}
