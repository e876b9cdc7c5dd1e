package karpenter

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ec2select/ec2select/amiselect"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
)

// LaunchGroup is one image and the offered instance types that launch
// with it under one kubelet maxPods: the unit Karpenter's
// amifamily.DefaultResolver.Resolve turns into a launch template
// (resolver.go:157-210, karpenter-provider-aws v1.14.1). The resolver
// splits a group further by EFA count and capacity reservation when the
// NodeClaim asks for EFA or reserved capacity; a fork keeps that split.
type LaunchGroup struct {
	ImageID string
	AMIs    []amiselect.AMI // the image's roles, one per variant
	// MaxPods is the pods capacity every type of the group offers
	// (Capacity[pods]): what the resolver writes as the kubelet's maxPods
	// when spec.kubelet leaves it unset (resolver.go:282-287).
	MaxPods       int32
	InstanceTypes []*cloudprovider.InstanceType
}

// LaunchGroups pairs m's launch groups (one per image ID, see
// amiselect.Mapping.LaunchGroups) with the Karpenter instance types they
// name, and splits each by the types' pods capacity as the resolver does,
// so that a fork builds launch templates from Karpenter's own values
// (capacity and overhead included). Types m maps that are not in offered
// are skipped, and a group left empty is dropped. Order is m's, then
// ascending MaxPods; within a group, m's.
func LaunchGroups(m amiselect.Mapping, offered []*cloudprovider.InstanceType) []LaunchGroup {
	byName := make(map[string]*cloudprovider.InstanceType, len(offered))
	for _, it := range offered {
		byName[it.Name] = it
	}
	var out []LaunchGroup
	for _, g := range m.LaunchGroups() {
		var split []LaunchGroup
		for _, t := range g.InstanceTypes {
			it := byName[t.Name]
			if it == nil {
				continue
			}
			pods := int32(it.Capacity.Pods().Value()) //nolint:gosec // Karpenter's own conversion, resolver.go:197,286
			i := slices.IndexFunc(split, func(lg LaunchGroup) bool { return lg.MaxPods == pods })
			if i < 0 {
				split = append(split, LaunchGroup{ImageID: g.ImageID, AMIs: g.AMIs, MaxPods: pods})
				i = len(split) - 1
			}
			split[i].InstanceTypes = append(split[i].InstanceTypes, it)
		}
		slices.SortStableFunc(split, func(a, b LaunchGroup) int { return cmp.Compare(a.MaxPods, b.MaxPods) })
		out = append(out, split...)
	}
	return out
}

// ResolverGroup is the LaunchGroup of one of the resolver's launch
// templates, from what DefaultResolver.resolveLaunchTemplates has
// (resolver.go:260-300, v1.14.1): the image ID, the maxPods and the
// instance types it groups, and the EC2NodeClass whose status.amis list
// the image (its roles; the release read from its name, see
// [AMIsFromStatus]). A fork calls it there and passes the group to
// [UserDataConfig]. An image status.amis does not list is an error.
func ResolverGroup(nc *v1.EC2NodeClass, imageID string, maxPods int, types []*cloudprovider.InstanceType) (LaunchGroup, error) {
	amis, err := AMIsFromStatus("", nc.Status.AMIs)
	if err != nil {
		return LaunchGroup{}, fmt.Errorf("karpenter: EC2NodeClass %s: %w", nc.Name, err)
	}
	amis = slices.DeleteFunc(amis, func(a amiselect.AMI) bool { return a.ID != imageID })
	if len(amis) == 0 {
		return LaunchGroup{}, fmt.Errorf("karpenter: EC2NodeClass %s: status.amis does not list image %s; let the EC2NodeClass controller write the status again", nc.Name, imageID)
	}
	//nolint:gosec // the resolver's own conversion, resolver.go:282-287
	return LaunchGroup{ImageID: imageID, AMIs: amis, MaxPods: int32(maxPods), InstanceTypes: types}, nil
}
