package karpenter_test

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ec2select/ec2select/compat"

	"github.com/ec2select/ec2select/examples/karpenter"
	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

func ExampleRequirementsFromKarpenter() {
	three := 3
	reqs, err := karpenter.RequirementsFromKarpenter([]karpv1.NodeSelectorRequirementWithMinValues{
		{Key: "karpenter.k8s.aws/instance-family", Operator: corev1.NodeSelectorOpIn, Values: []string{"c7i", "m7i", "r7i"}, MinValues: &three},
		{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(reqs)
	for _, r := range karpenter.RequirementsToKarpenter(reqs) {
		fmt.Println(r.Key, r.Operator, r.Values, r.MinValues != nil)
	}
	// Output:
	// karpenter.k8s.aws/instance-family In [c7i m7i r7i] minValues 3, kubernetes.io/arch In [amd64]
	// karpenter.k8s.aws/instance-family In [c7i m7i r7i] true
	// kubernetes.io/arch In [amd64] false
}

func ExampleTaintsFromKarpenter() {
	_, err := karpenter.TaintsFromKarpenter([]corev1.Taint{{Key: "example.com/gpu", Effect: "NoSchedul"}})
	fmt.Println(err)
	// Output:
	// karpenter: taint 0 (example.com/gpu:NoSchedul): userdata: taint "example.com/gpu:NoSchedul": effect "NoSchedul" is not one of NoSchedule, PreferNoSchedule or NoExecute (effects are case-sensitive)
}

func ExampleLaunchLabels() {
	labels := karpenter.LaunchLabels(compat.AL2023, map[string]string{
		"karpenter.sh/nodepool":       "default",
		"team":                        "ml",
		"topology.kubernetes.io/zone": "us-west-2a", // the kubelet sets it; node restriction refuses it from userData
	}, "spot")
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		fmt.Println(k, labels[k])
	}
	// Output:
	// karpenter.sh/capacity-type spot
	// karpenter.sh/do-not-sync-taints true
	// karpenter.sh/nodepool default
	// team ml
}
