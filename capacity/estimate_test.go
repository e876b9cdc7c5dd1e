package capacity_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// m5large is m5.large with its DescribeInstanceTypes facts.
var m5large = compat.InstanceType{Name: "m5.large", Family: "m5", Category: "m", Generation: 5, Size: "large",
	Arch: compat.ArchAMD64, VCPU: 2, MemoryMiB: 8192, Hypervisor: "nitro", Network: capacity4(3, 10)}

// reservations is an estimate's reservation terms as "kind resource amount"
// lines, for comparing what each family keeps of a user's configuration.
func reservations(est capacity.Estimate) []string {
	var out []string
	for _, t := range est.Terms {
		if t.Kind == capacity.KindCapacity {
			continue
		}
		out = append(out, t.Kind.String()+" "+t.Resource.String()+" "+capacity.FormatQuantity(t.Resource, t.Amount)+" "+t.Source.String())
	}
	return out
}

// TestFamiliesPassTheKubeletConfig pins, family by family, what a user's
// kubeReserved and evictionHard leave of the family's own:
//
//   - AL2 and Windows pass kubelet flags, and a map flag replaces the
//     config file's map (kubernetes v1.35.3 cmd/kubelet/app/options/options.go:488,500-501;
//     k8s.io/component-base v0.35.3 cli/flag/map_string_string.go Set clears
//     the map on the first value).
//   - AL2023 passes a drop-in the kubelet merges key by key
//     (cmd/kubelet/app/server.go:355 jsonpatch.MergePatch; amazon-eks-ami
//     81fec2e8 nodeadm/internal/kubelet/config.go:352-376).
//   - Bottlerocket's template takes kube-reserved key by key and
//     eviction-hard whole (bottlerocket-core-kit a10182f9
//     packages/kubernetes-1.31/kubelet-config:42-47,84-93).
func TestFamiliesPassTheKubeletConfig(t *testing.T) {
	kubelet := userdata.KubeletConfig{
		KubeReserved: map[string]string{"cpu": "250m"},
		EvictionHard: map[string]string{"memory.available": "500Mi"},
	}
	for _, tc := range []struct {
		f    compat.AMIFamily
		want []string
	}{
		{compat.AL2, []string{
			"kube-reserved cpu 250m user kubelet config",
			"kube-reserved memory 0 user kubelet config", // --kube-reserved dropped bootstrap.sh's 574Mi
			"kube-reserved ephemeral-storage 0 user kubelet config",
			"eviction-hard memory 500Mi user kubelet config",
			"eviction-hard ephemeral-storage 0 user kubelet config", // --eviction-hard dropped nodefs.available
		}},
		{compat.AL2023, []string{
			"kube-reserved cpu 250m user kubelet config",
			"kube-reserved memory 574Mi family rule",
			"kube-reserved ephemeral-storage 1Gi family rule",
			"eviction-hard memory 500Mi user kubelet config",
			"eviction-hard ephemeral-storage 2147483680 family rule", // 10% of 20Gi, with the kubelet's float32
		}},
		{compat.Bottlerocket, []string{
			"kube-reserved cpu 250m user kubelet config",
			"kube-reserved memory 574Mi family rule",
			"kube-reserved ephemeral-storage 1Gi family rule",
			"eviction-hard memory 500Mi user kubelet config",
			"eviction-hard ephemeral-storage 0 user kubelet config",
		}},
		{compat.Windows2022, []string{
			"kube-reserved cpu 250m user kubelet config",
			"eviction-hard memory 500Mi user kubelet config",
			"eviction-hard ephemeral-storage 0 user kubelet config",
			"limit pods 101 family rule", // 110 pods, 9 addresses
		}},
	} {
		t.Run(string(tc.f), func(t *testing.T) {
			est := mustEstimator(t, capacity.Launch{Family: tc.f, Kubelet: kubelet}, capacity.EstimateOptions{}).Estimate(m5large)
			if diff := cmp.Diff(tc.want, reservations(est)); diff != "" {
				t.Errorf("(-want +got)\n%s\n%s", diff, est.Explain())
			}
		})
	}
}

