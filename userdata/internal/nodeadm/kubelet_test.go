package nodeadm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKubeletArgs: nodeadm joins the flags with spaces into
// NODEADM_KUBELET_ARGS of the kubelet's environment file
// (nodeadm/internal/kubelet/environment.go@81fec2e8 L22-29), which
// systemd reads as an EnvironmentFile and splits in ExecStart.
func TestKubeletArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		flags       []string
		want        []string
		hazard, cut bool
	}{
		{[]string{"--node-labels=a=b", "--max-pods=110"}, []string{"--node-labels=a=b", "--max-pods=110"}, false, false},
		{[]string{`--node-labels="a=b c"`}, []string{"--node-labels=a=b c"}, false, false},
		{[]string{`--x=a\b`}, []string{"--x=ab"}, true, false},
		// A leading quote makes the env file value quoted: the quotes go,
		// and ExecStart's unbraced $NODEADM_KUBELET_ARGS splits it.
		{[]string{`'--x=a b'`}, []string{"--x=a", "b"}, true, false},
		{[]string{"--x=a\n--y=b"}, nil, true, true},
		{nil, nil, false, false},
	}
	for _, tt := range tests {
		args, hazard, cut := KubeletArgs(tt.flags)
		if diff := cmp.Diff(tt.want, args); diff != "" || hazard != tt.hazard || cut != tt.cut {
			t.Errorf("KubeletArgs(%q) = hazard %v, cut %v; want %v, %v; args (-want +got):\n%s", tt.flags, hazard, cut, tt.hazard, tt.cut, diff)
		}
	}
}
