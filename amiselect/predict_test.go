package amiselect

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/ec2fake"
)

// The laws of prediction: what a Selection and its drift plan say of a
// later instant is what Select says when asked at that instant. Each is
// checked against Select itself, called with Now set to the instant, on
// random catalogs where images tie on their creation date, are deprecated
// before or after they come of age, and serve several roles (AL2's
// accelerated image and Bottlerocket's x86_64 image), one of which an
// AL2023 image of the same role can win.

// predictionChecks is how many catalogs each law is checked on (a fifth
// with -short, as rapid does, and under the race detector).
const predictionChecks = 5000

// checkMany runs prop on n random inputs (a fifth under -race): rapid.Check
// as many times as -rapid.checks (100 by default) takes, each with its
// own seed.

func checkMany(t *testing.T, n int, prop func(*rapid.T)) {
	t.Helper()
	if raceDetector {
		n /= 5
	}
	per := 100
	if f := flag.Lookup("rapid.checks"); f != nil {
		if v, err := strconv.Atoi(f.Value.String()); err == nil && v > 0 {
			per = v
		}
	}
	for range (n + per - 1) / per {
		rapid.Check(t, prop)
		if t.Failed() {
			return
		}
	}
}

// predictNow is the instant the catalogs are judged at.
var predictNow = time.Date(2025, 4, 10, 12, 0, 0, 0, time.UTC)

// A role template: an image name pattern (%d: the release number) and its
// architecture.
type template struct{ name, arch string }

var mixedTemplates = []template{
	{"amazon-eks-node-al2023-x86_64-standard-1.32-v202503%02d", "x86_64"},
	{"amazon-eks-node-al2023-x86_64-neuron-1.32-v202503%02d", "x86_64"},
	{"amazon-eks-gpu-node-1.32-v202503%02d", "x86_64"}, // nvidia and neuron
	{"amazon-eks-node-al2023-arm64-standard-1.32-v202503%02d", "arm64"},
	{"bottlerocket-aws-k8s-1.32-x86_64-v1.%d.0-0123abcd", "x86_64"}, // standard and neuron
	{"team-base-%02d", "x86_64"},
}

// genOffset draws an instant near predictNow from a few, so that images
// tie: past, just past (younger than most soaks), and a skewed clock's
// future.
func genOffset(t *rapid.T, label string) time.Duration {
	return rapid.SampledFrom([]time.Duration{
		-30 * 24 * time.Hour, -10 * 24 * time.Hour, -3 * 24 * time.Hour, -2 * 24 * time.Hour,
		-24 * time.Hour, -7 * time.Hour, -time.Hour, 0, time.Hour,
	}).Draw(t, label)
}

// genDeprecation draws no DeprecationTime, or one past, soon (often
// before a young image comes of age) or later.
func genDeprecation(t *rapid.T) *string {
	if rapid.IntRange(0, 2).Draw(t, "deprecated") > 0 {
		return nil
	}
	d := rapid.SampledFrom([]time.Duration{
		-24 * time.Hour, time.Hour, 12 * time.Hour, 2 * 24 * time.Hour, 5 * 24 * time.Hour, 30 * 24 * time.Hour,
	}).Draw(t, "deprecates in")
	return aws.String(predictNow.Add(d).Format(time.RFC3339))
}

// genPredictCatalog draws up to 14 images of the mixed templates, each a
// release of its own, with distinct IDs and names.
func genPredictCatalog(t *rapid.T) []ec2types.Image {
	n := rapid.IntRange(1, 14).Draw(t, "images")
	images := make([]ec2types.Image, n)
	for i := range images {
		tm := rapid.SampledFrom(mixedTemplates).Draw(t, "template")
		images[i] = ec2types.Image{
			ImageId:         aws.String(fmt.Sprintf("ami-0%03d", i+1)),
			Name:            aws.String(fmt.Sprintf(tm.name, 10+i)),
			Architecture:    ec2types.ArchitectureValues(tm.arch),
			State:           ec2types.ImageStateAvailable,
			CreationDate:    aws.String(predictNow.Add(genOffset(t, "created")).Format(time.RFC3339)),
			DeprecationTime: genDeprecation(t),
		}
	}
	return images
}

