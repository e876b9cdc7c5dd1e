package karpenter

import (
	"github.com/ec2select/ec2select/capacity"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// Observation is what the provider's capacity controller
// (pkg/controllers/providers/instancetype/capacity in karpenter-provider-aws)
// sees when a node registers: the node's labels and reported memory, and
// the image its NodeClaim launched. Pass it to capacity.Cache.Observe with
// the EC2NodeClass's current AMIs (amiselect.Resolve's, or
// [AMIsFromStatus]); as Karpenter does, the cache learns only when the
// image is still the one the type maps to.
func Observation(node *corev1.Node, claim *karpv1.NodeClaim) capacity.Observation {
	return capacity.Observation{
		NodeLabels:  node.Labels,
		ImageID:     claim.Status.ImageID,
		MemoryBytes: node.Status.Capacity.Memory().Value(),
	}
}

// ApplyCapacity writes learned memory into the offered instance types'
// Capacity[memory], where Karpenter's provider puts its estimate (the
// published memory less VM_MEMORY_OVERHEAD_PERCENT), and leaves their
// requirements alone: karpenter.k8s.aws/instance-memory stays the
// published figure NodePools select on. Types with nothing learned keep
// Karpenter's estimate. It returns how many types it changed.
//
// Capacity is per (type, AMI): call it with one EC2NodeClass's instance
// types and the capacities of that EC2NodeClass's mapping.
func ApplyCapacity(caps []capacity.Capacity, offered []*cloudprovider.InstanceType) int {
	byName := make(map[string]*cloudprovider.InstanceType, len(offered))
	for _, it := range offered {
		byName[it.Name] = it
	}
	changed := 0
	for _, c := range caps {
		it := byName[c.InstanceType.Name]
		if it == nil || !c.Learned {
			continue
		}
		if it.Capacity == nil {
			it.Capacity = corev1.ResourceList{}
		}
		it.Capacity[corev1.ResourceMemory] = *resource.NewQuantity(c.MemoryBytes, resource.BinarySI)
		changed++
	}
	return changed
}
