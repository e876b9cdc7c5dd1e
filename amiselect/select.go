package amiselect

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/amiselect/internal/eksname"
	"github.com/ec2select/ec2select/compat"
)

// SelectOptions configures [Select]. The zero value means the defaults.
type SelectOptions struct {
	// Now tells the time at which deprecation and age are judged: an
	// image is deprecated when its DeprecationTime is at or before
	// Now(). Nil means time.Now.
	Now func() time.Time
	// MinAge is a soak time: an image created less than MinAge before
	// Now() is young, and a requirement set does not take a young image
	// while it has one old enough (see [Select] and
	// [Selection.HeldBack]). Zero or negative means no soak: every image
	// is old enough, as without the option.
	MinAge time.Duration
}

// RejectionKind classifies why [Select] refused an image.
type RejectionKind uint8

// The reasons an image is refused.
const (
	MissingID               RejectionKind = iota + 1 // no ImageId
	NotAvailable                                     // State is not "available"
	UnsupportedArchitecture                          // not x86_64 or arm64
	InvalidCreationDate                              // CreationDate missing or not RFC 3339
	InvalidDeprecationTime                           // DeprecationTime set but not RFC 3339
)

// String returns the kind's name, such as "not-available".
func (k RejectionKind) String() string {
	switch k {
	case MissingID:
		return "missing-id"
	case NotAvailable:
		return "not-available"
	case UnsupportedArchitecture:
		return "unsupported-architecture"
	case InvalidCreationDate:
		return "invalid-creation-date"
	case InvalidDeprecationTime:
		return "invalid-deprecation-time"
	}
	return fmt.Sprintf("RejectionKind(%d)", uint8(k))
}

// Rejection is an image [Select] refused, and why.
type Rejection struct {
	ImageID string
	Name    string `json:",omitempty"`
	Kind    RejectionKind
	// State is the image's state when Kind is NotAvailable ("pending",
	// "disabled", ...; empty when EC2 gave none), so that a disabled
	// image can be told from one still being built.
	State ec2types.ImageState `json:",omitempty"`
	// Reason explains the refusal in a sentence naming the bad value.
	Reason string
}

// Selection is the outcome of [Select]: the AMIs to use, best first, the
// images refused, the valid images that lost to better ones (see
// [Selection.Superseded]) and those only [SelectOptions].MinAge kept out
// (see [Selection.HeldBack]). Every input image is accounted for: as one
// or more AMIs, as a Rejection, or as one or more Superseded and HeldBack
// entries (one per requirement set it serves); an image that is an AMI
// of one set and only MinAge keeps out of another is also HeldBack there.
//
// A Selection remembers the images it chose from, so that it can say what
// it will select at a later instant ([Selection.Changes]) by asking the
// rule of [Select] about that instant. It marshals to JSON with all of it
// as data (see [Selection.MarshalJSON]).
type Selection struct {
	AMIs     []AMI
	Rejected []Rejection
	// MissingParameters lists, by term, the SSMParameter terms that
	// matched no image because SSM does not have their parameter: only
	// [Resolve] with [Options].SkipMissingParameters fills it.
	MissingParameters []MissingParameter

	// src is what Select chose from, for the rule to be asked again;
	// nil for a Selection not made by Select.
	src *source
	// from is the alias Resolve resolved, for PlanDrift; nil for Select's
	// own Selections and for terms without an alias.
	from *resolution
}

// Superseded is an image in the role of a requirement set that a better
// image won.
type Superseded struct {
	// AMI is the losing image as the AMI of that set.
	AMI AMI
	// Winner is the AMI the set kept.
	Winner AMI
}

