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

// DriftReason says why an image nodes run is not the one its role
// selects. Karpenter sets such a NodeClaim's Drifted condition with the
// one reason "AMIDrift" (sigs.k8s.io/karpenter
// pkg/controllers/nodeclaim/disruption/drift.go:77 @v1.14.1), because the
// node's image is not the one its instance type maps to among the
// EC2NodeClass's resolved AMIs (aws/karpenter-provider-aws
// pkg/cloudprovider/drift.go:36,84-107 @v1.14.1); DriftReason says which
// change took the image out of them. The zero value is NoDrift. It
// marshals as its name (see [DriftReason.MarshalText]).
type DriftReason uint8

// The reasons, each with the name String gives it.
const (
	NoDrift             DriftReason = iota // "none": the image is selected
	DriftSuperseded                        // "superseded": a newer image of its role is selected
	DriftDeprecated                        // "deprecated": its DeprecationTime passed; an image that is not deprecated serves its role
	DriftHeldBack                          // "held-back": it is younger than MinAge, and an older image serves its role meanwhile
	DriftReleaseChanged                    // "release-changed": the alias now selects another release or Kubernetes version
	DriftUnmatched                         // "unmatched": the terms no longer find it, though it is available
	DriftUnavailable                       // "unavailable": its state is neither available nor disabled (pending, failed, ...)
	DriftRefused                           // "refused": the terms find it but Select refuses it (see its Rejection)
	DriftDisabled                          // "disabled": it is disabled, so no node can launch with it
	DriftDeregistered                      // "deregistered": EC2 does not describe it: deregistered, or no longer shared
)

var driftReasonNames = [...]string{
	NoDrift: "none", DriftSuperseded: "superseded", DriftDeprecated: "deprecated", DriftHeldBack: "held-back",
	DriftReleaseChanged: "release-changed", DriftUnmatched: "unmatched", DriftUnavailable: "unavailable",
	DriftRefused: "refused", DriftDisabled: "disabled", DriftDeregistered: "deregistered",
}

// String returns the reason's name, such as "superseded".
func (r DriftReason) String() string {
	if int(r) < len(driftReasonNames) {
		return driftReasonNames[r]
	}
	return fmt.Sprintf("DriftReason(%d)", uint8(r))
}

// PlanOptions configures [PlanDriftWith]. The zero value means the
// defaults: no backwards drift, and each move as soon as it is due.
type PlanOptions struct {
	// Strict drifts the nodes of an image that is not selected now even
	// when the rule selects it later (an image held back by MinAge,
	// usually): they move to their role's AMI now and back when the
	// image is selected. By default they keep running until then, and
	// their entry says "keeps running: held back until T".
	Strict bool
	// Wait lets the nodes of an image the rule never selects again wait
	// for their role's next change when it is due within Wait of now, so
	// that they move once, to the image selected then, instead of now and
	// again then. Zero: they move now, and the plan lists both moves.
	// Negative is an error.
	Wait time.Duration
}

// Move is one replacement the nodes running an image go through.
type Move struct {
	// At is when: the plan's instant ([DriftPlan].At) for a move now.
	At time.Time
	// To is the AMI they move to.
	To AMI
}

// ImageDrift is the plan for the nodes running one image.
type ImageDrift struct {
	ImageID string
	Nodes   int
	// Name is the image's name, when known.
	Name string `json:",omitempty"`
	// Drifts reports whether its nodes are replaced now. An image that
	// is not selected now does not drift when the rule selects it later
	// (SelectedAt), unless [PlanOptions].Strict, nor while its nodes wait
	// for a move due within [PlanOptions].Wait.
	Drifts bool
	// Reason says why the image is not selected now (NoDrift: it is); it
	// is NoDrift exactly when the image is among the Selection's AMIs.
	Reason DriftReason
	// Detail says why in a sentence naming the images and dates, and
	// what is scheduled for the image, if anything.
	Detail string
	// Replacement is the AMI its nodes move to first: now when Drifts,
	// at ReplacedAt otherwise (Moves[0]). Zero when no move is known:
	// the image's role has no AMI or cannot be told, or nothing is due.
	Replacement AMI `json:",omitzero"`
	// ReplacedAt is when the nodes of an image that does not drift now
	// move to Replacement; zero when nothing is scheduled, and for an
	// image that drifts now.
	ReplacedAt time.Time `json:",omitzero"`
	// SelectedAt is, for an image not selected now, when the rule of
	// [Select] selects it for its role; zero when it never will, as
	// things stand.
	SelectedAt time.Time `json:",omitzero"`
	// Moves are every replacement its nodes go through, in order, as the
	// rule of [Select] foresees with no image published or withdrawn: a
	// node two releases behind moves now and again when the held-back
	// release comes of age. Replacement and ReplacedAt are the first.
	Moves []Move `json:",omitempty"`
}