// TestFamilyDefaults pins each family's reservations with nothing set.
func TestFamilyDefaults(t *testing.T) {
	for _, tc := range []struct {
		f    compat.AMIFamily
		want []string
	}{
		{compat.AL2, []string{
			"kube-reserved cpu 70m family rule", "kube-reserved memory 574Mi family rule", "kube-reserved ephemeral-storage 1Gi family rule",
			"eviction-hard memory 100Mi family rule", "eviction-hard ephemeral-storage 2147483680 family rule"}},
		{compat.Bottlerocket, []string{
			"kube-reserved cpu 70m family rule", "kube-reserved memory 574Mi family rule", "kube-reserved ephemeral-storage 1Gi family rule",
			"eviction-hard memory 100Mi kubelet default", "eviction-hard ephemeral-storage 2147483680 kubelet default"}},
		// Windows: the kubelet's defaults, whose memory.available is 500Mi
		// (kubernetes v1.35.3 pkg/kubelet/eviction/defaults_windows.go).
		{compat.Windows2019, []string{
			"eviction-hard memory 500Mi kubelet default", "eviction-hard ephemeral-storage 5368709200 kubelet default",
			"limit pods 101 family rule"}},
		{compat.Custom, []string{
			"eviction-hard memory 100Mi kubelet default", "eviction-hard ephemeral-storage 2147483680 kubelet default"}},
	} {
		t.Run(string(tc.f), func(t *testing.T) {
			est := mustEstimator(t, capacity.Launch{Family: tc.f}, capacity.EstimateOptions{}).Estimate(m5large)
			if diff := cmp.Diff(tc.want, reservations(est)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestEstimateTable(t *testing.T) {
	est := mustEstimator(t, capacity.Launch{Family: compat.AL2023, RootVolumeBytes: 80 << 30}, capacity.EstimateOptions{}).Estimate(m5large)
	want := `m5.large under AL2023
resource           capacity  kube-reserved  system-reserved  eviction-hard  allocatable
cpu                       2            70m                0              0        1930m
memory               7704Mi          574Mi                0          100Mi       7030Mi
ephemeral-storage      80Gi            1Gi                0     8589934720  76235669376
pods                     29              0                0              0           29
`
	if diff := cmp.Diff(want, est.String()); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	wantTotals := capacity.Quantities{CPU: 1930, Memory: mib(7030), EphemeralStorage: 80<<30 - 1<<30 - 8589934720, Pods: 29}
	if diff := cmp.Diff(wantTotals, est.Allocatable); diff != "" {
		t.Errorf("allocatable (-want +got)\n%s", diff)
	}
}

func TestStorage(t *testing.T) {
	withStore := m5large
	withStore.Name, withStore.InstanceStoreGB = "m5d.large", 75
	for _, tc := range []struct {
		name string
		l    capacity.Launch
		it   compat.InstanceType
		want int64
	}{
		{"default root volume", capacity.Launch{Family: compat.AL2023}, m5large, 20 << 30},
		{"Windows default", capacity.Launch{Family: compat.Windows2025}, m5large, 50 << 30},
		{"given volume", capacity.Launch{Family: compat.Bottlerocket, RootVolumeBytes: 100 << 30}, m5large, 100 << 30},
		{"RAID0 instance store", capacity.Launch{Family: compat.AL2023, InstanceStorePolicy: userdata.RAID0}, withStore, 75_000_000_000},
		{"RAID0 without instance store", capacity.Launch{Family: compat.AL2023, InstanceStorePolicy: userdata.RAID0, RootVolumeBytes: 30 << 30}, m5large, 30 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustEstimator(t, tc.l, capacity.EstimateOptions{}).Estimate(tc.it).Capacity.EphemeralStorage; got != tc.want {
				t.Errorf("ephemeral-storage %d, want %d", got, tc.want)
			}
		})
	}
}

// lookup is a MemoryLookup with fixed figures.
type lookup map[[2]string]int64

func (l lookup) Memory(instanceType, amiID string) (int64, bool) {
	v, ok := l[[2]string{instanceType, amiID}]
	return v, ok
}

func TestLearnedMemory(t *testing.T) {
	learned := lookup{{"m5.large", "ami-1"}: 7_926_000_000}
	for _, tc := range []struct {
		name   string
		ami    string
		model  capacity.MemoryModel
		want   int64
		source capacity.Source
	}{
		{"learned", "ami-1", capacity.MeasuredOverhead, 7_926_000_000, capacity.SourceLearned},
		{"other AMI: measured model", "ami-2", capacity.MeasuredOverhead, mib(8192 - 160 - 328), capacity.SourceHeuristic},
		{"other AMI: Karpenter's model", "ami-2", capacity.KarpenterOverhead, mib(8192 - 615), capacity.SourceHeuristic},
		{"no AMI", "", capacity.MeasuredOverhead, mib(7704), capacity.SourceHeuristic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustEstimator(t, capacity.Launch{Family: compat.AL2023, AMIID: tc.ami}, capacity.EstimateOptions{Learned: learned, Memory: tc.model})
			est := e.Estimate(m5large)
			term, _ := termOf(est, capacity.ResourceMemory, capacity.KindCapacity)
			if est.Capacity.Memory != tc.want || term.Source != tc.source {
				t.Errorf("memory %d from %v, want %d from %v", est.Capacity.Memory, term.Source, tc.want, tc.source)
			}
		})
	}
}

func TestNewEstimatorErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    capacity.Launch
		o    capacity.EstimateOptions
		err  string
	}{
		{"no family", capacity.Launch{}, capacity.EstimateOptions{}, `Launch.Family "" is not an AMI family`},
		{"invalid kubelet config", capacity.Launch{Family: compat.AL2, Kubelet: userdata.KubeletConfig{KubeReserved: map[string]string{"gpu": "1"}}}, capacity.EstimateOptions{}, `capacity: Launch.Kubelet: userdata: Config.Kubelet.KubeReserved["gpu"] is a resource the kubelet cannot reserve`},
		{"pods per core on Bottlerocket", capacity.Launch{Family: compat.Bottlerocket, Kubelet: userdata.KubeletConfig{PodsPerCore: ptr[int32](4)}}, capacity.EstimateOptions{}, "Bottlerocket has no pods-per-core setting"},
		{"expression on AL2", capacity.Launch{Family: compat.AL2, MaxPodsExpression: "max_pods + 1"}, capacity.EstimateOptions{}, "only AL2023's nodeadm reads a maxPodsExpression"},
		{"expression that does not compile", capacity.Launch{Family: compat.AL2023, MaxPodsExpression: "max_pods +"}, capacity.EstimateOptions{}, `capacity: maxPodsExpression "max_pods +", at 1:11: Syntax error`},
		{"calculator beside maxPods", capacity.Launch{Family: compat.AL2, MaxPodsCalculator: &capacity.MaxPodsCalculator{CNIVersion: "1.19.2"}, Kubelet: userdata.KubeletConfig{MaxPods: ptr[int32](3)}}, capacity.EstimateOptions{}, "both set maxPods"},
		{"calculator version", capacity.Launch{Family: compat.AL2, MaxPodsCalculator: &capacity.MaxPodsCalculator{CNIVersion: "v1"}}, capacity.EstimateOptions{}, `MaxPodsCalculator.CNIVersion "v1"`},
		{"calculator with two reserved interfaces", capacity.Launch{Family: compat.AL2, MaxPodsCalculator: &capacity.MaxPodsCalculator{CNIVersion: "1.19.2"}, Network: capacity.Network{ReservedENIs: 2}}, capacity.EstimateOptions{}, "reserves one interface"},
		{"negative fallback", capacity.Launch{Family: compat.AL2}, capacity.EstimateOptions{FallbackMaxPods: -1}, "FallbackMaxPods is -1"},
		{"expression without NodeClassCEL", capacity.Launch{Family: compat.AL2023, Kubelet: userdata.KubeletConfig{KubeReserved: map[string]string{"memory": "memory_mib / 100"}}}, capacity.EstimateOptions{}, "needs Launch.NodeClassCEL"},
		{"NodeClassCEL expression that does not compile", capacity.Launch{Family: compat.AL2023, NodeClassCEL: true, Kubelet: userdata.KubeletConfig{KubeReserved: map[string]string{"memory": "memory_mib > 1"}}}, capacity.EstimateOptions{}, `Launch.Kubelet.KubeReserved["memory"]: capacity: NodeClassCEL expression "memory_mib > 1", at 1:12: the expression gives bool`},
		{"NodeClassCEL expression under a bad key", capacity.Launch{Family: compat.AL2023, NodeClassCEL: true, Kubelet: userdata.KubeletConfig{SystemReserved: map[string]string{"gpu": "vcpus"}}}, capacity.EstimateOptions{}, `SystemReserved["gpu"] is a resource the kubelet cannot reserve`},
		{"negative interfaces", capacity.Launch{Family: compat.AL2023, Network: capacity.Network{ReservedENIs: -1}}, capacity.EstimateOptions{}, "ReservedENIs -1"},
		{"negative volume", capacity.Launch{Family: compat.AL2023, RootVolumeBytes: -1}, capacity.EstimateOptions{}, "RootVolumeBytes is -1"},
		{"unknown policy", capacity.Launch{Family: compat.AL2023, InstanceStorePolicy: "RAID1"}, capacity.EstimateOptions{}, `InstanceStorePolicy "RAID1"`},
		{"unknown model", capacity.Launch{Family: compat.AL2023}, capacity.EstimateOptions{Memory: 9}, "is not a model"},
		{"reservation too large", capacity.Launch{Family: compat.AL2023, Kubelet: userdata.KubeletConfig{SystemReserved: map[string]string{"memory": "10E"}}}, capacity.EstimateOptions{}, `capacity: Launch.Kubelet.SystemReserved["memory"]: quantity "10E": it is beyond int64 in this unit`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := capacity.NewEstimator(tc.l, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err = %v, want one containing %q", err, tc.err)
			}
			// Every refusal is typed: the field and fix, or the expression
			// and where in it.
			var in *capacity.InputError
			var xe *capacity.ExpressionError
			if !errors.As(err, &in) && !errors.As(err, &xe) || in != nil && in.Field == "" {
				t.Errorf("err = %#v is neither an *InputError naming its field nor an *ExpressionError", err)
			}
		})
	}
}

