package amiselect

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/compat"
)

// The rule that decides which image a role (a requirement set) selects at
// an instant lives here, once: [Select] asks it at Now, and the Selection
// asks it again at each later instant where its answer can change (an
// image coming of age, a DeprecationTime passing), so that every
// prediction (HeldBack's SelectedAt, Changes, the drift plan's moves) is
// what Select will answer at that instant, by construction.

// cand is one admitted image in the role of one requirement set: what the
// rule compares. The strings are the image's own (no copy is made), so a
// pool does not depend on the caller's slice after Select.
type cand struct {
	created    stamp
	deprecates stamp // DeprecationTime; never when the image has none
	id, name   string
	date       string // CreationDate as EC2 spelt it
	image      int32  // the image's index in Select's input: copies are told apart
	role       int32  // index into pool.roles
}

// stamp is an instant as the rule compares it: seconds and nanoseconds
// since the Unix epoch, exact for every date RFC 3339 can write and
// cheaper to compare than a time.Time. never comes after every other.
type stamp struct {
	sec  int64
	nsec int32
}

var never = stamp{sec: math.MaxInt64}

func stampOf(t time.Time) stamp { return stamp{sec: t.Unix(), nsec: int32(t.Nanosecond())} }

func (s stamp) after(o stamp) bool { return s.sec > o.sec || s.sec == o.sec && s.nsec > o.nsec }

// time is the stamp in UTC; zero for never.
func (s stamp) time() time.Time {
	if s == never {
		return time.Time{}
	}
	return time.Unix(s.sec, int64(s.nsec)).UTC()
}

// deprecatedAt reports whether c's DeprecationTime has passed at t: at or
// before t, as EC2 and Select judge it.
func (c *cand) deprecatedAt(t stamp) bool { return !c.deprecates.after(t) }

// newer is the order of a role's images that no instant changes: the
// newest CreationDate first, then the greatest name, then the smallest ID;
// then, for copies of one image, its date's spelling and the later
// DeprecationTime (none latest), so that no two different images tie.
func (c *cand) newer(o *cand) bool {
	if c.created != o.created {
		return c.created.after(o.created)
	}
	if c.name != o.name {
		return c.name > o.name
	}
	if c.id != o.id {
		return c.id < o.id
	}
	if c.date != o.date {
		return c.date < o.date
	}
	return c.deprecates.after(o.deprecates)
}

// instant is when the rule judges and with what soak: an image is
// deprecated when its DeprecationTime is at or before t, and young when
// it was created after cutoff (t − minAge), with a soak.
type instant struct {
	t, cutoff stamp
	soak      bool
}

// instantOf is the instant t with soak time minAge (none when ≤ 0).
func instantOf(t time.Time, minAge time.Duration) instant {
	return instant{t: stampOf(t), cutoff: stampOf(t.Add(-minAge)), soak: minAge > 0}
}

// young reports whether c is younger than the soak at the instant.
func (in *instant) young(c *cand) bool {
	return in.soak && c.created.after(in.cutoff)
}

// beats is the rule's comparison: whether a is preferred to b for their
// role at the instant. Not deprecated before deprecated; then old enough
// before young; of old enough images the newest, of young ones the
// oldest; then [cand.newer]. Without a soak it is deprecation, then
// newer: Select without MinAge.
func (in *instant) beats(a, b *cand) bool {
	return in.state(a).beats(in.state(b))
}

// judged is a candidate with its state at an instant: whether it is
// deprecated and whether it is young then.
type judged struct {
	c                 *cand
	deprecated, young bool
}

func (in *instant) state(c *cand) judged {
	return judged{c: c, deprecated: c.deprecatedAt(in.t), young: in.young(c)}
}

// beats is [instant.beats] on candidates already judged.
func (a judged) beats(b judged) bool {
	if a.deprecated != b.deprecated {
		return b.deprecated
	}
	if a.young != b.young {
		return b.young
	}
	if a.young && a.c.created != b.c.created {
		return b.c.created.after(a.c.created)
	}
	return a.c.newer(b.c)
}

// pool is every admitted image in the role of each requirement set it
// serves, the instant Select judged at and its soak time. It is read-only
// once built and shared by the copies of a Selection.
type pool struct {
	cands  []cand
	order  []int32 // indexes into cands, grouped by role, each group in input order
	roles  []role  // sorted by key
	at     time.Time
	minAge time.Duration // 0 when there is no soak
	// timelines, firsts and winners hold each role's timeline, when it
	// first selects each image and its AMI, once asked (a pool serves one
	// call, so the memos are never shared).
	timelines map[*role][]change
	firsts    map[*role]*firsts
	winners   map[*role]AMI // each role's AMI at pool.at, once built
}

// firsts is when a role's timeline first selects each image, by ID and by
// the image itself (copies of one image are one).
type firsts struct {
	byID    map[string]time.Time
	byImage map[imageKey]time.Time
}

