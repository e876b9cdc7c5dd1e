package userdata

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Problem is one thing [Lint] found wrong with userData.
type Problem struct {
	Code     Code
	Severity Severity
	// Line is the 1-based line in the userData (after base64 decoding) the
	// problem is about; 0 when it is about the whole userData or about a
	// part whose lines are transfer-encoded.
	Line int
	// Part is the file name cloud-init gives the MIME part the problem is
	// in (its Content-Disposition filename, or part-NNN by position); ""
	// for single-part userData or a problem about the whole document.
	Part    string
	Message string
	// Fix is the corrected line where there is one, otherwise what to do.
	Fix string
	// AMIs narrows a problem that arises only on some AMIs of the family
	// ([CodeVariantSetting]) to those; its zero value means every AMI.
	AMIs AMIScope
	// Cause, when set, is the code of the problem of the same report this
	// one follows from, so that fixing that one fixes this one: a required
	// taint missing because bootstrap.sh drops the argument that carries
	// it ([CodeEqualsForm], [CodeIgnoredArgument]). A problem without a
	// Cause is independent of the others and needs its own fix; a caller
	// that shows one finding per root cause folds only problems with a
	// Cause into theirs.
	Cause Code
}

// AMIScope says on which AMIs of a family a [Problem] arises. A caller
// that knows the images its nodes boot (amiselect's Variant and Release)
// can tell whether it arises on any of them; Lint, which reads only the
// userData, cannot.
type AMIScope struct {
	// ExceptVariant: the problem does not arise on AMIs of this variant
	// ("nvidia": the setting exists only in the NVIDIA variants).
	ExceptVariant string
	// Before: the problem arises only on releases older than this one
	// ("1.44.0": the setting exists from that release on).
	Before string
}

// Scoped reports whether the problem arises only on some AMIs.
func (s AMIScope) Scoped() bool { return s != AMIScope{} }

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(location(p.Part, p.Line))
	fmt.Fprintf(&b, "%s %s: %s", p.Severity, p.Code, p.Message)
	if p.Fix != "" {
		fmt.Fprintf(&b, "\n    fix: %s", p.Fix)
	}
	return b.String()
}

// Report is what [Lint] learns about userData.
type Report struct {
	// Verdict says whether the node joins: certainly ([Joins]), certainly
	// not ([NeverJoins]), or the analysis cannot tell ([Unresolved]).
	Verdict Verdict
	// Reason, Line and Part explain a [NeverJoins] or [Unresolved]
	// verdict: why the node never joins, or the construct that stops the
	// analysis; the 1-based line in the userData as given (after base64
	// decoding; 0 if none); the MIME part's file name ("" for single-part
	// userData). Empty for [Joins].
	Reason string
	Line   int
	Part   string
	// Taints are the taints the kubelet registers, each with its source,
	// sorted by key, then effect, then value. Only meaningful when Verdict
	// is [Joins]; nil otherwise. An empty list means the node registers
	// untainted.
	Taints []RegisteredTaint
	// Labels are the labels the kubelet will register, when known.
	Labels map[string]string
	// Kubelet is the configuration the kubelet gets, for the fields of
	// [KubeletConfig]: what the userData sets (Render's [Config.Kubelet]
	// and user parts that override it), merged with what the boot agent
	// writes itself as the boot agent and the kubelet merge them: AL2's
	// bootstrap.sh and AL2023's nodeadm write evictionHard and
	// kubeReserved.ephemeral-storage (a kubelet flag replaces such a map
	// on AL2; a NodeConfig's entries are merged into it on AL2023),
	// nodeadm the clusterDNS it derives from the service CIDR,
	// Bottlerocket kubeReserved.ephemeral-storage. Values the boot agent
	// computes at boot from the instance (maxPods, kubeReserved cpu and
	// memory) are left out; the kubelet's own defaults apply to what is
	// left unset. KubeletSources says where each field, or each group of
	// a map's entries, comes from, sorted by field; a source whose From
	// ends in "computed at boot" names a value left out. Only meaningful
	// when Verdict is [Joins].
	Kubelet        KubeletConfig
	KubeletSources []KubeletSource
	// MaxPodsExpression is AL2023's spec.kubelet.maxPodsExpression, the
	// last a NodeConfig sets (nodeadm merges them so), and
	// MaxPodsExpressionLine its 1-based line: CEL nodeadm evaluates at boot
	// for maxPods and the kubeReserved memory it computes from it, unless
	// spec.kubelet.config.maxPods is set. capacity.Launch.MaxPodsExpression
	// evaluates it as nodeadm does. Empty when none; only meaningful when
	// Verdict is [Joins].
	MaxPodsExpression     string
	MaxPodsExpressionLine int
	// Problems are in the order they were found: per boot step, then the
	// required-taint check.
	Problems []Problem
}

