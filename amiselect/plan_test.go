package amiselect

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestPlanDriftProperties states the drift plan's laws on any Selection
// (MinAge or not), any options and any running images, known to it or
// not: an image's reason is NoDrift exactly when it is among the AMIs;
// one that drifts has a reason and a sentence; one that is not selected
// and does not drift is either selected later (and not Strict) or waits
// for a move due within Wait; the first move is Replacement and
// ReplacedAt; a move now is to an AMI selected now; moves are in order;
// the next change is the first of the Selection's changes. That each
// move comes true is TestPlanPredictions'.
func TestPlanDriftProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		images := genSoakImages(t)
		sel := Select(images, soaked(genNow(t), genMinAge(t, "minAge")))
		opts := PlanOptions{Strict: rapid.Bool().Draw(t, "strict"), Wait: genMinAge(t, "wait")}
		ids := []string{"ami-0901", "ami-0902"} // never in the input
		for _, img := range images {
			if id := aws.ToString(img.ImageId); id != "" {
				ids = append(ids, id)
			}
		}
		running := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Running {
			return Running{ImageID: rapid.SampledFrom(ids).Draw(t, "running id"), Nodes: rapid.IntRange(0, 5).Draw(t, "nodes")}
		}), 0, 10).Draw(t, "running")
		// What EC2 might say of the images the input lacks: described in
		// some state, or not at all.
		var described []ec2types.Image
		for _, id := range ids[:2] {
			if rapid.Bool().Draw(t, "described "+id) {
				img := genImage(t)
				img.ImageId = aws.String(id)
				described = append(described, img)
			}
		}
		merged, err := mergeRunning(running)
		if err != nil {
			t.Fatal(err)
		}
		p := planOf(sel, merged, described, opts)

		nodes := map[string]int{}
		for _, r := range running {
			nodes[r.ImageID] += r.Nodes
		}
		selected, lost, refused := map[string]bool{}, map[string]bool{}, map[string]bool{}
		for _, a := range sel.AMIs {
			selected[a.ID] = true
		}
		pool := sel.pool()
		pool.lostSets(func(l lostSet) { lost[pool.cands[l.cand].id] = true })
		for _, r := range sel.Rejected {
			refused[r.ImageID] = true
		}
		if len(p.Images) != len(nodes) || !slices.IsSortedFunc(p.Images, func(a, b ImageDrift) int { return strings.Compare(a.ImageID, b.ImageID) }) {
			t.Fatalf("%d plan entries for %d images, or out of order: %v", len(p.Images), len(nodes), p.Images)
		}
		for _, d := range p.Images {
			checkImageDrift(t, sel, p, opts, d, nodes[d.ImageID])
			var allowed []DriftReason
			switch {
			case selected[d.ImageID]:
				allowed = []DriftReason{NoDrift}
			case lost[d.ImageID]:
				allowed = []DriftReason{DriftSuperseded, DriftDeprecated, DriftHeldBack}
			case refused[d.ImageID]:
				allowed = []DriftReason{DriftRefused, DriftUnavailable, DriftDisabled}
			default: // no alias known: nothing is a release change
				allowed = []DriftReason{DriftUnmatched, DriftUnavailable, DriftDisabled, DriftDeregistered}
			}
			if !slices.Contains(allowed, d.Reason) {
				t.Fatalf("%s: reason %v, want one of %v", d.ImageID, d.Reason, allowed)
			}
		}
		want := time.Time{}
		if len(p.Changes) > 0 {
			want = p.Changes[0].At
		}
		if !p.NextChange.Equal(want) || !slices.IsSortedFunc(p.Changes, func(a, b Change) int { return a.At.Compare(b.At) }) {
			t.Fatalf("NextChange %v, changes %v", p.NextChange, p.Changes)
		}
	})
}

