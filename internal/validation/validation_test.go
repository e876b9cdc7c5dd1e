package validation

import (
	"strings"
	"testing"
)

func TestQualifiedName(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"kubernetes.io/arch", true},
		{"karpenter.k8s.aws/instance-gpu-count", true},
		{"team", true},
		{"A_b.c-D", true},
		{"a", true},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
		{strings.Repeat("a", 253) + "/x", true},
		{strings.Repeat("a", 254) + "/x", false},
		{"", false},
		{"/x", false},
		{"x/", false},
		{"a/b/c", false},
		{"Example.com/x", false},
		{"-x", false},
		{"x-", false},
		{"x y", false},
		{"example..com/x", false},
		{"ex_ample.com/x", false},
		{"*", false},
	}
	for _, tt := range tests {
		if err := QualifiedName(tt.in); (err == nil) != tt.ok {
			t.Errorf("QualifiedName(%q) = %v; want ok=%v", tt.in, err, tt.ok)
		}
	}
}

func TestLabelValue(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"", true},
		{"amd64", true},
		{"c7i-flex", true},
		{"10.0.17763", true},
		{"a_b", true},
		{strings.Repeat("x", 63), true},
		{strings.Repeat("x", 64), false},
		{"a/b", false},
		{"*", false},
		{"-a", false},
		{"a.", false},
		{"a b", false},
		{"é", false},
	}
	for _, tt := range tests {
		if err := LabelValue(tt.in); (err == nil) != tt.ok {
			t.Errorf("LabelValue(%q) = %v; want ok=%v", tt.in, err, tt.ok)
		}
	}
}

func TestArgumentText(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: a part of the error, or "" for none
	}{
		{"", ""},
		{"node-role=worker:NoSchedule", ""},
		{"tab\tand\nnewline", ""},
		{"caf\xc3\xa9", ""},
		{"bad \xff byte", "not valid UTF-8"},
		{"nul\x00inside", "NUL byte"},
	} {
		err := ArgumentText(tc.in)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ArgumentText(%q) = %v; want an error containing %q", tc.in, err, tc.want)
		}
	}
}