// HasErrors reports whether any problem has [SeverityError].
func (r Report) HasErrors() bool {
	for _, p := range r.Problems {
		if p.Severity == SeverityError {
			return true
		}
	}
	return false
}

// String formats the report for people: the taints, the labels, then each
// problem with its line and fix.
func (r Report) String() string {
	var b strings.Builder
	b.WriteString("verdict: " + r.Verdict.String())
	if r.Verdict != Joins {
		b.WriteString(" (" + r.where() + r.Reason + ")")
	}
	b.WriteString("\ntaints: ")
	if len(r.Taints) == 0 {
		b.WriteString("none")
	} else {
		for i, t := range r.Taints {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t.String())
			if t.Source == SourceKubelet {
				b.WriteString(" (added by the kubelet)")
			}
		}
	}
	if len(r.Labels) > 0 {
		b.WriteString("\nlabels: " + strings.ReplaceAll(formatLabels(r.Labels), ",", ", "))
	}
	if len(r.Problems) == 0 {
		b.WriteString("\nproblems: none")
	}
	for _, p := range r.Problems {
		b.WriteString("\n" + p.String())
	}
	return b.String()
}

// LintError is the error [Render] returns for custom userData it refuses
// on [Lint]'s report: [Custom] userData with error-severity problems, or
// AL2 and AL2023 custom parts that call the join, start the kubelet,
// change what the kubelet registers, or that Lint cannot follow (without
// [Config.AllowUnresolved]). Use [errors.As] to get the report.
type LintError struct {
	Report Report
	msg    string // the refusal, when it is more than the report's errors
}

func (e *LintError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	var msgs []string
	for _, p := range e.Report.Problems {
		if p.Severity == SeverityError {
			msgs = append(msgs, p.String())
		}
	}
	return "userdata: custom user data fails lint:\n" + strings.Join(msgs, "\n")
}

func (r Report) where() string { return location(r.Part, r.Line) }

// location formats a part and line as a message prefix.
func location(part string, line int) string {
	switch {
	case part != "" && line > 0:
		return fmt.Sprintf("part %s, line %d: ", part, line)
	case part != "":
		return "part " + part + ": "
	case line > 0:
		return fmt.Sprintf("line %d: ", line)
	}
	return ""
}

// UserKubelet returns the part of [Report.Kubelet] the userData sets:
// the fields and map entries whose source is in the userData (Render's
// [Config.Kubelet], a kubelet flag, a NodeConfig, a setting), without
// what the boot agent writes itself (bootstrap.sh's kubelet-config.json,
// nodeadm's config.json, Bottlerocket's kubelet config template). It is
// the userData's kubelet settings as [Config.Kubelet] holds them, e.g. for
// a capacity estimate that applies the AMI family's own defaults itself.
func (r Report) UserKubelet() KubeletConfig { return userPart(r.Kubelet, r.KubeletSources) }

// amiOption is the image [AMI] names.
type amiOption struct{ variant, release string }

// String describes the AMI as problems name it: "variant standard,
// release v1.40.0".
func (o amiOption) String() string {
	var parts []string
	if o.variant != "" {
		parts = append(parts, "variant "+o.variant)
	}
	if o.release != "" {
		parts = append(parts, "release "+o.release)
	}
	return strings.Join(parts, ", ")
}

func (o amiOption) check() error {
	switch o.variant {
	case "", "unspecified", "standard", "nvidia", "neuron":
		return nil
	}
	return fmt.Errorf("userdata: AMI variant %q is not one amiselect names; use standard, nvidia, neuron, or \"\" when it is not known", o.variant)
}

// arises reports whether a problem scoped to s arises on the AMI, and
// whether the AMI's variant and release settle that.
func (o amiOption) arises(s AMIScope) (arises, known bool) {
	if s.ExceptVariant != "" {
		if o.variant == "" || o.variant == "unspecified" {
			return false, false
		}
		if o.variant == s.ExceptVariant {
			return false, true
		}
	}
	if s.Before != "" {
		older, ok := releaseBefore(o.release, s.Before)
		if !ok {
			return false, false
		}
		return older, true
	}
	return true, true
}

// releaseBefore compares two Bottlerocket releases, "v1.46.0" or
// "1.46.0": whether a is older than b, and whether both are releases.
func releaseBefore(a, b string) (before, ok bool) {
	pa, okA := releaseNumbers(a)
	pb, okB := releaseNumbers(b)
	if !okA || !okB {
		return false, false
	}
	return slices.Compare(pa, pb) < 0, true
}

func releaseNumbers(s string) ([]int, bool) {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) != 3 {
		return nil, false
	}
	out := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || p[0] == '+' {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}