// TestUnknown: what cannot be known is said, as data, never guessed; what
// is assumed is said apart from it, and does not fail Err.
func TestUnknown(t *testing.T) {
	unknown := compat.InstanceType{Name: "zz9.large", VCPU: 2, MemoryMiB: 8192, Hypervisor: "nitro"}
	noFacts := "zz9.large has no interface facts (compat.InstanceType.Network from DescribeInstanceTypes) and nodeadm's instance-info.jsonl does not list it"
	al2 := "eni-max-pods.txt does not list zz9.large, so bootstrap.sh asks DescribeInstanceTypes, and " + noFacts
	fix := "load the type from DescribeInstanceTypes (compat.InstanceTypeFromEC2, or compat.InstanceTypeByName from the embedded catalog), set Launch.Kubelet.MaxPods, or give EstimateOptions.FallbackMaxPods"
	both := func(detail string) []capacity.Unknown {
		return []capacity.Unknown{
			{Resource: capacity.ResourcePods, Kind: capacity.KindCapacity, Reason: capacity.ReasonNoInterfaceFacts, Input: "zz9.large", Detail: detail, Fix: fix},
			{Resource: capacity.ResourceMemory, Kind: capacity.KindKubeReserved, Reason: capacity.ReasonNoInterfaceFacts, Input: "zz9.large", Detail: detail, Fix: fix},
		}
	}
	for _, tc := range []struct {
		f           compat.AMIFamily
		unknown     []capacity.Unknown
		assumptions []string
	}{
		{compat.AL2, both(al2), nil},
		{compat.AL2023, both(noFacts), nil},
		// Bottlerocket needs no interface facts: pluto's table decides.
		{compat.Bottlerocket, nil, nil},
		{compat.Windows2022, []capacity.Unknown{{Resource: capacity.ResourcePods, Kind: capacity.KindLimit, Reason: capacity.ReasonNoInterfaceFacts, Input: "zz9.large",
			Detail: "the VPC resource controller offers Windows pods IPv4 addresses per interface − 1, and " + noFacts,
			Fix:    "load the type from DescribeInstanceTypes (compat.InstanceTypeFromEC2, or compat.InstanceTypeByName from the embedded catalog)"}},
			[]string{"Start-EKSBootstrap.ps1 is not published: this assumes it sets no maxPods, kubeReserved or evictionHard, as aws/containers-roadmap#1245 says"}},
	} {
		t.Run(string(tc.f), func(t *testing.T) {
			est := mustEstimator(t, capacity.Launch{Family: tc.f}, capacity.EstimateOptions{}).Estimate(unknown)
			if diff := cmp.Diff(tc.unknown, est.Unknown); diff != "" {
				t.Errorf("Unknown (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tc.assumptions, est.Assumptions); diff != "" {
				t.Errorf("Assumptions (-want +got)\n%s", diff)
			}
			err := est.Err()
			var u capacity.Unknown
			if (err != nil) != (len(tc.unknown) > 0) || err != nil && (!errors.As(err, &u) || u != tc.unknown[0]) {
				t.Errorf("Err() = %v; want the unknowns, the first found by errors.As", err)
			}
			if _, known := est.Amount(capacity.KindCapacity, capacity.ResourcePods); known == (len(tc.unknown) > 0 && tc.unknown[0].Kind == capacity.KindCapacity) {
				t.Errorf("Amount(capacity, pods) known = %v with unknowns %v", known, est.Unknown)
			}
		})
	}
}

// TestUserMaxPodsKeepsFamilyReservation: on AL2 and AL2023, kube-reserved
// memory follows the family's own max pods, not the user's
// (amazon-eks-ami 0ab84280 templates/al2/runtime/bootstrap.sh:522-532;
// 81fec2e8 nodeadm/internal/kubelet/config.go:278-287); on Bottlerocket it
// follows the setting (kubelet-config:89-90).
func TestUserMaxPodsKeepsFamilyReservation(t *testing.T) {
	for _, tc := range []struct {
		f    compat.AMIFamily
		want int64
	}{{compat.AL2, mib(11*29 + 255)}, {compat.AL2023, mib(11*29 + 255)}, {compat.Bottlerocket, mib(11*110 + 255)}} {
		est := mustEstimator(t, capacity.Launch{Family: tc.f, Kubelet: userdata.KubeletConfig{MaxPods: ptr[int32](110)}}, capacity.EstimateOptions{}).Estimate(m5large)
		m, _ := termOf(est, capacity.ResourceMemory, capacity.KindKubeReserved)
		if est.Capacity.Pods != 110 || m.Amount != tc.want {
			t.Errorf("%s: pods %d, kube-reserved memory %d; want 110, %d", tc.f, est.Capacity.Pods, m.Amount, tc.want)
		}
	}
}

// TestEvictionPercent pins the kubelet's arithmetic for a percentage:
// float32(p)/100, times capacity as float64, truncated
// (pkg/kubelet/eviction/helpers.go:427-433, api/types.go:116), and the "0%"
// and "100%" it ignores (helpers.go:387-390).
func TestEvictionPercent(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int64
	}{
		{"10%", 2147483680},
		{"5%", 1073741840},
		{"0%", 0},
		{"100%", 0},
		{"100.0%", 20 << 30},
		{"2Gi", 2 << 30},
	} {
		e := mustEstimator(t, capacity.Launch{Family: compat.AL2023, Kubelet: userdata.KubeletConfig{EvictionHard: map[string]string{"nodefs.available": tc.text}}}, capacity.EstimateOptions{})
		if got := e.Estimate(m5large).EvictionHard.EphemeralStorage; got != tc.want {
			t.Errorf("nodefs.available %s of 20Gi: %d, want %d", tc.text, got, tc.want)
		}
	}
	// 10% of 999 bytes is 99.9…: truncated, not rounded.
	e := mustEstimator(t, capacity.Launch{Family: compat.AL2023, RootVolumeBytes: 999}, capacity.EstimateOptions{})
	if got := e.Estimate(m5large).EvictionHard.EphemeralStorage; got != 99 {
		t.Errorf("nodefs.available 10%% of 999 bytes: %d, want 99", got)
	}
}

