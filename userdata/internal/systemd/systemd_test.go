package systemd

import (
	"strings"
	"testing"
)

func TestSystemdSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		cunescape bool
		want      []string
		wantErr   bool
	}{
		{in: `--register-with-taints "k:NoExecute"`, want: []string{"--register-with-taints", "k:NoExecute"}},
		{in: `--node-labels="a=b,c=d" --max-pods=110`, want: []string{"--node-labels=a=b,c=d", "--max-pods=110"}},
		{in: `a'b c'd`, want: []string{"ab cd"}},
		{in: `a\ b`, want: []string{"a b"}},
		{in: `"unterminated`, want: []string{"unterminated"}},
		{in: `'KUBELET_EXTRA_ARGS=--a "b c"'`, cunescape: true, want: []string{`KUBELET_EXTRA_ARGS=--a "b c"`}},
		{in: `'A=\q'`, cunescape: true, wantErr: true},
		{in: `'A=\x41\n'`, cunescape: true, want: []string{"A=A\n"}},
		{in: `'A=b`, cunescape: true, wantErr: true},
	}
	for _, tt := range tests {
		got, err := Split(tt.in, tt.cunescape, !tt.cunescape)
		if (err != nil) != tt.wantErr {
			t.Errorf("Split(%q) error = %v; wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
			t.Errorf("Split(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestEnvFileValue(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{in: `--node-labels="a=b" --x=y`, want: `--node-labels="a=b" --x=y`},
		{in: `"quoted value" tail`, want: `quoted valuetail`},
		{in: `a\ b  `, want: `a b`},
		{in: "a\nb", want: "a"},
	}
	for _, tt := range tests {
		if got := EnvFileValue(tt.in); got != tt.want {
			t.Errorf("EnvFileValue(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
