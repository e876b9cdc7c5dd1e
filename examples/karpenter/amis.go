package karpenter

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
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
// public SSM parameters Karpenter reads (amiselect.AliasBySSM) and skips
// one SSM does not have, typed or said in words as Karpenter's fake SSM
// says it (Karpenter skips an alias parameter on any error,
// al2023.go:47-53; amiselect.Options.UntypedNotFound); an ssmParameter
// SSM does not have (a typed ParameterNotFound, the only one Karpenter's
// errors.IsNotFound knows) matches nothing (ami.go:123-127), recorded in
// Selection.MissingParameters. An image is deprecated when its
// DeprecationTime is at or before now(), the provider's clock (Karpenter
// judges it on its injected clock, ami.go:213); nil means time.Now. Write
// StatusAMIs(sel.AMIs) into status.amis.
//
// An alias whose family publishes no AMIs for k8sVersion fails with an
// error wrapping a *amiselect.UnsupportedVersionError
// (errors.Is(err, amiselect.ErrUnsupportedKubernetesVersion)); a fork's
// amifamily turns it into Karpenter's AL2DeprecationError or
// WS2025UnsupportedVersionError, whose fields only amifamily can set,
// so that the EC2NodeClass controller marks the class UnsupportedAlias
// (see doc.go).
func ListAMIs(ctx context.Context, client ec2.DescribeImagesAPIClient, ssm amiselect.SSMClient, nc *v1.EC2NodeClass, k8sVersion string, now func() time.Time) (amiselect.Selection, error) {
	sel, err := amiselect.Resolve(ctx, client, TermsFromKarpenter(nc.Spec.AMISelectorTerms), amiselect.Options{
		Query:   amiselect.QueryOptions{KubernetesVersion: k8sVersion},
		Select:  amiselect.SelectOptions{Now: now},
		SSM:     ssm,
		Aliases: amiselect.AliasBySSM, SkipMissingParameters: true,
		UntypedNotFound: nc.Alias() != nil,
	})
	if err != nil {
		return amiselect.Selection{}, fmt.Errorf("karpenter: EC2NodeClass %s: %w", nc.Name, err)
	}
	return sel, nil
}

// AMI has the fields of amifamily.AMI (pkg/providers/amifamily/types.go,
// v1.14.1) in its order, so that a fork converts with amifamily.AMI(a)
// and this package never imports amifamily: amifamily imports it.
type AMI struct {
	Name         string
	AmiID        string
	CreationDate string
	Deprecated   bool
	Requirements scheduling.Requirements
}

// AMIsToKarpenter is what amifamily.DefaultProvider.List returns for a
// Selection (ListAMIs'): one AMI per AMI role, with EC2's creation-date
// string and the role's requirements, in List's order (AMIs.Sort: newest
// first, then ID; ami.go:76, types.go:48-58), so that the EC2NodeClass
// status controller writes status.amis unchanged. A fork's List returns
//
//	out := make(AMIs, 0, len(amis))
//	for _, a := range karpenter.AMIsToKarpenter(sel.AMIs) {
//		out = append(out, AMI(a))
//	}
func AMIsToKarpenter(amis []amiselect.AMI) []AMI {
	out := make([]AMI, 0, len(amis))
	for _, a := range amis {
		var reqs []*scheduling.Requirement
		for _, r := range a.Requirements.List() {
			reqs = append(reqs, scheduling.NewRequirement(r.Key, corev1.NodeSelectorOperator(r.Operator), r.Values...))
		}
		out = append(out, AMI{
			Name: a.Name, AmiID: a.ID, CreationDate: a.CreationDate, Deprecated: a.Deprecated,
			Requirements: scheduling.NewRequirements(reqs...),
		})
	}
	slices.SortStableFunc(out, func(a, b AMI) int {
		if c := cmp.Compare(creationUnix(b.CreationDate), creationUnix(a.CreationDate)); c != 0 {
			return c
		}
		return cmp.Compare(a.AmiID, b.AmiID)
	})
	return out
}

