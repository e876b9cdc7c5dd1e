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
// (MinAge or not) and any running images, known to it or not: an image
// drifts exactly when it is not among the AMIs, with exactly one reason
// and a sentence; the reason fits what the Selection knows of the image;
// a replacement is always one of the AMIs; a scheduled replacement is the
// soonest held-back image of the image's role; and the next change is the
// soonest held-back image.
func TestPlanDriftProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		images := genSoakImages(t)
		sel := Select(images, soaked(genNow(t), genMinAge(t, "minAge")))
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
		p := sel.plan(merged, described)

		nodes := map[string]int{}
		for _, r := range running {
			nodes[r.ImageID] += r.Nodes
		}
		selected, lost, refused := map[string]bool{}, map[string]bool{}, map[string]bool{}
		for _, a := range sel.AMIs {
			selected[a.ID] = true
		}
		sel.lostSets(func(l lostSet) { lost[l.ami.ID] = true })
		for _, r := range sel.Rejected {
			refused[r.ImageID] = true
		}
		held := sel.HeldBack()
		if len(p.Images) != len(nodes) || !slices.IsSortedFunc(p.Images, func(a, b ImageDrift) int { return strings.Compare(a.ImageID, b.ImageID) }) {
			t.Fatalf("%d plan entries for %d images, or out of order: %v", len(p.Images), len(nodes), p.Images)
		}
		for _, d := range p.Images {
			if d.Nodes != nodes[d.ImageID] {
				t.Fatalf("%s: %d nodes, want %d", d.ImageID, d.Nodes, nodes[d.ImageID])
			}
			if d.Drifts == selected[d.ImageID] || d.Drifts != (d.Reason != NoDrift) || d.Detail == "" {
				t.Fatalf("%s (selected %v): drifts %v, reason %v, detail %q", d.ImageID, selected[d.ImageID], d.Drifts, d.Reason, d.Detail)
			}
			var allowed []DriftReason
			switch {
			case selected[d.ImageID]:
				allowed = []DriftReason{NoDrift}
			case lost[d.ImageID]:
				allowed = []DriftReason{DriftSuperseded, DriftDeprecated, DriftHeldBack}
			case refused[d.ImageID]:
				allowed = []DriftReason{DriftRefused, DriftUnavailable}
			default: // no alias known: nothing is a release change
				allowed = []DriftReason{DriftUnmatched, DriftUnavailable}
			}
			if !slices.Contains(allowed, d.Reason) {
				t.Fatalf("%s: reason %v, want one of %v", d.ImageID, d.Reason, allowed)
			}
			if d.Replacement.ID != "" && !slices.ContainsFunc(sel.AMIs, func(a AMI) bool { return cmp.Equal(a, d.Replacement, equalRequirements) }) &&
				!slices.ContainsFunc(held, func(h HeldBack) bool { return cmp.Equal(h.AMI, d.Replacement, equalRequirements) }) {
				t.Fatalf("%s: replacement %s is neither selected nor held back", d.ImageID, d.Replacement)
			}
			switch d.Reason {
			case DriftSuperseded, DriftDeprecated, DriftHeldBack:
				if d.Replacement.ID == "" || !selected[d.Replacement.ID] {
					t.Fatalf("%s %v: replacement %s is not selected", d.ImageID, d.Reason, d.Replacement)
				}
			}
			if d.Reason == DriftDeprecated && d.Replacement.Deprecated {
				t.Fatalf("%s deprecated, replaced by the deprecated %s", d.ImageID, d.Replacement)
			}
			// A scheduled replacement: the soonest held-back image of its roles.
			i := slices.IndexFunc(held, func(h HeldBack) bool { return h.Winner.ID == d.ImageID })
			switch {
			case d.ReplacedAt.IsZero() != (d.Drifts || i < 0):
				t.Fatalf("%s: replaced at %v, drifts %v, held-back images for it %v", d.ImageID, d.ReplacedAt, d.Drifts, i >= 0)
			case !d.ReplacedAt.IsZero() && (!d.ReplacedAt.Equal(held[i].EligibleAt) || d.Replacement.ID != held[i].AMI.ID):
				t.Fatalf("%s: replaced by %s at %v, want %s at %v", d.ImageID, d.Replacement, d.ReplacedAt, held[i].AMI, held[i].EligibleAt)
			}
		}
		want := time.Time{}
		if len(held) > 0 {
			want = held[0].EligibleAt
			for _, h := range held {
				if h.EligibleAt.Before(want) {
					t.Fatalf("HeldBack is not soonest first: %v", held)
				}
			}
		}
		if !p.NextChange.Equal(want) {
			t.Fatalf("NextChange %v, want %v", p.NextChange, want)
		}
	})
}

// TestDriftReasonString names every reason, and says what an unknown one
// is.
func TestDriftReasonString(t *testing.T) {
	var got []string
	for r := NoDrift; r <= DriftRefused+1; r++ {
		got = append(got, r.String())
	}
	want := []string{"none", "superseded", "deprecated", "held-back", "release-changed", "unmatched", "unavailable", "refused", fmt.Sprintf("DriftReason(%d)", DriftRefused+1)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("String mismatch (-want +got):\n%s", diff)
	}
}
