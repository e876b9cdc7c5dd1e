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
// Index:
//   - requirements: [RequirementsFromKarpenter], [RequirementsFromNodeSelector],
//     [RequirementsToKarpenter]
package karpenter
