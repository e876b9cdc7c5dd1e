package capacity_test

import (
	"fmt"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// exampleType is m5.large with the interface facts DescribeInstanceTypes
// gives it: 3 interfaces of 10 IPv4 addresses.
var exampleType = compat.InstanceType{Name: "m5.large", Family: "m5", Arch: compat.ArchAMD64, VCPU: 2, MemoryMiB: 8192, Hypervisor: "nitro",
	Network: compat.Network{Interfaces: 3, IPv4PerInterface: 10, Cards: []compat.NetworkCard{{Index: 0, Interfaces: 3}}}}

// What an m5.large AL2023 node has, with a user's kube-reserved cpu: the
// drop-in nodeadm writes keeps nodeadm's memory and storage reservations.
func ExampleEstimator_Estimate() {
	e, err := capacity.NewEstimator(capacity.Launch{
		Family:  compat.AL2023,
		Kubelet: userdata.KubeletConfig{KubeReserved: map[string]string{"cpu": "200m"}},
	}, capacity.EstimateOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	est := e.Estimate(exampleType)
	fmt.Print(est)
	for _, t := range est.Terms {
		if t.Resource == capacity.ResourceMemory {
			fmt.Printf("%s %s: %s (%s)\n", t.Kind, capacity.FormatQuantity(t.Resource, t.Amount), t.Rule, t.Source)
		}
	}
	// Output:
	// m5.large under AL2023
	// resource           capacity  kube-reserved  system-reserved  eviction-hard  allocatable
	// cpu                       2           200m                0              0        1800m
	// memory               7704Mi          574Mi                0          100Mi       7030Mi
	// ephemeral-storage      20Gi            1Gi                0     2147483680  18253610976
	// pods                     29              0                0              0           29
	// capacity 7704Mi: measured-overhead model: 8192 MiB published − (160 MiB + 4%) (heuristic)
	// kube-reserved 574Mi: nodeadm: 11 × 29 max pods + 255 MiB (family rule)
	// eviction-hard 100Mi: nodeadm: memory.available 100Mi (family rule)
}

// Max pods under each family, for a type every table lists and for one
// newer than the tables, whose DescribeInstanceTypes facts it has.
func ExampleEstimator_Estimate_maxPods() {
	future := exampleType
	future.Name = "x9z.large" // a type no table lists yet
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023, compat.Bottlerocket, compat.Windows2022} {
		e, err := capacity.NewEstimator(capacity.Launch{Family: f}, capacity.EstimateOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, it := range []compat.InstanceType{exampleType, future} {
			est := e.Estimate(it)
			fmt.Printf("%-12s %-9s pods %3d, kube-reserved memory from %3d pods: %s\n", f, it.Name, est.Capacity.Pods, est.MaxPods.ReservationPods, est.MaxPods.Term.Rule)
		}
	}
	// Output:
	// AL2          m5.large  pods  29, kube-reserved memory from  29 pods: /etc/eks/eni-max-pods.txt lists m5.large with 29
	// AL2          x9z.large pods  29, kube-reserved memory from  29 pods: eni-max-pods.txt does not list x9z.large, so max-pods-calculator.sh computes 3 × (10 − 1) + 2 from DescribeInstanceTypes
	// AL2023       m5.large  pods  29, kube-reserved memory from  29 pods: nodeadm: 3 × (10 − 1) + 2, from nodeadm's instance-info.jsonl
	// AL2023       x9z.large pods  29, kube-reserved memory from  29 pods: nodeadm: 3 × (10 − 1) + 2, from DescribeInstanceTypes
	// Bottlerocket m5.large  pods  29, kube-reserved memory from  29 pods: pluto: /usr/share/eks/eni-max-pods (core-kit 96d45ad5) lists m5.large with 29
	// Bottlerocket x9z.large pods 110, kube-reserved memory from   0 pods: pluto: /usr/share/eks/eni-max-pods (core-kit 96d45ad5) does not list x9z.large, so settings.kubernetes.max-pods stays unset and the kubelet config template writes 110
	// Windows2022  m5.large  pods 110, kube-reserved memory from   0 pods: the kubelet's default: Start-EKSBootstrap.ps1 sets no maxPods
	// Windows2022  x9z.large pods 110, kube-reserved memory from   0 pods: the kubelet's default: Start-EKSBootstrap.ps1 sets no maxPods
}

// Which types hold a 7 GiB pod beside the daemons, and why the others do
// not: the answer "no instance type met the requirements" does not give.
func ExampleCheckFit() {
	xl := exampleType
	xl.Name, xl.VCPU, xl.MemoryMiB = "m5.xlarge", 4, 16384
	xl.Network = compat.Network{Interfaces: 4, IPv4PerInterface: 15, Cards: []compat.NetworkCard{{Index: 0, Interfaces: 4}}}
	e, err := capacity.NewEstimator(capacity.Launch{Family: compat.Bottlerocket}, capacity.EstimateOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fit, err := capacity.CheckFit(e.EstimateAll([]compat.InstanceType{exampleType, xl}), capacity.FitRequest{
		Pod:     capacity.Quantities{CPU: 1000, Memory: 7 << 30},
		Daemons: capacity.Quantities{CPU: 150, Memory: 200 << 20, Pods: 2},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("fit:", fit.Fitting())
	for _, v := range fit.Verdicts {
		for _, s := range v.Short {
			fmt.Printf("%s: %s short by %s; needs %s, allocatable %s; the largest deduction is %s %s\n", v.InstanceType, s.Resource,
				capacity.FormatQuantity(s.Resource, s.By), capacity.FormatQuantity(s.Resource, s.Need),
				capacity.FormatQuantity(s.Resource, s.Allocatable), s.Cause.Kind, capacity.FormatQuantity(s.Resource, s.Cause.Amount))
		}
	}
	// Output:
	// fit: [m5.xlarge]
	// m5.large: memory short by 338Mi; needs 7368Mi, allocatable 7030Mi; the largest deduction is kube-reserved 574Mi
}

// max-pods-calculator.sh's recommendation with prefix delegation, which no
// family applies by itself: set it as the kubelet's maxPods.
func ExampleCalculator_MaxPods() {
	for _, c := range []capacity.Calculator{
		{CNIVersion: "1.19.2"},
		{CNIVersion: "1.19.2", PrefixDelegation: true},
		{CNIVersion: "1.19.2", PrefixDelegation: true, ShowMaxAllowed: true},
	} {
		n, err := c.MaxPods(exampleType)
		fmt.Println(n, err)
	}
	// Output:
	// 29 <nil>
	// 110 <nil>
	// 434 <nil>
}

// The CEL to write as an AL2023 NodeConfig's kubelet.maxPodsExpression.
func ExampleMaxPodsFormula_String() {
	fmt.Println(capacity.MaxPodsFormula{ReservedENIs: 1})
	fmt.Println(capacity.MaxPodsFormula{PrefixDelegation: true, Cap: 110})
	// Output:
	// ((default_enis - 1) * (ips_per_eni - 1)) + 2
	// ((default_enis * ((ips_per_eni - 1) * 16)) + 2) < 110 ? ((default_enis * ((ips_per_eni - 1) * 16)) + 2) : 110
}

// Karpenter's prediction beside the node's, on AL2 with a user's
// kube-reserved cpu: the flag replaces bootstrap.sh's whole kubeReserved,
// which Karpenter does not know.
func ExampleEstimator_Karpenter() {
	e, err := capacity.NewEstimator(capacity.Launch{
		Family:  compat.AL2,
		Kubelet: userdata.KubeletConfig{KubeReserved: map[string]string{"cpu": "250m"}},
	}, capacity.EstimateOptions{Memory: capacity.KarpenterOverhead})
	if err != nil {
		fmt.Println(err)
		return
	}
	node, karp := e.Estimate(exampleType), e.Karpenter(exampleType, capacity.KarpenterSettings{})
	fmt.Println("node:     ", node.KubeReserved, "allocatable memory", capacity.FormatQuantity(capacity.ResourceMemory, node.Allocatable.Memory))
	fmt.Println("Karpenter:", karp.KubeReserved, "allocatable memory", capacity.FormatQuantity(capacity.ResourceMemory, karp.Allocatable.Memory))
	// Output:
	// node:      cpu=250m memory=0 ephemeral-storage=0 pods=0 allocatable memory 7477Mi
	// Karpenter: cpu=250m memory=574Mi ephemeral-storage=1Gi pods=0 allocatable memory 6903Mi
}
