// Package userdata writes the EC2 userData that makes a node join an EKS
// cluster with exactly the taints and labels it should have, for every AMI
// family, and lints userData written by people to report the taints the
// kubelet will actually register.
//
// It exists because the path from a taint to the kubelet is long and
// unforgiving. On Amazon Linux 2, /etc/eks/bootstrap.sh matches its options
// exactly, so --kubelet-extra-args='--register-with-taints=…' (with '=')
// is silently dropped as an extra positional argument, the node registers
// untainted, and a Karpenter controller that requires its startup taint
// terminates it 15 minutes later. [Render] cannot produce that mistake and
// [Lint] finds it, with the line and the corrected line.
//
// # Taints and labels
//
// A [Taint] is written as the kubelet's --register-with-taints reads it:
//
//	taints = taint *( "," taint )
//	taint  = key [ "=" value ] ":" effect
//	key    = [ dns-subdomain "/" ] name     ; name: 1-63 of [A-Za-z0-9-_.], alphanumeric at both ends
//	value  = "" | name                      ; a label value: no '/'
//	effect = "NoSchedule" | "PreferNoSchedule" | "NoExecute"
//
// [ParseTaint] and [ParseTaints] apply the kubelet's own rules (one ':',
// at most one '=', an effect is required, no "key:Effect-" removal, unique
// by key and effect); [FormatTaints] writes that form. Taints are the same
// taint when key and effect match ([Taint.Matches]); values are ignored,
// as Karpenter ignores them when it looks for its required taint.
// [ValidateLabels] applies the kubelet's label rules, including its refusal
// of kubernetes.io and k8s.io namespaces other than its own (and so of
// node-restriction.kubernetes.io).
//
// # What Render writes
//
// Every family gets the same effective taints: [Config.Taints], then
// [Config.StartupTaints], then each of [Config.RequiredTaints] (default
// [UnregisteredTaint]) that no earlier taint matches. Output is
// deterministic (maps are written in key order) and at most [MaxSize]
// bytes; it is raw, to be base64-encoded by the caller.
//
//   - [AL2]: a MIME multipart/mixed document (LF line endings, a boundary
//     derived from a hash of the parts and checked to occur in none of
//     them). The custom user data comes first: a MIME document's parts are
//     copied as written, a "#!" script becomes a text/x-shellscript part,
//     #cloud-config and #cloud-boothook their own types. Render's part is
//     last: a bash script calling /etc/eks/bootstrap.sh with every option
//     and value as separate, single-quoted words, and one
//     --kubelet-extra-args holding --node-labels, exactly one
//     --register-with-taints and --max-pods (with --use-max-pods false).
//     Custom scripts must start with "#!" and must not call bootstrap.sh.
//   - [AL2023]: the same MIME layout with a node.eks.aws/v1alpha1
//     NodeConfig part last (YAML from sigs.k8s.io/yaml): taints in
//     spec.kubelet.config.registerWithTaints, labels as the only kubelet
//     flag. nodeadm merges parts in order and later lists replace earlier
//     ones, so Render's taints replace any a custom NodeConfig sets; a
//     custom --register-with-taints flag, which would override them, is an
//     error.
//   - [Bottlerocket]: TOML settings (go-toml/v2). The custom TOML is
//     decoded and kept; the cluster fields are set,
//     settings.kubernetes.node-labels merged with Render's labels winning,
//     and settings.kubernetes.node-taints replaced ('key' = ['value:Effect']).
//   - [Windows]: a <powershell> block: the custom PowerShell first, which
//     must be lexically complete, must not exit and must not call the
//     bootstrap script, then a Start-EKSBootstrap.ps1 call whose arguments
//     are verbatim strings with every quote character doubled (including
//     U+2018 to U+201B).
//   - [Custom]: the custom user data, unchanged, after [Lint] confirms that
//     the kubelet will register every effective taint; otherwise Render
//     returns a [*LintError] carrying the [Report].
//
// Render validates every field and refuses what it cannot represent
// safely; it never escapes creatively. Strings reach each format through
// one quoting function per language (bash, PowerShell) or a library
// encoder (YAML, TOML).
//
// # What Lint checks
//
// [Lint] accepts raw or base64 userData, gzip'd or not, and follows the
// boot agents:
//
//   - cloud-init: MIME parts (nested too), the part types it runs and the
//     order of its stages; a script without "#!" (or with CRLF endings)
//     does not run.
//   - bash, parsed by mvdan.cc/sh/v3/syntax: statements in order, simple
//     variable assignments and exports resolved where they are static
//     (quoting and word splitting as bash does them; assignments inside
//     conditionals and loops make a variable unknown), wrappers such as
//     sudo (which drops the environment without -E), env and exec. An
//     argument only known at boot makes the result [CodeUnresolved].
//   - bootstrap.sh: its exact option list, each option taking the next word;
//     "--option=value" becomes a positional argument and is dropped (or, if
//     first, becomes the cluster name); KUBELET_EXTRA_ARGS from the
//     environment when no --kubelet-extra-args is given. The first call
//     that runs starts the kubelet and registers the node, so a later call
//     that can run too is [CodeMultipleBootstrap]; calls in different arms
//     of one if or case are alternatives, and must agree on the taints.
//   - systemd: the drop-in Environment='KUBELET_EXTRA_ARGS=…' (C escapes,
//     quotes, '%' specifiers) and the splitting of $KUBELET_EXTRA_ARGS in
//     ExecStart (whitespace, quotes honoured and removed).
//   - the kubelet: pflag parsing (--flag=value and --flag value), the last
//     --register-with-taints wins, "key:Effect-" entries are dropped,
//     invalid or duplicate taints and forbidden labels make it exit, and a
//     flag overrides registerWithTaints in its config.
//   - nodeadm: NodeConfig parts merged in order (flags appended, config maps
//     deep-merged, lists replaced) and flags passed through its environment
//     file.
//   - Bottlerocket: settings.kubernetes.node-taints and node-labels.
//   - EC2Launch and PowerShell: the <powershell> block, variables, verbatim
//     and expandable strings, parameters by (abbreviated) name or position.
//     How Start-EKSBootstrap.ps1 hands -KubeletExtraArgs to kubelet.exe is
//     not published; Lint assumes what public copies do (the Windows
//     command-line rules).
//
// Each [Problem] has a stable [Code], a [Severity], the line in the decoded
// userData, a message and a fix (the corrected line where there is one).
//
// # Concurrency, zero values and errors
//
// Every function is pure and safe for concurrent use; nothing is cached
// and no goroutine is started. The zero [Config] is not renderable (it
// lacks the cluster fields); every other field's zero value means "not
// set"; an empty [Config.RequiredTaints] means [UnregisteredTaint], and
// [Config.NoRequiredTaints] is the explicit "none". The zero
// [compat.AMIFamily] is invalid. Errors
// start with "userdata: ", name the field or input, and say how to fix it.
// Nothing panics on bad input.
package userdata
