package karpenter_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/karpenter"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	awsfake "github.com/aws/karpenter-provider-aws/pkg/fake"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
)

// awsFakeInfos are the instance types Karpenter's fake EC2 API describes
// by default (pkg/fake/zz_generated.describe_instance_types.go, 17
// types: c6g.large, dl1.24xlarge, g4ad.16xlarge, g4dn.8xlarge,
// g5.12xlarge, inf2, m5, m6idn, m7i-flex, t3, t4g, trn1.2xlarge), through its own
// DescribeInstanceTypes.
func awsFakeInfos(t *testing.T) []ec2types.InstanceTypeInfo {
	t.Helper()
	out, err := awsfake.NewEC2API().DescribeInstanceTypes(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.InstanceTypes) == 0 {
		t.Fatal("Karpenter's fake describes no instance types")
	}
	return out.InstanceTypes
}

// kubeletCase is an EC2NodeClass spec.kubelet given to Karpenter's
// NewInstanceType and to the Estimator alike.
type kubeletCase struct {
	name    string
	kubelet v1.KubeletConfiguration
}

func kubeletCases() []kubeletCase {
	return []kubeletCase{
		{name: "defaults"},
		{name: "maxPods 110", kubelet: v1.KubeletConfiguration{MaxPods: ptr[int32](110)}},
		{name: "podsPerCore 4", kubelet: v1.KubeletConfiguration{PodsPerCore: ptr[int32](4)}},
		{name: "reserved and eviction", kubelet: v1.KubeletConfiguration{
			KubeReserved:   map[string]string{"cpu": "200m", "memory": "1Gi"},
			SystemReserved: map[string]string{"memory": "500Mi", "ephemeral-storage": "2Gi"},
			EvictionHard:   map[string]string{"memory.available": "5%", "nodefs.available": "15%"},
		}},
	}
}

// karpenterTypes builds the instance types Karpenter's provider offers
// for infos under family and kubelet (instancetype.NewInstanceType,
// pkg/providers/instancetype/types.go:126-160), with its default
// options (VM_MEMORY_OVERHEAD_PERCENT 0.075, RESERVED_ENIS 0).
func karpenterTypes(infos []ec2types.InstanceTypeInfo, family string, k v1.KubeletConfiguration) []*cloudprovider.InstanceType {
	ctx := options.ToContext(context.Background(), &options.Options{VMMemoryOverheadPercent: 0.075})
	zones := []string{"test-zone-1a", "test-zone-1b"}
	subnets := []v1.ZoneInfo{{Zone: "test-zone-1a", ZoneID: "tstz1-1a"}, {Zone: "test-zone-1b", ZoneID: "tstz1-1b"}}
	var out []*cloudprovider.InstanceType
	for _, info := range infos {
		out = append(out, instancetype.NewInstanceType(ctx, info, "us-west-2", zones, subnets, nil, nil, nil,
			k.MaxPods, k.PodsPerCore, k.KubeReserved, k.SystemReserved, k.EvictionHard, k.EvictionSoft, family, nil))
	}
	return out
}

// sameQuantities fails when two resource lists differ in a resource of
// names, a missing one counting as zero.
func sameQuantities(t *testing.T, what string, names []corev1.ResourceName, want, got corev1.ResourceList) {
	t.Helper()
	for _, n := range names {
		w, g := want[n], got[n]
		if w.Cmp(g) != 0 {
			t.Errorf("%s %s: Karpenter %s, adapter %s", what, n, w.String(), g.String())
		}
	}
}

var fourResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods}

