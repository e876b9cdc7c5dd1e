package capacity_test

import (
	"testing"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// podsAndReserved is what Karpenter and the family must agree on: max pods
// and the kube-reserved amounts.
func podsAndReserved(est capacity.Estimate) [4]int64 {
	return [4]int64{est.Capacity.Pods, est.KubeReserved.CPU, est.KubeReserved.Memory, est.KubeReserved.EphemeralStorage}
}

// TestKarpenterAgreesByDefault: with nothing set, karpenter-provider-aws
// v1.14.1's max pods and kube-reserved (pkg/providers/instancetype/types.go:
// ENILimitedPods :485-505, kubeReservedResources :522-552) equal AL2's and
// AL2023's for every catalog type, because both tables hold the ENI
// formula Karpenter computes.
func TestKarpenterAgreesByDefault(t *testing.T) {
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023} {
		t.Run(string(f), func(t *testing.T) {
			e := mustEstimator(t, capacity.Launch{Family: f}, capacity.EstimateOptions{})
			for _, it := range estCatalog() {
				node, karp := e.Estimate(it), e.Karpenter(it, capacity.KarpenterSettings{})
				if podsAndReserved(node) != podsAndReserved(karp) {
					t.Errorf("%s: node %v, Karpenter %v", it.Name, podsAndReserved(node), podsAndReserved(karp))
				}
			}
		})
	}
}