// Reason says why Winner beat AMI, naming the deciding values, by the
// rule of [Select]: not deprecated, then newer, then the greater name,
// then the smaller ID.
func (s Superseded) Reason() string {
	a, w := &s.AMI, &s.Winner
	switch {
	case a.ID == w.ID && a.Name == w.Name && a.Created.Equal(w.Created) && a.Deprecated == w.Deprecated:
		return fmt.Sprintf("%s appears more than once in the input; one copy is kept", w.ID)
	case a.Deprecated != w.Deprecated:
		return fmt.Sprintf("%s is deprecated and %s is not", a.ID, w.ID)
	case !a.Created.Equal(w.Created):
		what := "newer"
		if a.Release != "" && w.Release != "" && a.Release != w.Release {
			what = "a newer release (" + w.Release + " over " + a.Release + ")"
		}
		return fmt.Sprintf("%s is %s: created %s, after %s", w.ID, what,
			w.Created.Format(time.RFC3339), a.Created.Format(time.RFC3339))
	case a.Name != w.Name:
		return fmt.Sprintf("both were created %s; %s's name %q sorts after %q", w.Created.Format(time.RFC3339), w.ID, w.Name, a.Name)
	}
	return fmt.Sprintf("both were created %s with the same name; %s has the smaller ID", w.Created.Format(time.RFC3339), w.ID)
}

// setKey identifies a requirement set: an AMI's requirements are a
// function of its variant, its architecture and, for Windows, its build,
// so two AMIs have equal requirements exactly when their keys are equal.
type setKey struct {
	variant Variant
	arch    string
	build   string
}

func keyOf(a *AMI) setKey {
	return setKey{variant: a.Variant, arch: a.Arch, build: a.Family.WindowsBuild()}
}

// Select chooses AMIs from DescribeImages results. It is pure: the result
// depends only on the images (as a multiset: their order does not matter)
// and on the time opts.Now reports. It never panics.
//
// Select refuses, each with a [Rejection]:
//   - an image without an ImageId;
//   - an image whose State is not "available" (pending, failed, disabled,
//     ...), even when the request that found it forgot the state filter;
//   - an architecture no EKS node runs (i386, x86_64_mac, arm64_mac, none);
//
// Select chooses AMIs from DescribeImages results. It is pure: the result
// depends only on the images (as a multiset: their order does not matter)
// and on the time opts.Now reports. It never panics.
//
// Select refuses, each with a [Rejection]:
//   - an image without an ImageId;
//   - an image whose State is not "available" (pending, failed, disabled,
//     ...), even when the request that found it forgot the state filter;
//   - an architecture no EKS node runs (i386, x86_64_mac, arm64_mac, none);
//   - a missing or malformed CreationDate, or a malformed DeprecationTime.
//
// Each remaining image takes the requirements its name implies (see
// [AMI.Requirements] and the package documentation); of all images with
// the same requirements (one role) only the best is kept: not deprecated
// before deprecated, then the newest CreationDate, then the greatest
// Name, then the smallest ID.
//
// With opts.MinAge set, an image created less than MinAge before Now is
// young, and the rule becomes: not deprecated before deprecated, then old
// enough before young; of old enough images the newest (then name, then
// ID, as above); of young ones the oldest (then name, then ID). So a role
// whose images are all young, such as the first release for a new
// Kubernetes version, still gets one: the one that has soaked longest,
// which is also the first to come of age, so the role moves to each new
// release once, when it has soaked, and raising MinAge never makes a role
// take a younger image than before. Deprecation stays first: it is the
// owner's word to stop launching an image, and MinAge the consumer's
// caution about new ones. Young images the rule without MinAge would
// have preferred are [Selection.HeldBack], with the time each comes of
// age.
//
// This rule is the only one: what the Selection says of later instants
// ([Selection.Changes], [HeldBack].SelectedAt, [PlanDrift]) is the rule
// asked at those instants, so Select called then answers the same.
//
// The AMIs come in newest-available order, a total order: not deprecated
// before deprecated; then newest CreationDate first; then ID ascending;
// then Name ascending; then by Variant, Arch and Windows build, so the two
// AMIs of one image are ordered too. Rejected is sorted by ImageID, Name,
// Kind and Reason.
func Select(images []ec2types.Image, opts SelectOptions) Selection {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	sel := Selection{src: &source{input: images, at: now(), minAge: max(opts.MinAge, 0)}}
	// The rule folded over the input as it is admitted: each role keeps
	// the image nothing else beats, as pool.pick does over a role.
	in := instantOf(sel.src.at, sel.src.minAge)
	index := make(map[setKey]int)
	var keys []setKey
	var best []cand
	admitAll(images, &sel.Rejected, func(c *cand, k setKey) {
		i, seen := index[k]
		switch {
		case !seen:
			index[k] = len(best)
			keys, best = append(keys, k), append(best, *c)
		case in.beats(c, &best[i]):
			best[i] = *c
		}
	})
	if len(best) > 0 {
		sel.AMIs = make([]AMI, len(best))
		for i := range best {
			sel.AMIs[i] = amiOf(&best[i], keys[i], requirementsFor(keys[i]), sel.src.at)
		}
		slices.SortFunc(sel.AMIs, compareAMIs)
	}
	slices.SortFunc(sel.Rejected, compareRejections)
	return sel
}

