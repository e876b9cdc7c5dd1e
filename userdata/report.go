package userdata

import (
	"fmt"
	"strings"
)

// Code identifies a kind of problem [Lint] finds. The values are stable:
// match on them, not on messages.
type Code string

// The problems [Lint] reports.
const (
	// CodeEqualsForm: a bootstrap.sh option written --option=value.
	// bootstrap.sh matches options exactly, so the word becomes a
	// positional argument and is silently dropped.
	CodeEqualsForm Code = "equals-form-ignored"
	// CodeIgnoredArgument: an extra positional argument to bootstrap.sh,
	// which it silently ignores (only the first is the cluster name).
	CodeIgnoredArgument Code = "ignored-argument"
	// CodeBootstrapArguments: bootstrap.sh exits before starting the
	// kubelet (no cluster name, an option without its value, --help).
	CodeBootstrapArguments Code = "bootstrap-arguments"
	// CodeRequiredTaintMissing: the kubelet starts and registers the node
	// without a required taint.
	CodeRequiredTaintMissing Code = "required-taint-missing"
	// CodeInvalidTaint: a taint the kubelet or the API server refuses, so
	// the node never registers.
	CodeInvalidTaint Code = "invalid-taint"
	// CodeDuplicateTaint: two taints with the same key and effect; the
	// kubelet refuses to start.
	CodeDuplicateTaint Code = "duplicate-taint"
	// CodeTaintRemovalIgnored: a "key:Effect-" entry, which the kubelet
	// silently drops from --register-with-taints.
	CodeTaintRemovalIgnored Code = "taint-removal-ignored"
	// CodeRepeatedTaintFlag: --register-with-taints given more than once;
	// the kubelet keeps only the last, and earlier taints are lost.
	CodeRepeatedTaintFlag Code = "repeated-taint-flag"
	// CodeFlagOverridesConfig: a --register-with-taints kubelet flag in a
	// NodeConfig overrides kubelet.config.registerWithTaints of every part
	// (aws/karpenter-provider-aws#7486).
	CodeFlagOverridesConfig Code = "flag-overrides-config"
	// CodeMultipleBootstrap: the boot script is called more than once; the
	// first call starts the kubelet, which registers the node before the
	// later call (usually the one with the taints) runs.
	CodeMultipleBootstrap Code = "multiple-bootstrap"
	// CodeForbiddenLabel: a label in a namespace the kubelet refuses, so it
	// exits.
	CodeForbiddenLabel Code = "forbidden-label"
	// CodeInvalidLabel: a label key or value that is not valid; the kubelet
	// exits.
	CodeInvalidLabel Code = "invalid-label"
	// CodeTooLarge: the userData is over EC2's 16 KB raw limit.
	CodeTooLarge Code = "too-large"
	// CodeNoBootstrap: nothing in the userData starts the boot agent.
	CodeNoBootstrap Code = "no-bootstrap"
	// CodeNotExecutable: a script cloud-init cannot execute (no "#!" line),
	// so nothing in it runs. (CRLF line endings are not a reason: cloud-init
	// converts them when the first line ends in CRLF.)
	CodeNotExecutable Code = "not-executable"
	// CodeSystemdHazard: kubelet arguments containing characters that
	// systemd rewrites or chokes on (', \, newline, %) on their way to the
	// kubelet.
	CodeSystemdHazard Code = "systemd-hazard"
	// CodeKubeletArguments: kubelet arguments the kubelet refuses (a stray
	// positional argument, a flag without its value), so it exits.
	CodeKubeletArguments Code = "kubelet-arguments"
	// CodeUnresolved: whether or how the node joins depends on something
	// the linter cannot follow (a command substitution, eval, another
	// interpreter, behaviour that differs between versions of the boot
	// software); the report's verdict is [Unresolved].
	CodeUnresolved Code = "unresolved"
	// CodeSyntax: a part that its interpreter cannot parse (shell,
	// PowerShell, TOML, YAML, MIME).
	CodeSyntax Code = "syntax"
	// CodeIncompleteConfig: the boot agent's configuration lacks something
	// it needs to join the cluster (nodeadm's cluster fields, Bottlerocket's
	// cluster-name, Start-EKSBootstrap.ps1's -EKSClusterName).
	CodeIncompleteConfig Code = "incomplete-config"
)

// Severity says whether a problem breaks the node (SeverityError) or is
// only suspicious (SeverityWarning).
type Severity int

// Severities of problems.
const (
	SeverityWarning Severity = iota + 1
	SeverityError
)

func (s Severity) String() string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// Severity returns the severity of problems with this code.
func (c Code) Severity() Severity {
	switch c {
	case CodeIgnoredArgument, CodeTaintRemovalIgnored:
		return SeverityWarning
	}
	return SeverityError
}

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
}

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
	// Kubelet is the kubelet configuration the boot agent hands the
	// kubelet from this userData: what Render writes from
	// [Config.Kubelet], as the kubelet will get it, including user parts
	// that override it. Fields the userData leaves to the AMI's defaults
	// are unset. KubeletSources says where each set field comes from,
	// sorted by field. Only meaningful when Verdict is [Joins].
	Kubelet        KubeletConfig
	KubeletSources []KubeletSource
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

// LintError is the error [Render] returns for [Custom] user data that
// [Lint] finds error-severity problems in. Use [errors.As] to get the
// report.
type LintError struct {
	Report Report
}

func (e *LintError) Error() string {
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
