package karpenter

import (
	"errors"
	"fmt"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
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
// in millicores, pods as a count, memory and storage as [byteQuantity].
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
			out[name] = byteQuantity(v)
		}
	}
	return out
}

// byteQuantity is an amount of bytes in the format Karpenter gives its
// own, so that both are spelled alike (a node's capacity reaches the API
// server as the quantity's string, and a fork's suites compare what comes
// back): a whole number of MiB is BinarySI (Karpenter's "%dMi" memory,
// "20Gi" volumes), anything else DecimalSI (an instance store, which
// Karpenter writes as "%dG", types.go:372; volumes sized in G).
func byteQuantity(v int64) resource.Quantity {
	if v%(1<<20) == 0 {
		return *resource.NewQuantity(v, resource.BinarySI)
	}
	return *resource.NewQuantity(v, resource.DecimalSI)
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

// ObserveNode is the seam of the capacity controller's call
// (instancetype.DefaultProvider.UpdateInstanceTypeCapacityFromNode,
// pkg/providers/instancetype/instancetype.go:355-380, v1.14.1), with what
// that call has: the cache the provider was built with (a fork injects a
// *capacity.Cache where Karpenter injects its discovered-capacity cache),
// the registered node, its NodeClaim and the EC2NodeClass's status.amis.
// As in Karpenter, the cache learns only while the node's image is the
// one its type maps to; it reports whether it learned. A node whose image
// is no longer selected, or not the one its type maps to, teaches
// nothing and is no error, as Karpenter returns nil for it; the other
// refusals (a node without an instance-type label, no memory) are errors.
func ObserveNode(cache *capacity.Cache, node *corev1.Node, claim *karpv1.NodeClaim, status []v1.AMI) (bool, error) {
	amis, err := AMIsFromStatus("", status)
	if err != nil {
		return false, err
	}
	learned, err := cache.Observe(Observation(node, claim), amis)
	if errors.Is(err, capacity.ErrUnknownImage) || errors.Is(err, capacity.ErrNotMapped) || errors.Is(err, capacity.ErrNoCompatible) {
		return false, nil
	}
	return learned, err
}

// LearnedMemory is the seam of the provider's per-type lookup of
// discovered capacity (instancetype.go:226-231): the memory nodes of its
// type reported under the image status.amis maps it to, when the cache
// has learned it. The type is mapped strictly, as Map does; a type that
// maps to no image, or that compat cannot read, has learned nothing.
func LearnedMemory(cache *capacity.Cache, it *cloudprovider.InstanceType, status []v1.AMI) (resource.Quantity, bool) {
	mapped, _ := MapToInstanceTypes([]*cloudprovider.InstanceType{it}, status)
	for id := range mapped {
		if bytes, ok := cache.Memory(it.Name, id); ok {
			return *resource.NewQuantity(bytes, resource.BinarySI), true
		}
	}
	return resource.Quantity{}, false
}

// KarpenterLaunch is the capacity.Launch that instancetype.NewInstanceType's
// arguments describe (pkg/providers/instancetype/types.go:126-160,
// karpenter-provider-aws v1.14.1), read as Karpenter's capacity rule reads
// them, so that [KarpenterCapacity] gives the figures NewInstanceType
// computes:
//   - the kubelet fields that rule reads (maxPods, podsPerCore,
//     kubeReserved, systemReserved, evictionHard) and no other, so a
//     clusterDNS or imageGC value userData would refuse does not stop an
//     instance type from being offered; podsPerCore is dropped for
//     Bottlerocket, which Karpenter ignores it for (bottlerocket.go:214-220,
//     PodsPerCoreEnabled false) and Bottlerocket has no setting for;
//   - RootVolumeBytes from blockDeviceMappings as ephemeralStorage() picks
//     it (types.go:369-400): the root volume's size, else for Custom the
//     last mapping's, else the mapping on the family's ephemeral device
//     (/dev/xvda, Bottlerocket /dev/xvdb, Windows /dev/sda1); zero, the
//     family's default volume, when none gives a size;
//   - InstanceStorePolicy, and the efa-only interfaces on card 0
//     (ENILimitedPods, types.go:485-505).
//
// The result is Karpenter's reading, not a userData check: use
// [UserDataConfig] and userdata.Render for what the node boots with.
func KarpenterLaunch(family string, bdms []*v1.BlockDeviceMapping, policy *v1.InstanceStorePolicy, nis []*v1.NetworkInterface, kubelet *v1.KubeletConfiguration) (capacity.Launch, error) {
	f, err := compat.ParseAMIFamily(family)
	if err != nil {
		return capacity.Launch{}, fmt.Errorf("karpenter: %w", err)
	}
	l := capacity.Launch{Family: f, RootVolumeBytes: karpenterVolumeBytes(f, bdms)}
	if policy != nil {
		l.InstanceStorePolicy = userdata.InstanceStorePolicy(*policy)
	}
	for _, ni := range nis {
		if ni != nil && ni.NetworkCardIndex == 0 && ni.InterfaceType == v1.InterfaceType(ec2types.NetworkInterfaceTypeEfaOnly) {
			l.Network.EFAOnlyInterfaces++
		}
	}
	if kubelet != nil {
		l.Kubelet = userdata.KubeletConfig{
			MaxPods: kubelet.MaxPods, PodsPerCore: kubelet.PodsPerCore,
			KubeReserved: kubelet.KubeReserved, SystemReserved: kubelet.SystemReserved, EvictionHard: kubelet.EvictionHard,
		}
		if f == compat.Bottlerocket {
			l.Kubelet.PodsPerCore = nil
		}
	}
	return l, nil
}

// ephemeralDevice is each family's EphemeralBlockDevice (al2.go:114,
// al2023.go:106, bottlerocket.go:198, windows.go:97); Custom has none.
func ephemeralDevice(f compat.AMIFamily) string {
	switch {
	case f == compat.Bottlerocket:
		return "/dev/xvdb"
	case f.IsWindows():
		return "/dev/sda1"
	case f == compat.Custom:
		return ""
	}
	return "/dev/xvda"
}

// karpenterVolumeBytes is the mapping ephemeralStorage() takes the size
// of, or 0 for the family's default.
func karpenterVolumeBytes(f compat.AMIFamily, bdms []*v1.BlockDeviceMapping) int64 {
	size := func(b *v1.BlockDeviceMapping) int64 {
		if b == nil || b.EBS == nil || b.EBS.VolumeSize == nil {
			return 0
		}
		return b.EBS.VolumeSize.Value()
	}
	if len(bdms) == 0 {
		return 0
	}
	for _, b := range bdms {
		if b != nil && b.RootVolume && size(b) > 0 {
			return size(b)
		}
	}
	if f == compat.Custom {
		return size(bdms[len(bdms)-1])
	}
	for _, b := range bdms {
		if b != nil && b.DeviceName != nil && *b.DeviceName == ephemeralDevice(f) {
			return size(b)
		}
	}
	return 0
}

// KarpenterCapacity is the seam of NewInstanceType's Capacity and
// Overhead: info's cpu, memory, ephemeral-storage and pods and its
// kube-reserved, system-reserved and eviction amounts under launch (see
// [KarpenterLaunch]) by Karpenter's rule, capacity.Estimator.Karpenter,
// in Karpenter's shape ([CapacityFromEstimate]). s carries the
// controller's RESERVED_ENIS and VM_MEMORY_OVERHEAD_PERCENT. A fork keeps
// NewInstanceType's extended resources (GPUs, EFA, pod ENIs, Windows'
// private IPv4 addresses) beside it. An info compat cannot read, a
// launch the Estimator refuses, or a figure it cannot resolve (no
// network facts for max pods; capacity.Estimate.Err, a
// *capacity.UnknownError) is an error naming the type: Karpenter would
// have computed from missing facts.
func KarpenterCapacity(info ec2types.InstanceTypeInfo, launch capacity.Launch, s capacity.KarpenterSettings) (corev1.ResourceList, cloudprovider.InstanceTypeOverhead, error) {
	it, err := compat.InstanceTypeFromEC2(info)
	if err != nil {
		return nil, cloudprovider.InstanceTypeOverhead{}, fmt.Errorf("karpenter: %w", err)
	}
	est, err := capacity.NewEstimator(launch, capacity.EstimateOptions{})
	if err != nil {
		return nil, cloudprovider.InstanceTypeOverhead{}, fmt.Errorf("karpenter: instance type %s: %w", it.Name, err)
	}
	e := est.Karpenter(it, s)
	if err := e.Err(); err != nil {
		return nil, cloudprovider.InstanceTypeOverhead{}, fmt.Errorf("karpenter: %w", err)
	}
	list, overhead := CapacityFromEstimate(e)
	return list, overhead, nil
}
