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
}

// TestRenderCustomEmpty: a Custom family without userData renders empty,
// as Karpenter's bootstrap.Custom does (base64 of "",
// pkg/providers/amifamily/bootstrap/custom.go @v1.14.1), without
// AllowUnresolved, and the report says the AMI must join by itself; Lint
// says Unresolved with the same reason. Whitespace is no userData either.
func TestRenderCustomEmpty(t *testing.T) {
	t.Parallel()
	for _, custom := range [][]byte{nil, {}, []byte(" \n\t\n")} {
		cfg := goldenConfig(compat.Custom)
		cfg.CustomUserData = custom
		out, rep, err := RenderWithReport(compat.Custom, cfg)
		if err != nil || out == nil || len(out) != 0 {
			t.Fatalf("RenderWithReport(Custom, %q) = %q, %v; want empty userData", custom, out, err)
		}
		if rep.Verdict != Unresolved || !strings.Contains(rep.Reason, "the AMI must join the cluster by itself") {
			t.Errorf("report = %v %q; want Unresolved saying the AMI must join by itself", rep.Verdict, rep.Reason)
		}
		lint, err := Lint(compat.Custom, custom, nil)
		if err != nil || lint.Verdict != Unresolved || lint.Reason != rep.Reason {
			t.Errorf("Lint(Custom, %q) = %v %q, %v; want Render's report", custom, lint.Verdict, lint.Reason, err)
		}
	}
	// Other families still lint empty userData as what it is: no join.
	if r, err := Lint(compat.AL2, nil, nil); err != nil || r.Verdict == Unresolved {
		t.Errorf("Lint(AL2, empty) = %v, %v; want a certain verdict", r.Verdict, err)
	}
}