// TestKarpenterDiffers shows, case by case, where Karpenter's prediction
// and the node's real figure part; the README's "Where we differ from
// Karpenter" says which is right and why.
func TestKarpenterDiffers(t *testing.T) {
	types := map[string]compat.InstanceType{}
	for _, it := range estCatalog() {
		types[it.Name] = it
	}

	// Bottlerocket: pluto leaves max-pods unset for a type its file lacks
	// (bottlerocket-core-kit a10182f9 sources/api/pluto/src/main.rs:140-181),
	// so the kubelet runs the template's 110 pods and no kube-reserved
	// memory (packages/kubernetes-1.31/kubelet-config:86-92,151). Karpenter
	// predicts the ENI figure and 11 × it + 255 MiB (types.go:148-151,
	// :581-582; bottlerocket.go:214-220).
	t.Run("Bottlerocket type missing from eni-max-pods", func(t *testing.T) {
		e := mustEstimator(t, capacity.Launch{Family: compat.Bottlerocket}, capacity.EstimateOptions{})
		enis := refENIs(t)
		missing := 0
		for _, it := range estCatalog() {
			if _, ok := capacity.BottlerocketMaxPodsTable().Lookup(it.Name); ok {
				continue
			}
			missing++
			node, karp := e.Estimate(it), e.Karpenter(it, capacity.KarpenterSettings{})
			f := enis[it.Name]
			eni := f[0]*(f[1]-1) + 2
			if node.Capacity.Pods != 110 || node.KubeReserved.Memory != 0 || karp.Capacity.Pods != eni || karp.KubeReserved.Memory != mib(11*eni+255) {
				t.Errorf("%s: node pods %d, memory reserved %d; Karpenter pods %d, memory reserved %d; want 110, 0, %d, %d",
					it.Name, node.Capacity.Pods, node.KubeReserved.Memory, karp.Capacity.Pods, karp.KubeReserved.Memory, eni, mib(11*eni+255))
			}
			if missing == 1 {
				t.Logf("e.g. %s: node %d pods, kube-reserved memory %s; Karpenter %d pods, %s", it.Name,
					node.Capacity.Pods, capacity.FormatQuantity(capacity.ResourceMemory, node.KubeReserved.Memory),
					karp.Capacity.Pods, capacity.FormatQuantity(capacity.ResourceMemory, karp.KubeReserved.Memory))
			}
		}
		if missing < 400 {
			t.Errorf("%d catalog types are missing from Bottlerocket's table; expected the 2026 families (over 400)", missing)
		}
	})

	for _, tc := range []struct {
		name string
		l    capacity.Launch
		s    capacity.KarpenterSettings
		it   string
		// node and karp are [pods, kube-reserved cpu, memory, storage].
		node, karp [4]int64
		// evict is [node, Karpenter] memory eviction, when it differs.
		evict [2]int64
	}{
		// --kube-reserved=cpu=250m replaces bootstrap.sh's whole
		// kubeReserved (component-base cli/flag MapStringString.Set);
		// Karpenter assigns the user's keys over its own (types.go:549-551).
		{name: "AL2 kubeReserved cpu only",
			l:  capacity.Launch{Family: compat.AL2, Kubelet: userdata.KubeletConfig{KubeReserved: map[string]string{"cpu": "250m"}}},
			it: "m5.large", node: [4]int64{29, 250, 0, 0}, karp: [4]int64{29, 250, mib(574), 1 << 30}},
		// --eviction-hard=nodefs.available<5% replaces bootstrap.sh's
		// evictionHard, memory.available 100Mi included; Karpenter keeps
		// 100Mi (types.go:554-574).
		{name: "AL2 evictionHard nodefs only",
			l:  capacity.Launch{Family: compat.AL2, Kubelet: userdata.KubeletConfig{EvictionHard: map[string]string{"nodefs.available": "5%"}}},
			it: "m5.large", node: [4]int64{29, 70, mib(574), 1 << 30}, karp: [4]int64{29, 70, mib(574), 1 << 30}, evict: [2]int64{0, mib(100)}},
		// nodeadm's documented custom-networking expression
		// (nodeadm/doc/examples.md; e2e expected.json maxPods 44, 739Mi);
		// Karpenter reads no maxPodsExpression.
		{name: "AL2023 custom-networking maxPodsExpression",
			l:  capacity.Launch{Family: compat.AL2023, MaxPodsExpression: "((default_enis - 1) * (ips_per_eni - 1)) + 2"},
			it: "m4.xlarge", node: [4]int64{44, 80, mib(739), 1 << 30}, karp: [4]int64{58, 80, mib(893), 1 << 30}},
		// RESERVED_ENIS=1: Karpenter counts one interface fewer for pods
		// (types.go:494-503) and none fewer for kube-reserved (:150-151);
		// bootstrap.sh reads neither, so the kubelet admits the table's 29.
		{name: "AL2 with RESERVED_ENIS=1",
			l:  capacity.Launch{Family: compat.AL2, Network: capacity.Network{ReservedENIs: 1}},
			s:  capacity.KarpenterSettings{ReservedENIs: 1},
			it: "m5.large", node: [4]int64{29, 70, mib(574), 1 << 30}, karp: [4]int64{20, 70, mib(574), 1 << 30}},
		// maxPods 110 on AL2023: both reserve memory by the ENI figure
		// (nodeadm config.go:278-287; Karpenter's
		// UsesENILimitedMemoryOverhead, types.go:150-151, resolver.go:127-134).
		{name: "AL2023 maxPods 110 (agreement)",
			l:  capacity.Launch{Family: compat.AL2023, Kubelet: userdata.KubeletConfig{MaxPods: ptr[int32](110)}},
			it: "m4.xlarge", node: [4]int64{110, 80, mib(893), 1 << 30}, karp: [4]int64{110, 80, mib(893), 1 << 30}},
		// Windows: Start-EKSBootstrap.ps1 sets no reservations (assumed,
		// aws/containers-roadmap#1245) and the kubelet's Windows default
		// evicts at 500Mi; Karpenter reserves as for Linux with 110 pods
		// (windows.go:101-108: no ENI-limited density or memory) and 100Mi.
		{name: "Windows",
			l:  capacity.Launch{Family: compat.Windows2022},
			it: "m5.large", node: [4]int64{110, 0, 0, 0}, karp: [4]int64{110, 70, mib(11*110 + 255), 1 << 30}, evict: [2]int64{mib(500), mib(100)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustEstimator(t, tc.l, capacity.EstimateOptions{})
			node, karp := e.Estimate(types[tc.it]), e.Karpenter(types[tc.it], tc.s)
			if got := podsAndReserved(node); got != tc.node {
				t.Errorf("node %v, want %v\n%s", got, tc.node, node.Explain())
			}
			if got := podsAndReserved(karp); got != tc.karp {
				t.Errorf("Karpenter %v, want %v\n%s", got, tc.karp, karp.Explain())
			}
			if tc.evict != [2]int64{} {
				if got := [2]int64{node.EvictionHard.Memory, karp.EvictionHard.Memory}; got != tc.evict {
					t.Errorf("memory eviction: node %d, Karpenter %d; want %v", got[0], got[1], tc.evict)
				}
			}
		})
	}

	// Memory: Karpenter takes 7.5% (and 64 MiB on arm64) of every type;
	// the measured-overhead model 160 MiB + 4%.
	t.Run("memory capacity", func(t *testing.T) {
		e := mustEstimator(t, capacity.Launch{Family: compat.AL2023}, capacity.EstimateOptions{})
		for _, tc := range []struct {
			it         string
			node, karp int64 // MiB
		}{
			{"m5.large", 8192 - 160 - 328, 8192 - 615},
			{"r7g.16xlarge", 524288 - 160 - 20972, 524224 - 39317},
		} {
			node, karp := e.Estimate(types[tc.it]), e.Karpenter(types[tc.it], capacity.KarpenterSettings{})
			if node.Capacity.Memory != mib(tc.node) || karp.Capacity.Memory != mib(tc.karp) {
				t.Errorf("%s: node %d MiB, Karpenter %d MiB; want %d, %d", tc.it, node.Capacity.Memory>>20, karp.Capacity.Memory>>20, tc.node, tc.karp)
			}
		}
	})

	// A percentage threshold: the kubelet multiplies by float32(p)/100 and
	// truncates (pkg/kubelet/eviction/helpers.go:427-433,
	// api/types.go:116); Karpenter divides by 100 in float64 and rounds up
	// (types.go:557,599-608). For 10% of 20Gi the kubelet takes 32 bytes
	// more.
	t.Run("percentage rounding", func(t *testing.T) {
		e := mustEstimator(t, capacity.Launch{Family: compat.AL2023}, capacity.EstimateOptions{})
		node, karp := e.Estimate(types["m5.large"]), e.Karpenter(types["m5.large"], capacity.KarpenterSettings{})
		if got := [2]int64{node.EvictionHard.EphemeralStorage, karp.EvictionHard.EphemeralStorage}; got != [2]int64{2147483680, 2147483648} {
			t.Errorf("nodefs.available 10%% of 20Gi: node %d, Karpenter %d", got[0], got[1])
		}
	})
}

