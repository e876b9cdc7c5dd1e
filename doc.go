// Package ec2select is the root of a library of the selection algorithms an
// EC2 node provisioner needs: which AMIs may be used, which AMI each instance
// type gets, what capacity a node really has, how startup taints reach the
// kubelet, and which instance types to prefer.
//
// The root package holds no code; the work is done by its sub-packages:
//
//   - [github.com/ec2select/ec2select/compat]: the requirement algebra
//     (In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte) with Karpenter's set
//     semantics, instance-type facts and labels, and a strict, GPU- and
//     architecture-aware compatibility check that explains itself.
//   - [github.com/ec2select/ec2select/amiselect]: selector terms and aliases to
//     DescribeImages queries, available-only, newest-first selection, and
//     exactly one AMI per instance type with an explanation for every type
//     that gets none.
//   - [github.com/ec2select/ec2select/capacity]: the memory a node really
//     reports, learned per (instance type, AMI) in a bounded LRU cache.
//   - [github.com/ec2select/ec2select/userdata/nodeclass]: the EC2NodeClass
//     settings userdata renders and capacity estimates with: the kubelet
//     configuration and the instance-store policy.
//   - [github.com/ec2select/ec2select/userdata]: startup taints, labels and
//     kubelet flags rendered into each AMI family's userData without any
//     possibility of injection, and a linter for user-written userData.
//   - [github.com/ec2select/ec2select/weighting]: weighted tiers with glob
//     patterns ("c7i-flex first, anything else after"), ranked, explained and
//     expanded into disjoint Karpenter NodePools.
//   - [github.com/ec2select/ec2select/offerings]: where an instance type can
//     launch (zone, capacity type, reservation), whether it can now and why
//     not, launch errors classified, back-off per scope, and ordered launch
//     candidates.
//   - [github.com/ec2select/ec2select/ec2fake]: an in-process fake EC2 with
//     the real filter semantics, served over the EC2 Query protocol so a real
//     *ec2.Client can talk to it, and an embedded catalog of real AMIs and
//     instance types.
//
// # Data flow
//
//	ec2fake or EC2 ──DescribeImages──► amiselect.Resolve ──► []amiselect.AMI ─┐
//	ec2fake or EC2 ──DescribeInstanceTypes──► compat.LoadInstanceTypes ───────┴► amiselect.Map ──► Mapping
//	node labels + image ID ──► capacity.Cache.Observe (checked against the Mapping)
//	[]compat.InstanceType ──► weighting.Policy.Rank / NodePools
//	taints, labels, cluster ──► userdata.Render / userdata.Lint
//
// Dependencies run one way: compat ← amiselect/amimap ← amiselect, and
// amimap ← capacity; compat ← userdata/nodeclass ← userdata ← weighting,
// and userdata/nodeclass ← capacity; compat ← offerings
// (compat.AMIFamily, userdata.Taint and nodeclass.Kubelet are the one
// family type, the one taint type and the one kubelet configuration type);
// ec2fake stands alone. Estimating capacity links no package of userdata's
// linter and no SSM client: capacity reads the kubelet configuration from
// userdata/nodeclass (which imports nothing of userdata), and the AMI type and mapping rule from amimap. No package imports
// Kubernetes modules: the small value types here mirror Kubernetes field
// names, and examples/karpenter (a module of its own) is the compile-checked
// adapter to Karpenter's types.
//
// Nothing in this module starts a goroutine, keeps global mutable state, or
// panics on bad input; every exported type documents whether it is safe for
// concurrent use.
package ec2select
