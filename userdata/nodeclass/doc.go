// Package nodeclass holds the EC2NodeClass settings that both decide how
// a node boots and what it has: the kubelet configuration ([Kubelet],
// spec.kubelet) and the instance-store policy ([InstanceStorePolicy]).
// userdata renders them into userData and capacity estimates with them;
// both read these types, so that estimating capacity does not link
// userdata's linter (userdata.KubeletConfig and userdata.InstanceStorePolicy
// are aliases of them).
//
// The types are plain values, safe to copy and to use concurrently; the
// zero value of each sets nothing. [Kubelet.Validate] applies the rules
// the kubelet itself enforces when it starts.
package nodeclass
