package main

// The codes of findings, stable for CI (match on them, not on messages).
// Each says what preflight found; its severity is fixed by the code but
// for cannot-launch, whose severity depends on which types cannot launch.
const (
	// Reading manifests.
	codeUnreadable   = "unreadable"      // error: kubectl cannot read the YAML
	codeTemplate     = "template"        // notice: a Helm/Go template, not a manifest
	codeSkippedFile  = "skipped-file"    // notice: unreadable YAML that holds no Karpenter resource
	codeOldAPI       = "removed-api"     // error: karpenter.sh/v1beta1 and older, which v1.14.1 does not serve
	codeRefused      = "refused"         // error: kubectl apply (the API server) or Karpenter's runtime validation refuses the resource
	codeKubelet      = "v1beta1-kubelet" // error: spec.template.spec.kubelet in a v1 NodePool
	codeWildcard     = "wildcard"        // error, problem 4: a wildcard value in a requirement
	codePlaceholder  = "placeholder"     // notice: <<VALUES>> left to fill in, refused as written
	codeDefinedTwice = "defined-twice"   // warning: one file defines a resource twice; the second replaces the first

	// Pairing NodePools with node classes.
	codeNoNodeClass     = "nodeclass-not-in-input" // notice: the EC2NodeClass is not among the manifests
	codeOtherController = "other-controller"       // notice: EKS Auto Mode's NodeClass, or another provider's
	codeUnusedNodeClass = "nodeclass-unused"       // notice: no NodePool in its directory or file names it
	codeNearMissRef     = "nodeclass-near-miss"    // warning: the EC2NodeClass is not among the manifests, one with a near name is
	codeAlternatives    = "nodeclass-alternatives" // notice: the EC2NodeClass is defined in alternative files; the NodePool is paired with each

	// AMIs.
	codeNoAMI          = "no-ami"              // error: the terms select no AMI, so nothing launches
	codeCatalogLacks   = "catalog-cannot-know" // notice: the embedded catalog cannot say what these terms select
	codePendingAMI     = "pending-ami"         // error, problem 5: the terms match an image still being built
	codeMalformedAMIID = "malformed-ami-id"    // warning: an id term EC2 cannot have issued (not ami- and 8 or 17 hex digits)

	// Identities.
	codeRoleARN    = "role-arn"             // warning: spec.role is an IAM role ARN, which Karpenter takes as a name
	codeProfileARN = "instance-profile-arn" // error: spec.instanceProfile is an ARN, which EC2 refuses as the profile's name

	// Instance types.
	codeNothingLaunches = "nothing-launches" // error: no type the NodePool allows runs a selected AMI
	codeCannotLaunch    = "cannot-launch"    // warning (problem 1 for architecture) or notice (accelerated types Karpenter skips)

	// Capacity.
	codePodTooLarge = "pod-too-large" // warning: no instance type the NodePool launches holds one pod of the -pod size

	// userData.
	codeUserData       = "userdata"            // error: the node does not join, or registers without a taint it needs
	codeUnresolved     = "userdata-unresolved" // notice (warning with -strict-userdata): preflight cannot tell whether the node joins
	codeUnchecked      = "userdata-unchecked"  // notice: settings preflight's Bottlerocket model does not have
	codeAMIFamily      = "ami-os-mismatch"     // error: the userData is for another OS than the selected AMI's
	codeAL2Recipe      = "al2-recipe"          // warning: /etc/eks/bootstrap.sh under AL2023, where it does not exist
	codeUnsyncedTaints = "unsynced-taints"     // error, problem 3: do-not-sync-taints without the taints in userData

	// NodePools together.
	codeFirstAMI   = "first-ami"              // warning, problem 2: only for Karpenter v1.1.0 to v1.3.x (#7925)
	codeSameWeight = "same-weight"            // warning: two NodePools for the same pods at one weight
	codeCatchAll   = "untainted-special-pool" // warning: a higher-weight accelerated pool without a taint
	codeZoneRegion = "zone-region"            // error (no zone in the cluster's region) or warning: zones of another region than the cluster's or the other NodePools'
)
