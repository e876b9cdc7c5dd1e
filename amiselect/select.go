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
	Name    string
	Kind    RejectionKind
	// Reason explains the refusal in a sentence naming the bad value.
	Reason string
}

// Selection is the outcome of [Select]: the AMIs to use, best first, the
// images refused, the valid images that lost to better ones (see
// [Selection.Superseded]) and those only [SelectOptions].MinAge kept out
// (see [Selection.HeldBack]). Every input image is accounted for exactly
// once: as one or more AMIs, as a Rejection, or as one or more Superseded
// and HeldBack entries (one per requirement set it serves).
type Selection struct {
	AMIs     []AMI
	Rejected []Rejection
	// MissingParameters lists, by term, the SSMParameter terms that
	// matched no image because SSM does not have their parameter: only
	// [Resolve] with [Options].SkipMissingParameters fills it.
	MissingParameters []MissingParameter

	// lost records every image that lost a set, compactly: most callers
	// never ask, and a broad name pattern finds thousands of old releases.
	lost *losses
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
	at := now()
	rule := soak{minAge: opts.MinAge, cutoff: at.Add(-opts.MinAge)}

	var sel Selection
	best := make(map[setKey]int)
	var amis []AMI
	var winners []int32 // the input index of each AMI's image
	// Most images serve one set and most lose it; AL2's accelerated and
	// Bottlerocket's x86_64 images serve two. One small, pointer-free
	// allocation, not a doubling series, for the usual case.
	var losers []loss
	if len(images) > 1 {
		losers = make([]loss, 0, len(images)+len(images)/4)
	}
	for i := range images {
		var c AMI
		if !admit(&images[i], at, &c, &sel.Rejected) {
			continue
		}
		r := recognize(c.Name, c.Arch)
		c.Family, c.Release = r.family, r.release
		for v := 0; v < max(r.n, 1); v++ {
			c.Variant = r.variants[v]
			k := keyOf(&c)
			j, seen := best[k]
			switch {
			case !seen:
				best[k] = len(amis)
				amis = append(amis, c)
				winners = append(winners, int32(i))
			case rule.prefer(&c, &amis[j]):
				losers = append(losers, loss{image: winners[j], set: int32(j)})
				amis[j], winners[j] = c, int32(i)
			default:
				losers = append(losers, loss{image: int32(i), set: int32(j)})
			}
		}
	}

	// One requirement set per key, built once and shared (Requirements are
	// immutable).
	reqs := make(map[setKey]compat.Requirements, len(amis))
	for i := range amis {
		k := keyOf(&amis[i])
		r, ok := reqs[k]
		if !ok {
			r = requirementsFor(k)
			reqs[k] = r
		}
		amis[i].Requirements = r
	}
	if len(losers) > 0 {
		// The sets' winners, by set, before the AMIs are sorted.
		sel.lost = &losses{all: losers, winners: slices.Clone(amis), images: winners, input: images, at: at, rule: rule}
	}
	slices.SortFunc(amis, compareAMIs)
	sel.AMIs = amis
	slices.SortFunc(sel.Rejected, compareRejections)
	return sel
}

// soak is [SelectOptions].MinAge applied at the instant Select judges:
// with minAge set, an image created after cutoff is young.
type soak struct {
	minAge time.Duration
	cutoff time.Time
}

func (s soak) young(a *AMI) bool { return s.minAge > 0 && a.Created.After(s.cutoff) }

// prefer reports whether a should replace b as the AMI of their common
// requirement set, MinAge applied: see [Select]. Without MinAge it is
// better.
func (s soak) prefer(a, b *AMI) bool {
	if s.minAge > 0 && a.Deprecated == b.Deprecated {
		ya, yb := s.young(a), s.young(b)
		if ya != yb {
			return yb
		}
		if ya && !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
	}
	return better(a, b)
}

// loss is an image (its input index) that lost a set (its index).
type loss struct {
	image, set int32
}

// losses is every loss of one Select, the winner of each set (by set
// index), the input index of each winner's image, and the input itself
// with the time Select judged deprecation and age at: Superseded and
// HeldBack read a losing image again rather than Select copying
// thousands of them.
type losses struct {
	all     []loss
	winners []AMI
	images  []int32
	input   []ec2types.Image
	at      time.Time
	rule    soak
}

// lostSet is one set an image lost, as the two AMIs of that set, and,
// when only its age kept it out, when it comes of age.
type lostSet struct {
	ami, winner AMI
	heldBack    bool
	eligibleAt  time.Time
}

// lostSets calls yield for every set lost by an image that won no set.
func (s Selection) lostSets(yield func(lostSet)) {
	if s.lost == nil {
		return
	}
	won := make(map[int32]bool, len(s.lost.images))
	for _, i := range s.lost.images {
		won[i] = true
	}
	for i := range s.lost.all {
		l := &s.lost.all[i]
		if won[l.image] {
			continue
		}
		w := &s.lost.winners[l.set]
		var c AMI
		if !admit(&s.lost.input[l.image], s.lost.at, &c, nil) {
			continue // the caller changed the image since Select admitted it
		}
		r := recognize(c.Name, w.Arch)
		c.Family, c.Variant, c.Release, c.Requirements = r.family, w.Variant, r.release, w.Requirements
		ls := lostSet{ami: c, winner: *w}
		if s.lost.rule.young(&c) && better(&c, w) {
			ls.heldBack, ls.eligibleAt = true, c.Created.Add(s.lost.rule.minAge)
		}
		yield(ls)
	}
}

