package amiselect

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/amiselect/internal/eksname"
	"github.com/ec2select/ec2select/compat"
)

// Running is an image nodes run today.
type Running struct {
	ImageID string
	// Nodes is how many nodes run it; 0 when the caller does not count.
	Nodes int
}

// DriftReason says why the nodes running an image drift. Karpenter sets
// such a NodeClaim's Drifted condition with the one reason "AMIDrift"
// (sigs.k8s.io/karpenter pkg/controllers/nodeclaim/disruption/drift.go:77
// @v1.14.1), because the node's image is not the one its instance type
// maps to among the EC2NodeClass's resolved AMIs (aws/karpenter-provider-aws
// pkg/cloudprovider/drift.go:36,84-107 @v1.14.1); DriftReason says which
// change took the image out of them. The zero value is NoDrift.
type DriftReason uint8

// The reasons, each with the name String gives it.
const (
	NoDrift             DriftReason = iota // "none": the image is selected
	DriftSuperseded                        // "superseded": a newer image of its role is selected
	DriftDeprecated                        // "deprecated": its DeprecationTime passed; an image that is not deprecated serves its role
	DriftHeldBack                          // "held-back": it is younger than MinAge, and an older image serves its role meanwhile
	DriftReleaseChanged                    // "release-changed": the alias now selects another release or Kubernetes version
	DriftUnmatched                         // "unmatched": the terms no longer find it, though it is available
	DriftUnavailable                       // "unavailable": it is disabled, deregistered, or otherwise not available
	DriftRefused                           // "refused": the terms find it but Select refuses it (see its Rejection)
)

// String returns the reason's name, such as "superseded".
func (r DriftReason) String() string {
	switch r {
	case NoDrift:
		return "none"
	case DriftSuperseded:
		return "superseded"
	case DriftDeprecated:
		return "deprecated"
	case DriftHeldBack:
		return "held-back"
	case DriftReleaseChanged:
		return "release-changed"
	case DriftUnmatched:
		return "unmatched"
	case DriftUnavailable:
		return "unavailable"
	case DriftRefused:
		return "refused"
	}
	return fmt.Sprintf("DriftReason(%d)", uint8(r))
}

// ImageDrift is the plan for the nodes running one image.
type ImageDrift struct {
	ImageID string
	Nodes   int
	// Name is the image's name, when known.
	Name string
	// Drifts reports whether the image is not among the Selection's AMIs,
	// so its nodes are replaced now; Reason and Detail say why.
	Drifts bool
	Reason DriftReason
	// Detail says why in a sentence naming the images and dates; for an
	// image that does not drift, what is scheduled for it, if anything.
	Detail string
	// Replacement is the AMI its nodes move to: now when Drifts, at
	// ReplacedAt otherwise. Zero when none is known: the image's role
	// (its requirement set) has no AMI, or cannot be told.
	Replacement AMI
	// ReplacedAt is, for an image that does not drift, when a held-back
	// image of its role comes of age and replaces it (the Replacement);
	// zero when nothing is scheduled, and for an image that drifts now.
	ReplacedAt time.Time
}

// DriftPlan says, for each image nodes run today, whether its nodes drift
// under a Selection, why, and to what; and when the Selection changes
// next on its own.
type DriftPlan struct {
	// Images has one entry per image ID, sorted by ID.
	Images []ImageDrift
	// NextChange is when the Selection next changes with no image
	// published or withdrawn: the soonest EligibleAt of its held-back
	// images. Zero when none is held back.
	NextChange time.Time
	// HeldBack is the Selection's [Selection.HeldBack]: the rollout still
	// to come, soonest first.
	HeldBack []HeldBack
}

