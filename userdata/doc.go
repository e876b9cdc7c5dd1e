// Package userdata writes the EC2 userData that makes a node join an EKS
// cluster with exactly the taints and labels it should have, for every AMI
// family, and lints userData written by people to say whether the node
// joins and with which taints, following the boot software as it runs.
//
// Why it exists: on AL2, bootstrap.sh matches its options exactly, so
// --kubelet-extra-args='--register-with-taints=…' is silently dropped, the
// node registers untainted: Karpenter v1.0–v1.2 never register it and
// terminate it 15 minutes later; later releases register it and log the
// race the taint was there to prevent. [Render] cannot write that
// mistake and [Lint] finds it, with the line and the corrected line.
//
// # Index
//
//   - Taints and labels: [Taint], [Effect], [ParseTaint], [ParseTaints],
//     [FormatTaints], [UnregisteredTaint], [CloudProviderTaint],
//     [ValidateLabels]; the kubelet's own syntax and rules.
//   - Writing: [Render] with a [Config]; each family's format is on
//     [Render]. Output is deterministic, at most [MaxSize] bytes, raw (the
//     caller base64-encodes it).
//   - Reading: [Lint] returns a [Report]: a [Verdict] ([Joins],
//     [NeverJoins], [Unresolved]) with the reason, line and MIME part; the
//     [RegisteredTaint]s with their [TaintSource]; and every [Problem] with
//     its [Code], [Severity] and fix. What it follows is on [Lint].
//   - Errors: [*LintError] (Custom userData that fails lint).
//
// The parsers live in internal packages, each tested and fuzzed on its own:
// internal/shell (bash, through mvdan.cc/sh/v3), internal/powershell,
// internal/systemd, internal/mimedoc and internal/cloudinit (part types,
// names, order, cloud-config).
//
// # Fail closed
//
// Where the analysis cannot follow the boot (a command substitution, eval,
// another interpreter, behaviour that differs between versions of
// cloud-init, systemd, bootstrap.sh or the kubelet), the verdict is
// [Unresolved]: never a guessed taint list. [Render] accepts custom
// userData only when Lint is certain it neither starts the kubelet nor
// calls the join.
//
// # Concurrency, zero values and errors
//
// Every function is pure and safe for concurrent use; nothing is cached
// and no goroutine is started. The zero [Config] is not renderable (it
// lacks the cluster fields); every other field's zero value means "not
// set"; an empty [Config.RequiredTaints] means [UnregisteredTaint], and
// [Config.NoRequiredTaints] is the explicit "none". The zero [Verdict] is
// [Unresolved]. Errors start with "userdata: ", name the field or input,
// and say how to fix it. Nothing panics on bad input.
package userdata
