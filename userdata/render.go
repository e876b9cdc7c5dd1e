package userdata

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ec2select/ec2select/compat"
)

// Render writes the userData (raw, not base64) that makes a node of the
// given family join the cluster with cfg's taints and labels. It validates
// every field first and returns an error naming the field and the fix;
// nothing is escaped creatively: input that cannot be represented safely
// is an error. The effective taints are cfg.Taints, then
// cfg.StartupTaints, then each required taint that no earlier taint
// matches by key and effect; a taint with the key and effect of
// [CloudProviderTaint] is refused on the families whose kubelet adds it.
// The output is deterministic and at most [MaxSize] bytes.
//
//   - [compat.AL2]: a MIME multipart/mixed document (LF line endings, a
//     boundary derived from a hash of the parts and checked to occur in
//     none of them): the custom parts first (a MIME document's parts as
//     written; a script, #cloud-config or other cloud-init text as one
//     part), then a bash script calling /etc/eks/bootstrap.sh with every
//     option and value as separate single-quoted words and one
//     --kubelet-extra-args holding --node-labels, exactly one
//     --register-with-taints and --max-pods (with --use-max-pods false).
//   - [compat.AL2023]: the same layout with a node.eks.aws/v1alpha1
//     NodeConfig last (sigs.k8s.io/yaml): taints in
//     spec.kubelet.config.registerWithTaints, written even when empty so
//     that it replaces a custom NodeConfig's list as nodeadm merges them;
//     labels as the only kubelet flag. A custom --register-with-taints flag,
//     which would override the config, is an error.
//   - [compat.Bottlerocket]: TOML settings (go-toml/v2): the custom TOML
//     kept, the cluster fields set, node-labels merged (Render's win),
//     node-taints replaced. Custom settings are read against Bottlerocket's
//     settings model of the aws-k8s variants: a key it does not have, a
//     name or shape it refuses, a key newer than Config.AMIRelease and a
//     bootstrap command that is not an apiclient command are errors,
//     because the settings API refuses them; so are bootstrap containers
//     and bootstrap commands that can change what the kubelet registers
//     (apiclient set of settings.kubernetes, apply, exec, raw writes,
//     reboot, update). Other bootstrap commands are kept beside Render's
//     RAID0 command.
//   - Windows: a <powershell> block: the custom PowerShell first (complete,
//     no exit, no bootstrap call, no trailing line continuation), then a
//     Start-EKSBootstrap.ps1 call whose arguments are verbatim strings with
//     every quote character doubled (including U+2018 to U+201B).
//   - [compat.Custom]: cfg.CustomUserData unchanged, after [Lint] confirms
//     that the kubelet registers every effective taint (or, with
//     [Config.AllowUnresolved], cannot tell); otherwise a [*LintError]
//     with the report. The other fields are not used. Empty
//     CustomUserData renders empty (an AMI that joins by itself, as
//     Karpenter allows), and [RenderWithReport]'s [Unresolved] report
//     says so.
//
// Custom parts for AL2 and AL2023 are accepted when [Lint] proves them
// harmless: they neither call the join nor start the kubelet (on AL2023 a
// bare "nodeadm init", which reads the same NodeConfig as nodeadm's own
// units, is the join run early: [CodeRepeatedJoin]) (a script,
// runcmd, a boothook or bootcmd writing a sysctl file, sh -c with a
// static script), and what they do to the files the join reads (sed on
// bootstrap.sh, jq on the kubelet's config, a drop-in) leaves the kubelet
// registering exactly the effective taints: Render lints the userData it
// writes and refuses it otherwise. A part that takes the file name of
// Render's own is refused too. A refusal is a [*LintError] naming the
// part, the line, the construct and what would make it acceptable.
//
// Custom userData (Custom, AL2, AL2023) that [Lint] cannot follow is
// refused unless [Config.AllowUnresolved] is set; [RenderWithReport] then
// returns the report that says why. UserData Lint is certain breaks is
// always refused.
func Render(family compat.AMIFamily, cfg Config) ([]byte, error) {
	out, _, err := render(family, cfg)
	return out, err
}

// RenderWithReport renders like [Render] and returns [Lint]'s report on
// the userData it writes, with every effective taint required: for custom
// userData accepted under [Config.AllowUnresolved], its Verdict is
// [Unresolved] and Reason, Line and Part say what Lint could not follow,
// for the caller to log or surface. When Render refuses custom userData,
// the report it refused on is returned with the [*LintError]; for other
// errors the report is zero.
func RenderWithReport(family compat.AMIFamily, cfg Config) ([]byte, Report, error) {
	out, rep, err := render(family, cfg)
	if err != nil {
		var le *LintError
		if errors.As(err, &le) {
			return nil, le.Report, err
		}
		return nil, Report{}, err
	}
	if rep != nil {
		return out, *rep, nil
	}
	taints, err := effectiveTaints(cfg.Taints, cfg.StartupTaints, cfg.Required())
	if err != nil {
		return nil, Report{}, err
	}
	r, err := Lint(family, out, taints, cfg.lintOptions()...)
	return out, r, err
}

// render writes the userData, and returns the report it was checked with
// when it linted it (custom userData); nil otherwise.
func render(family compat.AMIFamily, cfg Config) ([]byte, *Report, error) {
	if !family.Valid() {
		return nil, nil, fmt.Errorf("userdata: cannot render for %v; use AL2, AL2023, Bottlerocket, Windows2019, Windows2022, Windows2025 or Custom", family)
	}
	if family == compat.Custom {
		return renderCustom(cfg)
	}
	p, err := newPlan(family, cfg)
	if err != nil {
		return nil, nil, err
	}
	var out []byte
	var merged *Report
	switch family {
	case compat.AL2:
		out, err = p.renderAL2()
	case compat.AL2023:
		out, err = p.renderAL2023()
	case compat.Bottlerocket:
		out, err = p.renderBottlerocket()
		if err == nil && p.mergesCustom(family) {
			// Bottlerocket merges the custom settings with Render's.
			merged, err = p.checkMergedKubelet(family, out)
		}
	case compat.Windows2019, compat.Windows2022, compat.Windows2025:
		out, err = p.renderWindows()
	}
	if err != nil {
		return nil, nil, err
	}
	if len(out) > MaxSize {
		return nil, nil, fmt.Errorf("userdata: the %v userData is %d bytes; EC2 accepts at most %d bytes before base64, so shorten Config.CustomUserData (or the labels and taints)", family, len(out), MaxSize)
	}
	if (family == compat.AL2 || family == compat.AL2023) && len(bytes.TrimSpace(p.custom)) > 0 {
		rep, err := p.checkRendered(family, out)
		if err != nil {
			return nil, nil, err
		}
		return out, &rep, nil
	}
	return out, merged, nil
}
