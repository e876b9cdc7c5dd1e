package userdata

import (
	"strings"
	"testing"
)

func TestValidateLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key, value string
		wantErr    string
	}{
		{key: "team", value: "a"},
		{key: "example.com/team", value: ""},
		{key: "node.kubernetes.io/lifecycle", value: "spot"},
		{key: "kubelet.kubernetes.io/x", value: "y"},
		{key: "foo.node.kubernetes.io/x", value: "y"},
		{key: "kubernetes.io/arch", value: "arm64"},
		{key: "topology.kubernetes.io/zone", value: "us-west-2a"},
		{key: "beta.kubernetes.io/instance-type", value: "m5.large"},
		{key: "karpenter.sh/capacity-type", value: "spot"},
		{key: "node-restriction.kubernetes.io/team", value: "a", wantErr: "reserved for administrators"},
		{key: "kubernetes.io/role", value: "worker", wantErr: "refuses to start"},
		{key: "node-role.kubernetes.io/worker", value: "", wantErr: "refuses to start"},
		{key: "k8s.io/x", value: "y", wantErr: "refuses to start"},
		{key: "sub.k8s.io/x", value: "y", wantErr: "refuses to start"},
		{key: "team", value: "a/b", wantErr: "value"},
		{key: "Team.com/x", value: "a", wantErr: "key"},
		{key: "a b", value: "c", wantErr: "key"},
	}
	for _, tt := range tests {
		err := ValidateLabels(map[string]string{tt.key: tt.value})
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("ValidateLabels(%q=%q) error: %v", tt.key, tt.value, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("ValidateLabels(%q=%q) error = %v; want one naming the key and containing %q", tt.key, tt.value, err, tt.wantErr)
		}
	}
}

func TestValidateLabelsReportsAllInKeyOrder(t *testing.T) {
	t.Parallel()
	err := ValidateLabels(map[string]string{"z/": "", "k8s.io/a": "b", "ok": "fine"})
	if err == nil {
		t.Fatal("ValidateLabels accepted two bad labels")
	}
	msg := err.Error()
	if i, j := strings.Index(msg, `"k8s.io/a"`), strings.Index(msg, `"z/"`); i < 0 || j < 0 || i > j {
		t.Errorf("ValidateLabels error %q should report k8s.io/a before z/", msg)
	}
}
