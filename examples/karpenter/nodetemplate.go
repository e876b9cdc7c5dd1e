package karpenter

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
)

// This file is for any autoscaler, not only Karpenter: cluster-autoscaler's
// AWS provider builds a scale-from-zero node from a template
// (cloudprovider/aws/aws_manager.go buildNodeFromTemplate in
// kubernetes/autoscaler), and NodeTemplate is that node from an estimate.

// ResourceLists returns an estimate's capacity and allocatable as
// Kubernetes resource lists: cpu (millicores), memory and ephemeral-storage
// (bytes, BinarySI) and pods. A resource the estimate cannot know
// (capacity.Estimate.Unknown) is left out of capacity when its capacity is
// unknown, and out of allocatable when anything taken from it is: keep your
// own figure for those. A known 0 is written as 0.
func ResourceLists(est capacity.Estimate) (capacityList, allocatable corev1.ResourceList) {
	capacityList, allocatable = corev1.ResourceList{}, corev1.ResourceList{}
	for r, name := range resourceNames {
		res := capacity.Resource(r)
		capKnown, allocKnown := true, true
		for _, u := range est.Unknown {
			if u.Resource == res {
				allocKnown = false
				capKnown = capKnown && u.Kind != capacity.KindCapacity
			}
		}
		if capKnown {
			capacityList[name] = quantity(res, est.Capacity.Get(res))
		}
		if allocKnown {
			allocatable[name] = quantity(res, est.Allocatable.Get(res))
		}
	}
	return capacityList, allocatable
}

// Reserved returns what the kubelet takes from capacity, as resource lists
// of the set amounts only: a reservation nothing sets is absent, one set
// to 0 is "0" (capacity.Estimate.Amount), and an unknown one is absent.
func Reserved(est capacity.Estimate) (kubeReserved, systemReserved, evictionHard corev1.ResourceList) {
	lists := [3]corev1.ResourceList{{}, {}, {}}
	for i, k := range []capacity.Kind{capacity.KindKubeReserved, capacity.KindSystemReserved, capacity.KindEvictionHard} {
		for r, name := range resourceNames {
			if v, set := est.Amount(k, capacity.Resource(r)); set {
				lists[i][name] = quantity(capacity.Resource(r), v)
			}
		}
	}
	return lists[0], lists[1], lists[2]
}

// quantity is v of r as the API server spells it.
func quantity(r capacity.Resource, v int64) resource.Quantity {
	switch r {
	case capacity.ResourceCPU:
		return *resource.NewMilliQuantity(v, resource.DecimalSI)
	case capacity.ResourcePods:
		return *resource.NewQuantity(v, resource.DecimalSI)
	}
	return *resource.NewQuantity(v, resource.BinarySI)
}

// NodeTemplate is a node of the estimated type before it exists, in one
// call: named name, with the type's well-known labels
// (compat.InstanceType.Labels), and the estimate's capacity and
// allocatable (ResourceLists) as its status. Labels, taints and extended
// resources (GPUs) of the node group are the caller's to add.
func NodeTemplate(name string, it compat.InstanceType, est capacity.Estimate) *corev1.Node {
	capacityList, allocatable := ResourceLists(est)
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: it.Labels()},
		Status:     corev1.NodeStatus{Capacity: capacityList, Allocatable: allocatable},
	}
}