// pool is the Selection's images grouped by role, for the rule to be
// asked about later instants; nil for a Selection Select did not make.
// It is built on each call, from the images given to Select.
func (s Selection) pool() *pool {
	if s.src == nil {
		return nil
	}
	return s.src.pool()
}

// lostSet is one set an image lost: the loser and the set (the winner is
// the set's pick), whether only its age keeps it out and, if so, when it
// comes of age, and whether the image is the AMI of another set. Its
// AMIs are built on demand (see pool.amis): most callers never ask, and a
// broad name pattern finds thousands of old releases.
type lostSet struct {
	cand       int32
	role       *role
	heldBack   bool
	eligibleAt time.Time
	won        bool
}

// amis returns the loser of l and the set's AMI, as Select reports them.
func (p *pool) amis(l *lostSet) (loser, winner AMI) {
	w, ok := p.winners[l.role]
	if !ok {
		w = p.ami(l.role.pick, p.at)
		if p.winners == nil {
			p.winners = map[*role]AMI{}
		}
		p.winners[l.role] = w
	}
	return p.ami(l.cand, p.at), w
}

// lostSets calls yield for every (image, set) pair whose image the set
// does not select, noting whether only MinAge keeps the image out (it is
// young, and the rule without MinAge would select it). A nil pool has
// none.
func (p *pool) lostSets(yield func(lostSet)) {
	if p == nil {
		return
	}
	now, noSoak := instantOf(p.at, p.minAge), instantOf(p.at, 0)
	won := make(map[int32]bool, len(p.roles))
	for i := range p.roles {
		won[p.cands[p.roles[i].pick].image] = true
	}
	for ri := range p.roles {
		r := &p.roles[ri]
		w := &p.cands[r.pick]
		for _, i := range p.members(r) {
			if i == r.pick {
				continue
			}
			c := &p.cands[i]
			l := lostSet{cand: i, role: r, won: won[c.image]}
			if now.young(c) && noSoak.beats(c, w) {
				l.heldBack, l.eligibleAt = true, c.created.time().Add(p.minAge)
			}
			yield(l)
		}
	}
}

// Superseded lists, for each valid image that won no requirement set,
// every set it lost to a better image and the AMI that set kept, in
// newest-available order of the losing AMIs (ties: by winner). An image
// that won some set is among the AMIs instead; a set it lost only because
// it is younger than MinAge is in [Selection.HeldBack] instead. The list
// is built on each call, from the images given to Select: Select keeps a
// reference to them, not a copy, so that selecting stays cheap; do not
// change them afterwards.
func (s Selection) Superseded() []Superseded { return s.pool().superseded() }