func genPredictMinAge(t *rapid.T) time.Duration {
	return rapid.SampledFrom([]time.Duration{0, time.Hour, 24 * time.Hour, 72 * time.Hour, 168 * time.Hour}).Draw(t, "minAge")
}

// selectAt is Select judging at t.
func selectAt(images []ec2types.Image, t time.Time, minAge time.Duration) Selection {
	return Select(images, SelectOptions{Now: func() time.Time { return t }, MinAge: minAge})
}

// roleAMIs is the AMI of each role of a Selection.
func roleAMIs(s Selection) map[setKey]AMI {
	out := map[setKey]AMI{}
	for _, a := range s.AMIs {
		out[keyOf(&a)] = a
	}
	return out
}

// sameImage reports whether two AMIs are one image in one role.
func sameImage(a, b AMI) bool {
	return a.ID == b.ID && a.Name == b.Name && keyOf(&a) == keyOf(&b)
}

// instantsOf lists every instant after now where Select's answer on
// images can change: each image coming of age and each DeprecationTime,
// from the images themselves.
func instantsOf(images []ec2types.Image, now time.Time, minAge time.Duration) []time.Time {
	var out []time.Time
	for _, img := range images {
		if c, err := time.Parse(time.RFC3339, aws.ToString(img.CreationDate)); err == nil && minAge > 0 && c.Add(minAge).After(now) {
			out = append(out, c.Add(minAge))
		}
		if d, err := time.Parse(time.RFC3339, aws.ToString(img.DeprecationTime)); err == nil && d.After(now) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return slices.CompactFunc(out, time.Time.Equal)
}

// observed is a change Select makes between two instants it is asked at.
type observed struct {
	At       time.Time
	Role     string
	From, To string // image IDs; "" for none
}

// observeChanges asks Select at now and at every instant its answer can
// change, and lists where a role's image changes: what the Selection's
// Changes must be.
func observeChanges(images []ec2types.Image, minAge time.Duration) []observed {
	var out []observed
	prev := roleAMIs(selectAt(images, predictNow, minAge))
	for _, t := range instantsOf(images, predictNow, minAge) {
		cur := roleAMIs(selectAt(images, t, minAge))
		for k, a := range cur {
			if !sameImage(prev[k], a) {
				out = append(out, observed{t.UTC(), fmt.Sprint(k), prev[k].ID, a.ID})
			}
		}
		prev = cur
	}
	slices.SortFunc(out, func(a, b observed) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return compareStrings(a.Role, b.Role)
	})
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestChangesAreSelectsAnswers: the Selection's Changes are exactly the
// changes Select makes when asked at every later instant (none missed,
// none promised that does not happen), each To is the AMI Select gives
// then, Deprecated and all; so between now and NextChange the selection
// does not change, and at NextChange it does. HeldBack's SelectedAt is
// the first instant Select picks the image, and zero when it never does.
func TestChangesAreSelectsAnswers(t *testing.T) {
	checkMany(t, predictionChecks, func(t *rapid.T) {
		images := genPredictCatalog(t)
		minAge := genPredictMinAge(t)
		sel := selectAt(images, predictNow, minAge)

		var told []observed
		for _, c := range sel.Changes() {
			told = append(told, observed{c.At.UTC(), fmt.Sprint(keyOf(&c.To)), c.From.ID, c.To.ID})
			if got := roleAMIs(selectAt(images, c.At, minAge))[keyOf(&c.To)]; !cmp.Equal(c.To, got, equalRequirements) {
				t.Fatalf("change at %v names %s; Select then gives %s", c.At, c.To, got)
			}
		}
		if diff := cmp.Diff(observeChanges(images, minAge), told); diff != "" {
			t.Fatalf("Changes differ from what Select does at later instants (-Select +Changes):\n%s", diff)
		}
		for _, h := range sel.HeldBack() {
			first := time.Time{}
			for _, at := range instantsOf(images, predictNow, minAge) {
				if sameImage(roleAMIs(selectAt(images, at, minAge))[keyOf(&h.AMI)], h.AMI) {
					first = at
					break
				}
			}
			if !h.SelectedAt.Equal(first) {
				t.Fatalf("%s held back: SelectedAt %v, but Select first picks it at %v", h.AMI, h.SelectedAt, first)
			}
		}
	})
}

// TestPlanMovesAreSelectsAnswers: every instant the drift plan names (its
// NextChange, each move's At, each SelectedAt) is one where Select picks
// exactly the image the plan named; between now and NextChange Select
// gives what it gives now; and a node two releases behind is told every
// move of its role, the one now and each later one.
func TestPlanMovesAreSelectsAnswers(t *testing.T) {
	checkMany(t, predictionChecks, func(t *rapid.T) {
		images := genPredictCatalog(t)
		minAge := genPredictMinAge(t)
		sel := selectAt(images, predictNow, minAge)
		opts := PlanOptions{Strict: rapid.Bool().Draw(t, "strict"), Wait: rapid.SampledFrom([]time.Duration{0, 0, time.Hour, 3 * 24 * time.Hour}).Draw(t, "wait")}
		plan := planOf(sel, runningAll(images), nil, opts)

		now := roleAMIs(sel)
		end := plan.NextChange
		if end.IsZero() {
			end = predictNow.AddDate(10, 0, 0)
		}
		for _, at := range append(instantsOf(images, predictNow, minAge), predictNow, end.Add(-time.Nanosecond)) {
			if at.Before(end) && !at.Before(predictNow) {
				if got := roleAMIs(selectAt(images, at, minAge)); !cmp.Equal(ids(now), ids(got)) {
					t.Fatalf("the selection changes at %v, before NextChange %v", at, plan.NextChange)
				}
			}
		}
		for _, d := range plan.Images {
			for _, m := range d.Moves {
				if got := roleAMIs(selectAt(images, m.At, minAge))[keyOf(&m.To)]; !sameImage(got, m.To) {
					t.Fatalf("%s moves to %s at %v; Select then gives %s", d.ImageID, m.To, m.At, got)
				}
			}
			if !d.SelectedAt.IsZero() && !slices.ContainsFunc(selectAt(images, d.SelectedAt, minAge).AMIs, func(a AMI) bool { return a.ID == d.ImageID }) {
				t.Fatalf("%s is selected at %v, says the plan; Select then does not pick it", d.ImageID, d.SelectedAt)
			}
			if d.Drifts && len(d.Moves) > 0 {
				checkEveryMove(t, sel, d)
			}
		}
	})
}

// ids is the image ID of each role.
func ids(m map[setKey]AMI) map[string]string {
	out := map[string]string{}
	for k, a := range m {
		out[fmt.Sprint(k)] = a.ID
	}
	return out
}

// runningAll runs nodes on every image of the catalog.
func runningAll(images []ec2types.Image) []Running {
	var out []Running
	for i, img := range images {
		out = append(out, Running{ImageID: aws.ToString(img.ImageId), Nodes: i + 1})
	}
	merged, _ := mergeRunning(out)
	return merged
}

// checkEveryMove: nodes that drift now go to their role's AMI now, then
// through every change of that role.
func checkEveryMove(t *rapid.T, sel Selection, d ImageDrift) {
	role := keyOf(&d.Moves[0].To)
	var want []string
	for _, c := range sel.Changes() {
		if keyOf(&c.To) == role {
			want = append(want, c.To.ID+" at "+c.At.UTC().Format(time.RFC3339))
		}
	}
	var got []string
	for _, m := range d.Moves[1:] {
		got = append(got, m.To.ID+" at "+m.At.UTC().Format(time.RFC3339))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s drifts; its later moves are not its role's changes (-changes +moves):\n%s", d.ImageID, diff)
	}
}

// TestNoBackwardsDrift: by default, no node on an available image that
// Select will pick later is told to drift away from it; with Strict,
// exactly the images that are not selected now drift (none waits).
func TestNoBackwardsDrift(t *testing.T) {
	checkMany(t, predictionChecks, func(t *rapid.T) {
		images := genPredictCatalog(t)
		minAge := genPredictMinAge(t)
		sel := selectAt(images, predictNow, minAge)
		running := runningAll(images)
		later := map[string]bool{} // images Select picks at some later instant
		for _, at := range instantsOf(images, predictNow, minAge) {
			for _, a := range selectAt(images, at, minAge).AMIs {
				later[a.ID] = true
			}
		}
		for _, d := range planOf(sel, running, nil, PlanOptions{}).Images {
			if d.Drifts && later[d.ImageID] {
				t.Fatalf("%s drifts (%v: %s), but Select picks it later", d.ImageID, d.Reason, d.Detail)
			}
			if d.Reason != NoDrift && !d.Drifts && d.SelectedAt.IsZero() {
				t.Fatalf("%s is not selected and not drifting, yet not selected later: %s", d.ImageID, d.Detail)
			}
		}
		for _, d := range planOf(sel, running, nil, PlanOptions{Strict: true}).Images {
			if d.Drifts != (d.Reason != NoDrift) {
				t.Fatalf("strict: %s drifts %v with reason %v", d.ImageID, d.Drifts, d.Reason)
			}
		}
	})
}

// aliasTemplates are the images of one alias's releases, with the
// families' real names, so that ec2fake publishes their SSM parameters.
var aliasTemplates = map[string][]template{
	"al2023@latest": {
		{"amazon-eks-node-al2023-x86_64-standard-1.32-v202503%02d", "x86_64"},
		{"amazon-eks-node-al2023-x86_64-nvidia-1.32-v202503%02d", "x86_64"},
		{"amazon-eks-node-al2023-x86_64-neuron-1.32-v202503%02d", "x86_64"},
		{"amazon-eks-node-al2023-arm64-standard-1.32-v202503%02d", "arm64"},
	},
	"al2@latest": {
		{"amazon-eks-node-1.32-v202503%02d", "x86_64"},
		{"amazon-eks-arm64-node-1.32-v202503%02d", "arm64"},
		{"amazon-eks-gpu-node-1.32-v202503%02d", "x86_64"},
	},
	"bottlerocket@latest": {
		{"bottlerocket-aws-k8s-1.32-x86_64-v1.%d.0-0123abcd", "x86_64"},
		{"bottlerocket-aws-k8s-1.32-aarch64-v1.%d.0-0123abcd", "arm64"},
		{"bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.%d.0-0123abcd", "x86_64"},
	},
}

// genAliasCatalog draws an alias and releases of its images, published by
// Amazon: release r is created no earlier than release r-1 (AWS numbers
// releases in order), often at the same instant, and holds some of the
// family's images.
func genAliasCatalog(t *rapid.T) (string, []ec2types.Image) {
	alias := rapid.SampledFrom([]string{"al2023@latest", "al2@latest", "bottlerocket@latest"}).Draw(t, "alias")
	offsets := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) time.Duration { return genOffset(t, "created") }), 1, 6).Draw(t, "releases")
	slices.Sort(offsets)
	var images []ec2types.Image
	for r, off := range offsets {
		for j, tm := range aliasTemplates[alias] {
			// Each release holds most of the family's images; the first
			// one at least (SSM has no parameter for an empty family).
			if r+j > 0 && rapid.IntRange(0, 3).Draw(t, "in release") == 0 {
				continue
			}
			images = append(images, ec2types.Image{
				ImageId:         aws.String(fmt.Sprintf("ami-0%03d", len(images)+1)),
				Name:            aws.String(fmt.Sprintf(tm.name, 10+r)),
				Architecture:    ec2types.ArchitectureValues(tm.arch),
				State:           ec2types.ImageStateAvailable,
				CreationDate:    aws.String(predictNow.Add(off).Format(time.RFC3339)),
				DeprecationTime: genDeprecation(t),
				OwnerId:         aws.String(ec2fake.EKSOwnerID), ImageOwnerAlias: aws.String("amazon"), Public: aws.Bool(true),
			})
		}
	}
	return alias, images
}