// TestAWSFakeInstanceTypes runs the instance types of Karpenter's fake EC2
// API, built by Karpenter's own NewInstanceType for each family and
// kubelet configuration, through the adapter: each converts to the type
// compat reads from the same EC2 description (labels equal), they map onto
// the family's status.amis as amifamily.MapToInstanceTypes maps them, and
// capacity.Estimator.Karpenter through CapacityFromEstimate gives exactly
// the Capacity and Overhead Karpenter computed.
func TestAWSFakeInstanceTypes(t *testing.T) {
	t.Parallel()
	infos := awsFakeInfos(t)
	for _, family := range []string{"al2", "al2023", "bottlerocket", "windows2022"} {
		for _, kc := range kubeletCases() {
			t.Run(family+"/"+kc.name, func(t *testing.T) {
				f, err := compat.ParseAMIFamily(family)
				if err != nil {
					t.Fatal(err)
				}
				offered := karpenterTypes(infos, string(f), kc.kubelet)
				kubelet, err := karpenter.KubeletFromKarpenter(&kc.kubelet)
				if err != nil {
					t.Fatal(err)
				}
				est, err := capacity.NewEstimator(capacity.Launch{Family: f, Kubelet: kubelet}, capacity.EstimateOptions{})
				if f == compat.Bottlerocket && kc.kubelet.PodsPerCore != nil {
					// Karpenter ignores podsPerCore on Bottlerocket
					// (bottlerocket.go:214-220, PodsPerCoreEnabled false);
					// Bottlerocket has no such setting, so Render and the
					// Estimator refuse it.
					if err == nil {
						t.Error("NewEstimator took podsPerCore for Bottlerocket")
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				for i, it := range offered {
					fromEC2, err := compat.InstanceTypeFromEC2(infos[i])
					if err != nil {
						t.Fatal(err)
					}
					converted, err := karpenter.InstanceTypeFromKarpenter(it)
					if err != nil {
						t.Fatalf("%s: %v", it.Name, err)
					}
					// The os label is the one Karpenter sets by the
					// EC2NodeClass, not the type (types.go:313-323):
					// Linux for a Linux family, so the adapter offers
					// no Windows image to the type; compat's reading of
					// EC2 says the type runs both.
					want, got := fromEC2.Labels(), converted.Labels()
					delete(want, corev1.LabelOSStable)
					delete(got, corev1.LabelOSStable)
					if diff := cmpLabels(want, got); diff != "" {
						t.Errorf("%s: labels (-from EC2 +from Karpenter's requirements):\n%s", it.Name, diff)
					}
					capList, overhead := karpenter.CapacityFromEstimate(est.Karpenter(fromEC2, capacity.KarpenterSettings{}))
					sameQuantities(t, it.Name+" capacity", fourResources, it.Capacity, capList)
					sameQuantities(t, it.Name+" kube-reserved", fourResources, it.Overhead.KubeReserved, overhead.KubeReserved)
					sameQuantities(t, it.Name+" system-reserved", fourResources, it.Overhead.SystemReserved, overhead.SystemReserved)
					sameQuantities(t, it.Name+" eviction", fourResources, it.Overhead.EvictionThreshold, overhead.EvictionThreshold)
				}
				mapAsKarpenter(t, f, offered, karpenterStatus(t, family))
			})
		}
	}
}

func cmpLabels(want, got map[string]string) string {
	var out string
	for _, k := range slices.Sorted(mapsKeys(want, got)) {
		if want[k] != got[k] {
			out += fmt.Sprintf("  %s: %q != %q\n", k, want[k], got[k])
		}
	}
	return out
}

func mapsKeys(ms ...map[string]string) func(func(string) bool) {
	seen := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			seen[k] = true
		}
	}
	return func(yield func(string) bool) {
		for k := range seen {
			if !yield(k) {
				return
			}
		}
	}
}