func (p *pool) superseded() []Superseded {
	if p == nil {
		return nil
	}
	out := make([]Superseded, 0, len(p.cands)-len(p.roles)) // every loss, at most
	p.lostSets(func(l lostSet) {
		if !l.heldBack && !l.won {
			loser, winner := p.amis(&l)
			out = append(out, Superseded{AMI: loser, Winner: winner})
		}
	})
	if len(out) == 0 {
		return nil
	}
	return sortedBy(out, func(a, b *Superseded) int {
		if c := compareAMIs(a.AMI, b.AMI); c != 0 {
			return c
		}
		return compareAMIs(a.Winner, b.Winner)
	})
}

// check checks one image as Select admits it and converts what the rule
// needs into c and the Kubernetes architecture into arch, parsing each
// date exactly once; or reports false and, when why is not nil, says in it
// why the image is refused (without its ID and name).
func check(img *ec2types.Image, c *cand, arch *string, why *Rejection) bool {
	no := func(k RejectionKind, state ec2types.ImageState, format string, args ...any) bool {
		if why != nil {
			*why = Rejection{Kind: k, State: state, Reason: fmt.Sprintf(format, args...)}
		}
		return false
	}
	id := aws.ToString(img.ImageId)
	switch {
	case id == "":
		return no(MissingID, "", "the image has no ImageId")
	case img.State == "":
		return no(NotAvailable, "", "the image has no State; only available images can be launched")
	case img.State != ec2types.ImageStateAvailable:
		return no(NotAvailable, img.State, "state is %q, not \"available\"; only available images can be launched", img.State)
	}
	a, known := eksname.KubeArch(string(img.Architecture))
	if !known {
		if img.Architecture == "" {
			return no(UnsupportedArchitecture, "", "the image has no Architecture; EKS nodes run x86_64 or arm64")
		}
		return no(UnsupportedArchitecture, "", "architecture %q is not supported; EKS nodes run x86_64 or arm64", img.Architecture)
	}
	if img.CreationDate == nil {
		return no(InvalidCreationDate, "", "the image has no CreationDate, so it cannot be ordered")
	}
	created, err := time.Parse(time.RFC3339, *img.CreationDate)
	if err != nil {
		return no(InvalidCreationDate, "", "CreationDate %q is not an RFC 3339 time, so the image cannot be ordered", *img.CreationDate)
	}
	deprecates := never
	if dt := aws.ToString(img.DeprecationTime); dt != "" {
		t, err := time.Parse(time.RFC3339, dt)
		if err != nil {
			return no(InvalidDeprecationTime, "", "DeprecationTime %q is not an RFC 3339 time, so whether the image is deprecated is unknown", dt)
		}
		deprecates = stampOf(t)
	}
	*c = cand{created: stampOf(created), deprecates: deprecates, id: id, name: aws.ToString(img.Name), date: *img.CreationDate}
	*arch = a
	return true
}

// compareAMIs is newest-available order; see [Select].
func compareAMIs(a, b AMI) int {
	if a.Deprecated != b.Deprecated {
		if a.Deprecated {
			return 1
		}
		return -1
	}
	if c := b.Created.Compare(a.Created); c != 0 {
		return c
	}
	if c := cmp.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Variant, b.Variant); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Arch, b.Arch); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Family.WindowsBuild(), b.Family.WindowsBuild()); c != 0 {
		return c
	}
	if c := cmp.Compare(a.CreationDate, b.CreationDate); c != 0 {
		return c
	}
	return a.DeprecationTime.Compare(b.DeprecationTime)
}

func compareRejections(a, b Rejection) int {
	if c := cmp.Compare(a.ImageID, b.ImageID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	return cmp.Compare(a.Reason, b.Reason)
}

// requirementsFor builds the requirements of a set.
func requirementsFor(k setKey) compat.Requirements {
	labels := map[string]string{compat.LabelArch: k.arch}
	if k.build != "" {
		labels[compat.LabelOS] = compat.OSWindows
		labels[compat.LabelWindowsBuild] = k.build
	}
	r := compat.FromLabels(labels)
	if k.variant != Unspecified {
		r = k.variant.Requirements().Intersect(r)
	}
	return r
}
