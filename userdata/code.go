package userdata

import "fmt"

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
	// CodeFlagOverridesConfig: a --register-with-taints kubelet flag
	// overrides registerWithTaints of the kubelet's config (a NodeConfig's
	// kubelet.config, of every part, aws/karpenter-provider-aws#7486; AL2's
	// kubelet-config.json), so the config's taints are not registered.
	CodeFlagOverridesConfig Code = "flag-overrides-config"
	// CodeBootFileEdit: a script (or write_files) changes a file the join
	// or the kubelet reads: bootstrap.sh, the kubelet's config file, its
	// unit's drop-ins. Lint follows the common static edits (sed appending
	// to bootstrap.sh's KUBELET_EXTRA_ARGS, jq assignments to
	// kubelet-config.json, drop-ins written whole or line by line) and the
	// report's taints include their effect; any other change makes the
	// verdict [Unresolved].
	CodeBootFileEdit Code = "boot-file-edit"
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
	// CodeKubeletConfig: a kubelet configuration the kubelet refuses when
	// it starts (its config validation, an eviction threshold or a
	// reservation it cannot parse, a feature gate its release does not
	// have), so it exits.
	CodeKubeletConfig Code = "kubelet-config"
	// CodeIncompleteConfig: the boot agent's configuration lacks something
	// it needs to join the cluster (nodeadm's cluster fields, Bottlerocket's
	// cluster-name, Start-EKSBootstrap.ps1's -EKSClusterName).
	CodeIncompleteConfig Code = "incomplete-config"
	// CodeRefusedSetting: Bottlerocket settings its settings API refuses (a
	// key its model does not have, a bootstrap command that is not an
	// apiclient command, a malformed name or shape), so early-boot-config
	// fails and the node never joins.
	CodeRefusedSetting Code = "refused-setting"
	// CodeVariantSetting: a Bottlerocket setting only some variants or
	// releases have; on the others the settings API refuses it and the
	// node never joins.
	CodeVariantSetting Code = "variant-setting"
	// CodeRepeatedJoin: a script runs AL2023's "nodeadm init" with
	// nodeadm's own configuration source, so it configures and starts the
	// kubelet as nodeadm's units do, only earlier; what the node
	// registers does not change (Render accepts such custom parts).
	CodeRepeatedJoin Code = "repeated-join"
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
	case CodeIgnoredArgument, CodeTaintRemovalIgnored, CodeBootFileEdit, CodeVariantSetting, CodeRepeatedJoin:
		return SeverityWarning
	}
	return SeverityError
}
