package karpenter

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
)

// TermsFromKarpenter converts an EC2NodeClass's amiSelectorTerms, every
// field including SSMParameter. It does not validate: amiselect.Resolve
// does, and its errors name the term.
func TermsFromKarpenter(terms []v1.AMISelectorTerm) []amiselect.Term {
	out := make([]amiselect.Term, 0, len(terms))
	for _, t := range terms {
		out = append(out, amiselect.Term{
			ID: t.ID, Name: t.Name, Owner: t.Owner, Alias: t.Alias,
			SSMParameter: t.SSMParameter, Tags: t.Tags,
		})
	}
	return out
}

// ListAMIs is the seam of the AMI provider's List
// (amifamily.DefaultProvider.List, pkg/providers/amifamily/ami.go:69-80,
// karpenter-provider-aws v1.14.1): the EC2NodeClass's amiSelectorTerms
// resolved for Kubernetes version k8sVersion (what Karpenter's
// version.Provider returns, "1.32") through client (Karpenter's
// sdk.EC2API is one) and ssm (its sdk.SSMAPI is one). It chooses as
// Karpenter does where a fork's suites depend on it: an alias reads the
// public SSM parameters Karpenter reads (amiselect.AliasBySSM), and an
// ssmParameter SSM does not have matches nothing (ami.go:123-127),
// recorded in Selection.MissingParameters. Write StatusAMIs(sel.AMIs)
// into status.amis.
func ListAMIs(ctx context.Context, client ec2.DescribeImagesAPIClient, ssm amiselect.SSMClient, nc *v1.EC2NodeClass, k8sVersion string) (amiselect.Selection, error) {
	sel, err := amiselect.Resolve(ctx, client, TermsFromKarpenter(nc.Spec.AMISelectorTerms), amiselect.Options{
		Query:   amiselect.QueryOptions{KubernetesVersion: k8sVersion},
		SSM:     ssm,
		Aliases: amiselect.AliasBySSM, SkipMissingParameters: true,
	})
	if err != nil {
		return amiselect.Selection{}, fmt.Errorf("karpenter: EC2NodeClass %s: %w", nc.Name, err)
	}
	return sel, nil
}

// AMIsToKarpenter is what amifamily.DefaultProvider.List returns for a
// Selection (ListAMIs'): one amifamily.AMI per AMI role, with EC2's
// creation-date string and the role's requirements, in List's order
// (AMIs.Sort: newest first, then ID; ami.go:76, types.go:48-58), so that
// the EC2NodeClass status controller writes status.amis unchanged.
func AMIsToKarpenter(amis []amiselect.AMI) amifamily.AMIs {
	out := make(amifamily.AMIs, 0, len(amis))
	for _, a := range amis {
		var reqs []*scheduling.Requirement
		for _, r := range a.Requirements.List() {
			reqs = append(reqs, scheduling.NewRequirement(r.Key, corev1.NodeSelectorOperator(r.Operator), r.Values...))
		}
		out = append(out, amifamily.AMI{
			Name: a.Name, AmiID: a.ID, CreationDate: a.CreationDate, Deprecated: a.Deprecated,
			Requirements: scheduling.NewRequirements(reqs...),
		})
	}
	out.Sort()
	return out
}

// MapToInstanceTypes is the seam of amifamily.MapToInstanceTypes
// (ami.go:227-243), which the launch-template resolver calls with the
// EC2NodeClass's status.amis: it returns, per image ID, the offered
// instance types that launch with it, each type under the first image of
// status whose requirements it satisfies. Unlike Karpenter's it compares
// strictly (a type that does not define a key an image requires does not
// take the image), and when no type takes any image it returns
// amiselect's explanation (a *amiselect.NoCompatibleAMIError) where
// Karpenter returns an empty map. family is [Family]'s; a type compat
// cannot read or a status entry it rejects is an error naming it.
func MapToInstanceTypes(family compat.AMIFamily, offered []*cloudprovider.InstanceType, status []v1.AMI) (map[string][]*cloudprovider.InstanceType, error) {
	amis, err := AMIsFromStatus(family, status)
	if err != nil {
		return nil, err
	}
	types, err := InstanceTypesFromKarpenter(offered)
	if err != nil {
		return nil, err
	}
	m := amiselect.Map(types, amis)
	if err := m.Err(); err != nil {
		return nil, fmt.Errorf("karpenter: %w", err)
	}
	out := map[string][]*cloudprovider.InstanceType{}
	for _, g := range LaunchGroups(m, offered) {
		out[g.ImageID] = append(out[g.ImageID], g.InstanceTypes...)
	}
	return out, nil
}

