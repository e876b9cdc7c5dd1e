// Package karpenter is the adapter a fork of karpenter-provider-aws v1.14
// needs to use ec2select: conversions between Karpenter's Go types
// (sigs.k8s.io/karpenter/pkg/apis/v1, pkg/cloudprovider and
// github.com/aws/karpenter-provider-aws/pkg/apis/v1) and the library's
// values. It lives in its own module so that the library stays free of
// Kubernetes modules; compiling it is what keeps the README's "From
// Karpenter" section honest.
//
// Every conversion is a plain function with no state: safe for concurrent
// use. Conversions into ec2select validate (a Karpenter value the library
// cannot represent is an error naming it, never a silent drop); conversions
// back to Karpenter cannot fail.
//
// The package imports no Karpenter package that imports it back: it
// takes and returns Karpenter's API types (pkg/apis/v1, core's
// cloudprovider and scheduling) and plain values, never amifamily's,
// launchtemplate's or instancetype's, so a fork copies it whole into its
// tree and calls it from amifamily, launchtemplate, instancetype and the
// controllers. Where amifamily needs its own type, the conversion is on
// its side: amifamily.AMI(a) for each [AMI] (same fields), and for the
// version gates (an error wrapping *amiselect.UnsupportedVersionError)
//
//	var gate *amiselect.UnsupportedVersionError
//	switch {
//	case errors.As(err, &gate) && gate.Family == compat.AL2:
//		return nil, &AL2DeprecationError{error: err}
//	case errors.As(err, &gate):
//		return nil, &WS2025UnsupportedVersionError{error: err}
//	}
//
// so that the EC2NodeClass controller marks the class UnsupportedAlias
// (TestVersionGatesAsKarpenterStatus).
//
// One file per seam of karpenter-provider-aws v1.14.1:
//   - the AMI provider's List (amis.go, ssm.go): [ListAMIs], [AMIsToKarpenter],
//     [CachedSSM] (Karpenter's sdk.SSMAPI and fake.SSMAPI are
//     amiselect.SSMClients as they are), with [TermsFromKarpenter],
//     [StatusAMIs], [AMIsFromStatus] and [Family];
//   - amifamily.MapToInstanceTypes (amis.go, instancetype.go):
//     [MapToInstanceTypes] (Karpenter's arguments), [InstanceTypeFromKarpenter],
//     [InstanceTypesFromKarpenter], [PinnedLabels];
//   - the resolver's launch templates (launchgroups.go): [LaunchGroups],
//     [LaunchGroup], and [ResolverGroup] from what the resolver has;
//   - instance type capacity and overhead (capacity.go): in
//     NewInstanceType's place, [KarpenterCapacity] over [KarpenterLaunch]
//     (Karpenter's rule, capacity.Estimator.Karpenter), or
//     [CapacityFromEstimate] and [ApplyEstimates] for the Estimator's own
//     estimate; learned memory over the *capacity.Cache the provider is
//     given: [ObserveNode], [LearnedMemory], [Observation], [ApplyCapacity];
//   - launch template userData (userdata.go, taints.go): [UserData] (a
//     bootstrap.Bootstrapper whose launch-template name follows its text)
//     from [ResolverUserData] or [NewUserData]; [UserDataConfig] with
//     [Cluster], [LaunchLabels], [KubeletFromKarpenter],
//     [TaintsFromKarpenter];
//   - NodePools and requirements (nodepool.go, requirements.go):
//     [NodePoolFromKarpenter], [NodePoolToKarpenter],
//     [RequirementsFromKarpenter], [RequirementsFromNodeSelector],
//     [RequirementsToKarpenter].
//
// The fixtures_*_test.go files run each seam beside Karpenter's own code
// on Karpenter's own fixtures (its fake EC2 and SSM APIs and the instance
// types they describe, Karpenter core's fake instance types); TestFlow in
// flow_test.go runs them in the order a fork does against ec2fake over
// HTTP. The module also holds the
// differential tests of ec2select's manifest validation
// (nodepool_apiserver_test.go, ec2nodeclass_apiserver_test.go): random and
// broken NodePools and EC2NodeClasses through `kubectl apply`'s reader and
// the API server's create path (apiserver_test.go, built from
// k8s.io/apiextensions-apiserver over the CRD files of the module cache)
// and through weighting.DecodeNodePool and internal/ec2nodeclass.
package karpenter
