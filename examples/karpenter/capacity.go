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

// resourceNames are Karpenter's names for capacity's resources, in
// capacity's order.
var resourceNames = [...]corev1.ResourceName{
	capacity.ResourceCPU:              corev1.ResourceCPU,
	capacity.ResourceMemory:           corev1.ResourceMemory,
	capacity.ResourceEphemeralStorage: corev1.ResourceEphemeralStorage,
	capacity.ResourcePods:             corev1.ResourcePods,
}

// resourceList lists q's non-zero amounts as Kubernetes quantities: CPU
// in millicores, memory and storage in bytes (BinarySI), pods as a count.
func resourceList(q capacity.Quantities) corev1.ResourceList {
	out := corev1.ResourceList{}
	for r, name := range resourceNames {
		v := q.Get(capacity.Resource(r))
		switch {
		case v == 0:
		case name == corev1.ResourceCPU:
			out[name] = *resource.NewMilliQuantity(v, resource.DecimalSI)
		case name == corev1.ResourcePods:
			out[name] = *resource.NewQuantity(v, resource.DecimalSI)
		default:
			out[name] = *resource.NewQuantity(v, resource.BinarySI)
		}
	}
	return out
}

// CapacityFromEstimate is an estimate in the shape Karpenter's provider
// gives an instance type (instancetype.NewInstanceType,
// pkg/providers/instancetype/types.go:145-155, v1.14.1): Capacity holds
// cpu, memory, ephemeral-storage and pods; Overhead's KubeReserved,
// SystemReserved and EvictionThreshold hold the estimate's kube-reserved,
// system-reserved and hard-eviction amounts. Zero amounts are left out,
// as is a pods capacity the estimate could not know (see
// capacity.Estimate.Unknown): keep Karpenter's figure for those. On
// Windows the addresses the VPC resource controller gives pods become
// Capacity[vpc.amazonaws.com/PrivateIPv4Address], where Karpenter puts
// them (types.go:156-158). Extended resources (GPUs, EFA, pod ENIs) are not
// capacity's business.
func CapacityFromEstimate(est capacity.Estimate) (corev1.ResourceList, cloudprovider.InstanceTypeOverhead) {
	capacityList := resourceList(est.Capacity)
	if _, known := est.Amount(capacity.KindCapacity, capacity.ResourcePods); !known {
		delete(capacityList, corev1.ResourcePods)
	}
	if est.Family.IsWindows() && est.MaxPods.Addresses > 0 {
		capacityList[privateIPv4Address] = *resource.NewQuantity(est.MaxPods.Addresses, resource.DecimalSI)
	}
	return capacityList, cloudprovider.InstanceTypeOverhead{
		KubeReserved:      resourceList(est.KubeReserved),
		SystemReserved:    resourceList(est.SystemReserved),
		EvictionThreshold: resourceList(est.EvictionHard),
	}
}

// privateIPv4Address is Karpenter's v1.ResourcePrivateIPv4Address.
const privateIPv4Address corev1.ResourceName = "vpc.amazonaws.com/PrivateIPv4Address"

// ApplyEstimates writes each estimate into the offered instance type of
// its name, where NewInstanceType put Karpenter's prediction: the
// resources CapacityFromEstimate gives replace Karpenter's in Capacity
// (the others stay), and Overhead is replaced whole. Requirements are left
// alone. It returns how many types it changed; estimates of types not
// offered are skipped.
func ApplyEstimates(ests []capacity.Estimate, offered []*cloudprovider.InstanceType) int {
	byName := make(map[string]*cloudprovider.InstanceType, len(offered))
	for _, it := range offered {
		byName[it.Name] = it
	}
	changed := 0
	for _, est := range ests {
		it := byName[est.InstanceType]
		if it == nil {
			continue
		}
		list, overhead := CapacityFromEstimate(est)
		if it.Capacity == nil {
			it.Capacity = corev1.ResourceList{}
		}
		for name, q := range list {
			it.Capacity[name] = q
		}
		it.Overhead = &overhead
		changed++
	}
	return changed
}