// StatusAMIs is what the EC2NodeClass status controller writes into
// status.amis for a selection: one entry per AMI role, in selection order
// (best first), each with the requirements an instance type must meet to
// run it. An image that serves two variants appears twice, as Karpenter
// lists it once per requirement set.
func StatusAMIs(amis []amiselect.AMI) []v1.AMI {
	out := make([]v1.AMI, 0, len(amis))
	for _, a := range amis {
		out = append(out, v1.AMI{
			ID: a.ID, Name: a.Name, Deprecated: a.Deprecated,
			Requirements: nodeSelector(a.Requirements),
		})
	}
	return out
}

func nodeSelector(reqs compat.Requirements) []corev1.NodeSelectorRequirement {
	list := reqs.List()
	out := make([]corev1.NodeSelectorRequirement, 0, len(list))
	for _, r := range list {
		out = append(out, corev1.NodeSelectorRequirement{Key: r.Key, Operator: corev1.NodeSelectorOperator(r.Operator), Values: r.Values})
	}
	return out
}

// AMIsFromStatus reads an EC2NodeClass's status.amis back, for code that
// runs where only the status is at hand (the capacity controller, a
// NodeClaim's launch). The status carries no creation date, release or
// variant: family is the EC2NodeClass's (see [Family]), Arch comes from the
// kubernetes.io/arch requirement, Variant stays Unspecified and Created
// zero, so the result is fit for Map and capacity.Cache.Observe, not for
// choosing between images (use amiselect.Resolve for that). An entry
// without an ID, or with requirements compat rejects, is an error naming
// its index.
func AMIsFromStatus(family compat.AMIFamily, status []v1.AMI) ([]amiselect.AMI, error) {
	out := make([]amiselect.AMI, 0, len(status))
	for i, s := range status {
		if s.ID == "" {
			return nil, fmt.Errorf("karpenter: status.amis[%d] (%q) has no id; let the EC2NodeClass controller write the status again", i, s.Name)
		}
		reqs, err := RequirementsFromNodeSelector(s.Requirements)
		if err != nil {
			return nil, fmt.Errorf("karpenter: status.amis[%d] (%s): %w", i, s.ID, err)
		}
		out = append(out, amiselect.AMI{
			ID: s.ID, Name: s.Name, Deprecated: s.Deprecated,
			Arch: onlyValue(reqs, corev1.LabelArchStable), Family: family, Requirements: reqs,
		})
	}
	return out, nil
}

// onlyValue is the single value an In requirement on key pins, or "".
func onlyValue(reqs compat.Requirements, key string) string {
	rs, ok := reqs.Get(key)
	if !ok || len(rs) != 1 || rs[0].Operator != compat.In || len(rs[0].Values) != 1 {
		return ""
	}
	return rs[0].Values[0]
}

// Family is the EC2NodeClass's AMI family as Karpenter decides it
// (EC2NodeClass.AMIFamily: spec.amiFamily, else the alias term's family,
// else Custom), parsed into compat's type.
func Family(nc *v1.EC2NodeClass) (compat.AMIFamily, error) {
	name := nc.AMIFamily()
	f, err := compat.ParseAMIFamily(name)
	if err != nil {
		return "", fmt.Errorf("karpenter: EC2NodeClass %s: %w", nc.Name, err)
	}
	return f, nil
}