// PlanDrift says, for each image nodes run today, whether its nodes drift
// under sel, with exactly one [DriftReason], what replaces it, and when
// the next change is due. Exactly the images that are not among
// sel.AMIs drift. An image the Selection accounts for (selected,
// superseded, held back or refused) is explained from it; any other is
// described by ID with client (DescribeImages, every state, deprecated
// and disabled included) to tell an image that is gone or disabled from
// one the terms no longer find. For a Selection [Resolve] made from an
// alias, an image of the alias's family that it no longer selects is
// explained as the alias sees it: another Kubernetes version or pinned
// release ([DriftReleaseChanged]), or, through SSM, a release "latest" has
// moved past ([DriftSuperseded]).
//
// Like Karpenter's, the plan is per image: Karpenter also replaces a node
// whose image is selected for another requirement set than its instance
// type's (see [Choose]), which needs the node's instance type.
//
// client may be nil when every running image is in sel. Running entries
// with the same ID are merged, their Nodes added. An entry whose ImageID
// is not an AMI id, or whose Nodes is negative, is an error naming it; so
// is a failed DescribeImages, which is wrapped.
func PlanDrift(ctx context.Context, client ec2.DescribeImagesAPIClient, sel Selection, running []Running) (DriftPlan, error) {
	merged, err := mergeRunning(running)
	if err != nil {
		return DriftPlan{}, err
	}
	known := sel.imageIDs()
	var unknown []string
	for _, r := range merged {
		if !known[r.ImageID] {
			unknown = append(unknown, r.ImageID)
		}
	}
	described, err := describeByID(ctx, client, unknown)
	if err != nil {
		return DriftPlan{}, err
	}
	return sel.plan(merged, described), nil
}

// mergeRunning checks the running images and merges those with the same
// ID, sorted by ID.
func mergeRunning(running []Running) ([]Running, error) {
	var out []Running
	for i, r := range running {
		if !isAMIID(r.ImageID) {
			return nil, fmt.Errorf("amiselect: running image %d: %q is not an AMI id; give the image id each node runs, such as a NodeClaim's status.imageID", i, r.ImageID)
		}
		if r.Nodes < 0 {
			return nil, fmt.Errorf("amiselect: running image %d (%s): %d nodes; give a count of 0 or more (0: not counted)", i, r.ImageID, r.Nodes)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Running) int { return strings.Compare(a.ImageID, b.ImageID) })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && merged[n-1].ImageID == r.ImageID {
			merged[n-1].Nodes += r.Nodes
			continue
		}
		merged = append(merged, r)
	}
	return merged, nil
}

// imageIDs is the set of image IDs sel accounts for: selected, lost or
// refused.
func (s Selection) imageIDs() map[string]bool {
	ids := map[string]bool{}
	for i := range s.AMIs {
		ids[s.AMIs[i].ID] = true
	}
	for i := range s.Rejected {
		ids[s.Rejected[i].ImageID] = true
	}
	if s.lost != nil {
		for _, l := range s.lost.all {
			ids[aws.ToString(s.lost.input[l.image].ImageId)] = true
		}
	}
	return ids
}

// maxImageIDFilter is how many values EC2 takes in one filter.
const maxImageIDFilter = 200

// describeByID describes images by ID in every state, deprecated and
// disabled included.
func describeByID(ctx context.Context, client ec2.DescribeImagesAPIClient, ids []string) ([]ec2types.Image, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if client == nil {
		return nil, fmt.Errorf("amiselect: PlanDrift needs a DescribeImages client to describe %d running images the selection does not know (such as %s), got nil", len(ids), ids[0])
	}
	var images []ec2types.Image
	for chunk := range slices.Chunk(ids, maxImageIDFilter) {
		in := &ec2.DescribeImagesInput{
			Filters:           []ec2types.Filter{filter("image-id", chunk...)},
			IncludeDeprecated: aws.Bool(true),
			IncludeDisabled:   aws.Bool(true),
			MaxResults:        aws.Int32(maxResults),
		}
		p := ec2.NewDescribeImagesPaginator(client, in, func(o *ec2.DescribeImagesPaginatorOptions) { o.StopOnDuplicateToken = true })
		for p.HasMorePages() {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("amiselect: describing the images nodes run: %w", err)
			}
			out, err := p.NextPage(ctx)
			if err != nil {
				return nil, fmt.Errorf("amiselect: describing the images nodes run: %w", err)
			}
			images = append(images, out.Images...)
		}
	}
	return images, nil
}

