package userdata

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/ec2select/ec2select/compat"
)

// renderCustom passes the custom userData through when [Lint], requiring
// every effective taint, is certain the node joins with them and finds no
// error, or, with Config.AllowUnresolved, cannot tell but is not certain
// that a required taint is missing. The report is returned either way.
func renderCustom(cfg Config) ([]byte, *Report, error) {
	if len(bytes.TrimSpace(cfg.CustomUserData)) == 0 {
		return nil, nil, fmt.Errorf("userdata: Config.CustomUserData is empty; the Custom family passes it through, so it must hold the whole userData")
	}
	taints, err := effectiveTaints(cfg.Taints, cfg.StartupTaints, cfg.Required())
	if err != nil {
		return nil, nil, err
	}
	report, err := Lint(compat.Custom, cfg.CustomUserData, append([]Taint{}, taints...), cfg.lintOptions()...)
	if err != nil {
		return nil, nil, err
	}
	accepted := report.Verdict == Joins && !report.HasErrors() ||
		report.Verdict == Unresolved && cfg.AllowUnresolved && !hasCode(report, CodeRequiredTaintMissing)
	if !accepted {
		le := &LintError{Report: report}
		if report.Verdict == Unresolved {
			le.msg = le.Error() + "\n(set Config.AllowUnresolved to accept userData Lint cannot follow)"
		}
		return nil, &report, le
	}
	return slices.Clone(cfg.CustomUserData), &report, nil
}
