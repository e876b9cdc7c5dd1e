package karpenter

import (
	"github.com/ec2select/ec2select/amiselect"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// LaunchGroup is one image and the offered instance types that launch
// with it: what Karpenter's amifamily.Resolver turns into launch
// templates, one per image and (max pods, EFA count, capacity
// reservation), a split that is not the AMI's business (resolver.go,
// DefaultResolver.Resolve, karpenter-provider-aws v1.14.1).
type LaunchGroup struct {
	ImageID       string
	AMIs          []amiselect.AMI // the image's roles, one per variant
	InstanceTypes []*cloudprovider.InstanceType
}

// LaunchGroups pairs m's launch groups (one per image ID, see
// amiselect.Mapping.LaunchGroups) with the Karpenter instance types they
// name, so that a fork builds launch templates from Karpenter's own values
// (capacity and overhead included). Types m maps that are not in offered
// are skipped, and a group left empty is dropped; order is m's.
func LaunchGroups(m amiselect.Mapping, offered []*cloudprovider.InstanceType) []LaunchGroup {
	byName := make(map[string]*cloudprovider.InstanceType, len(offered))
	for _, it := range offered {
		byName[it.Name] = it
	}
	var out []LaunchGroup
	for _, g := range m.LaunchGroups() {
		lg := LaunchGroup{ImageID: g.ImageID, AMIs: g.AMIs}
		for _, t := range g.InstanceTypes {
			if it := byName[t.Name]; it != nil {
				lg.InstanceTypes = append(lg.InstanceTypes, it)
			}
		}
		if len(lg.InstanceTypes) > 0 {
			out = append(out, lg)
		}
	}
	return out
}
