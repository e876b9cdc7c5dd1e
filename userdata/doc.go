// Package userdata writes the EC2 userData that makes a node join an EKS
// cluster with exactly the taints and labels it should have, for every AMI
// family, and lints userData written by people to say whether the node
// joins and with which taints, following the boot software as it runs.
// AL2's bootstrap.sh silently drops --kubelet-extra-args='…' (the = form),
// and the node registers untainted, which Karpenter v1.0–v1.2 terminate:
// [Render] cannot write that mistake and [Lint] finds it, with the line and
// the corrected line.
//
// # Index
//
//   - Taints and labels: [Taint], [ParseTaint], [ParseTaints],
//     [FormatTaints], [UnregisteredTaint], [CloudProviderTaint],
//     [ValidateLabels]; the kubelet's own syntax and rules.
//   - Writing: [Render] with a [Config] ([KubeletConfig],
//     [InstanceStorePolicy]); each family's format is on Render; raw
//     output of at most [MaxSize] bytes.
//   - Reading: [Lint] returns a [Report]: a [Verdict] ([Joins],
//     [NeverJoins], [Unresolved]), each [RegisteredTaint], the effective
//     kubelet ([KubeletSource]; [Report.UserKubelet] the part the
//     userData sets) and every [Problem] with its [Code]. What
//     it follows is on Lint. A [LintOption] tells it more about the
//     node: [KubernetesVersion] the kubelet release whose flags and
//     feature gates apply, [AMI] the image that decides problems scoped
//     to some AMIs ([AMIScope]).
//   - Moving: [Migrate] moves AL2 userData to AL2023 or Bottlerocket
//     ([MigrateOptions]), proven by Lint on both sides; its [Migration]
//     lists each [Move] and each [Unmoved] construct, dropped or refused.
//   - Errors: [*LintError] (Custom userData that fails lint),
//     [*MigrateError] (a migration refused).
//
// # Where things live
//
// Each family has a file per side: render_al2.go and lint_al2.go (with
// lint_al2_bootstrap.go, bootstrap.sh's arguments), render_al2023.go and
// lint_al2023.go, render_bottlerocket.go and lint_bottlerocket.go,
// render_windows_powershell.go and lint_windows_powershell.go,
// render_custom.go; migrate_al2.go reads AL2 userData for a target and
// migrate_targets.go writes it. render.go and lint.go dispatch; render_plan.go
// validates a Config; render_cloudinit.go and lint_cloudinit.go are
// cloud-init's custom parts and scripts; lint_kubelet.go follows argv to
// the kubelet; linter.go builds the Report.
//
// The models of other software, read by both sides: the kubelet in
// kubelet.go (KubeletConfig, its validation, its field table) and
// internal/kubelet (flags, feature gates and eviction signals per
// release, argv, value syntaxes); nodeadm's
// NodeConfig in internal/nodeadm; Bottlerocket's settings in
// internal/bottlerocket. The parsers are internal/shell, internal/powershell,
// internal/systemd, internal/mimedoc (Render's MIME), internal/pyemail
// (Python's email parser, which cloud-init reads MIME with; nodeadm reads
// it with Go's, in internal/nodeadm) and internal/cloudinit, each tested
// and fuzzed on its own. References run one way (TestLayout).
//
// # Fail closed
//
// Where the analysis cannot follow the boot (a command substitution, eval,
// another interpreter, behaviour that differs between versions of the boot
// software), the verdict is [Unresolved]: never a guessed taint list.
// [Render] accepts custom userData only when Lint is certain it neither
// starts the kubelet nor calls the join.
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
