package capacity_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/amiselect/amimap"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
)

// casType is one row of cluster-autoscaler's static list: what its AWS
// provider knows of a type without calling EC2.
type casType struct {
	name      string
	vcpu, gpu int
	memoryMiB int64
	arch      string
}

func casTypes(t *testing.T) []casType {
	var out []casType
	data, err := os.ReadFile("testdata/cluster-autoscaler-static-types.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		vcpu, _ := strconv.Atoi(f[1])
		mem, _ := strconv.ParseInt(f[2], 10, 64)
		gpu, _ := strconv.Atoi(f[3])
		out = append(out, casType{name: f[0], vcpu: vcpu, memoryMiB: mem, gpu: gpu, arch: f[4]})
	}
	return out
}

// TestClusterAutoscalerTypes is issue 42's acceptance: cluster-autoscaler's
// AWS provider (kubernetes/autoscaler 55c37cd5e) builds a scale-from-zero
// node from its static list (name, vCPUs, memory, GPUs, architecture;
// aws_manager.go buildNodeFromTemplate:282-297, with pods 110 and
// allocatable = capacity, both marked TODO) and a managed node group's
// amiType. For every amiType EKS defines and each of the list's 1,108
// types of its architecture, the family comes from the amiType, capacity
// is CAS's own cpu and memory (EstimateGiven), and max pods, kube-reserved
// and allocatable equal what the boot software's own files give
// (AL2's eni-max-pods.txt, nodeadm's instance-info.jsonl, Bottlerocket's
// eni-max-pods; the references TestMaxPodsAgreeWithFamilies pins). The
// types the estimate cannot know from CAS's facts alone are looked up by
// name in the embedded catalog: the six nodeadm's snapshot lacks, for
// AL2023 and for Windows' pod addresses.
func TestClusterAutoscalerTypes(t *testing.T) {
	rows := casTypes(t)
	if len(rows) != 1108 {
		t.Fatalf("%d rows; cluster-autoscaler lists 1,108", len(rows))
	}
	enis := refENIs(t)
	br := map[string]int64{}
	for _, f := range refFile(t, "bottlerocket-eni-max-pods.txt") {
		br[f[0]], _ = strconv.ParseInt(f[1], 10, 64)
	}
	for _, amiType := range amimap.AMITypes() {
		id := amimap.IdentifyAMIType(amiType)
		if id.Unknown != "" {
			continue // CUSTOM: the launch template's image decides
		}
		t.Run(amiType, func(t *testing.T) {
			e := mustEstimator(t, capacity.Launch{Family: id.Family}, capacity.EstimateOptions{})
			estimated, looked, lacking := 0, map[string]bool{}, 0
			for _, row := range rows {
				if row.arch != id.Arch {
					continue
				}
				if _, ok := enis[row.name]; !ok && (id.Family == compat.AL2023 || id.Family.IsWindows()) {
					lacking++ // nodeadm's snapshot lacks it, and the rule needs its interfaces
				}
				it := compat.InstanceType{Name: row.name, VCPU: row.vcpu, MemoryMiB: row.memoryMiB, Arch: row.arch, GPUCount: row.gpu}
				est := casEstimate(t, e, it, row)
				if est.Err() != nil {
					full, ok := compat.InstanceTypeByName(row.name)
					if !ok {
						t.Errorf("%s: %v, and the catalog does not list it", row.name, est.Err())
						continue
					}
					it.Network, it.Hypervisor = full.Network, full.Hypervisor
					est, looked[row.name] = casEstimate(t, e, it, row), true
				}
				if err := est.Err(); err != nil {
					t.Errorf("%s: %v", row.name, err)
					continue
				}
				checkBootSoftware(t, id.Family, row, est, enis, br)
				estimated++
			}
			if len(looked) != lacking {
				t.Errorf("%d types needed the catalog lookup (%v); nodeadm's snapshot lacks %d the rule needs", len(looked), looked, lacking)
			}
			t.Logf("%s (%s %s): %d types estimated, %d through the catalog lookup", amiType, id.Family, id.Arch, estimated, len(looked))
		})
	}
}

// casEstimate is the estimate against the capacity cluster-autoscaler
// gives a node of the type: its vCPUs and its MemoryMb in MiB
// (aws_manager.go:284,286).
func casEstimate(t *testing.T, e *capacity.Estimator, it compat.InstanceType, row casType) capacity.Estimate {
	cpu, mem := int64(row.vcpu)*1000, row.memoryMiB<<20
	est, err := e.EstimateGiven(it, capacity.Given{CPU: &cpu, Memory: &mem})
	if err != nil {
		t.Fatal(err)
	}
	return est
}

// checkBootSoftware compares an estimate with the boot software's own
// figures: max pods, kube-reserved memory (11 × max pods + 255 MiB, none
// for a type Bottlerocket's file lacks, none on Windows) and cpu, and
// allocatable memory and pods from them and the 100Mi eviction threshold.
func checkBootSoftware(t *testing.T, f compat.AMIFamily, row casType, est capacity.Estimate, enis map[string][2]int64, br map[string]int64) {
	t.Helper()
	pods, reserveMem := int64(110), int64(-1)
	switch f {
	case compat.AL2:
		v := refAWK(t, row.name)
		if len(v) != 1 {
			t.Errorf("%s: AL2's table matches %v", row.name, v)
			return
		}
		pods, reserveMem = v[0], mib(11*v[0]+255)
	case compat.AL2023:
		facts, ok := enis[row.name]
		if !ok {
			e, i, _ := ownFactsOf(row.name)
			facts = [2]int64{e, i}
		}
		pods = facts[0]*(facts[1]-1) + 2
		reserveMem = mib(11*pods + 255)
	case compat.Bottlerocket:
		if v, ok := br[row.name]; ok {
			pods, reserveMem = v, mib(11*v+255)
		}
	}
	mem, set := est.Amount(capacity.KindKubeReserved, capacity.ResourceMemory)
	if !set {
		mem = -1
	}
	if est.Capacity.Pods != pods || mem != reserveMem {
		t.Errorf("%s: pods %d, kube-reserved memory %d; the boot software's %d, %d (%s)", row.name, est.Capacity.Pods, mem, pods, reserveMem, est.MaxPods.Term.Rule)
	}
	wantCPU := refCPUReserve(row.vcpu)
	if f.IsWindows() {
		wantCPU = 0
	}
	if est.KubeReserved.CPU != wantCPU {
		t.Errorf("%s: kube-reserved cpu %dm, want %dm", row.name, est.KubeReserved.CPU, wantCPU)
	}
	evict := mib(100)
	if f.IsWindows() {
		evict = mib(500) // the kubelet's Windows default
	}
	if want := row.memoryMiB<<20 - max(reserveMem, 0) - evict; est.Allocatable.Memory != max(want, 0) {
		t.Errorf("%s: allocatable memory %d, want %d", row.name, est.Allocatable.Memory, want)
	}
	if want := pods - est.Limits.Pods; est.Allocatable.Pods != want || est.Limits.Pods > 0 && !f.IsWindows() {
		t.Errorf("%s: allocatable pods %d, limit %d", row.name, est.Allocatable.Pods, est.Limits.Pods)
	}
}

// ownFactsOf is the catalog's interface facts for a type nodeadm's
// snapshot lacks, as nodeadm would read them from DescribeInstanceTypes.
func ownFactsOf(name string) (int64, int64, bool) {
	it, ok := compat.InstanceTypeByName(name)
	if !ok {
		return 0, 0, false
	}
	return ownFacts(it)
}
