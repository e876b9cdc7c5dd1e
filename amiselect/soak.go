package amiselect

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// HeldBack is an image a requirement set would take but for
// [SelectOptions].MinAge: by the rule without it (not deprecated, newest,
// greatest name, smallest ID) it beats the set's AMI, but it is young.
type HeldBack struct {
	// AMI is the young image as the AMI of the set.
	AMI AMI
	// Winner is the AMI the set keeps meanwhile.
	Winner AMI
	// EligibleAt is when AMI comes of age: its creation plus MinAge.
	EligibleAt time.Time
	// SelectedAt is when the set first selects AMI, by the rule of
	// [Select] asked about each later instant, with no image published
	// or withdrawn meanwhile: EligibleAt, or later when an image created
	// at the same instant is preferred until its own DeprecationTime.
	// Zero when the set never selects it: its DeprecationTime passes
	// before it comes of age, say.
	SelectedAt time.Time
}

// Reason says why the set keeps Winner, naming the dates and MinAge, and
// whether AMI is selected when it comes of age.
func (h HeldBack) Reason() string {
	why := fmt.Sprintf("%s was created %s, less than MinAge (%v) before now; it comes of age at %s",
		h.AMI.ID, h.AMI.Created.Format(time.RFC3339), h.EligibleAt.Sub(h.AMI.Created), h.EligibleAt.Format(time.RFC3339))
	switch {
	case h.SelectedAt.Equal(h.EligibleAt):
		return fmt.Sprintf("%s, and %s serves until then", why, h.Winner.ID)
	case !h.SelectedAt.IsZero():
		return fmt.Sprintf("%s and is selected from %s; %s serves until then", why, h.SelectedAt.Format(time.RFC3339), h.Winner.ID)
	case !h.AMI.DeprecationTime.IsZero() && !h.AMI.DeprecationTime.After(h.EligibleAt):
		return fmt.Sprintf("%s, but its DeprecationTime %s comes first, so it will not be selected; %s serves", why, h.AMI.DeprecationTime.Format(time.RFC3339), h.Winner.ID)
	}
	return fmt.Sprintf("%s, but another image of its set is preferred then, so it will not be selected; %s serves meanwhile", why, h.Winner.ID)
}

// HeldBack lists every (image, requirement set) pair whose set would
// select the image but for [SelectOptions].MinAge, including images that
// are the AMI of another set, with the AMI kept and when the image comes
// of age and is selected: soonest EligibleAt first, then in
// newest-available order of the held-back AMIs, then by winner. It is
// empty without MinAge. The list is built on each call, from the images
// given to Select.
func (s Selection) HeldBack() []HeldBack { return s.pool().heldBack() }

func (p *pool) heldBack() []HeldBack {
	var held []lostSet
	p.lostSets(func(l lostSet) {
		if l.heldBack {
			held = append(held, l)
		}
	})
	if len(held) == 0 {
		return nil
	}
	out := make([]HeldBack, len(held))
	for i := range held {
		l := &held[i]
		loser, winner := p.amis(l)
		out[i] = HeldBack{AMI: loser, Winner: winner, EligibleAt: l.eligibleAt, SelectedAt: p.first(l.role).byImage[p.cands[l.cand].ident()]}
	}
	return sortedBy(out, func(a, b *HeldBack) int {
		if c := a.EligibleAt.Compare(b.EligibleAt); c != 0 {
			return c
		}
		if c := compareAMIs(a.AMI, b.AMI); c != 0 {
			return c
		}
		return compareAMIs(a.Winner, b.Winner)
	})
}

// sortedBy sorts xs by compare and returns it, moving indexes rather
// than the (large) values while sorting, then each value once into place.
func sortedBy[T any](xs []T, compare func(a, b *T) int) []T {
	if len(xs) < 2 {
		return xs
	}
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int { return compare(&xs[i], &xs[j]) })
	// Position k takes xs[idx[k]]: follow each cycle of the permutation.
	for start := range idx {
		if idx[start] < 0 {
			continue
		}
		held := xs[start]
		k := start
		for idx[k] != start {
			next := idx[k]
			xs[k], idx[k] = xs[next], -1
			k = next
		}
		xs[k], idx[k] = held, -1
	}
	return xs
}

// Change is a change the rule of [Select] foresees in the AMI of one
// requirement set at a later instant, with no image published or
// withdrawn meanwhile: an image coming of age (MinAge), or the set's AMI
// reaching its DeprecationTime.
type Change struct {
	// At is the instant: Select judging at At selects To for the set.
	At time.Time
	// From is the set's AMI until At, as Select reported it when it
	// became the set's AMI; To its AMI from At, as Select judging at At
	// reports it (Deprecated included).
	From, To AMI
}

// Changes lists what the Selection will select later, set by set, as
// the rule of [Select] answers at each instant its answer can change: an
// image coming of age, a DeprecationTime passing. They are sorted by
// instant, then by requirement set; the first is the next change. Empty
// when nothing is due: no image is held back and no selected image will
// be deprecated in favour of another. The list is built on each call,
// from the images given to Select.
func (s Selection) Changes() []Change { return s.pool().changes() }

func (p *pool) changes() []Change {
	if p == nil {
		return nil
	}
	type roleChange struct {
		change
		from  int32
		since time.Time
		role  int
	}
	var all []roleChange
	for ri := range p.roles {
		r := &p.roles[ri]
		from, since := r.pick, p.at
		for _, c := range p.timeline(r) {
			all = append(all, roleChange{c, from, since, ri})
			from, since = c.pick, c.at
		}
	}
	slices.SortFunc(all, func(a, b roleChange) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.role, b.role)) })
	if len(all) == 0 {
		return nil
	}
	out := make([]Change, 0, len(all))
	for _, c := range all {
		out = append(out, Change{At: c.at, From: p.ami(c.from, c.since), To: p.ami(c.pick, c.at)})
	}
	return out
}
