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

// TestKubeletBase: nodeadm's own kubelet config
// (nodeadm/internal/kubelet/config.go@81fec2e8 L80-137, L139-148,
// L236-254, L274-288) and its cluster DNS IP (api/net.go L10-25).
func TestKubeletBase(t *testing.T) {
	t.Parallel()
	config, computed, err := KubeletBase("10.100.0.0/16", 34)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"clusterDNS":   []any{"10.100.0.10"},
		"evictionHard": map[string]any{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"},
		"featureGates": map[string]any{"RotateKubeletServerCertificate": true, "DynamicResourceAllocation": true, "MutableCSINodeAllocatableCount": true},
		"kubeReserved": map[string]any{"ephemeral-storage": "1Gi"},
	}
	if diff := cmp.Diff(want, config); diff != "" {
		t.Errorf("KubeletBase (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"maxPods", "kubeReserved.cpu", "kubeReserved.memory"}, computed); diff != "" {
		t.Errorf("computed (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		cidr, dns string
		minor     int
		gates     int
	}{
		{"172.20.0.0/16", "172.20.0.10", 32, 1},
		{"fd00:10:100::/108", "fd00:10:100::a", 33, 2},
		{"10.100.0.0/16", "10.100.0.10", 0, 1}, // the release unknown: no toggles
	} {
		config, _, err := KubeletBase(tt.cidr, tt.minor)
		if err != nil {
			t.Fatalf("%s: %v", tt.cidr, err)
		}
		if got := config["clusterDNS"].([]any)[0]; got != tt.dns || len(config["featureGates"].(map[string]any)) != tt.gates {
			t.Errorf("KubeletBase(%q, %d): clusterDNS %v, gates %v; want %s and %d gates", tt.cidr, tt.minor, got, config["featureGates"], tt.dns, tt.gates)
		}
	}
	for _, bad := range []string{"10.100.0.0", "", "::ffff:a64:0/112"} {
		if _, _, err := KubeletBase(bad, 0); err == nil {
			t.Errorf("KubeletBase(%q) accepted a CIDR nodeadm cannot use", bad)
		}
	}
}
