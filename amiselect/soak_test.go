package amiselect

import (
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func soaked(now time.Time, minAge time.Duration) SelectOptions {
	return SelectOptions{Now: func() time.Time { return now }, MinAge: minAge}
}

// TestSelectMinAge: a young release waits while an older image serves its
// role, and takes over once old enough; a role with only young images
// takes the oldest; deprecation still comes first.
func TestSelectMinAge(t *testing.T) {
	const week = 7 * 24 * time.Hour
	release := func(id, date string) ec2types.Image {
		return image(id, "amazon-eks-node-al2023-x86_64-standard-1.32-v"+date[:4]+date[5:7]+date[8:10], "x86_64", date+"T16:40:40.000Z")
	}
	type held struct{ ID, Winner, EligibleAt string }
	tests := []struct {
		name   string
		images []ec2types.Image
		now    string
		minAge time.Duration
		want   []string
		held   []held
	}{
		{
			name:   "a release younger than MinAge waits; the previous one serves",
			images: []ec2types.Image{release("ami-0old", "2025-03-17"), release("ami-0new", "2025-04-03")},
			now:    "2025-04-05T00:00:00Z", minAge: week,
			want: []string{"ami-0old"},
			held: []held{{"ami-0new", "ami-0old", "2025-04-10T16:40:40Z"}},
		},
		{
			name:   "at EligibleAt it is old enough and selected",
			images: []ec2types.Image{release("ami-0old", "2025-03-17"), release("ami-0new", "2025-04-03")},
			now:    "2025-04-10T16:40:40Z", minAge: week,
			want: []string{"ami-0new"},
		},
		{
			name:   "two young releases: the role keeps the old one, and each waits its turn",
			images: []ec2types.Image{release("ami-0old", "2025-03-17"), release("ami-0mid", "2025-04-03"), release("ami-0new", "2025-04-08")},
			now:    "2025-04-09T00:00:00Z", minAge: week,
			want: []string{"ami-0old"},
			held: []held{{"ami-0mid", "ami-0old", "2025-04-10T16:40:40Z"}, {"ami-0new", "ami-0old", "2025-04-15T16:40:40Z"}},
		},
		{
			name:   "only young images (a new Kubernetes version): the oldest, not none",
			images: []ec2types.Image{release("ami-0first", "2025-04-03"), release("ami-0second", "2025-04-08")},
			now:    "2025-04-09T00:00:00Z", minAge: week,
			want: []string{"ami-0first"},
			held: []held{{"ami-0second", "ami-0first", "2025-04-15T16:40:40Z"}},
		},
		{
			name: "deprecation first: a young image replaces a deprecated one at once",
			images: []ec2types.Image{
				withDeprecation(release("ami-0old", "2025-03-17"), "2025-04-01T00:00:00Z"),
				release("ami-0new", "2025-04-03"),
			},
			now: "2025-04-05T00:00:00Z", minAge: week,
			want: []string{"ami-0new"},
		},
		{
			name:   "negative MinAge is no soak",
			images: []ec2types.Image{release("ami-0old", "2025-03-17"), release("ami-0new", "2025-04-03")},
			now:    "2025-04-05T00:00:00Z", minAge: -week,
			want: []string{"ami-0new"},
		},
		{
			name:   "no soak: an image dated after now (a skewed clock) is selected as without MinAge",
			images: []ec2types.Image{release("ami-0old", "2025-03-17"), release("ami-0new", "2025-04-03")},
			now:    "2025-04-01T00:00:00Z", minAge: 0,
			want: []string{"ami-0new"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel := Select(tt.images, soaked(mustTime(tt.now), tt.minAge))
			var got []string
			for _, a := range sel.AMIs {
				got = append(got, a.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("AMIs mismatch (-want +got):\n%s", diff)
			}
			var gotHeld []held
			for _, h := range sel.HeldBack() {
				gotHeld = append(gotHeld, held{h.AMI.ID, h.Winner.ID, h.EligibleAt.Format(time.RFC3339)})
			}
			if diff := cmp.Diff(tt.held, gotHeld); diff != "" {
				t.Errorf("HeldBack mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHeldBackReason(t *testing.T) {
	sel := Select([]ec2types.Image{
		image("ami-0old", "team-base-1", "x86_64", "2025-03-01T00:00:00Z"),
		image("ami-0new", "team-base-2", "x86_64", "2025-04-03T16:40:40.000Z"),
	}, soaked(mustTime("2025-04-05T00:00:00Z"), 72*time.Hour))
	held := sel.HeldBack()
	if len(held) != 1 {
		t.Fatalf("HeldBack = %v, want one", held)
	}
	want := "ami-0new was created 2025-04-03T16:40:40Z, less than MinAge (72h0m0s) before now; it comes of age at 2025-04-06T16:40:40Z, and ami-0old serves until then"
	if got := held[0].Reason(); got != want {
		t.Errorf("Reason() = %q\nwant       %q", got, want)
	}
	if s := sel.Superseded(); s != nil {
		t.Errorf("a held-back image is also superseded: %v", s)
	}
}

// genNow draws the instant Select judges at: before, among and after the
// generators' creation dates (2024-12-31 to 2025-04-03).
func genNow(t *rapid.T) time.Time {
	return mustTime(rapid.SampledFrom([]string{
		"2025-03-01T09:30:00Z", "2025-03-20T00:00:00Z", "2025-04-02T00:00:00Z", "2025-04-10T00:00:00Z", "2025-07-01T00:00:00Z",
	}).Draw(t, "now"))
}

func genMinAge(t *rapid.T, label string) time.Duration {
	return rapid.SampledFrom([]time.Duration{0, time.Hour, 24 * time.Hour, 14 * 24 * time.Hour, 31 * 24 * time.Hour, 60 * 24 * time.Hour, 400 * 24 * time.Hour}).Draw(t, label)
}

// genSoakImage is a crowded image whose deprecation, when it has one,
// often falls among the creation dates, so that deprecated and young
// images meet.
func genSoakImage(t *rapid.T) ec2types.Image {
	img := genCrowdedImage(t)
	if img.DeprecationTime != nil && rapid.Bool().Draw(t, "early deprecation") {
		img.DeprecationTime = aws.String(rapid.SampledFrom([]string{"2025-03-10T00:00:00Z", "2025-04-01T12:00:00Z"}).Draw(t, "deprecated at"))
	}
	return img
}

func genSoakImages(t *rapid.T) []ec2types.Image {
	return rapid.SliceOfN(rapid.Custom(genSoakImage), 0, 24).Draw(t, "images")
}

// told is what a Selection tells through its API, comparable with cmp.
type told struct {
	AMIs       []AMI
	Rejected   []Rejection
	Superseded []Superseded
	HeldBack   []HeldBack
}

func tell(s Selection) told { return told{s.AMIs, s.Rejected, s.Superseded(), s.HeldBack()} }

// TestSelectMinAgeZeroIsToday: MinAge 0, and any MinAge at or below zero,
// gives exactly the Selection of the zero options at the same instant:
// today's behaviour, kept by the unchanged reference and golden tests.
func TestSelectMinAgeZeroIsToday(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		images := genSoakImages(t)
		now := genNow(t)
		today := tell(Select(images, SelectOptions{Now: func() time.Time { return now }}))
		if today.HeldBack != nil {
			t.Fatalf("without MinAge, images are held back: %v", today.HeldBack)
		}
		for _, m := range []time.Duration{0, -time.Nanosecond, -time.Duration(rapid.Int64Range(1, 1<<50).Draw(t, "negative"))} {
			got := tell(Select(images, soaked(now, m)))
			if diff := cmp.Diff(today, got, equalRequirements); diff != "" {
				t.Fatalf("MinAge %v differs from the zero options (-zero +MinAge):\n%s", m, diff)
			}
		}
	})
}

// referenceSoak is a naive Select with MinAge, built differently from
// Select's one comparison: per requirement set, keep the images that are
// not deprecated (all, if every one is); of those, the old enough ones if
// any, taking the best by today's rule; else the oldest young one. Losers
// the rule without MinAge prefers to the winner, and which are young, are
// held back; the others are superseded.
func referenceSoak(images []ec2types.Image, now time.Time, minAge time.Duration) (amis []AMI, superseded []Superseded, held []HeldBack) {
	return referenceSoakAt(images, now, minAge, true)
}

// referenceSoakAt is referenceSoak; with future false it leaves out
// SelectedAt (which asks it about later instants).
func referenceSoakAt(images []ec2types.Image, now time.Time, minAge time.Duration, future bool) (amis []AMI, superseded []Superseded, held []HeldBack) {
	entries, _ := referenceEntries(images, now)
	young := func(a AMI) bool { return minAge > 0 && now.Sub(a.Created) < minAge }
	todayBetter := func(a, b AMI) bool {
		switch {
		case a.Deprecated != b.Deprecated:
			return b.Deprecated
		case !a.Created.Equal(b.Created):
			return a.Created.After(b.Created)
		case a.Name != b.Name:
			return a.Name > b.Name
		case a.ID != b.ID:
			return a.ID < b.ID
		case a.CreationDate != b.CreationDate:
			return a.CreationDate < b.CreationDate
		}
		return laterDeprecationRef(a.DeprecationTime, b.DeprecationTime)
	}
	var groups [][]int // entry indexes per requirement set
	for i, e := range entries {
		g := slices.IndexFunc(groups, func(g []int) bool { return entries[g[0]].reqs.Equal(e.reqs) })
		if g < 0 {
			groups = append(groups, nil)
			g = len(groups) - 1
		}
		groups[g] = append(groups[g], i)
	}
	winnerOf := make([]int, len(groups))
	won := map[int]bool{}
	for g, members := range groups {
		pool := slices.DeleteFunc(slices.Clone(members), func(i int) bool { return entries[i].ami.Deprecated })
		if len(pool) == 0 {
			pool = members
		}
		old := slices.DeleteFunc(slices.Clone(pool), func(i int) bool { return young(entries[i].ami) })
		w := -1
		if len(old) > 0 {
			for _, i := range old {
				if w < 0 || todayBetter(entries[i].ami, entries[w].ami) {
					w = i
				}
			}
		} else {
			for _, i := range pool {
				a := entries[i].ami
				if w < 0 {
					w = i
					continue
				}
				b := entries[w].ami
				if a.Created.Before(b.Created) || a.Created.Equal(b.Created) && todayBetter(a, b) {
					w = i
				}
			}
		}
		winnerOf[g] = w
		won[entries[w].image] = true
		amis = append(amis, entries[w].ami)
	}
	for g, members := range groups {
		w := entries[winnerOf[g]].ami
		for _, i := range members {
			e := entries[i]
			switch {
			case i == winnerOf[g]:
			case young(e.ami) && todayBetter(e.ami, w):
				// Held back even when the image wins another set.
				h := HeldBack{AMI: e.ami, Winner: w, EligibleAt: e.ami.Created.Add(minAge)}
				if future {
					h.SelectedAt = referenceSelectedAt(images, now, minAge, e.ami)
				}
				held = append(held, h)
			case !won[e.image]:
				superseded = append(superseded, Superseded{AMI: e.ami, Winner: w})
			}
		}
	}
	slices.SortFunc(amis, compareAMIs)
	slices.SortFunc(superseded, func(a, b Superseded) int {
		if c := compareAMIs(a.AMI, b.AMI); c != 0 {
			return c
		}
		return compareAMIs(a.Winner, b.Winner)
	})
	slices.SortFunc(held, func(a, b HeldBack) int {
		if c := a.EligibleAt.Compare(b.EligibleAt); c != 0 {
			return c
		}
		if c := compareAMIs(a.AMI, b.AMI); c != 0 {
			return c
		}
		return compareAMIs(a.Winner, b.Winner)
	})
	return amis, superseded, held
}

// referenceSelectedAt is when the reference first selects a, in its set,
// after now: it tries every later instant where an image of the input
// comes of age or is deprecated, in order; zero when none selects it.
func referenceSelectedAt(images []ec2types.Image, now time.Time, minAge time.Duration, a AMI) time.Time {
	var instants []time.Time
	for _, img := range images {
		if c, err := time.Parse(time.RFC3339, aws.ToString(img.CreationDate)); err == nil && c.Add(minAge).After(now) {
			instants = append(instants, c.Add(minAge))
		}
		if d, err := time.Parse(time.RFC3339, aws.ToString(img.DeprecationTime)); err == nil && d.After(now) {
			instants = append(instants, d)
		}
	}
	slices.SortFunc(instants, time.Time.Compare)
	for _, t := range instants {
		amis, _, _ := referenceSoakAt(images, t, minAge, false)
		if slices.ContainsFunc(amis, func(w AMI) bool {
			return w.ID == a.ID && w.Name == a.Name && keyOf(&w) == keyOf(&a) && w.CreationDate == a.CreationDate && w.DeprecationTime.Equal(a.DeprecationTime)
		}) {
			return t.UTC()
		}
	}
	return time.Time{}
}

// TestSelectMinAgeProperties states the laws of MinAge: Select agrees
// with the naive reference; every role with an available image selects
// exactly one; raising MinAge never selects a younger image in place of
// an older one of the same role; held-back images are young and would
// win without MinAge; and every image is accounted for once.
func TestSelectMinAgeProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		images := genSoakImages(t)
		now := genNow(t)
		lo, hi := genMinAge(t, "minAge"), genMinAge(t, "raised")
		if lo > hi {
			lo, hi = hi, lo
		}
		low, high := Select(images, soaked(now, lo)), Select(images, soaked(now, hi))

		for _, c := range []struct {
			minAge time.Duration
			sel    Selection
		}{{lo, low}, {hi, high}} {
			amis, superseded, held := referenceSoak(images, now, c.minAge)
			if diff := cmp.Diff(told{amis, nil, superseded, held}, told{c.sel.AMIs, nil, c.sel.Superseded(), c.sel.HeldBack()}, equalRequirements); diff != "" {
				t.Fatalf("MinAge %v: Select disagrees with the reference (-reference +Select):\n%s", c.minAge, diff)
			}
			checkRoles(t, images, now, c.sel)
			checkAccounted(t, images, c.sel)
			for _, h := range c.sel.HeldBack() {
				if !h.EligibleAt.After(now) || !h.EligibleAt.Equal(h.AMI.Created.Add(c.minAge)) || !better(&h.AMI, &h.Winner) {
					t.Fatalf("MinAge %v: %s held back for %s until %v, created %v", c.minAge, h.AMI, h.Winner, h.EligibleAt, h.AMI.Created)
				}
			}
		}
		for _, w := range high.AMIs {
			i := slices.IndexFunc(low.AMIs, func(a AMI) bool { return keyOf(&a) == keyOf(&w) })
			if i < 0 {
				t.Fatalf("role of %s selected with MinAge %v but not %v", w, hi, lo)
			}
			if w.Created.After(low.AMIs[i].Created) {
				t.Fatalf("raising MinAge %v → %v selected %s (created %v) in place of the older %s (created %v)",
					lo, hi, w, w.Created, low.AMIs[i], low.AMIs[i].Created)
			}
		}
	})
}

// checkRoles: every role (requirement set) of an admitted image has
// exactly one AMI, and no AMI has a role without one.
func checkRoles(t *rapid.T, images []ec2types.Image, now time.Time, sel Selection) {
	roles := map[setKey]int{}
	for _, a := range sel.AMIs {
		roles[keyOf(&a)]++
	}
	entries, _ := referenceEntries(images, now)
	want := map[setKey]int{}
	for _, e := range entries {
		want[keyOf(&e.ami)] = 1
	}
	if diff := cmp.Diff(want, roles, cmp.AllowUnexported(setKey{})); diff != "" {
		t.Fatalf("AMIs per role (-one each +got):\n%s", diff)
	}
}

// TestHeldBackAccountsOnce: like Superseded, HeldBack lists an image once
// per set it lost.
func TestHeldBackAccountsOnce(t *testing.T) {
	images := []ec2types.Image{
		image("ami-0a200000000000003", "amazon-eks-gpu-node-1.32-v20250403", "x86_64", "2025-04-03T16:33:51.000Z"),
		image("ami-0a200000000000009", "amazon-eks-gpu-node-1.32-v20250317", "x86_64", "2025-03-17T16:33:51.000Z"),
	}
	sel := Select(images, soaked(mustTime("2025-04-04T00:00:00Z"), 7*24*time.Hour))
	var got []string
	for _, h := range sel.HeldBack() {
		got = append(got, h.AMI.ID+" "+h.AMI.Variant.String()+" for "+h.Winner.ID)
	}
	want := []string{ // the accelerated image serves two sets, and waits in both
		"ami-0a200000000000003 nvidia for ami-0a200000000000009",
		"ami-0a200000000000003 neuron for ami-0a200000000000009",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("HeldBack mismatch (-want +got):\n%s", diff)
	}
}