// imageKey is what tells images apart: copies of one image (a caller's
// duplicate) have one key and are indistinguishable to the rule.
type imageKey struct {
	id, name, date      string
	created, deprecates stamp
}

func (c *cand) ident() imageKey {
	return imageKey{id: c.id, name: c.name, date: c.date, created: c.created, deprecates: c.deprecates}
}

// first is when role r's timeline first selects each image.
func (p *pool) first(r *role) *firsts {
	if f, ok := p.firsts[r]; ok {
		return f
	}
	f := &firsts{byID: map[string]time.Time{}, byImage: map[imageKey]time.Time{}}
	for _, c := range p.timeline(r) {
		w := &p.cands[c.pick]
		if _, seen := f.byID[w.id]; !seen {
			f.byID[w.id] = c.at
		}
		if _, seen := f.byImage[w.ident()]; !seen {
			f.byImage[w.ident()] = c.at
		}
	}
	if p.firsts == nil {
		p.firsts = map[*role]*firsts{}
	}
	p.firsts[r] = f
	return f
}

// role is one requirement set and the images that serve it.
type role struct {
	key    setKey
	reqs   compat.Requirements
	lo, hi int32 // its members: pool.order[lo:hi]
	pick   int32 // index into cands of the image it selects at pool.at
}

func (p *pool) members(r *role) []int32 { return p.order[r.lo:r.hi] }

// pick is the rule: the index (into cands) of the image role r selects at
// instant t, the member no other one beats. beats is a strict
// total order on different images, so the answer depends on neither the
// input's order nor the instant's history.
func (p *pool) pick(r *role, t time.Time) int32 { return p.pickOf(p.members(r), t) }

// pickOf is pick over some of a role's members, in member order.
func (p *pool) pickOf(members []int32, t time.Time) int32 {
	in := instantOf(t, p.minAge)
	best, b := int32(-1), judged{}
	for _, i := range members {
		if c := in.state(&p.cands[i]); best < 0 || c.beats(b) {
			best, b = i, c
		}
	}
	return best
}

// admitAll admits images, appending every refusal to rejected (if not
// nil), and calls yield for each admitted image in the role of each
// requirement set it serves, in input order: the one admission Select and
// a rebuilt pool share.
func admitAll(images []ec2types.Image, rejected *[]Rejection, yield func(c *cand, k setKey)) {
	var c cand // one for all: yield copies what it keeps
	var arch string
	for i := range images {
		if !admitCand(&images[i], &c, &arch, rejected) {
			continue
		}
		c.image = int32(i)
		r := recognize(c.name, arch)
		for v := 0; v < max(r.n, 1); v++ {
			yield(&c, setKey{variant: r.variants[v], arch: arch, build: r.family.WindowsBuild()})
		}
	}
}

// source is what a Selection was chosen from: Select's input (kept by
// reference, not copied), the instant it judged at and its soak time.
// The rule can be asked about it again, at any instant.
type source struct {
	input  []ec2types.Image
	at     time.Time
	minAge time.Duration // 0 when there is no soak
}

// pool admits the source's images again, groups them by role and asks
// the rule what each role selects at the source's instant.
func (s *source) pool() *pool {
	p := &pool{at: s.at, minAge: s.minAge}
	index := make(map[setKey]int32)
	p.cands = make([]cand, 0, len(s.input)+len(s.input)/4)
	admitAll(s.input, nil, func(c *cand, k setKey) {
		ri, ok := index[k]
		if !ok {
			ri = int32(len(p.roles))
			index[k] = ri
			p.roles = append(p.roles, role{key: k})
		}
		c.role = ri
		p.cands = append(p.cands, *c)
	})
	p.group()
	for i := range p.roles {
		r := &p.roles[i]
		r.reqs = requirementsFor(r.key)
		r.pick = p.pick(r, p.at)
	}
	return p
}

// group sorts the roles by key and lists the candidates role by role, in
// input order within a role (a counting sort: one pass to count, one to
// place).
func (p *pool) group() {
	byKey := make([]int32, len(p.roles))
	for i := range byKey {
		byKey[i] = int32(i)
	}
	slices.SortFunc(byKey, func(a, b int32) int { return compareKeys(p.roles[a].key, p.roles[b].key) })
	renumber := make([]int32, len(p.roles))
	sorted := make([]role, len(p.roles))
	for to, from := range byKey {
		renumber[from] = int32(to)
		sorted[to] = p.roles[from]
	}
	p.roles = sorted
	for i := range p.cands {
		p.cands[i].role = renumber[p.cands[i].role]
		p.roles[p.cands[i].role].hi++
	}
	var next int32
	for i := range p.roles {
		n := p.roles[i].hi
		p.roles[i].lo, p.roles[i].hi = next, next
		next += n
	}
	p.order = make([]int32, len(p.cands))
	for i := range p.cands {
		r := &p.roles[p.cands[i].role]
		p.order[r.hi] = int32(i)
		r.hi++
	}
}

