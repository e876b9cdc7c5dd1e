package karpenter_test

import (
	"context"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/karpenter"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
)

// newInstanceTypeCase is one set of NewInstanceType's arguments besides
// the instance type: what an EC2NodeClass and the controller's settings
// give it.
type newInstanceTypeCase struct {
	name     string
	family   string
	bdms     []*v1.BlockDeviceMapping
	policy   *v1.InstanceStorePolicy
	nis      []*v1.NetworkInterface
	kubelet  v1.KubeletConfiguration
	settings options.Options
}

func bdm(device string, size string, root bool) *v1.BlockDeviceMapping {
	b := &v1.BlockDeviceMapping{DeviceName: ptr(device), RootVolume: root, EBS: &v1.BlockDevice{}}
	if size != "" {
		b.EBS.VolumeSize = ptr(resource.MustParse(size))
	}
	return b
}

func newInstanceTypeCases() []newInstanceTypeCase {
	defaults := options.Options{VMMemoryOverheadPercent: 0.075}
	raid0 := v1.InstanceStorePolicyRAID0
	efaOnly := func(card int32) *v1.NetworkInterface {
		return &v1.NetworkInterface{NetworkCardIndex: card, InterfaceType: v1.InterfaceType(ec2types.NetworkInterfaceTypeEfaOnly)}
	}
	var out []newInstanceTypeCase
	for _, family := range []string{v1.AMIFamilyAL2, v1.AMIFamilyAL2023, v1.AMIFamilyBottlerocket, v1.AMIFamilyWindows2022, v1.AMIFamilyCustom} {
		out = append(out,
			newInstanceTypeCase{name: "defaults", family: family, settings: defaults},
			newInstanceTypeCase{name: "maxPods 20", family: family, kubelet: v1.KubeletConfiguration{MaxPods: ptr[int32](20)}, settings: defaults},
			// Karpenter ignores podsPerCore on Bottlerocket
			// (bottlerocket.go:214-220); KarpenterLaunch drops it there.
			newInstanceTypeCase{name: "podsPerCore 2", family: family, kubelet: v1.KubeletConfiguration{PodsPerCore: ptr[int32](2)}, settings: defaults},
			newInstanceTypeCase{name: "reserved and eviction", family: family, kubelet: v1.KubeletConfiguration{
				KubeReserved:   map[string]string{"cpu": "20", "memory": "1Gi"},
				SystemReserved: map[string]string{"memory": "10Gi", "ephemeral-storage": "2Gi"},
				EvictionHard:   map[string]string{"memory.available": "100%", "nodefs.available": "15%"},
			}, settings: defaults},
			newInstanceTypeCase{name: "root volume", family: family, bdms: []*v1.BlockDeviceMapping{bdm("/dev/xvdz", "30Gi", false), bdm("/dev/xvdy", "100G", true)}, settings: defaults},
			newInstanceTypeCase{name: "family device", family: family, bdms: []*v1.BlockDeviceMapping{bdm("/dev/xvda", "50Gi", false), bdm("/dev/xvdb", "60Gi", false), bdm("/dev/sda1", "70Gi", false)}, settings: defaults},
			newInstanceTypeCase{name: "last mapping", family: family, bdms: []*v1.BlockDeviceMapping{bdm("/dev/xvdz", "80Gi", false), bdm("/dev/xvdq", "40Gi", false)}, settings: defaults},
			newInstanceTypeCase{name: "no size", family: family, bdms: []*v1.BlockDeviceMapping{bdm("/dev/xvda", "", true)}, settings: defaults},
			newInstanceTypeCase{name: "raid0", family: family, policy: &raid0, settings: defaults},
			newInstanceTypeCase{name: "efa-only", family: family, nis: []*v1.NetworkInterface{efaOnly(0), efaOnly(1)}, settings: defaults},
			newInstanceTypeCase{name: "settings", family: family, settings: options.Options{VMMemoryOverheadPercent: 0.1, ReservedENIs: 1}},
		)
	}
	return out
}

// TestKarpenterCapacityAsNewInstanceType: for every instance type
// Karpenter's fake EC2 API describes, under five families and eleven
// EC2NodeClass shapes (kubelet fields, block device mappings, RAID0,
// efa-only interfaces, RESERVED_ENIS and VM_MEMORY_OVERHEAD_PERCENT),
// KarpenterCapacity over KarpenterLaunch gives exactly the cpu, memory,
// ephemeral-storage and pods capacity and the kube-reserved,
// system-reserved and eviction amounts Karpenter's own
// instancetype.NewInstanceType computes (types.go:126-160, v1.14.1): the
// seam a fork calls in NewInstanceType's place.
func TestKarpenterCapacityAsNewInstanceType(t *testing.T) {
	t.Parallel()
	infos := awsFakeInfos(t)
	zones := []string{"test-zone-1a"}
	subnets := []v1.ZoneInfo{{Zone: "test-zone-1a", ZoneID: "tstz1-1a"}}
	for _, tc := range newInstanceTypeCases() {
		t.Run(tc.family+"/"+tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := options.ToContext(context.Background(), &tc.settings)
			k := tc.kubelet
			launch, err := karpenter.KarpenterLaunch(tc.family, tc.bdms, tc.policy, tc.nis, &k)
			if err != nil {
				t.Fatal(err)
			}
			settings := capacity.KarpenterSettings{ReservedENIs: tc.settings.ReservedENIs, VMMemoryOverheadPercent: &tc.settings.VMMemoryOverheadPercent}
			for _, info := range infos {
				theirs := instancetype.NewInstanceType(ctx, info, "us-west-2", zones, subnets, tc.bdms, tc.policy, tc.nis,
					k.MaxPods, k.PodsPerCore, k.KubeReserved, k.SystemReserved, k.EvictionHard, k.EvictionSoft, tc.family, nil)
				capList, overhead, err := karpenter.KarpenterCapacity(info, launch, settings)
				if err != nil {
					t.Fatalf("%s: %v", info.InstanceType, err)
				}
				name := string(info.InstanceType)
				sameQuantities(t, name+" capacity", fourResources, theirs.Capacity, capList)
				// Spelled alike too: a node's capacity reaches the API
				// server as the quantity's string, and the suites compare
				// what comes back with gomega's Equal.
				for _, r := range fourResources {
					if w, g := theirs.Capacity[r], capList[r]; w.String() != g.String() {
						t.Errorf("%s capacity %s: Karpenter %s, adapter %s", name, r, w.String(), g.String())
					}
				}
				sameQuantities(t, name+" kube-reserved", fourResources, theirs.Overhead.KubeReserved, overhead.KubeReserved)
				sameQuantities(t, name+" system-reserved", fourResources, theirs.Overhead.SystemReserved, overhead.SystemReserved)
				sameQuantities(t, name+" eviction", fourResources, theirs.Overhead.EvictionThreshold, overhead.EvictionThreshold)
			}
		})
	}
}