// Superseded lists, for each valid image that won no requirement set,
// every set it lost to a better image and the AMI that set kept, in
// newest-available order of the losing AMIs (ties: by winner). An image
// that won some set is among the AMIs instead; a set it lost only because
// it is younger than MinAge is in [Selection.HeldBack] instead. The list
// is built on each call, from the images given to Select: Select keeps a
// reference to them, not a copy, so that selecting stays cheap; change
// them after Select and Superseded describes the changed images.
func (s Selection) Superseded() []Superseded {
	var out []Superseded
	s.lostSets(func(l lostSet) {
		if !l.heldBack {
			out = append(out, Superseded{AMI: l.ami, Winner: l.winner})
		}
	})
	slices.SortFunc(out, func(a, b Superseded) int {
		if c := compareAMIs(a.AMI, b.AMI); c != 0 {
			return c
		}
		return compareAMIs(a.Winner, b.Winner)
	})
	return out
}

// HeldBack is an image a requirement set would take but for
// [SelectOptions].MinAge: by the rule without it (not deprecated, newest,
// greatest name, smallest ID) it beats the set's AMI, but it is young.
type HeldBack struct {
	// AMI is the young image as the AMI of the set.
	AMI AMI
	// Winner is the AMI the set keeps meanwhile.
	Winner AMI
	// EligibleAt is when AMI comes of age: its creation plus MinAge. From
	// then on it replaces Winner, unless a newer image has come of age
	// first or its DeprecationTime passes.
	EligibleAt time.Time
}

// Reason says why the set keeps Winner, naming the dates and MinAge.
func (h HeldBack) Reason() string {
	return fmt.Sprintf("%s was created %s, less than MinAge (%v) before now; it comes of age at %s, and %s serves until then",
		h.AMI.ID, h.AMI.Created.Format(time.RFC3339), h.EligibleAt.Sub(h.AMI.Created), h.EligibleAt.Format(time.RFC3339), h.Winner.ID)
}

// HeldBack lists, for each valid image that won no requirement set, every
// set whose AMI it would have replaced but for [SelectOptions].MinAge,
// with the AMI kept and when the image comes of age: soonest first, then
// in newest-available order of the held-back AMIs, then by winner. It is
// empty without MinAge. Like [Selection.Superseded], it is built on each
// call from the images given to Select.
func (s Selection) HeldBack() []HeldBack {
	var out []HeldBack
	s.lostSets(func(l lostSet) {
		if l.heldBack {
			out = append(out, HeldBack{AMI: l.ami, Winner: l.winner, EligibleAt: l.eligibleAt})
		}
	})
	slices.SortFunc(out, func(a, b HeldBack) int {
		if c := a.EligibleAt.Compare(b.EligibleAt); c != 0 {
			return c
		}
		if c := compareAMIs(a.AMI, b.AMI); c != 0 {
			return c
		}
		return compareAMIs(a.Winner, b.Winner)
	})
	return out
}

// admit checks one image and converts the fields Select needs into c,
// parsing each date exactly once, or appends why not to rejected (if not
// nil) and reports false.
func admit(img *ec2types.Image, now time.Time, c *AMI, rejected *[]Rejection) bool {
	id, name := aws.ToString(img.ImageId), aws.ToString(img.Name)
	reject := func(k RejectionKind, format string, args ...any) bool {
		if rejected != nil {
			*rejected = append(*rejected, Rejection{ImageID: id, Name: name, Kind: k, Reason: fmt.Sprintf(format, args...)})
		}
		return false
	}
	if id == "" {
		return reject(MissingID, "the image has no ImageId")
	}
	if img.State != ec2types.ImageStateAvailable {
		if img.State == "" {
			return reject(NotAvailable, "the image has no State; only available images can be launched")
		}
		return reject(NotAvailable, "state is %q, not \"available\"; only available images can be launched", img.State)
	}
	arch, ok := eksname.KubeArch(string(img.Architecture))
	if !ok {
		if img.Architecture == "" {
			return reject(UnsupportedArchitecture, "the image has no Architecture; EKS nodes run x86_64 or arm64")
		}
		return reject(UnsupportedArchitecture, "architecture %q is not supported; EKS nodes run x86_64 or arm64", img.Architecture)
	}
	if img.CreationDate == nil {
		return reject(InvalidCreationDate, "the image has no CreationDate, so it cannot be ordered")
	}
	created, err := time.Parse(time.RFC3339, *img.CreationDate)
	if err != nil {
		return reject(InvalidCreationDate, "CreationDate %q is not an RFC 3339 time, so the image cannot be ordered", *img.CreationDate)
	}
	deprecated := false
	if dt := aws.ToString(img.DeprecationTime); dt != "" {
		t, err := time.Parse(time.RFC3339, dt)
		if err != nil {
			return reject(InvalidDeprecationTime, "DeprecationTime %q is not an RFC 3339 time, so whether the image is deprecated is unknown", dt)
		}
		deprecated = !t.After(now)
	}
	*c = AMI{ID: id, Name: name, Arch: arch, Created: created.UTC(), CreationDate: *img.CreationDate, Deprecated: deprecated}
	return true
}

// better reports whether a should replace b as the AMI of their common
// requirement set.
func better(a, b *AMI) bool {
	if a.Deprecated != b.Deprecated {
		return !a.Deprecated
	}
	if !a.Created.Equal(b.Created) {
		return a.Created.After(b.Created)
	}
	if a.Name != b.Name {
		return a.Name > b.Name
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	// The same image twice, its date spelt two ways ("...Z", "+01:00"):
	// either copy would do, but the result must not depend on the order.
	return a.CreationDate < b.CreationDate
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
	return cmp.Compare(a.CreationDate, b.CreationDate)
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
