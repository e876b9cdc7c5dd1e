package karpenter

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/nodeclass"
)

// TestNodeTemplate: m5.large under AL2023 as a cluster-autoscaler node
// template: its labels, nodeadm's 29 pods, and allocatable from the
// estimate (1930m, capacity less 574Mi and 100Mi), in one call; a type
// whose interfaces are unknown leaves pods out of both lists.
func TestNodeTemplate(t *testing.T) {
	m5, _ := compat.InstanceTypeByName("m5.large")
	e, err := capacity.NewEstimator(capacity.Launch{Family: compat.AL2023}, capacity.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cpu, mem := int64(2000), int64(8192)<<20 // what cluster-autoscaler's static list says
	est, err := e.EstimateGiven(m5, capacity.Given{CPU: &cpu, Memory: &mem})
	if err != nil {
		t.Fatal(err)
	}
	node := NodeTemplate("ng-1-template", m5, est)
	want := corev1.NodeStatus{
		Capacity: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"),
			corev1.ResourceEphemeralStorage: resource.MustParse("20Gi"), corev1.ResourcePods: resource.MustParse("29"),
		},
		Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("1930m"), corev1.ResourceMemory: resource.MustParse("7518Mi"),
			corev1.ResourceEphemeralStorage: *resource.NewQuantity(est.Allocatable.EphemeralStorage, resource.BinarySI), corev1.ResourcePods: resource.MustParse("29"),
		},
	}
	if diff := cmp.Diff(want, node.Status, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
		t.Errorf("status (-want +got)\n%s", diff)
	}
	if node.Labels[corev1.LabelInstanceTypeStable] != "m5.large" || node.Labels[corev1.LabelArchStable] != "amd64" || node.Name != "ng-1-template" {
		t.Errorf("labels %v", node.Labels)
	}
	unknown := NodeTemplate("x", compat.InstanceType{Name: "zz9.large", VCPU: 2, MemoryMiB: 8192}, e.Estimate(compat.InstanceType{Name: "zz9.large", VCPU: 2, MemoryMiB: 8192}))
	if _, ok := unknown.Status.Capacity[corev1.ResourcePods]; ok {
		t.Errorf("pods capacity written although unknown: %v", unknown.Status.Capacity)
	}
	if _, ok := unknown.Status.Allocatable[corev1.ResourceMemory]; ok {
		t.Errorf("allocatable memory written although its kube-reserved is unknown")
	}
	if _, ok := unknown.Status.Capacity[corev1.ResourceMemory]; !ok {
		t.Errorf("memory capacity, which is known, left out")
	}
}

// TestUnsetStaysUnsetThroughLists: a reservation is in Reserved's lists
// exactly when the estimate sets it (a set 0 included), and capacity and
// allocatable lists hold a resource exactly when the estimate knows it.
func TestUnsetStaysUnsetThroughLists(t *testing.T) {
	types := []string{"m5.large", "c6g.xlarge", "p4d.24xlarge", "t3.nano"}
	rapid.Check(t, func(t *rapid.T) {
		f := rapid.SampledFrom(compat.AMIFamilies()).Draw(t, "family")
		k := nodeclass.Kubelet{}
		for _, key := range []string{"cpu", "memory", "ephemeral-storage"} {
			if rapid.Bool().Draw(t, "kube "+key) {
				k.KubeReserved = setKey(k.KubeReserved, key, rapid.SampledFrom([]string{"0", "100Mi", "1"}).Draw(t, "kube amount"))
			}
			if rapid.Bool().Draw(t, "system "+key) {
				k.SystemReserved = setKey(k.SystemReserved, key, rapid.SampledFrom([]string{"0", "100Mi", "1"}).Draw(t, "system amount"))
			}
		}
		if rapid.Bool().Draw(t, "evict") {
			k.EvictionHard = map[string]string{rapid.SampledFrom([]string{"memory.available", "nodefs.available"}).Draw(t, "signal"): rapid.SampledFrom([]string{"0%", "5%", "1Gi"}).Draw(t, "threshold")}
		}
		e, err := capacity.NewEstimator(capacity.Launch{Family: f, Kubelet: k}, capacity.EstimateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		it, ok := compat.InstanceTypeByName(rapid.SampledFrom(types).Draw(t, "type"))
		if !ok || rapid.Bool().Draw(t, "forget facts") {
			it.Network = compat.Network{}
			it.Name = "zz9.large"
		}
		est := e.Estimate(it)
		kube, system, evict := Reserved(est)
		for i, list := range []corev1.ResourceList{kube, system, evict} {
			kind := []capacity.Kind{capacity.KindKubeReserved, capacity.KindSystemReserved, capacity.KindEvictionHard}[i]
			for r, name := range resourceNames {
				v, set := est.Amount(kind, capacity.Resource(r))
				q, in := list[name]
				if in != set || in && q.Cmp(quantity(capacity.Resource(r), v)) != 0 {
					t.Fatalf("%s %s: in the list %v (%v), set %v (%d)", kind, name, in, q, set, v)
				}
			}
		}
		c, a := ResourceLists(est)
		for r, name := range resourceNames {
			_, known := est.Amount(capacity.KindCapacity, capacity.Resource(r))
			if _, in := c[name]; in != known {
				t.Fatalf("capacity %s in the list %v, known %v", name, in, known)
			}
			if _, in := a[name]; in && est.Err() != nil {
				for _, u := range est.Unknown {
					if u.Resource == capacity.Resource(r) {
						t.Fatalf("allocatable %s written although %v", name, u)
					}
				}
			}
		}
	})
}

func setKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}
