// Package amiselect chooses the AMIs an EC2 node provisioner launches and
// assigns each instance type exactly one of them, explaining every image it
// refuses and every instance type it cannot place.
//
// The flow is [Queries] (selector terms to DescribeImages requests),
// [Select] (images to [AMI] values, best first), and [Map] (instance types
// to AMIs); [Resolve] runs the first two against an EC2 client, and
// [PlanDrift] says what a Selection means for the nodes running today.
//
// # Selector terms
//
// A [Term] mirrors an entry of an EC2NodeClass's amiSelectorTerms and sets
// exactly one of:
//
//	id                    ID: contains "ami-" and a lowercase letter or
//	                      digit, as Karpenter's CRD pattern ami-[0-9a-z]+
//	                      admits (unanchored); all id terms share one
//	                      request
//	name / tags [owner]   Name: an EC2 name pattern (* any run, ? zero or one);
//	                      Tags: key → value, value "*" meaning any value (a
//	                      tag-key filter); Owner: an account id, "self" or
//	                      "amazon" (name terms default to self and amazon)
//	ssmParameter          SSMParameter: an SSM parameter's name or ARN whose
//	                      value starts with "ami-"; only [Resolve] can read
//	                      it, and a missing one fails it unless
//	                      [Options].SkipMissingParameters (then
//	                      [Selection].MissingParameters)
//	alias                 Alias, which must be the only term:
//
//	alias    = family "@" version
//	family   = "al2" | "al2023" | "bottlerocket"
//	         | "windows2019" | "windows2022" | "windows2025"
//	version  = "latest"
//	         | "v" YYYYMMDD                      (al2, al2023: "v20250403")
//	         | ["v"] X "." Y "." Z ["-" commit]  (bottlerocket: "1.26.2", "v1.26.2-360b7a38")
//
// Windows aliases take only "latest". An alias needs
// [QueryOptions].KubernetesVersion ("1.32"); al2 stops at Kubernetes 1.32
// and windows2025 starts at 1.35. Every request filters on state
// "available" and includes deprecated images.
//
// # Family names
//
// By default ([AliasByName]) aliases resolve through the public names of
// the EKS AMIs, owned by "amazon", so no SSM parameter is read. With
// [AliasBySSM], [Resolve] reads the public SSM parameters Karpenter reads
// (through [Options].SSM, an [SSMClient]: GetParameter alone, or an
// [SSMBatchClient] for one GetParameters call) and describes the images
// they name; both feed the same [Select], and [CompareAliasSources] reports
// where the two disagree. For Kubernetes version K and
// release R ("v*" for latest; for Bottlerocket "vX.Y.Z-*" when no commit
// is pinned):
//
//	al2            amazon-eks-node-K-R               x86_64   standard
//	               amazon-eks-arm64-node-K-R         arm64    standard
//	               amazon-eks-gpu-node-K-R           x86_64   nvidia and neuron
//	al2023         amazon-eks-node-al2023-A-V-K-R    A = x86_64: V = standard, nvidia, neuron
//	                                                 A = arm64:  V = standard, nvidia
//	bottlerocket   bottlerocket-aws-k8s-K-x86_64-R          standard and neuron
//	               bottlerocket-aws-k8s-K-aarch64-R         standard
//	               bottlerocket-aws-k8s-K-nvidia-x86_64-R   nvidia
//	               bottlerocket-aws-k8s-K-nvidia-aarch64-R  nvidia
//	windowsY       Windows_Server-Y-English-Core-EKS_Optimized-K-*   x86_64
//
// By name, "latest" therefore means the newest available release by
// CreationDate, per architecture and variant; through SSM it is the
// "recommended" (Bottlerocket: "latest") parameter, which differs while
// AWS withholds the recommendation from a published release. There is no arm64 NVIDIA AMI
// in al2: g5g needs al2023 (from release v20250403) or bottlerocket.
//
// [Select] reads any image's name by the same grammar, whichever term found
// it, and checks the architecture in the name against the image's. It also
// knows the Windows "Full" images and Bottlerocket's FIPS flavour
// (bottlerocket-aws-k8s-K-fips-{x86_64,aarch64}-R, standard only), which
// aliases never select. A name that follows none of this makes a [compat.Custom]
// AMI, whose requirements state only the architecture: like Karpenter, use
// separate selections for GPU and non-GPU custom AMIs.
//
// # Selection and order
//
// [Select] refuses, with a [Rejection] each, images that are not
// "available" (their state kept, so that a disabled image is told from a
// pending one), have an architecture other than x86_64 or arm64, lack an
// ID, or have a malformed date; each date is parsed once. Of the images
// with the same requirements (one role) it keeps one: not deprecated
// before deprecated, then newest, then greatest name, then smallest ID;
// the others are [Selection.Superseded], each with its winner and
// [Superseded.Reason]. Each AMI carries its [AMI].Release, read from
// its name, and EC2's [AMI].CreationDate string beside the parsed
// [AMI].Created. The
// result is in newest-available order, which is total: not deprecated
// first; then newest CreationDate; then ID; then Name; then variant,
// architecture and Windows build.
//
// # Safe rollouts
//
// [SelectOptions].MinAge is a soak time: a role keeps an image old enough
// while a newer one is younger than MinAge ([Selection.HeldBack], each
// with when it comes of age and when it is selected), and a role with
// only young images takes the oldest. Through SSM ([AliasBySSM]) the soak
// applies the same way: the history of each public parameter
// (GetParameterHistory, an [SSMHistoryClient]) gives the releases it named
// before its current one; without that capability Resolve fails with
// [ErrMinAgeNeedsHistory] rather than ignore MinAge.
//
// One rule decides what a role selects at an instant: [Select]'s. What a
// Selection says of later instants is that rule asked at each instant
// where its answer can change (an image coming of age, a DeprecationTime
// passing): [Selection.Changes], HeldBack's SelectedAt, and [PlanDrift],
// which takes the images nodes run ([Running], with counts) and says for
// each, in a [DriftPlan], whether its nodes drift now, the one
// [DriftReason], and every move they make ([Move]), so that Select at each
// move's instant picks the image the move names. A node on an image the
// rule selects later keeps running until then ("keeps running: held back
// until T") unless [PlanOptions].Strict; one two releases behind is told
// both moves, or with [PlanOptions].Wait waits for the second and moves
// once ([PlanDriftWith]).
//
// A Selection and a DriftPlan marshal to JSON with everything they tell,
// enums as words (every enum implements encoding.TextMarshaler) and zero
// times left out; a Selection decodes to one that answers as the original.
//
// # Mapping
//
// [Map] gives each instance type the first AMI, in that order, whose
// requirements it satisfies strictly (compat.InstanceType.Conflict, no
// leniency for undefined keys): non-GPU types take standard AMIs, NVIDIA
// types NVIDIA ones, Neuron types Neuron ones, and the architecture always
// matches; a type the AMI's family does not run (compat.AMIFamily.Support:
// AL2023 and a1) is refused with that reason. [Choose] is that rule for
// one type or node. When nothing maps, [Mapping.Err] returns a
// [*NoCompatibleAMIError] naming, per AMI, the key most types conflict on,
// with counts, and the NodePool requirement or family that would fix it.
// [Mapping.LaunchGroups] merges the groups of one image (its variants)
// into one launch group per AMI ID.
//
// # Values and concurrency
//
// Queries, Select and Map are pure functions, safe for concurrent use,
// that never panic and do not modify their arguments; Resolve and
// PlanDrift are as safe as their client. [AMI], [Selection], [Mapping]
// and [DriftPlan] are values, read-only once built; a Selection keeps a
// reference to the images Select chose from (not a copy), so they must
// not change afterwards. The zero
// [SelectOptions], [QueryOptions] and [Options] mean the defaults (no
// soak, strict about missing SSM parameters); the zero [Mapping] maps
// nothing.
package amiselect
