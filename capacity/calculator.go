package capacity

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/compat"
)

// Calculator is AL2's max-pods-calculator.sh (amazon-eks-ami 0ab84280
// templates/al2/runtime/max-pods-calculator.sh), with its flags as fields:
// the figure AWS's documentation has users pass as maxPods when they run
// prefix delegation or custom networking, and what bootstrap.sh runs for a
// type its table lacks. Every AMI family can take its answer as
// [nodeclass.Kubelet].MaxPods.
type Calculator struct {
	// CNIVersion is --cni-version, the VPC CNI's version ("1.19.2");
	// required. Prefix delegation needs 1.9.0 or later.
	CNIVersion string
	// CustomNetworking is --cni-custom-networking-enabled: one interface
	// fewer for pods.
	CustomNetworking bool
	// PrefixDelegation is --cni-prefix-delegation-enabled: 16 addresses
	// per slot, on Nitro types with a CNI of 1.9.0 or later.
	PrefixDelegation bool
	// MaxENI is --cni-max-eni, the most interfaces the CNI uses; 0 means
	// all of the default card's.
	MaxENI int
	// ShowMaxAllowed is --show-max-allowed: the figure without the cap of
	// 110 pods (250 above 30 vCPUs) the script otherwise recommends.
	ShowMaxAllowed bool
}

const citeCalculator = "awslabs/amazon-eks-ami 0ab84280 templates/al2/runtime/max-pods-calculator.sh"

// MaxPodsCalculator sets max pods the way AWS's documentation has AL2
// users set it for prefix delegation or custom networking, as a [Launch]
// option: bootstrap.sh --use-max-pods false --kubelet-extra-args
// '--max-pods=N', N being what max-pods-calculator.sh prints for each
// instance type. Its --cni-prefix-delegation-enabled and
// --cni-custom-networking-enabled are [Launch.Network]'s PrefixDelegation
// and ReservedENIs 1; these are its other flags. The other families take
// the printed figure as their maxPods setting, as [Launch.Kubelet].MaxPods
// would be; AL2's kube-reserved memory still follows bootstrap.sh's own
// figure (bootstrap.sh:522-528).
type MaxPodsCalculator struct {
	// CNIVersion is --cni-version, the VPC CNI's version ("1.19.2");
	// required. Prefix delegation needs 1.9.0 or later.
	CNIVersion string
	// MaxENI is --cni-max-eni, the most interfaces the CNI uses; 0 means
	// all of the default card's.
	MaxENI int
	// ShowMaxAllowed is --show-max-allowed: the figure without the cap of
	// 110 pods (250 above 30 vCPUs) the script otherwise recommends.
	ShowMaxAllowed bool
}

// calculator is the script with c's flags and the network's.
func (c MaxPodsCalculator) calculator(n Network) Calculator {
	return Calculator{CNIVersion: c.CNIVersion, CustomNetworking: n.ReservedENIs > 0, PrefixDelegation: n.PrefixDelegation, MaxENI: c.MaxENI, ShowMaxAllowed: c.ShowMaxAllowed}
}

// validate refuses what the script refuses, and a network it has no flag
// for.
func (c MaxPodsCalculator) validate(n Network) error {
	if _, _, err := cniVersion(c.CNIVersion); err != nil {
		return &InputError{Field: "Launch.MaxPodsCalculator.CNIVersion", Reason: strconv.Quote(c.CNIVersion) + " is not a VPC CNI version", Fix: `write it like "1.19.2" (max-pods-calculator.sh --cni-version)`}
	}
	if c.MaxENI < 0 {
		return &InputError{Field: "Launch.MaxPodsCalculator.MaxENI", Reason: fmt.Sprintf("is %d", c.MaxENI), Fix: "give the most interfaces to use, or 0 for all"}
	}
	if n.ReservedENIs > 1 {
		return &InputError{Field: "Launch.Network.ReservedENIs", Reason: fmt.Sprintf("is %d, but max-pods-calculator.sh reserves one interface (--cni-custom-networking-enabled) or none", n.ReservedENIs), Fix: "use 0 or 1 with Launch.MaxPodsCalculator"}
	}
	return nil
}

// flags returns the command line the script runs with for it.
func (c Calculator) flags(it compat.InstanceType) string {
	f := []string{"--instance-type", it.Name, "--cni-version", c.CNIVersion}
	if c.CustomNetworking {
		f = append(f, "--cni-custom-networking-enabled")
	}
	if c.PrefixDelegation {
		f = append(f, "--cni-prefix-delegation-enabled")
	}
	if c.MaxENI > 0 {
		f = append(f, "--cni-max-eni", strconv.Itoa(c.MaxENI))
	}
	if c.ShowMaxAllowed {
		f = append(f, "--show-max-allowed")
	}
	return strings.Join(f, " ")
}

// MaxPods returns what the script prints for it. It fails when CNIVersion
// is not "major.minor[.patch]", when MaxENI is negative, or when neither
// it nor nodeadm's snapshot of DescribeInstanceTypes has its interfaces
// (the script calls DescribeInstanceTypes; see [compat.InstanceType]
// Network).
func (c Calculator) MaxPods(it compat.InstanceType) (int64, error) {
	major, minor, err := cniVersion(c.CNIVersion)
	if err != nil {
		return 0, err
	}
	if c.MaxENI < 0 {
		return 0, fmt.Errorf("capacity: Calculator.MaxENI is %d; give the most interfaces to use, or 0 for all", c.MaxENI)
	}
	enis, ipv4, _, ok := eniFacts(it, false)
	if !ok {
		return 0, fmt.Errorf("capacity: max-pods-calculator.sh: %s; load the type with compat.InstanceTypeFromEC2", noFacts(it))
	}
	// :117-119: prefix delegation needs a CNI of 1.9 or later.
	pdSupported := major > 1 || major == 1 && minor > 8
	// :132-136
	if c.MaxENI > 0 {
		enis = min(enis, int64(c.MaxENI))
	}
	// :138-140
	if c.CustomNetworking {
		enis--
	}
	// :142-146: only Nitro types (Hypervisor "nitro"; not bare metal or
	// Xen) delegate prefixes.
	var pods int64
	if it.Hypervisor == "nitro" && c.PrefixDelegation && pdSupported {
		pods = enis*((ipv4-1)*16) + 2
	} else {
		pods = eniFormula(enis, ipv4)
	}
	// :148-161
	if c.ShowMaxAllowed {
		return pods, nil
	}
	if it.VCPU > 30 {
		return min(250, pods), nil
	}
	return min(110, pods), nil
}

// cniVersion reads "major.minor[.patch]".
func cniVersion(v string) (major, minor int, err error) {
	parts := strings.Split(v, ".")
	bad := fmt.Errorf("capacity: Calculator.CNIVersion %q is not a VPC CNI version; write it like \"1.19.2\" (max-pods-calculator.sh --cni-version)", v)
	if len(parts) < 2 || len(parts) > 3 {
		return 0, 0, bad
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || strings.HasPrefix(p, "+") {
			return 0, 0, bad
		}
		nums[i] = n
	}
	return nums[0], nums[1], nil
}
