package userdata

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/ec2select/ec2select/compat"
)

func renderCustom(cfg Config) ([]byte, error) {
	if len(bytes.TrimSpace(cfg.CustomUserData)) == 0 {
		return nil, fmt.Errorf("userdata: Config.CustomUserData is empty; the Custom family passes it through, so it must hold the whole userData")
	}
	taints, err := effectiveTaints(cfg.Taints, cfg.StartupTaints, cfg.Required())
	if err != nil {
		return nil, err
	}
	report, err := Lint(compat.Custom, cfg.CustomUserData, append([]Taint{}, taints...))
	if err != nil {
		return nil, err
	}
	if report.HasErrors() {
		return nil, &LintError{Report: report}
	}
	return slices.Clone(cfg.CustomUserData), nil
}