// checkImageDrift states the laws of one plan entry.
func checkImageDrift(t *rapid.T, sel Selection, p DriftPlan, opts PlanOptions, d ImageDrift, nodes int) {
	isSelected := slices.ContainsFunc(sel.AMIs, func(a AMI) bool { return a.ID == d.ImageID })
	switch {
	case d.Nodes != nodes:
		t.Fatalf("%s: %d nodes, want %d", d.ImageID, d.Nodes, nodes)
	case (d.Reason == NoDrift) != isSelected || d.Drifts && d.Reason == NoDrift || d.Detail == "":
		t.Fatalf("%s (selected %v): drifts %v, reason %v, detail %q", d.ImageID, isSelected, d.Drifts, d.Reason, d.Detail)
	case !d.Drifts && d.Reason != NoDrift && !kept(d, opts) && !waits(d, p, opts):
		t.Fatalf("%s: %v but does not drift, and is neither selected later nor waiting: %+v", d.ImageID, d.Reason, d)
	case len(d.Moves) > 0 && (d.Replacement.ID != d.Moves[0].To.ID || d.Drifts != d.ReplacedAt.IsZero() || !d.Drifts && !d.ReplacedAt.Equal(d.Moves[0].At)):
		t.Fatalf("%s: replaced by %s at %v, but moves %v (drifts %v)", d.ImageID, d.Replacement, d.ReplacedAt, d.Moves, d.Drifts)
	case len(d.Moves) == 0 && (d.Replacement.ID != "" || !d.ReplacedAt.IsZero()):
		t.Fatalf("%s: a replacement without moves: %+v", d.ImageID, d)
	case d.Drifts && len(d.Moves) > 0 && !d.Moves[0].At.Equal(p.At):
		t.Fatalf("%s drifts, but its first move is at %v, not now (%v)", d.ImageID, d.Moves[0].At, p.At)
	}
	for i, m := range d.Moves {
		if i > 0 && !m.At.After(d.Moves[i-1].At) || i == 0 && m.At.Before(p.At) {
			t.Fatalf("%s: moves out of order: %v", d.ImageID, d.Moves)
		}
		if m.At.Equal(p.At) && !slices.ContainsFunc(sel.AMIs, func(a AMI) bool { return cmp.Equal(a, m.To, equalRequirements) }) {
			t.Fatalf("%s: moves now to %s, which is not selected", d.ImageID, m.To)
		}
	}
	if d.Reason == DriftDeprecated && len(d.Moves) > 0 && d.Moves[0].To.Deprecated && d.Moves[0].At.Equal(p.At) {
		t.Fatalf("%s deprecated, replaced by the deprecated %s", d.ImageID, d.Moves[0].To)
	}
}

// kept reports whether d's nodes keep running because its image is
// selected later.
func kept(d ImageDrift, opts PlanOptions) bool { return !opts.Strict && !d.SelectedAt.IsZero() }

// waits reports whether d's nodes wait for a move due within Wait.
func waits(d ImageDrift, p DriftPlan, opts PlanOptions) bool {
	return d.SelectedAt.IsZero() && len(d.Moves) > 0 && !d.Moves[0].At.After(p.At.Add(opts.Wait))
}

// TestDriftReasonString names every reason, and says what an unknown one
// is.
func TestDriftReasonString(t *testing.T) {
	var got []string
	for r := NoDrift; r <= DriftDeregistered+1; r++ {
		got = append(got, r.String())
	}
	want := []string{"none", "superseded", "deprecated", "held-back", "release-changed", "unmatched", "unavailable", "refused",
		"disabled", "deregistered", fmt.Sprintf("DriftReason(%d)", DriftDeregistered+1)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("String mismatch (-want +got):\n%s", diff)
	}
}

// planOf is PlanDriftWith's plan of sel, with the images EC2 describes.
func planOf(sel Selection, running []Running, described []ec2types.Image, opts PlanOptions) DriftPlan {
	return sel.plan(sel.pool(), running, described, opts)
}
