package cli

import (
	"fmt"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/ec2nodeclass"
)

// Launch is how the nodes of nc launch, for capacity estimates under
// family, the AMI family whose boot software the nodes run (the caller
// decides it: for amiFamily Custom, the selected AMIs' OS). It takes nc's
// spec.kubelet, its instanceStorePolicy, and the size of the volume the
// kubelet's filesystem is on as Karpenter v1.14.1 reads it from
// spec.blockDeviceMappings (karpenter-provider-aws bde00654
// pkg/providers/instancetype/types.go:376-403, ephemeralStorage): the
// mapping marked rootVolume; else, for amiFamily Custom, the last
// mapping; else the mapping of the family's ephemeral device (/dev/xvda
// on AL2 and AL2023, /dev/xvdb on Bottlerocket, /dev/sda1 on Windows,
// pkg/providers/amifamily/*.go EphemeralBlockDevice); else, or without
// a volumeSize, the family's default (capacity.Launch RootVolumeBytes 0).
// It fails only for a volumeSize it cannot read, which the CRD's pattern
// does not let through.
func Launch(nc ec2nodeclass.EC2NodeClass, family compat.AMIFamily) (capacity.Launch, error) {
	l := capacity.Launch{Family: family, Kubelet: nc.Kubelet, InstanceStorePolicy: nc.InstanceStorePolicy}
	size, where := volumeSize(nc)
	if size == "" {
		return l, nil
	}
	n, err := capacity.ParseQuantity(capacity.ResourceEphemeralStorage, size)
	if err != nil {
		return capacity.Launch{}, fmt.Errorf("EC2NodeClass %q %s.ebs.volumeSize: %w", nc.Name, where, err)
	}
	l.RootVolumeBytes = n
	return l, nil
}

// volumeSize is the volumeSize of the mapping Karpenter takes ephemeral
// storage from, and the mapping's path; "" for the family's default.
func volumeSize(nc ec2nodeclass.EC2NodeClass) (size, where string) {
	mappings, _ := nc.Spec["blockDeviceMappings"].([]any)
	if len(mappings) == 0 {
		return "", ""
	}
	at := func(i int) (string, string) {
		m, _ := mappings[i].(map[string]any)
		ebs, _ := m["ebs"].(map[string]any)
		s, _ := ebs["volumeSize"].(string)
		return s, fmt.Sprintf("spec.blockDeviceMappings[%d]", i)
	}
	for i, x := range mappings {
		if m, _ := x.(map[string]any); m["rootVolume"] == true {
			if s, w := at(i); s != "" {
				return s, w
			}
		}
	}
	device := ephemeralDevice(nc.Family())
	if device == "" { // Custom
		return at(len(mappings) - 1)
	}
	for i, x := range mappings {
		if m, _ := x.(map[string]any); m["deviceName"] == device {
			return at(i)
		}
	}
	return "", ""
}

// ephemeralDevice is the device Karpenter v1.14.1 takes as the kubelet's
// filesystem for a family, "" for Custom, which it cannot know.
func ephemeralDevice(f compat.AMIFamily) string {
	switch {
	case f == compat.Bottlerocket:
		return "/dev/xvdb"
	case f.IsWindows():
		return "/dev/sda1"
	case f == compat.Custom:
		return ""
	}
	return "/dev/xvda"
}
