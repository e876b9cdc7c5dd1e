// Package bottlerocket models Bottlerocket's settings as its aws-k8s
// variants define them, so that userdata's Render writes settings and Lint
// reads them through one model and cannot disagree.
//
//   - Reading user data as early-boot-config does: [ReadUserData]
//     ([ErrNoSettings]), [IsSettings].
//   - The settings model (model.go: every namespace, its keys, where the
//     model denies unknown fields, the variants and releases that have a
//     key, each cited): [Check] returns a [Finding] of a [Kind] per
//     setting the model does not simply accept; [IsIdentifier], [JoinKey].
//   - Bootstrap commands and containers, which run before the kubelet:
//     [Steps] returns each [Step] with its [Effect]; [Classify] reads one
//     command as apiclient parses it, [ParseKey] a settings key as the API
//     server does.
//   - Lines of keys for messages: [ReadLines] ([Lines]).
//   - node-taints entries: [TaintEntry], [ParseTaintEntry]; Karpenter's
//     instance-store RAID0 command: [RAID0Command], [RAID0CommandName],
//     [BindsByDefault]; releases: [AtLeast].
//
// Settings are TOML decoded by go-toml/v2 into maps. Every function is
// pure and safe for concurrent use; the model is package data that nothing
// changes.
package bottlerocket
