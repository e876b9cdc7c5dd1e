package userdata_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// TestBootPathRenderRefusesKubeletTaintDuplicate: a configured taint with the
// key and effect of the kubelet's own cloud-provider taint makes the API
// server refuse the Node (pkg/apis/core/validation/validation.go@v1.32.0
// L6249-6252), whatever its value.
func TestBootPathRenderRefusesKubeletTaintDuplicate(t *testing.T) {
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023} {
		for _, v := range []string{"true", "false", ""} {
			t.Run(fmt.Sprintf("%s/value=%q", f, v), func(t *testing.T) {
				cfg := renderConfig("")
				cfg.StartupTaints = append(cfg.StartupTaints, userdata.Taint{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: v, Effect: userdata.NoSchedule})
				out, err := userdata.Render(f, cfg)
				if err == nil {
					t.Fatalf("Render accepted the kubelet's own taint; output:\n%s", decoded(out))
				}
				if !strings.Contains(err.Error(), "node.cloudprovider.kubernetes.io/uninitialized") {
					t.Errorf("error %q does not name the taint", err)
				}
			})
		}
		t.Run(string(f)+"/other effect is accepted", func(t *testing.T) {
			cfg := renderConfig("")
			cfg.StartupTaints = append(cfg.StartupTaints, userdata.Taint{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: userdata.NoExecute})
			if _, err := userdata.Render(f, cfg); err != nil {
				t.Fatalf("Render: %v", err)
			}
		})
	}
}
