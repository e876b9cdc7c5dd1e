package quantity

import (
	"errors"
	"testing"
)

// The rows follow k8s.io/apimachinery v0.35.3 pkg/api/resource/quantity.go:
// ParseQuantity (line 278) and parseQuantityString (line 161), whose
// scanner accepts more than the documented grammar.
func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		sign int
		err  error
	}{
		{"500Mi", 1, nil},
		{"1.5", 1, nil},
		{"100m", 1, nil},
		{"2e3", 1, nil},
		{"1E-3", 1, nil},
		{"-1Gi", -1, nil},
		{"+1k", 1, nil},
		{"0", 0, nil},
		{"-0", 0, nil},
		{"0.000", 0, nil},
		{"1.G", 1, nil},  // "we currently allow 1.G" (quantity.go line 233)
		{".5Gi", 1, nil}, // binary with a fraction: the arbitrary-precision path
		{"+", 0, nil},    // a sign alone scans as zero (quantity.go lines 178-183)
		{"Ki", 0, nil},   // a suffix alone: the fast path reads no digit and calls it zero
		{".", 0, nil},    // likewise
		{"e5", 0, nil},   // an exponent suffix alone
		{"Ti", 0, nil},   // the largest binary suffix the fast path takes (line 310: 15-1-12-1 ≥ 0)
		{"1.5n", 1, nil}, // scale below nano: arbitrary precision, rounded up
		{"0.0000000001", 1, nil},
		{"", 0, ErrFormat},
		{"1 Gi", 0, ErrFormat},
		{"1Gi ", 0, ErrFormat},
		{"1GB", 0, ErrFormat}, // B is not a suffix letter
		{"1mm", 0, ErrSuffix},
		{"1e", 0, ErrSuffix},
		{"e-10", 0, ErrNumeric}, // scale below nano with no digit: inf.Dec refuses "" (line 349)
		{"Pi", 0, ErrNumeric},   // no digit and a binary suffix the fast path leaves (15-1-15-1 < 0)
		{"+Ei", 0, ErrNumeric},  // likewise; inf.Dec refuses "+"
		{"0Ei", 0, nil},         // a digit: inf.Dec reads "0"
		{".Ki5", 0, ErrSuffix},
		{"1.5.5", 0, ErrFormat},
		{"--1", 0, ErrSuffix}, // the second sign starts a suffix
		{"0x10", 0, ErrFormat},
		// Every suffix ParseQuantity knows (suffix.go: decimal n u m "" k M G
		// T P E, binary Ki Mi Gi Ti Pi Ei, and e/E exponents).
		{"1n", 1, nil}, {"1u", 1, nil}, {"1k", 1, nil}, {"1M", 1, nil}, {"1G", 1, nil},
		{"1T", 1, nil}, {"1P", 1, nil}, {"1E", 1, nil}, {"1Ki", 1, nil}, {"1Mi", 1, nil},
		{"1Ti", 1, nil}, {"1Pi", 1, nil}, {"1Ei", 1, nil}, {"1e+3", 1, nil},
		{"1ei", 0, ErrSuffix}, // an exponent that is not a number
		{"1iK", 0, ErrSuffix}, // suffix letters in no known order
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q, err := Parse(tt.in)
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) || (err == nil && q.Sign() != tt.sign) {
				t.Errorf("Parse(%q) = sign %d, %v; want sign %d, %v", tt.in, q.Sign(), err, tt.sign, tt.err)
			}
		})
	}
}

// TestSuffixError: a suffix error names the suffix and keeps
// ParseQuantity's text.
func TestSuffixError(t *testing.T) {
	t.Parallel()
	_, err := Parse("1mi")
	var se *SuffixError
	if !errors.As(err, &se) || se.Suffix != "mi" || err.Error() != "unable to parse quantity's suffix" {
		t.Errorf("Parse(\"1mi\") = %v (%#v); want a *SuffixError for \"mi\"", err, err)
	}
}