func TestParseQuantity(t *testing.T) {
	for _, tc := range []struct {
		r    capacity.Resource
		s    string
		want int64
		err  string
	}{
		{capacity.ResourceCPU, "100m", 100, ""},
		{capacity.ResourceCPU, "1.5", 1500, ""},
		{capacity.ResourceCPU, "0.1m", 1, ""}, // rounded up, as MilliValue rounds
		{capacity.ResourceCPU, "1Ki", 1024000, ""},
		{capacity.ResourceMemory, "1.5Gi", 1610612736, ""},
		{capacity.ResourceMemory, "0.5", 1, ""}, // rounded up, as Value rounds
		{capacity.ResourceMemory, "1e3", 1000, ""},
		{capacity.ResourceMemory, "1.G", 1_000_000_000, ""},
		{capacity.ResourceMemory, "+", 0, ""},
		{capacity.ResourcePods, "2e3", 2000, ""},
		{capacity.ResourceMemory, "1e-40", 1, ""},
		{capacity.ResourceMemory, "-1", 0, "capacity: memory quantity \"-1\": it is negative"},
		{capacity.ResourceMemory, "10E", 0, "beyond int64"},
		{capacity.ResourceMemory, "1.5.5", 0, "is not a quantity"},
		{capacity.ResourceMemory, "1mi", 0, "unknown suffix \"mi\""},
		{capacity.ResourceMemory, "", 0, "is not a quantity"},
	} {
		got, err := capacity.ParseQuantity(tc.r, tc.s)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseQuantity(%s, %q) = %d, %v; want an error containing %q", tc.r, tc.s, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseQuantity(%s, %q) = %d, %v; want %d", tc.r, tc.s, got, err, tc.want)
		}
	}
	// A reservation is rounded down: the scheduler rounds allocatable up.
	e := mustEstimator(t, capacity.Launch{Family: compat.AL2023, Kubelet: userdata.KubeletConfig{SystemReserved: map[string]string{"memory": "1.9", "cpu": "0.5m"}}}, capacity.EstimateOptions{})
	if got := e.Estimate(m5large).SystemReserved; got.Memory != 1 || got.CPU != 0 {
		t.Errorf("system-reserved memory 1.9 bytes and cpu 0.5m: %v, want memory 1 and cpu 0", got)
	}
}

// TestWindowsTable: the Windows pod-address cap shows as its own column.
func TestWindowsTable(t *testing.T) {
	est := mustEstimator(t, capacity.Launch{Family: compat.Windows2022}, capacity.EstimateOptions{}).Estimate(m5large)
	want := `m5.large under Windows2022
resource           capacity  kube-reserved  system-reserved  eviction-hard  limit  allocatable
cpu                       2              0                0              0      0            2
memory               7704Mi              0                0          500Mi      0       7204Mi
ephemeral-storage      50Gi              0                0     5368709200      0  48318382000
pods                    110              0                0              0    101            9
`
	if diff := cmp.Diff(want, est.String()); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