// TestKarpenterSettings pins VM_MEMORY_OVERHEAD_PERCENT and podsPerCore,
// which Bottlerocket ignores (bottlerocket.go:214-220).
func TestKarpenterSettings(t *testing.T) {
	e := mustEstimator(t, capacity.Launch{Family: compat.AL2023, Kubelet: userdata.KubeletConfig{PodsPerCore: ptr[int32](4)}}, capacity.EstimateOptions{})
	karp := e.Karpenter(m5large, capacity.KarpenterSettings{VMMemoryOverheadPercent: ptr(0.0)})
	if karp.Capacity.Memory != mib(8192) || karp.Capacity.Pods != 8 {
		t.Errorf("memory %d, pods %d; want 8192Mi, 4 × 2 = 8", karp.Capacity.Memory, karp.Capacity.Pods)
	}
	arm := m5large
	arm.Name, arm.Arch = "m6g.large", compat.ArchARM64
	if got := e.Karpenter(arm, capacity.KarpenterSettings{}).Capacity.Memory; got != mib(8128-610) {
		t.Errorf("arm64 memory %d MiB, want 8128 − ceil(7.5%%) = %d", got>>20, 8128-610)
	}
}

// TestKarpenterEvictionSignal pins computeEvictionSignal
// (karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go:599-621):
// a percentage of capacity rounded up, 100% meaning none, a quantity as
// written.
func TestKarpenterEvictionSignal(t *testing.T) {
	for _, tc := range []struct {
		hard map[string]string
		want [2]int64 // memory, ephemeral-storage
	}{
		{map[string]string{"nodefs.available": "10%"}, [2]int64{mib(100), 100}}, // ceil(99.9)
		{map[string]string{"memory.available": "100%", "nodefs.available": "0%"}, [2]int64{0, 0}},
		{map[string]string{"memory.available": "1Gi"}, [2]int64{1 << 30, 100}}, // and the default ceil(10%)
	} {
		e := mustEstimator(t, capacity.Launch{Family: compat.AL2023, RootVolumeBytes: 999, Kubelet: userdata.KubeletConfig{EvictionHard: tc.hard}}, capacity.EstimateOptions{})
		k := e.Karpenter(m5large, capacity.KarpenterSettings{})
		if got := [2]int64{k.EvictionHard.Memory, k.EvictionHard.EphemeralStorage}; got != tc.want {
			t.Errorf("%v: %v, want %v", tc.hard, got, tc.want)
		}
	}
}

// TestNodeadmReadsItsSnapshotFirst: nodeadm takes a type's interfaces
// from its embedded instance-info.jsonl before DescribeInstanceTypes
// (amazon-eks-ami 81fec2e8 nodeadm/internal/kubelet/eni_max_pods.go:33-52),
// AL2 from its table, and Karpenter from DescribeInstanceTypes
// (types.go:485-505): when EC2's answer has changed, they part.
func TestNodeadmReadsItsSnapshotFirst(t *testing.T) {
	changed := m5large
	changed.Network = capacity4(4, 10) // EC2 now says 4 interfaces; the snapshot says 3
	for _, tc := range []struct {
		f          compat.AMIFamily
		node, karp int64
	}{{compat.AL2023, 29, 38}, {compat.AL2, 29, 38}} {
		e := mustEstimator(t, capacity.Launch{Family: tc.f}, capacity.EstimateOptions{})
		if got := [2]int64{e.Estimate(changed).Capacity.Pods, e.Karpenter(changed, capacity.KarpenterSettings{}).Capacity.Pods}; got != [2]int64{tc.node, tc.karp} {
			t.Errorf("%s: node %d, Karpenter %d; want %d, %d", tc.f, got[0], got[1], tc.node, tc.karp)
		}
	}
}
