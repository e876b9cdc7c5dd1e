package userdata

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
)

func TestRenderCustomFamily(t *testing.T) {
	t.Parallel()
	cfg := goldenConfig(compat.Custom)
	out, err := Render(compat.Custom, cfg)
	if err != nil || !bytes.Equal(out, cfg.CustomUserData) {
		t.Fatalf("Render(Custom) = %q, %v; want the custom data unchanged", out, err)
	}
	cfg.Taints = append(cfg.Taints, Taint{Key: "example.com/missing", Effect: NoSchedule})
	_, err = Render(compat.Custom, cfg)
	var le *LintError
	if !errors.As(err, &le) {
		t.Fatalf("Render(Custom) with a missing taint: error %v; want a *LintError", err)
	}
	if diff := cmp.Diff([]Code{CodeRequiredTaintMissing}, codes(le.Report)); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	cfg.CustomUserData = []byte(userScript)
	cfg.Taints, cfg.StartupTaints = nil, nil
	cfg.RequiredTaints = uninitialized
	if _, err := Render(compat.Custom, cfg); !errors.As(err, &le) || !strings.Contains(err.Error(), "equals-form-ignored") {
		t.Errorf("Render(Custom) of the issue's script: %v; want a lint error naming equals-form-ignored", err)
	}
	if _, err := Render(compat.Custom, Config{}); err == nil {
		t.Error("Render(Custom) accepted empty user data")
	}
}
