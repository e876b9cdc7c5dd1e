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
// One file per seam of karpenter-provider-aws v1.14.1:
//   - the AMI provider's List (amis.go, ssm.go): [ListAMIs], [AMIsToKarpenter],
//     [CachedSSM] (Karpenter's sdk.SSMAPI and fake.SSMAPI are
//     amiselect.SSMClients as they are), with [TermsFromKarpenter],
//     [StatusAMIs], [AMIsFromStatus] and [Family];
//   - amifamily.MapToInstanceTypes (amis.go, instancetype.go):
//     [MapToInstanceTypes], [InstanceTypeFromKarpenter],
//     [InstanceTypesFromKarpenter], [PinnedLabels];
//   - the resolver's launch templates (launchgroups.go): [LaunchGroups] and
//     [LaunchGroup];
//   - instance type capacity and overhead (capacity.go):
//     [CapacityFromEstimate], [ApplyEstimates]; learned memory:
//     [Observation], [ApplyCapacity];
//   - launch template userData (userdata.go, taints.go): [UserDataConfig]
//     with [Cluster], [LaunchLabels], [KubeletFromKarpenter],
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
