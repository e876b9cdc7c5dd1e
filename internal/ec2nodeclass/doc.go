// Package ec2nodeclass reads karpenter.k8s.aws/v1 EC2NodeClass manifests
// as `kubectl apply` and the API server read them, with Karpenter
// v1.14.1's CRD (see [Decode]), into the values the rest of ec2select
// works with: AMI selector terms ([amiselect.Term]), the userData family
// and custom userData, and the kubelet settings
// ([userdata.KubeletConfig]). It is internal: the library has no
// EC2NodeClass type of its own, and examples/preflight and the
// differential test of examples/karpenter share this one.
//
// Values are plain and immutable once decoded; functions are safe for
// concurrent use.
package ec2nodeclass
