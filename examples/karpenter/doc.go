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
// One file per concern:
//   - requirements: [RequirementsFromKarpenter], [RequirementsFromNodeSelector],
//     [RequirementsToKarpenter];
//   - instance types: [InstanceTypeFromKarpenter], [InstanceTypesFromKarpenter],
//     [PinnedLabels];
//   - AMIs: [TermsFromKarpenter], [TermsToKarpenter], [StatusAMIs],
//     [AMIsFromStatus], [Family];
//   - taints: [TaintsFromKarpenter], [TaintsToKarpenter];
//   - userData: [UserDataConfig] with [Cluster], [KubeletFromKarpenter];
//   - NodePools: [NodePoolFromKarpenter], [NodePoolToKarpenter];
//   - capacity: [Observation], [ApplyCapacity];
//   - launch templates: [LaunchGroups] and [LaunchGroup].
//
// TestFlow in flow_test.go runs them in the order a fork does, on
// Karpenter's types, against ec2fake over HTTP. The module also holds the
// differential tests of ec2select's manifest validation
// (nodepool_apiserver_test.go, ec2nodeclass_apiserver_test.go): random and
// broken NodePools and EC2NodeClasses through `kubectl apply`'s reader and
// the API server's create path (apiserver_test.go, built from
// k8s.io/apiextensions-apiserver over the CRD files of the module cache)
// and through weighting.DecodeNodePool and internal/ec2nodeclass.
package karpenter
