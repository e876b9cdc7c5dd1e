// Package bottlerocket models Bottlerocket's settings as its aws-k8s
// variants define them: the settings that exist ([UnknownSetting] names
// one that does not, which the settings API refuses), the bootstrap
// commands and containers that run before the kubelet ([BootSteps]), the
// node-taints entry syntax ([TaintEntry], [ParseTaintEntry]) and the
// bootstrap command Karpenter writes for instance-store RAID0
// ([RAID0Command]). userdata's Render writes settings and Lint reads them
// through this one model, so they cannot disagree.
//
// Settings are TOML decoded by go-toml/v2 into maps. Every function is
// pure and safe for concurrent use.
package bottlerocket