// TestMinAgeThroughSSMAsByName: MinAge has the same effect through SSM as
// by name. For every role where the two ways select the same image
// without a soak (they differ where SSM's parameter names a release that
// the names would pass over, such as a deprecated one), they select the
// same image with the soak, hold back the same images until the same
// instants, and foresee the same next change (with a soak: without one,
// SSM's single current image is all there is to change to).
func TestMinAgeThroughSSMAsByName(t *testing.T) {
	checkMany(t, predictionChecks, func(t *rapid.T) {
		alias, images := genAliasCatalog(t)
		b := ec2fake.New(ec2fake.Options{Now: func() time.Time { return predictNow }})
		if err := b.Load(images, nil); err != nil {
			t.Fatal(err)
		}
		minAge := genPredictMinAge(t)
		resolve := func(source AliasSource, minAge time.Duration) Selection {
			sel, err := Resolve(context.Background(), b, []Term{{Alias: alias}}, Options{
				Query: QueryOptions{KubernetesVersion: "1.32"}, SSM: b, Aliases: source,
				Select: SelectOptions{Now: func() time.Time { return predictNow }, MinAge: minAge},
			})
			if err != nil {
				t.Fatalf("%s %v MinAge %v: %v", alias, source, minAge, err)
			}
			return sel
		}
		name0, ssm0 := roleAMIs(resolve(AliasByName, 0)), roleAMIs(resolve(AliasBySSM, 0))
		byName, bySSM := resolve(AliasByName, minAge), resolve(AliasBySSM, minAge)
		nameNow, ssmNow := roleAMIs(byName), roleAMIs(bySSM)
		for k, a := range name0 {
			if !sameImage(a, ssm0[k]) {
				continue // the two ways disagree without a soak
			}
			if !sameImage(nameNow[k], ssmNow[k]) {
				t.Fatalf("%s, role %v, MinAge %v: by name %s, through SSM %s (both %s without it)", alias, k, minAge, nameNow[k], ssmNow[k], a)
			}
			if diff := cmp.Diff(heldIn(byName, k), heldIn(bySSM, k)); diff != "" {
				t.Fatalf("%s, role %v, MinAge %v: held back (-by name +through SSM):\n%s", alias, k, minAge, diff)
			}
			// Without a soak, SSM's one current image is all there is: its
			// DeprecationTime changes nothing, as Resolve then would find.
			if diff := cmp.Diff(nextIn(byName, k), nextIn(bySSM, k)); minAge > 0 && diff != "" {
				t.Fatalf("%s, role %v, MinAge %v: next change (-by name +through SSM):\n%s", alias, k, minAge, diff)
			}
		}
	})
}

// heldIn lists a role's held-back images, as image, winner and instant.
func heldIn(s Selection, k setKey) []string {
	var out []string
	for _, h := range s.HeldBack() {
		if keyOf(&h.AMI) == k {
			out = append(out, h.AMI.ID+" for "+h.Winner.ID+" until "+h.EligibleAt.Format(time.RFC3339))
		}
	}
	return out
}

// nextIn is a role's next change, as instant and image.
func nextIn(s Selection, k setKey) string {
	for _, c := range s.Changes() {
		if keyOf(&c.To) == k {
			return c.To.ID + " at " + c.At.Format(time.RFC3339)
		}
	}
	return ""
}
