package capacity_test

import (
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/ec2select/ec2select/capacity"
)

// FuzzParseMaxPodsExpression: any text compiles or fails with an
// *ExpressionError at a line and column inside it, never a panic; what
// compiles evaluates, for any interfaces, to a positive int32 or such an
// error. The same holds for Karpenter's dialect.
func FuzzParseMaxPodsExpression(f *testing.F) {
	for _, s := range []string{
		"max_pods", "max_pods +", "((default_enis - 1) * (ips_per_eni - 1)) + 2", benchExpression,
		"max_pods / (default_enis - 3)", "int(double(max_pods) * 1e300)", "\"12\"", "max_pods > 1",
		"max(60, vcpus * 30)", "memory_mib / 100", "double(max_pods)\n/ 0.0", "[1, 2][5]", "{}.a",
	} {
		f.Add(s, int64(3), int64(10))
	}
	f.Fuzz(func(t *testing.T, text string, enis, ipv4 int64) {
		std := enis*(ipv4-1) + 2
		for _, parse := range []func(string) (capacity.Expression, error){capacity.ParseMaxPodsExpression, capacity.ParseKarpenterExpression} {
			x, err := parse(text)
			if err == nil && !x.IsZero() {
				_, err = x.Eval(capacity.Variables{DefaultENIs: enis, IPsPerENI: ipv4, MaxPods: std, VCPUs: enis, MemoryMiB: ipv4, InstanceType: text})
			}
			if err == nil {
				continue
			}
			var xe *capacity.ExpressionError
			if !errors.As(err, &xe) {
				t.Fatalf("%q: %v is not an *ExpressionError", text, err)
			}
			if xe.Expression != text || xe.Line < 1 || xe.Column < 1 || xe.Line > 1+countLines(text) || xe.Column > utf8.RuneCountInString(text)+1 {
				t.Fatalf("%q: error at %d:%d is outside the expression: %v", text, xe.Line, xe.Column, err)
			}
		}
	})
}

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}