// TestKarpenterLaunch pins what KarpenterLaunch reads from
// NewInstanceType's arguments: only the kubelet fields Karpenter's
// capacity rule reads (a clusterDNS userData would refuse does not stop
// the estimate), podsPerCore dropped for Bottlerocket, the volume
// ephemeralStorage() picks, and efa-only interfaces on card 0 only.
func TestKarpenterLaunch(t *testing.T) {
	t.Parallel()
	kubelet := &v1.KubeletConfiguration{ClusterDNS: []string{"test"}, PodsPerCore: ptr[int32](2), ImageGCHighThresholdPercent: ptr[int32](50)}
	nis := []*v1.NetworkInterface{
		{NetworkCardIndex: 0, InterfaceType: v1.InterfaceType(ec2types.NetworkInterfaceTypeEfaOnly)},
		{NetworkCardIndex: 1, InterfaceType: v1.InterfaceType(ec2types.NetworkInterfaceTypeEfaOnly)},
		{NetworkCardIndex: 0, InterfaceType: v1.InterfaceType(ec2types.NetworkInterfaceTypeInterface)},
	}
	for _, tc := range []struct {
		family      string
		bdms        []*v1.BlockDeviceMapping
		wantBytes   int64
		podsPerCore bool
	}{
		{family: v1.AMIFamilyAL2023, bdms: []*v1.BlockDeviceMapping{bdm("/dev/xvdb", "60Gi", false), bdm("/dev/xvda", "50Gi", false)}, wantBytes: 50 << 30, podsPerCore: true},
		{family: v1.AMIFamilyBottlerocket, bdms: []*v1.BlockDeviceMapping{bdm("/dev/xvda", "4Gi", false), bdm("/dev/xvdb", "60Gi", false)}, wantBytes: 60 << 30},
		{family: v1.AMIFamilyWindows2022, bdms: []*v1.BlockDeviceMapping{bdm("/dev/xvda", "4Gi", false)}, wantBytes: 0, podsPerCore: true},
		{family: v1.AMIFamilyCustom, bdms: []*v1.BlockDeviceMapping{bdm("/dev/xvda", "4Gi", false), bdm("/dev/xvdz", "9Gi", false)}, wantBytes: 9 << 30, podsPerCore: true},
		{family: v1.AMIFamilyAL2, bdms: []*v1.BlockDeviceMapping{bdm("/dev/xvda", "50Gi", false), bdm("/dev/xvdq", "1000G", true)}, wantBytes: 1000_000_000_000, podsPerCore: true},
	} {
		t.Run(tc.family, func(t *testing.T) {
			l, err := karpenter.KarpenterLaunch(tc.family, tc.bdms, nil, nis, kubelet)
			if err != nil {
				t.Fatal(err)
			}
			if l.RootVolumeBytes != tc.wantBytes {
				t.Errorf("RootVolumeBytes = %d, want %d", l.RootVolumeBytes, tc.wantBytes)
			}
			if l.Network.EFAOnlyInterfaces != 1 {
				t.Errorf("EFAOnlyInterfaces = %d, want 1 (card 0's)", l.Network.EFAOnlyInterfaces)
			}
			if got := l.Kubelet.PodsPerCore != nil; got != tc.podsPerCore {
				t.Errorf("podsPerCore kept = %v, want %v", got, tc.podsPerCore)
			}
			if l.Kubelet.ClusterDNS != nil || l.Kubelet.ImageGCHighThresholdPercent != nil {
				t.Errorf("Kubelet = %+v; want only the fields the capacity rule reads", l.Kubelet)
			}
			if _, err := capacity.NewEstimator(l, capacity.EstimateOptions{}); err != nil {
				t.Errorf("NewEstimator: %v", err)
			}
		})
	}
	if _, err := karpenter.KarpenterLaunch("Ubuntu", nil, nil, nil, nil); err == nil {
		t.Error("KarpenterLaunch took the family Ubuntu")
	}
	if _, _, err := karpenter.KarpenterCapacity(ec2types.InstanceTypeInfo{}, capacity.Launch{Family: compat.AL2023}, capacity.KarpenterSettings{}); err == nil {
		t.Error("KarpenterCapacity took an instance type without a name")
	}
}
