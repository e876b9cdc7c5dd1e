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
		// cunescape_one (src/basic/escape.c): the simple escapes, \xNN,
		// \uNNNN, \UNNNNNNNN and three octal digits; zero, a surrogate, a
		// short or a bad sequence is an error.
		{in: `'A=\a\t\s\\'`, cunescape: true, want: []string{"A=\a\t \\"}},
		{in: `'A=\u00e9\U0001F600\101'`, cunescape: true, want: []string{"A=é😀A"}},
		{in: `'A=\x00'`, cunescape: true, wantErr: true},
		{in: `'A=\xZZ'`, cunescape: true, wantErr: true},
		{in: `'A=\x4'`, cunescape: true, wantErr: true},
		{in: `'A=\uD800'`, cunescape: true, wantErr: true},
		{in: `'A=\12'`, cunescape: true, wantErr: true},
		{in: `'A=\400'`, cunescape: true, wantErr: true},
		{in: `'A=\000'`, cunescape: true, wantErr: true},
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
		// parse_env_file (src/basic/env-file.c): leading blanks skipped, a
		// newline before the value ends it, a backslash first escapes, and
		// in double quotes only " \ ` $ and newline are escapes.
		{in: "  \tv", want: "v"},
		{in: "\nv", want: ""},
		{in: `\ v`, want: " v"},
		{in: `'a b'c`, want: "a bc"},
		{in: `"a\"b\\c\$d\` + "`" + `e"`, want: "a\"b\\c$d`e"},
		{in: `"a\nb"`, want: `a\nb`},
		{in: "\"a\\\nb\"", want: "ab"},
		{in: `"a\`, want: `a\`},
		{in: `a\`, want: "a"},
	}
	for _, tt := range tests {
		if got := EnvFileValue(tt.in); got != tt.want {
			t.Errorf("EnvFileValue(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestValidEnvName: systemd's env_name_is_valid for the names the walker
// tracks: letters, digits and '_', not starting with a digit.
func TestValidEnvName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"KUBELET_EXTRA_ARGS": true, "_x1": true, "": false, "1A": false, "A-B": false, "A B": false} {
		if got := ValidEnvName(name); got != want {
			t.Errorf("ValidEnvName(%q) = %v; want %v", name, got, want)
		}
	}
}