func compareKeys(a, b setKey) int {
	return cmp.Or(cmp.Compare(a.variant, b.variant), cmp.Compare(a.arch, b.arch), cmp.Compare(a.build, b.build))
}

// admitCand checks one image and converts what the rule needs into c and
// the Kubernetes architecture into arch, or appends why not to rejected
// (if not nil) and reports false.
func admitCand(img *ec2types.Image, c *cand, arch *string, rejected *[]Rejection) bool {
	if rejected == nil {
		return check(img, c, arch, nil)
	}
	var r Rejection
	if check(img, c, arch, &r) {
		return true
	}
	r.ImageID, r.Name = aws.ToString(img.ImageId), aws.ToString(img.Name)
	*rejected = append(*rejected, r)
	return false
}

// ami is candidate i as the AMI of its role, judged at instant t.
func (p *pool) ami(i int32, t time.Time) AMI {
	c := &p.cands[i]
	r := &p.roles[c.role]
	return amiOf(c, r.key, r.reqs, t)
}

// amiOf is c as the AMI of the set k with requirements reqs, judged at t.
func amiOf(c *cand, k setKey, reqs compat.Requirements, t time.Time) AMI {
	rec := recognize(c.name, k.arch)
	return AMI{
		ID: c.id, Name: c.name, Arch: k.arch, Family: rec.family, Variant: k.variant, Release: rec.release,
		Created: c.created.time(), CreationDate: c.date, Deprecated: c.deprecatedAt(stampOf(t)), DeprecationTime: c.deprecates.time(),
		Requirements: reqs,
	}
}

// change is an instant at which a role's image changes, and the image it
// selects from then on (an index into cands).
type change struct {
	at   time.Time
	pick int32
}

// timeline asks the rule, at every instant after pool.at where its answer
// for role r can change (a member coming of age, a DeprecationTime
// passing), what the role selects, and returns the instants where the
// image changes, in order. It assumes no image is published, withdrawn or
// changed meanwhile.
//
// The rule compares two members by their states at the instant (deprecated
// or not, young or not) and by what no instant changes, so members whose
// states do not change between two instants keep their order. Hence it is
// asked about fewer members, with the same answers: a member old enough
// at pool.at with no DeprecationTime still to come never changes state,
// so of those only the one the rule prefers can ever be picked; and at an
// instant where the role's current image keeps its state, the new pick is
// the rule's choice between it and the members whose states change then.
func (p *pool) timeline(r *role) []change {
	if tl, ok := p.timelines[r]; ok {
		return tl
	}
	asked, events := p.events(r)
	var out []change
	cur := r.pick
	for _, ev := range events {
		w := cur
		if slices.Contains(ev.changed, cur) {
			w = p.pickOf(asked, ev.at)
		} else {
			w = p.pickOf(inOrder(cur, ev.changed), ev.at)
		}
		if w != cur {
			out = append(out, change{at: ev.at, pick: w})
			cur = w
		}
	}
	if p.timelines == nil {
		p.timelines = map[*role][]change{}
	}
	p.timelines[r] = out
	return out
}

// event is an instant after pool.at and the members whose states change
// then, in member order.
type event struct {
	at      time.Time
	changed []int32
}

// events lists, for role r, the members whose state changes after
// pool.at and the one of the others the rule prefers (the steady one), in
// member order; and the instants where a state changes, in order.
func (p *pool) events(r *role) (asked []int32, events []event) {
	now := instantOf(p.at, p.minAge)
	steady := int32(-1)
	type point struct {
		at time.Time
		i  int32
	}
	var points []point
	for _, i := range p.members(r) {
		c := &p.cands[i]
		young, later := now.young(c), c.deprecates != never && c.deprecates.after(now.t)
		if young {
			points = append(points, point{c.created.time().Add(p.minAge), i})
		}
		if later {
			points = append(points, point{c.deprecates.time(), i})
		}
		if young || later {
			asked = append(asked, i)
		} else if steady < 0 || now.beats(c, &p.cands[steady]) {
			steady = i
		}
	}
	if steady >= 0 {
		asked = inOrder(steady, asked)
	}
	slices.SortStableFunc(points, func(a, b point) int { return a.at.Compare(b.at) })
	for _, pt := range points {
		if n := len(events); n > 0 && events[n-1].at.Equal(pt.at) {
			if !slices.Contains(events[n-1].changed, pt.i) {
				events[n-1].changed = append(events[n-1].changed, pt.i)
			}
			continue
		}
		events = append(events, event{at: pt.at, changed: []int32{pt.i}})
	}
	return asked, events
}

// inOrder is members with i among them, in member order: members come
// from one role, whose order is its members' indexes' order.
func inOrder(i int32, members []int32) []int32 {
	out := make([]int32, 0, len(members)+1)
	at, _ := slices.BinarySearch(members, i)
	out = append(append(append(out, members[:at]...), i), members[at:]...)
	return out
}