// TestAWSFakeMakeInstances: the uniform instance types Karpenter's
// scheduling suites launch (pkg/fake/utils.go:193-233, MakeInstances: one
// per type of the static pricing data but a1, 2 vCPUs, 8 GiB, 3
// interfaces of 10 addresses) convert, map as Karpenter maps them, and
// get Karpenter's Capacity and Overhead from the Estimator's
// Karpenter rule.
func TestAWSFakeMakeInstances(t *testing.T) {
	t.Parallel()
	infos := awsfake.MakeInstances()
	offered := karpenterTypes(infos, v1.AMIFamilyAL2023, v1.KubeletConfiguration{})
	est, err := capacity.NewEstimator(capacity.Launch{Family: compat.AL2023}, capacity.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range offered {
		fromEC2, err := compat.InstanceTypeFromEC2(infos[i])
		if err != nil {
			t.Fatalf("%s: %v", it.Name, err)
		}
		capList, overhead := karpenter.CapacityFromEstimate(est.Karpenter(fromEC2, capacity.KarpenterSettings{}))
		sameQuantities(t, it.Name+" capacity", fourResources, it.Capacity, capList)
		sameQuantities(t, it.Name+" kube-reserved", fourResources, it.Overhead.KubeReserved, overhead.KubeReserved)
		sameQuantities(t, it.Name+" eviction", fourResources, it.Overhead.EvictionThreshold, overhead.EvictionThreshold)
	}
	got := mapAsKarpenter(t, compat.AL2023, offered, karpenterStatus(t, "al2023"))
	if n := len(got["ami-id-amd64"]); n != len(offered) {
		t.Errorf("%d of %d types took the standard amd64 image", n, len(offered))
	}
}

// TestCapacitySeam is the capacity seam across specs that share one
// Cache, as a fork's suites share the provider's: each spec starts from
// Cache.Reset. A node that registers teaches the Cache; ApplyCapacity
// puts the figure where Karpenter's provider puts its discovered capacity
// and leaves instance-memory alone; the Estimator reads the same figure
// (Source learned) and ApplyEstimates writes Capacity and Overhead, the
// types' GPU, EFA and pod-ENI capacity kept.
func TestCapacitySeam(t *testing.T) {
	cache, err := capacity.New(capacity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	infos := awsFakeInfos(t)
	status := karpenterStatus(t, "al2023")
	amis, err := karpenter.AMIsFromStatus(compat.AL2023, status)
	if err != nil {
		t.Fatal(err)
	}
	for spec := range 2 {
		t.Run(fmt.Sprintf("spec %d", spec), func(t *testing.T) {
			cache.Reset()
			offered := karpenterTypes(infos, v1.AMIFamilyAL2023, v1.KubeletConfiguration{})
			types, err := karpenter.InstanceTypesFromKarpenter(offered)
			if err != nil {
				t.Fatal(err)
			}
			mapping := amiselect.Map(types, amis)
			if n := karpenter.ApplyCapacity(cache.Apply(mapping), offered); n != 0 {
				t.Fatalf("a reset Cache changed %d types", n)
			}
			m5 := offered[slices.IndexFunc(offered, func(it *cloudprovider.InstanceType) bool { return it.Name == "m5.large" })]
			image, ok := mapping.AMIFor("m5.large")
			if !ok {
				t.Fatal("m5.large is not mapped")
			}
			reported := resource.MustParse("7910996Ki")
			node := &corev1.Node{Status: corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourceMemory: reported}}}
			node.Labels = karpenter.PinnedLabels(m5.Requirements)
			claim := nodeClaimFor(image.ID)
			if learned, err := cache.Observe(karpenter.Observation(node, claim), amis); err != nil || !learned {
				t.Fatalf("Observe = %v, %v", learned, err)
			}
			memLabel := m5.Requirements.Get(v1.LabelInstanceMemory).Any()
			if n := karpenter.ApplyCapacity(cache.Apply(mapping), offered); n != 1 {
				t.Errorf("ApplyCapacity changed %d types, want 1", n)
			}
			if got := m5.Capacity[corev1.ResourceMemory]; got.Cmp(reported) != 0 {
				t.Errorf("m5.large memory %s, want the reported %s", got.String(), reported.String())
			}
			if got := m5.Requirements.Get(v1.LabelInstanceMemory).Any(); got != memLabel {
				t.Errorf("instance-memory moved from %s to %s", memLabel, got)
			}

			est, err := capacity.NewEstimator(capacity.Launch{Family: compat.AL2023, AMIID: image.ID}, capacity.EstimateOptions{Learned: cache})
			if err != nil {
				t.Fatal(err)
			}
			var fromEC2 []compat.InstanceType
			for _, info := range infos {
				ct, err := compat.InstanceTypeFromEC2(info)
				if err != nil {
					t.Fatal(err)
				}
				fromEC2 = append(fromEC2, ct)
			}
			ests := est.EstimateAll(fromEC2)
			gpus := map[string]resource.Quantity{}
			for _, it := range offered {
				gpus[it.Name] = it.Capacity[v1.ResourceNVIDIAGPU]
			}
			if n := karpenter.ApplyEstimates(ests, offered); n != len(offered) {
				t.Errorf("ApplyEstimates changed %d types, want %d", n, len(offered))
			}
			for i, it := range offered {
				e := ests[i]
				if term, _ := e.Term(capacity.ResourceMemory, capacity.KindCapacity); (it.Name == "m5.large") != (term.Source == capacity.SourceLearned) {
					t.Errorf("%s: memory from %s", it.Name, term.Source)
				}
				want := *resource.NewQuantity(e.Capacity.Memory, resource.BinarySI)
				if got := it.Capacity[corev1.ResourceMemory]; got.Cmp(want) != 0 {
					t.Errorf("%s: memory capacity %s, want the estimate's %s", it.Name, got.String(), want.String())
				}
				kr := it.Overhead.KubeReserved[corev1.ResourceMemory]
				if kr.Value() != e.KubeReserved.Memory || kr.Value() == 0 {
					t.Errorf("%s: kube-reserved memory %s, want the estimate's %d", it.Name, kr.String(), e.KubeReserved.Memory)
				}
				if g, w := it.Capacity[v1.ResourceNVIDIAGPU], gpus[it.Name]; g.Cmp(w) != 0 {
					t.Errorf("%s: nvidia.com/gpu moved from %s to %s", it.Name, w.String(), g.String())
				}
			}
		})
	}
}

func nodeClaimFor(imageID string) *karpv1.NodeClaim {
	claim := &karpv1.NodeClaim{}
	claim.Status.ImageID = imageID
	return claim
}