// creationUnix is Karpenter's parseTimeWithDefault(date, minTime).Unix():
// an empty date sorts last. EC2's dates are RFC 3339; one that is not
// sorts last too, where Karpenter's lo.Must would panic.
func creationUnix(date string) int64 {
	t, err := time.Parse(time.RFC3339, date)
	if err != nil {
		return math.MinInt64
	}
	return t.Unix()
}

// MapToInstanceTypes is the seam of amifamily.MapToInstanceTypes
// (ami.go:227-243), with its arguments: Karpenter's launch-template
// resolver, drift check, capacity controller and EC2NodeClass validation
// each call it with offered types and status.amis. It returns, per image
// ID, the offered instance types that launch with it, each type under the
// first image of status whose requirements it satisfies. Unlike
// Karpenter's it compares strictly (a type that does not define a key an
// image requires does not take the image). The map is never nil: when no
// type takes any image it is empty, as Karpenter's is, and the error is
// amiselect's explanation (errors.Is(err, amiselect.ErrNoCompatibleAMI),
// a *amiselect.NoCompatibleAMIError), so a call site that wants
// Karpenter's behaviour ignores the error and the resolver reports it.
// Each type is mapped on its own, as Karpenter maps it: a type compat
// cannot read maps to no image, and the error names it beside the others'
// mapping. A status entry compat rejects is an error naming it, with an
// empty map.
func MapToInstanceTypes(offered []*cloudprovider.InstanceType, status []v1.AMI) (map[string][]*cloudprovider.InstanceType, error) {
	out := map[string][]*cloudprovider.InstanceType{}
	amis, err := AMIsFromStatus("", status)
	if err != nil {
		return out, err
	}
	var types []compat.InstanceType
	var unread []error
	for _, it := range offered {
		t, err := InstanceTypeFromKarpenter(it)
		if err != nil {
			unread = append(unread, err)
			continue
		}
		types = append(types, t)
	}
	m := amiselect.Map(types, amis)
	for _, g := range LaunchGroups(m, offered) {
		out[g.ImageID] = append(out[g.ImageID], g.InstanceTypes...)
	}
	if err := m.Err(); err != nil {
		unread = append(unread, fmt.Errorf("karpenter: %w", err))
	}
	return out, errors.Join(unread...)
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
// variant: Arch comes from the kubernetes.io/arch requirement, the release
// from the image name as amiselect reads names (Bottlerocket's RAID0
// setting depends on it; a name that is no EKS name has none), Variant
// stays Unspecified and Created zero, so the result is fit for Map,
// capacity.Cache.Observe and UserDataConfig, not for choosing between
// images (use amiselect.Resolve for that). family is the EC2NodeClass's
// (see [Family]), whose instance-type exclusions Map then applies; ""
// leaves them out, as Karpenter's MapToInstanceTypes does. An entry
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
		arch := onlyValue(reqs, corev1.LabelArchStable)
		out = append(out, amiselect.AMI{
			ID: s.ID, Name: s.Name, Deprecated: s.Deprecated, Release: releaseOf(s.Name, arch),
			Arch: arch, Family: family, Requirements: reqs,
		})
	}
	return out, nil
}

// releaseOf is the release amiselect reads from an image name
// (amiselect.AMI.Release): Select is asked about an available image of
// that name alone, so the one rule for names decides.
func releaseOf(name, arch string) string {
	ec2Arch := map[string]ec2types.ArchitectureValues{"amd64": ec2types.ArchitectureValuesX8664, "arm64": ec2types.ArchitectureValuesArm64}[arch]
	if name == "" || ec2Arch == "" {
		return ""
	}
	sel := amiselect.Select([]ec2types.Image{{
		ImageId: aws.String("ami-00000000"), Name: aws.String(name), Architecture: ec2Arch,
		State: ec2types.ImageStateAvailable, CreationDate: aws.String("2000-01-01T00:00:00.000Z"),
	}}, amiselect.SelectOptions{})
	if len(sel.AMIs) == 0 {
		return ""
	}
	return sel.AMIs[0].Release
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
