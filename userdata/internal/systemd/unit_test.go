package systemd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseUnit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []Directive
		err        bool
	}{
		{"a drop-in", "[Service]\nEnvironment='KUBELET_EXTRA_ARGS=--v=2'\n# comment\n; another\n\nKillMode = process\n",
			[]Directive{{"Service", "Environment", "'KUBELET_EXTRA_ARGS=--v=2'", 2}, {"Service", "KillMode", "process", 6}}, false},
		{"a continued line", "[Service]\nExecStart=/usr/bin/kubelet \\\n  --v=2\n",
			[]Directive{{"Service", "ExecStart", "/usr/bin/kubelet    --v=2", 2}}, false},
		{"sections", "[Unit]\nAfter=a.service\n[Service]\nRestart=always\n",
			[]Directive{{"Unit", "After", "a.service", 2}, {"Service", "Restart", "always", 4}}, false},
		{"an assignment outside any section", "Environment=A=1\n", nil, true},
		{"a line without =", "[Service]\nEnvironment\n", nil, true},
		{"a broken header", "[Service\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseUnit(tt.text)
			if (err != nil) != tt.err {
				t.Fatalf("ParseUnit error = %v; want error %v", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