// plan explains each running image (checked, merged, sorted) from the
// Selection and, for the others, from their descriptions.
func (s Selection) plan(running []Running, described []ec2types.Image) DriftPlan {
	p := DriftPlan{HeldBack: s.HeldBack()}
	if len(p.HeldBack) > 0 {
		p.NextChange = p.HeldBack[0].EligibleAt
	}
	selected := map[string]*AMI{}
	for i := range s.AMIs {
		if _, ok := selected[s.AMIs[i].ID]; !ok {
			selected[s.AMIs[i].ID] = &s.AMIs[i]
		}
	}
	lost := map[string]lostSet{}
	s.lostSets(func(l lostSet) {
		if old, ok := lost[l.ami.ID]; !ok || cmp.Or(compareAMIs(l.winner, old.winner), compareAMIs(l.ami, old.ami)) < 0 {
			lost[l.ami.ID] = l
		}
	})
	rejected := map[string]Rejection{}
	for _, r := range s.Rejected {
		if _, ok := rejected[r.ImageID]; !ok {
			rejected[r.ImageID] = r
		}
	}
	byID := map[string]*ec2types.Image{}
	for i := range described {
		byID[aws.ToString(described[i].ImageId)] = &described[i]
	}
	for _, r := range running {
		d := ImageDrift{ImageID: r.ImageID, Nodes: r.Nodes}
		if a, ok := selected[r.ImageID]; ok {
			d.Name = a.Name
			d.scheduled(p.HeldBack)
		} else if l, ok := lost[r.ImageID]; ok {
			d.lost(l)
		} else if rej, ok := rejected[r.ImageID]; ok {
			d.refused(rej)
		} else {
			s.unfound(&d, byID[r.ImageID])
		}
		d.Drifts = d.Reason != NoDrift
		p.Images = append(p.Images, d)
	}
	return p
}

// scheduled fills in a selected image's next replacement, if a held-back
// image of one of its roles is due.
func (d *ImageDrift) scheduled(held []HeldBack) {
	i := slices.IndexFunc(held, func(h HeldBack) bool { return h.Winner.ID == d.ImageID })
	if i < 0 {
		d.Detail = "selected"
		return
	}
	h := held[i]
	d.Replacement, d.ReplacedAt = h.AMI, h.EligibleAt
	d.Detail = fmt.Sprintf("selected until %s, when %s comes of age and replaces it", h.EligibleAt.Format(time.RFC3339), h.AMI.ID)
}

// lost explains an image that lost its role to another.
func (d *ImageDrift) lost(l lostSet) {
	d.Name, d.Replacement = l.ami.Name, l.winner
	switch {
	case l.heldBack:
		d.Reason, d.Detail = DriftHeldBack, HeldBack{AMI: l.ami, Winner: l.winner, EligibleAt: l.eligibleAt}.Reason()
	case l.ami.Deprecated && !l.winner.Deprecated:
		d.Reason, d.Detail = DriftDeprecated, Superseded{AMI: l.ami, Winner: l.winner}.Reason()
	default:
		d.Reason, d.Detail = DriftSuperseded, Superseded{AMI: l.ami, Winner: l.winner}.Reason()
	}
}

// refused explains an image the terms find but Select refuses.
func (d *ImageDrift) refused(r Rejection) {
	d.Name, d.Reason, d.Detail = r.Name, DriftRefused, r.Kind.String()+": "+r.Reason
	if r.Kind == NotAvailable {
		d.Reason, d.Detail = DriftUnavailable, r.Reason
	}
}

