package karpenter

import (
	"fmt"

	"github.com/ec2select/ec2select/compat"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// InstanceTypeFromKarpenter reads an instance type's facts back from the
// requirements Karpenter's provider computed for it: each requirement that
// pins one value is a label, and compat.InstanceTypeFromLabels reads the
// labels; the type's Name is its instance-type label when no requirement
// pins one. Requirements with several values (zones, capacity types) are
// not labels and are left out, as a node would not carry them either. An
// instance type whose requirements lack the labels compat needs
// (instance-type, arch) is an error naming the type and the label;
// compat.ReadInstanceTypeLabels says which other facts are unknown.
//
// Whether the type runs Windows is read from the requirements, not the
// labels: Karpenter offers a type for a Windows image only when its os
// requirement admits windows and its windows-build requirement admits a
// build (pkg/providers/instancetype/types.go:190-193,289-295: a Linux
// EC2NodeClass's types are os In [linux], windows-build DoesNotExist), and
// a requirement on a key the type does not define admits nothing.
func InstanceTypeFromKarpenter(it *cloudprovider.InstanceType) (compat.InstanceType, error) {
	labels := PinnedLabels(it.Requirements)
	if _, ok := labels[corev1.LabelInstanceTypeStable]; !ok && it.Name != "" {
		// The type's Name is its identity; the requirement is derived
		// from it. Karpenter builds types without it where only a few
		// requirements matter (the EC2NodeClass validation's fallback
		// m5.large and m6g.large, pkg/controllers/nodeclass/validation.go:471-497).
		labels[corev1.LabelInstanceTypeStable] = it.Name
	}
	t, err := compat.InstanceTypeFromLabels(labels)
	if err != nil {
		return compat.InstanceType{}, fmt.Errorf("karpenter: instance type %s: %w", it.Name, err)
	}
	if t.Name != it.Name {
		return compat.InstanceType{}, fmt.Errorf("karpenter: instance type %s: its %s requirement says %q; build its requirements from its own EC2 description", it.Name, corev1.LabelInstanceTypeStable, t.Name)
	}
	t.OS = []string{compat.OSLinux}
	if windowsCapable(it.Requirements) && t.Arch == compat.ArchAMD64 {
		t.OS = []string{compat.OSLinux, compat.OSWindows}
	}
	return t, nil
}

// windowsCapable: the os requirement admits windows and windows-build
// is defined with some build.
func windowsCapable(reqs scheduling.Requirements) bool {
	if !reqs.Has(corev1.LabelOSStable) || !reqs.Has(corev1.LabelWindowsBuild) {
		return false
	}
	build := reqs.Get(corev1.LabelWindowsBuild)
	return reqs.Get(corev1.LabelOSStable).Has(string(corev1.Windows)) && build.Operator() != corev1.NodeSelectorOpDoesNotExist && build.Len() > 0
}

// InstanceTypesFromKarpenter converts every offered type, in order; the
// first that fails stops it.
func InstanceTypesFromKarpenter(its []*cloudprovider.InstanceType) ([]compat.InstanceType, error) {
	out := make([]compat.InstanceType, 0, len(its))
	for _, it := range its {
		t, err := InstanceTypeFromKarpenter(it)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// PinnedLabels returns the label each requirement pins: the keys whose
// requirement is In with exactly one value.
func PinnedLabels(reqs scheduling.Requirements) map[string]string {
	labels := map[string]string{}
	for key, r := range reqs {
		if r.Operator() == corev1.NodeSelectorOpIn && r.Len() == 1 {
			labels[key] = r.Values()[0]
		}
	}
	return labels
}
