package userdata

import (
	"bytes"
	"slices"

	"github.com/ec2select/ec2select/compat"
)

// renderCustom passes the custom userData through when [Lint], requiring
// every effective taint, is certain the node joins with them and finds no
// error, or, with Config.AllowUnresolved, cannot tell but is not certain
// that a required taint is missing. Empty userData is passed through as
// it is, with Lint's [Unresolved] report saying that the AMI must join by
// itself: a custom AMI that bootstraps itself needs none, and Karpenter
// writes none (bootstrap.Custom, pkg/providers/amifamily/bootstrap/custom.go
// @v1.14.1, base64 of the empty string). The report is returned either way.
func renderCustom(cfg Config) ([]byte, *Report, error) {
	taints, err := effectiveTaints(cfg.Taints, cfg.StartupTaints, cfg.Required())
	if err != nil {
		return nil, nil, err
	}
	report, err := Lint(compat.Custom, cfg.CustomUserData, append([]Taint{}, taints...), cfg.lintOptions()...)
	if err != nil {
		return nil, nil, err
	}
	if len(bytes.TrimSpace(cfg.CustomUserData)) == 0 {
		return []byte{}, &report, nil
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