// unfound explains an image the terms do not find, from its description
// (nil when EC2 describes none).
func (s Selection) unfound(d *ImageDrift, img *ec2types.Image) {
	if img == nil {
		d.Reason, d.Detail = DriftUnavailable, "EC2 does not describe it: it is deregistered, or not shared with this account"
		return
	}
	d.Name = aws.ToString(img.Name)
	// Its role, whatever its state: a disabled image's nodes go where a
	// node of its role would launch.
	probe := *img
	probe.State = ec2types.ImageStateAvailable
	var c AMI
	role := admit(&probe, time.Time{}, &c, nil)
	if role {
		r := recognize(c.Name, c.Arch)
		c.Family, c.Release = r.family, r.release
		d.Replacement = s.roleAMI(c, r)
	}
	switch {
	case img.State != ec2types.ImageStateAvailable:
		d.Reason, d.Detail = DriftUnavailable, fmt.Sprintf("its state is %q; only available images can be launched", img.State)
	case role && s.from != nil && c.Family == s.from.alias.family:
		d.Reason, d.Detail = s.from.explain(&c, &d.Replacement)
	default:
		d.Reason, d.Detail = DriftUnmatched, "it is available, but the terms no longer find it"
	}
}

// roleAMI is the AMI sel has for the role of c (recognized as r): the
// AMI of the first of its variants' sets that sel has; failing that, the
// first AMI a node of that role would launch with ([Choose] on the set's
// requirements, as Map would give its instance type one); zero when none.
func (s Selection) roleAMI(c AMI, r recognized) AMI {
	for v := 0; v < max(r.n, 1); v++ {
		c.Variant = r.variants[v]
		k := keyOf(&c)
		if i := slices.IndexFunc(s.AMIs, func(a AMI) bool { return keyOf(&a) == k }); i >= 0 {
			return s.AMIs[i]
		}
	}
	c.Variant = r.variants[0]
	if i := Choose(requirementsFor(keyOf(&c)), s.AMIs); i >= 0 {
		return s.AMIs[i]
	}
	return AMI{}
}

// resolution is the alias a Selection was resolved from.
type resolution struct {
	alias aliasSpec
	k8s   string
	bySSM bool
}

// resolvedFrom records the alias term of a resolve, if there is one;
// terms and opts have been checked.
func resolvedFrom(terms []Term, opts Options) *resolution {
	if terms[0].Alias == "" {
		return nil
	}
	k8s, _ := parseMinorVersion(opts.Query.KubernetesVersion)
	spec, _ := parseAlias(terms[0].Alias, opts.Query.KubernetesVersion, k8s)
	return &resolution{alias: spec, k8s: opts.Query.KubernetesVersion, bySSM: opts.Aliases == AliasBySSM}
}

// explain says why the alias no longer selects c, an available image of
// its family that its requests did not find; w is the AMI of c's role.
func (r *resolution) explain(c, w *AMI) (DriftReason, string) {
	if k := kubernetesVersionIn(c.Name, c.Family, c.Release); k != "" && k != r.k8s {
		return DriftReleaseChanged, fmt.Sprintf("the alias %q selects Kubernetes %s images; this one is for Kubernetes %s", r.alias.alias, r.k8s, k)
	}
	if r.alias.pinned != "" {
		pinned, _, _ := strings.Cut(r.alias.pinned, "-") // Bottlerocket's build commit aside
		if c.Release != pinned {
			return DriftReleaseChanged, fmt.Sprintf("the alias %q pins release %s; this image is release %s", r.alias.alias, pinned, c.Release)
		}
	}
	if r.bySSM && r.alias.pinned == "" && w.ID != "" && w.Created.After(c.Created) {
		return DriftSuperseded, fmt.Sprintf("SSM's latest parameter for the alias %q names %s now, a newer release (%s over %s)", r.alias.alias, w.ID, w.Release, c.Release)
	}
	return DriftUnmatched, fmt.Sprintf("it is available, but the alias %q no longer finds it", r.alias.alias)
}

// kubernetesVersionIn reads the Kubernetes version from the name of an
// image of a known family with the given release, or "" when it cannot.
func kubernetesVersionIn(name string, f compat.AMIFamily, release string) string {
	var k string
	switch f {
	case compat.Custom:
		return ""
	case compat.Bottlerocket:
		k, _, _ = strings.Cut(strings.TrimPrefix(name, "bottlerocket-aws-k8s-"), "-")
	default: // "...-{k8s}-{release}"
		rest := strings.TrimSuffix(name, "-"+release)
		k = rest[strings.LastIndexByte(rest, '-')+1:]
	}
	if !eksname.IsK8sVersion(k) {
		return ""
	}
	return k
}
