package powershell

import (
	"strings"
	"testing"
)

// TestWindowsArgv: how the kubelet on Windows splits -KubeletExtraArgs.
func TestWindowsArgv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{in: `--node-labels="a=b" --register-with-taints="k:NoExecute"`, want: []string{"--node-labels=a=b", "--register-with-taints=k:NoExecute"}},
		{in: `a\\"b c"`, want: []string{`a\b c`}},
		{in: `a\"b`, want: []string{`a"b`}},
		{in: `"a""b"`, want: []string{`a"b`}},
		{in: `a\b`, want: []string{`a\b`}},
		{in: "  x\ty  ", want: []string{"x", "y"}},
		// Go's os.Args on Windows (syscall CommandLineToArgv's rules):
		// 2n+1 backslashes before a quote give n and a quote; backslashes
		// not before a quote are literal.
		{in: `"a b" c`, want: []string{"a b", "c"}},
		{in: `a\\\"b`, want: []string{`a\"b`}},
		{in: `a\\`, want: []string{`a\\`}},
		{in: ``, want: nil},
	}
	for _, tt := range tests {
		if got := WindowsArgv(tt.in); strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
			t.Errorf("WindowsArgv(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