// DriftPlan says, for each image nodes run today, whether its nodes drift
// under a Selection, why, and to what; and what the Selection will
// select later on its own.
type DriftPlan struct {
	// At is the instant the Selection judged deprecation and age at;
	// zero for a Selection Select did not make.
	At time.Time `json:",omitzero"`
	// Images has one entry per image ID, sorted by ID.
	Images []ImageDrift
	// NextChange is when the Selection next changes with no image
	// published or withdrawn: Changes[0].At. Zero when nothing is due.
	NextChange time.Time `json:",omitzero"`
	// Changes is the Selection's [Selection.Changes]: every change the
	// rule foresees, in order.
	Changes []Change `json:",omitempty"`
	// HeldBack is the Selection's [Selection.HeldBack]: the images MinAge
	// keeps out now, soonest first.
	HeldBack []HeldBack `json:",omitempty"`
}

// PlanDrift is [PlanDriftWith] with the default options.
func PlanDrift(ctx context.Context, client ec2.DescribeImagesAPIClient, sel Selection, running []Running) (DriftPlan, error) {
	return PlanDriftWith(ctx, client, sel, running, PlanOptions{})
}

// PlanDriftWith says, for each image nodes run today, whether its nodes
// drift under sel, with exactly one [DriftReason], what replaces it and
// when, and what the Selection will select later. Every prediction is
// the rule of [Select] asked about a later instant, so Select judging at
// each Move's At selects its To, and at NextChange the first Change's.
//
// An image the Selection accounts for (selected, superseded, held back or
// refused) is explained from it; any other is described by ID with
// client (DescribeImages, every state, deprecated and disabled included)
// to tell an image that is gone or disabled from one the terms no longer
// find. For a Selection [Resolve] made from an alias, an image of the
// alias's family that it no longer selects is explained as the alias sees
// it: another Kubernetes version or pinned release
// ([DriftReleaseChanged]), or, through SSM, a release "latest" has moved
// past ([DriftSuperseded]).
//
// Like Karpenter's, the plan is per image: Karpenter also replaces a node
// whose image is selected for another requirement set than its instance
// type's (see [Choose]), which needs the node's instance type.
//
// client may be nil when every running image is in sel. Running entries
// with the same ID are merged, their Nodes added. An entry whose ImageID
// is not an AMI id, or whose Nodes is negative, is an error naming it; so
// is a negative opts.Wait, and a failed DescribeImages, which is wrapped.
func PlanDriftWith(ctx context.Context, client ec2.DescribeImagesAPIClient, sel Selection, running []Running, opts PlanOptions) (DriftPlan, error) {
	if opts.Wait < 0 {
		return DriftPlan{}, fmt.Errorf("amiselect: PlanOptions.Wait %v is negative; give 0 (move when due) or how long nodes may wait for a move", opts.Wait)
	}
	merged, err := mergeRunning(running)
	if err != nil {
		return DriftPlan{}, err
	}
	p := sel.pool()
	described, err := describeByID(ctx, client, sel.unknown(p, merged))
	if err != nil {
		return DriftPlan{}, err
	}
	return sel.plan(p, merged, described, opts), nil
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

// unknown lists the running images sel (with its pool p) does not
// account for: not selected, lost or refused.
func (s Selection) unknown(p *pool, running []Running) []string {
	known := make(map[string]bool, len(running))
	for _, r := range running {
		known[r.ImageID] = false
	}
	mark := func(id string) {
		if _, runs := known[id]; runs {
			known[id] = true
		}
	}
	for i := range s.AMIs {
		mark(s.AMIs[i].ID)
	}
	for i := range s.Rejected {
		mark(s.Rejected[i].ImageID)
	}
	if p != nil {
		for i := range p.cands {
			mark(p.cands[i].id)
		}
	}
	var out []string
	for _, r := range running {
		if !known[r.ImageID] {
			out = append(out, r.ImageID)
		}
	}
	return out
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

// planner explains running images from one Selection, asking the rule
// about each role's future at most once.
type planner struct {
	sel       Selection
	p         *pool
	opts      PlanOptions
	at        time.Time
	roleMoves map[*role][]Move // each role's changes as moves
	fromNow   map[*role][]Move // a move to the role's AMI now, then those
}

func (pl *planner) timeline(r *role) []change { return pl.p.timeline(r) }

// loss is a set a running image lost, with its two AMIs.
type loss struct {
	lostSet
	ami, winner AMI
}

// plan explains each running image (checked, merged, sorted) from the
// Selection and its pool and, for the others, from their descriptions.
func (s Selection) plan(pool *pool, running []Running, described []ec2types.Image, opts PlanOptions) DriftPlan {
	pl := &planner{sel: s, p: pool, opts: opts, roleMoves: map[*role][]Move{}, fromNow: map[*role][]Move{}}
	p := DriftPlan{HeldBack: pool.heldBack(), Changes: pool.changes()}
	if pool != nil {
		p.At, pl.at = pool.at, pool.at
	}
	if len(p.Changes) > 0 {
		p.NextChange = p.Changes[0].At
	}
	picked, lost := pl.roles(running)
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
	p.Images = make([]ImageDrift, 0, len(running))
	for _, r := range running {
		d := ImageDrift{ImageID: r.ImageID, Nodes: r.Nodes}
		if rs, ok := picked[r.ImageID]; ok {
			pl.selected(&d, rs)
		} else if ls, ok := lost[r.ImageID]; ok {
			pl.lost(&d, ls)
		} else if rej, ok := rejected[r.ImageID]; ok {
			d.refused(rej)
		} else {
			pl.unfound(&d, byID[r.ImageID])
		}
		if len(d.Moves) > 0 {
			d.Replacement = d.Moves[0].To
			if !d.Drifts {
				d.ReplacedAt = d.Moves[0].At
			}
		}
		p.Images = append(p.Images, d)
	}
	return p
}

// roles indexes the pool by the running images' IDs: the roles each is
// selected for, and the sets each lost, in role order.
func (pl *planner) roles(running []Running) (picked map[string][]*role, lost map[string][]loss) {
	picked, lost = map[string][]*role{}, map[string][]loss{}
	p := pl.p
	if p == nil {
		for i := range pl.sel.AMIs { // a Selection Select did not make
			picked[pl.sel.AMIs[i].ID] = nil
		}
		return picked, lost
	}
	for i := range p.roles {
		id := p.cands[p.roles[i].pick].id
		picked[id] = append(picked[id], &p.roles[i])
	}
	runs := make(map[string]bool, len(running))
	for _, r := range running {
		runs[r.ImageID] = true
	}
	p.lostSets(func(l lostSet) {
		id := p.cands[l.cand].id
		if _, ok := picked[id]; !ok && runs[id] {
			loser, winner := p.amis(&l)
			lost[id] = append(lost[id], loss{l, loser, winner})
		}
	})
	return picked, lost
}

// moves lists role r's changes after instant from as moves. The moves of
// a role are built once and shared by the images that follow it (capped,
// so that appending to one copies).
func (pl *planner) moves(r *role, from time.Time) []Move {
	all, ok := pl.roleMoves[r]
	if !ok {
		for _, c := range pl.timeline(r) {
			all = append(all, Move{At: c.at, To: pl.p.ami(c.pick, c.at)})
		}
		pl.roleMoves[r] = all
	}
	i, _ := slices.BinarySearchFunc(all, from, func(m Move, t time.Time) int {
		if m.At.After(t) {
			return 1
		}
		return -1
	})
	if i == len(all) {
		return nil
	}
	return all[i:len(all):len(all)]
}

// selected plans an image its roles select now: its nodes stay, and
// follow the first of its roles to change.
func (pl *planner) selected(d *ImageDrift, roles []*role) {
	d.Detail = "selected"
	if len(roles) == 0 {
		for _, a := range pl.sel.AMIs {
			if a.ID == d.ImageID {
				d.Name = a.Name
				break
			}
		}
		return
	}
	p := pl.p
	d.Name = p.cands[roles[0].pick].name
	var first *role
	for _, r := range roles {
		if tl := pl.timeline(r); len(tl) > 0 && (first == nil || tl[0].at.Before(pl.timeline(first)[0].at)) {
			first = r
		}
	}
	if first == nil {
		return
	}
	d.Moves = pl.moves(first, pl.at)
	c := pl.timeline(first)[0]
	d.Detail = fmt.Sprintf("selected until %s, when %s", c.at.Format(time.RFC3339), pl.cause(first.pick, c))
}

// cause says why a role moves from image from to the change's image:
// "X comes of age and replaces it", "its DeprecationTime passes and X
// replaces it", or "X replaces it".
func (pl *planner) cause(from int32, c change) string {
	p := pl.p
	to := &p.cands[c.pick]
	switch {
	case p.cands[from].deprecates == stampOf(c.at):
		return fmt.Sprintf("its DeprecationTime passes and %s replaces it", to.id)
	case p.minAge > 0 && to.created.time().Add(p.minAge).Equal(c.at):
		return fmt.Sprintf("%s comes of age and replaces it", to.id)
	}
	return fmt.Sprintf("%s replaces it", to.id)
}

// lost plans an image that lost every role it serves. Its nodes keep
// running when the rule selects it later (unless Strict); otherwise they
// move to the AMI of the role it lost (first by that AMI, then by its
// own, in newest-available order), now or, within Wait, at the role's
// next change.
func (pl *planner) lost(d *ImageDrift, ls []loss) {
	l, later := pl.returning(ls)
	if l == nil {
		l = &ls[0]
		for i := range ls[1:] {
			if cmp.Or(compareAMIs(ls[i+1].winner, l.winner), compareAMIs(ls[i+1].ami, l.ami)) < 0 {
				l = &ls[i+1]
			}
		}
	}
	d.Name = l.ami.Name
	var why string
	switch {
	case l.heldBack:
		why = HeldBack{AMI: l.ami, Winner: l.winner, EligibleAt: l.eligibleAt, SelectedAt: later}.Reason()
		d.Reason = DriftHeldBack
	case l.ami.Deprecated && !l.winner.Deprecated:
		d.Reason, why = DriftDeprecated, Superseded{AMI: l.ami, Winner: l.winner}.Reason()
	default:
		d.Reason, why = DriftSuperseded, Superseded{AMI: l.ami, Winner: l.winner}.Reason()
	}
	d.SelectedAt = later
	if !later.IsZero() && !pl.opts.Strict {
		d.Moves = pl.moves(l.role, later)
		if l.heldBack {
			d.Detail = fmt.Sprintf("keeps running: held back until %s; %s", later.Format(time.RFC3339), why)
		} else {
			d.Detail = fmt.Sprintf("keeps running: selected again from %s; until then %s", later.Format(time.RFC3339), why)
		}
		return
	}
	if !later.IsZero() {
		why += fmt.Sprintf("; it is selected again from %s (PlanOptions.Strict moves its nodes meanwhile)", later.Format(time.RFC3339))
	}
	pl.drift(d, l.role, l.winner, why, later.IsZero())
}

// returning finds, among the sets an image lost, the one whose rule
// selects it soonest, and when (ties: by the sets' AMIs, then the
// image's, in newest-available order); nil when none ever does.
func (pl *planner) returning(ls []loss) (*loss, time.Time) {
	var best *loss
	var at time.Time
	for i := range ls {
		t, ok := pl.p.first(ls[i].role).byID[ls[i].ami.ID]
		if ok && (best == nil || t.Before(at) || t.Equal(at) && cmp.Or(compareAMIs(ls[i].winner, best.winner), compareAMIs(ls[i].ami, best.ami)) < 0) {
			best, at = &ls[i], t
		}
	}
	return best, at
}

// drift makes d's nodes move to now, the AMI of role r (nil when it is
// not the pool's), then follow r's changes; or, when mayWait and r's next
// change is due within Wait, wait for it and move once. (An image the
// rule selects later never waits: with Strict it moves now, and without
// it stays.)
func (pl *planner) drift(d *ImageDrift, r *role, now AMI, why string, mayWait bool) {
	d.Drifts, d.Detail = true, why
	if r == nil {
		if now.ID != "" {
			d.Moves = []Move{{At: pl.at, To: now}}
		}
		return
	}
	later := pl.moves(r, pl.at)
	if mayWait && len(later) > 0 && pl.opts.Wait > 0 && !later[0].At.After(pl.at.Add(pl.opts.Wait)) {
		d.Drifts, d.Moves = false, later
		d.Detail = fmt.Sprintf("%s; its nodes wait until %s, when %s replaces %s (within PlanOptions.Wait), and move once",
			why, later[0].At.Format(time.RFC3339), later[0].To.ID, now.ID)
		return
	}
	all, ok := pl.fromNow[r]
	if !ok {
		all = append([]Move{{At: pl.at, To: now}}, later...)
		pl.fromNow[r] = all
	}
	d.Moves = all[:len(all):len(all)]
	if len(later) > 0 {
		d.Detail = fmt.Sprintf("%s; its nodes move to %s now and to %s at %s", why, now.ID, later[0].To.ID, later[0].At.Format(time.RFC3339))
		if n := len(later) - 1; n > 0 {
			d.Detail += fmt.Sprintf(" (then %d more moves)", n)
		}
	}
}

// refused explains an image the terms find but Select refuses.
func (d *ImageDrift) refused(r Rejection) {
	d.Drifts, d.Name, d.Reason, d.Detail = true, r.Name, DriftRefused, r.Kind.String()+": "+r.Reason
	if r.Kind == NotAvailable {
		d.Reason, d.Detail = unavailable(r.State), r.Reason
	}
}

// unavailable is the reason for an image in a state other than
// available.
func unavailable(state ec2types.ImageState) DriftReason {
	if state == ec2types.ImageStateDisabled {
		return DriftDisabled
	}
	return DriftUnavailable
}

// unfound explains an image the terms do not find, from its description
// (nil when EC2 describes none).
func (pl *planner) unfound(d *ImageDrift, img *ec2types.Image) {
	if img == nil {
		d.Drifts, d.Reason, d.Detail = true, DriftDeregistered, "EC2 does not describe it: it is deregistered, or not shared with this account"
		return
	}
	d.Name = aws.ToString(img.Name)
	// Its role, whatever its state: a disabled image's nodes go where a
	// node of its role would launch.
	probe := *img
	probe.State = ec2types.ImageStateAvailable
	var c cand
	var arch string
	var rep AMI
	var r *role
	known := admitCand(&probe, &c, &arch, nil)
	rec := recognize(c.name, arch)
	if known {
		rep, r = pl.roleAMI(arch, rec)
	}
	var why string
	switch {
	case img.State != ec2types.ImageStateAvailable:
		d.Reason, why = unavailable(img.State), fmt.Sprintf("its state is %q; only available images can be launched", img.State)
	case known && pl.sel.from != nil && rec.family == pl.sel.from.alias.family:
		a := AMI{ID: c.id, Name: c.name, Family: rec.family, Release: rec.release, Created: c.created.time()}
		d.Reason, why = pl.sel.from.explain(&a, &rep)
	default:
		d.Reason, why = DriftUnmatched, "it is available, but the terms no longer find it"
	}
	pl.drift(d, r, rep, why, true)
}

// roleAMI is the AMI sel has for the role of an image of architecture
// arch recognized as rec, and that role in the pool (nil when it is not
// one): the AMI of the first of its variants' sets that sel has; failing
// that, the first AMI a node of that role would launch with ([Choose] on
// the set's requirements, as Map would give its instance type one); zero
// when none.
func (pl *planner) roleAMI(arch string, rec recognized) (AMI, *role) {
	s, p := pl.sel, pl.p
	k := setKey{arch: arch, build: rec.family.WindowsBuild()}
	for v := 0; v < max(rec.n, 1); v++ {
		k.variant = rec.variants[v]
		if i := slices.IndexFunc(s.AMIs, func(a AMI) bool { return keyOf(&a) == k }); i >= 0 {
			return s.AMIs[i], p.roleOf(keyOf(&s.AMIs[i]))
		}
	}
	k.variant = rec.variants[0]
	if i := Choose(requirementsFor(k), s.AMIs); i >= 0 {
		return s.AMIs[i], p.roleOf(keyOf(&s.AMIs[i]))
	}
	return AMI{}, nil
}

// roleOf is the pool's role of key k, or nil.
func (p *pool) roleOf(k setKey) *role {
	if p == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(p.roles, k, func(r role, k setKey) int { return compareKeys(r.key, k) })
	if !ok {
		return nil
	}
	return &p.roles[i]
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
