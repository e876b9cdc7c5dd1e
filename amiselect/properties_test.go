package amiselect

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
)

// Names drawn by the generators: every family and variant, near misses,
// and custom names; architectures are drawn separately, so names and
// architectures often disagree.
var genNames = []string{
	"amazon-eks-node-1.32-v20250403", "amazon-eks-node-1.32-v20250317",
	"amazon-eks-arm64-node-1.32-v20250403", "amazon-eks-gpu-node-1.32-v20250403",
	"amazon-eks-node-al2023-x86_64-standard-1.32-v20250403", "amazon-eks-node-al2023-x86_64-nvidia-1.32-v20250403",
	"amazon-eks-node-al2023-x86_64-neuron-1.32-v20250403", "amazon-eks-node-al2023-arm64-standard-1.32-v20250403",
	"amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403",
	"bottlerocket-aws-k8s-1.32-x86_64-v1.49.0-713f44ce", "bottlerocket-aws-k8s-1.32-aarch64-v1.49.0-713f44ce",
	"bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.49.0-713f44ce", "bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.49.0-713f44ce",
	"Windows_Server-2019-English-Core-EKS_Optimized-1.32-2025.04.14", "Windows_Server-2022-English-Core-EKS_Optimized-1.32-2025.04.14",
	"Windows_Server-2025-English-Full-EKS_Optimized-1.35-2026.04.18",
	"team-base-al2023-20250301", "team-base-al2023-20250401", "bottlerocket-aws-k8s-1.32-fips-x86_64-v1.49.0-713f44ce", "",
}

var genDates = []string{
	"2025-03-01T09:30:00.000Z", "2025-03-01T10:30:00+01:00", // the same instant
	"2025-03-15T09:30:00Z", "2025-04-01T09:30:00.000Z", "2025-04-03T16:40:40.000Z", "2024-12-31T23:59:59Z",
	"Sat Mar 22 09:30:00 UTC 2025", "2025-13-01T00:00:00Z", "",
}

func genImage(t *rapid.T) ec2types.Image {
	img := ec2types.Image{
		Name:         aws.String(rapid.SampledFrom(genNames).Draw(t, "name")),
		Architecture: ec2types.ArchitectureValues(rapid.SampledFrom([]string{"x86_64", "x86_64", "arm64", "arm64", "i386", "x86_64_mac", "arm64_mac", ""}).Draw(t, "arch")),
		State:        ec2types.ImageState(rapid.SampledFrom([]string{"available", "available", "available", "pending", "failed", "disabled", ""}).Draw(t, "state")),
	}
	if id := rapid.IntRange(0, 12).Draw(t, "id"); id > 0 {
		img.ImageId = aws.String(fmt.Sprintf("ami-0%02d", id))
	}
	if d := rapid.IntRange(-1, len(genDates)-1).Draw(t, "created"); d >= 0 {
		img.CreationDate = aws.String(genDates[d])
	}
	switch rapid.IntRange(0, 5).Draw(t, "deprecation") {
	case 0:
		img.DeprecationTime = aws.String("2025-06-01T00:00:00.000Z") // past
	case 1:
		img.DeprecationTime = aws.String("2027-01-01T00:00:00Z") // future
	case 2:
		img.DeprecationTime = aws.String("next year")
	case 3:
		img.DeprecationTime = aws.String("")
	}
	return img
}

func genImages(t *rapid.T) []ec2types.Image {
	return rapid.SliceOfN(rapid.Custom(genImage), 0, 24).Draw(t, "images")
}

// genCrowdedImage draws mostly valid images with few IDs and dates, so
// that images compete for requirement sets, tie, and repeat.
func genCrowdedImage(t *rapid.T) ec2types.Image {
	img := genImage(t)
	img.ImageId = aws.String(fmt.Sprintf("ami-0%02d", rapid.IntRange(1, 4).Draw(t, "crowded id")))
	img.Architecture = ec2types.ArchitectureValues(rapid.SampledFrom([]string{"x86_64", "arm64"}).Draw(t, "crowded arch"))
	img.CreationDate = aws.String(rapid.SampledFrom(genDates[:4]).Draw(t, "crowded created"))
	if rapid.IntRange(0, 9).Draw(t, "crowded state") > 0 {
		img.State = ec2types.ImageStateAvailable
	}
	if img.DeprecationTime != nil && *img.DeprecationTime == "next year" {
		img.DeprecationTime = nil
	}
	return img
}

func shuffled[T any](t *rapid.T, xs []T) []T {
	out := slices.Clone(xs)
	for i := len(out) - 1; i > 0; i-- {
		j := rapid.IntRange(0, i).Draw(t, "swap")
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func TestSelectIndependentOfOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		images := genImages(t)
		a := Select(images, at(fixedNow))
		b := Select(shuffled(t, images), at(fixedNow))
		// Selection holds unexported state; compare what it tells.
		type told struct {
			AMIs       []AMI
			Rejected   []Rejection
			Superseded []Superseded
		}
		if diff := cmp.Diff(told{a.AMIs, a.Rejected, a.Superseded()}, told{b.AMIs, b.Rejected, b.Superseded()}, equalRequirements); diff != "" {
			t.Fatalf("Select depends on input order (-first +shuffled):\n%s", diff)
		}
	})
}

// refEntry is one (image, requirement set) pair of the naive reference:
// the image as the AMI of the set, the set's requirements, and the
// image's input index.
type refEntry struct {
	ami   AMI
	reqs  compat.Requirements
	image int
}

// referenceEntries admits images naively and lists every (image,
// requirement set) pair, with how many images are refused.
func referenceEntries(images []ec2types.Image, now time.Time) (entries []refEntry, rejected int) {
	for n, img := range images {
		id := aws.ToString(img.ImageId)
		arch := map[ec2types.ArchitectureValues]string{"x86_64": "amd64", "arm64": "arm64"}[img.Architecture]
		created, err := time.Parse(time.RFC3339, aws.ToString(img.CreationDate))
		dep := aws.ToString(img.DeprecationTime)
		depTime, depErr := time.Parse(time.RFC3339, dep)
		if id == "" || img.State != "available" || arch == "" || err != nil || (dep != "" && depErr != nil) {
			rejected++
			continue
		}
		r := recognize(aws.ToString(img.Name), arch)
		variants := r.variants[:r.n]
		if r.n == 0 {
			variants = []Variant{Unspecified}
		}
		for _, v := range variants {
			a := AMI{ID: id, Name: aws.ToString(img.Name), Arch: arch, Family: r.family, Variant: v,
				Created: created.UTC(), CreationDate: aws.ToString(img.CreationDate), Deprecated: dep != "" && !depTime.After(now), Release: r.release}
			if dep != "" {
				a.DeprecationTime = depTime.UTC()
			}
			labels := map[string]string{compat.LabelArch: arch}
			if b := r.family.WindowsBuild(); b != "" {
				labels[compat.LabelOS], labels[compat.LabelWindowsBuild] = "windows", b
			}
			reqs := v.Requirements().Intersect(compat.FromLabels(labels))
			a.Requirements = reqs
			entries = append(entries, refEntry{a, reqs, n})
		}
	}
	return entries, rejected
}

// reference is a naive Select: every (image, requirement set) pair that
// survives the checks, grouped by set with requirements compared by
// compat's Equal, the best of each group found by pairwise comparison.
func reference(images []ec2types.Image, now time.Time) (amis []AMI, rejected int, superseded []Superseded) {
	entries, rejected := referenceEntries(images, now)
	preferred := func(a, b AMI) bool { // a strictly better than b for one set
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
			return a.CreationDate < b.CreationDate // one image, its date spelt two ways
		}
		return laterDeprecationRef(a.DeprecationTime, b.DeprecationTime) // copies differing only there
	}
	isBest := func(i int) bool {
		for j, o := range entries {
			if i != j && o.reqs.Equal(entries[i].reqs) && (preferred(o.ami, entries[i].ami) || (j < i && !preferred(entries[i].ami, o.ami))) {
				return false // o beats e, or o equals e and comes first
			}
		}
		return true
	}
	won := map[int]bool{}
	for i, e := range entries {
		if isBest(i) {
			amis = append(amis, e.ami)
			won[e.image] = true
		}
	}
	// An image that won no set lost each of its sets to that set's best.
	for _, e := range entries {
		if won[e.image] {
			continue
		}
		for i, o := range entries {
			if o.reqs.Equal(e.reqs) && isBest(i) {
				superseded = append(superseded, Superseded{AMI: e.ami, Winner: o.ami})
			}
		}
	}
	return amis, rejected, superseded
}

// laterDeprecationRef: a DeprecationTime after another, none being the
// latest.
func laterDeprecationRef(a, b time.Time) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero() && !b.IsZero()
	}
	return a.After(b)
}

// precedes states the newest-available order law: must a come before b?
func precedes(a, b AMI) bool {
	if a.Deprecated != b.Deprecated {
		return !a.Deprecated
	}
	if !a.Created.Equal(b.Created) {
		return a.Created.After(b.Created)
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	if a.Variant != b.Variant {
		return a.Variant < b.Variant
	}
	if a.Arch != b.Arch {
		return a.Arch < b.Arch
	}
	return a.Family.WindowsBuild() < b.Family.WindowsBuild()
}

func TestSelectProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { checkSelect(t, genImages(t)) })
}

// TestSelectCrowdedProperties checks the same laws where images compete:
// few IDs and dates, mostly valid, often exact duplicates.
func TestSelectCrowdedProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		checkSelect(t, rapid.SliceOfN(rapid.Custom(genCrowdedImage), 0, 24).Draw(t, "images"))
	})
}

// checkSelect states Select's laws for one input.
func checkSelect(t *rapid.T, images []ec2types.Image) {
	got := Select(images, at(fixedNow))

	// Every AMI comes from an available image of a supported
	// architecture.
	for _, a := range got.AMIs {
		i := slices.IndexFunc(images, func(img ec2types.Image) bool {
			return aws.ToString(img.ImageId) == a.ID && img.State == "available" &&
				(img.Architecture == "x86_64" || img.Architecture == "arm64")
		})
		if i < 0 {
			t.Fatalf("AMI %s has no available, supported image in the input", a)
		}
		if a.Arch != "amd64" && a.Arch != "arm64" {
			t.Fatalf("AMI %s has architecture %q", a, a.Arch)
		}
	}
	// No two AMIs share a requirement set, and the order law holds
	// for every pair.
	for i := range got.AMIs {
		for j := i + 1; j < len(got.AMIs); j++ {
			if got.AMIs[i].Requirements.Equal(got.AMIs[j].Requirements) {
				t.Fatalf("AMIs %s and %s share requirements %v", got.AMIs[i], got.AMIs[j], got.AMIs[i].Requirements)
			}
			if !precedes(got.AMIs[i], got.AMIs[j]) {
				t.Fatalf("AMI %d %s (%v) is ordered before AMI %d %s (%v)", i, got.AMIs[i], got.AMIs[i].Created, j, got.AMIs[j], got.AMIs[j].Created)
			}
		}
	}
	// The AMIs are exactly the naive reference's, and every invalid
	// image is rejected once.
	want, rejected, wantSuperseded := reference(images, fixedNow)
	slices.SortFunc(want, func(a, b AMI) int {
		if precedes(a, b) {
			return -1
		}
		return 1
	})
	if diff := cmp.Diff(want, got.AMIs, equalRequirements); diff != "" {
		t.Fatalf("Select disagrees with the reference (-reference +Select):\n%s", diff)
	}
	if len(got.Rejected) != rejected {
		t.Fatalf("%d rejections, want %d", len(got.Rejected), rejected)
	}
	slices.SortFunc(wantSuperseded, func(a, b Superseded) int {
		if c := compareAMIs(a.AMI, b.AMI); c != 0 {
			return c
		}
		return compareAMIs(a.Winner, b.Winner)
	})
	if diff := cmp.Diff(wantSuperseded, got.Superseded(), equalRequirements); diff != "" {
		t.Fatalf("Superseded disagrees with the reference (-reference +Select):\n%s", diff)
	}
	checkAccounted(t, images, got)
	for i := 1; i < len(got.Rejected); i++ {
		if compareRejections(got.Rejected[i-1], got.Rejected[i]) > 0 {
			t.Fatalf("rejections out of order at %d: %v", i, got.Rejected)
		}
	}
}

// checkAccounted states the accounting law of Superseded and HeldBack: an
// input image is a Rejection; or it wins some sets (an AMI for each) and
// may be held back in others it serves (it is never superseded); or it
// wins none and, in each set it serves, is superseded or held back. Images
// are told apart by the fields Select keeps, so identical copies are one
// identity: one copy wins wherever the identity does, and every other copy
// has an entry in each set it serves. For an identity serving s sets with
// w AMIs and e entries over Superseded and HeldBack, that makes e div s the
// copies besides a winning one, and e mod s at most s - w (the winning
// copy's held-back sets), or 0 when it wins nowhere.
func checkAccounted(t *rapid.T, images []ec2types.Image, got Selection) {
	type identity struct {
		id, name, arch string
		created        time.Time
		deprecated     bool
	}
	of := func(a AMI) identity { return identity{a.ID, a.Name, a.Arch, a.Created, a.Deprecated} }
	wins, entries := map[identity]int{}, map[identity]int{}
	for _, a := range got.AMIs {
		wins[of(a)]++
	}
	for _, s := range got.Superseded() {
		if !s.Winner.Requirements.Equal(s.AMI.Requirements) {
			t.Fatalf("%s superseded by %s, which serves other requirements", s.AMI, s.Winner)
		}
		if better(&s.AMI, &s.Winner) {
			t.Fatalf("%s superseded by %s, which is not better: %s", s.AMI, s.Winner, s.Reason())
		}
		entries[of(s.AMI)]++
	}
	for _, h := range got.HeldBack() {
		if !h.Winner.Requirements.Equal(h.AMI.Requirements) {
			t.Fatalf("%s held back for %s, which serves other requirements", h.AMI, h.Winner)
		}
		entries[of(h.AMI)]++
	}
	admitted := 0
	for who := range entries {
		if _, ok := wins[who]; !ok {
			wins[who] = 0
		}
	}
	for who, w := range wins {
		sets := max(recognize(who.name, who.arch).n, 1)
		e := entries[who]
		switch {
		case w > sets:
			t.Fatalf("image %s is the AMI of %d sets, but serves %d", who.id, w, sets)
		case w == 0 && e%sets != 0:
			t.Fatalf("image %s wins no set and has %d entries over Superseded and HeldBack, not a multiple of the %d sets it serves", who.id, e, sets)
		case w > 0 && e%sets > sets-w:
			t.Fatalf("image %s wins %d of its %d sets, and has %d entries over Superseded and HeldBack: more than its other copies and its other sets can have", who.id, w, sets, e)
		}
		admitted += e / sets
		if w > 0 {
			admitted++
		}
	}
	if total := admitted + len(got.Rejected); total != len(images) {
		t.Fatalf("%d images in, but %d admitted (by AMIs and entries over sets served) + %d rejected = %d", len(images), admitted, len(got.Rejected), total)
	}
}

// genType draws an instance type from the hand-built ones, altered: its
// architecture, GPU and accelerator makers and OS support change freely.
func genType(t *rapid.T) compat.InstanceType {
	it := rapid.SampledFrom([]compat.InstanceType{m5Large, m6gLarge, c7iFlexLarge, g4dnXLarge, g5gXLarge, inf2XLarge, g4adXLarge}).Draw(t, "base")
	if rapid.Bool().Draw(t, "alter") {
		it.Arch = rapid.SampledFrom([]string{compat.ArchAMD64, compat.ArchARM64}).Draw(t, "arch")
		it.GPUManufacturer = rapid.SampledFrom([]string{"", "nvidia", "amd", "habana"}).Draw(t, "gpu")
		it.GPUCount = rapid.IntRange(0, 8).Draw(t, "gpus")
		it.GPUName = ""
		it.AcceleratorManufacturer = rapid.SampledFrom([]string{"", "aws"}).Draw(t, "accelerator")
		it.AcceleratorCount = rapid.IntRange(0, 2).Draw(t, "accelerators")
		if it.AcceleratorManufacturer == "" && it.AcceleratorCount > 0 {
			it.AcceleratorManufacturer = "aws"
		}
		it.OS = rapid.SampledFrom([][]string{nil, {compat.OSLinux}, {compat.OSLinux, compat.OSWindows}}).Draw(t, "os")
	}
	return it
}

func TestMapProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		amis := Select(genImages(t), at(fixedNow)).AMIs
		if rapid.Bool().Draw(t, "shuffle") {
			amis = shuffled(t, amis) // Map must follow any order it is given
		}
		types := rapid.SliceOfN(rapid.Custom(genType), 0, 12).Draw(t, "types")
		for i := range types {
			types[i].Name = fmt.Sprintf("%s-%d", types[i].Name, i) // unique names
		}
		m := Map(types, amis)

		// Naive reference: the first AMI whose requirements the type's
		// full requirements accept, strictly.
		wantAMI := func(it compat.InstanceType) int {
			full := it.Requirements()
			for j, a := range amis {
				if full.Compatible(a.Requirements) == nil && !al2023OnA1(a, it) {
					return j
				}
			}
			return -1
		}
		seen := map[string]int{}
		last := -1
		for _, g := range m.Groups {
			j := slices.IndexFunc(amis, func(a AMI) bool {
				return a.ID == g.AMI.ID && a.Variant == g.AMI.Variant && a.Arch == g.AMI.Arch && a.Family == g.AMI.Family
			})
			if j <= last {
				t.Fatalf("group %s is not in AMI order", g.AMI)
			}
			last = j
			if len(g.InstanceTypes) == 0 {
				t.Fatalf("group %s is empty", g.AMI)
			}
			for _, it := range g.InstanceTypes {
				seen[it.Name]++
				if w := wantAMI(it); w != j {
					t.Fatalf("%s mapped to AMI %d %s; the reference says %d", it.Name, j, g.AMI, w)
				}
				if a, ok := m.AMIFor(it.Name); !ok || a.ID != g.AMI.ID || a.Variant != g.AMI.Variant {
					t.Fatalf("AMIFor(%s) = %v, %v; want %s", it.Name, a, ok, g.AMI)
				}
			}
		}
		for _, u := range m.Unmapped {
			seen[u.InstanceType.Name]++
			if w := wantAMI(u.InstanceType); w != -1 {
				t.Fatalf("%s unmapped, but AMI %d %s runs it", u.InstanceType.Name, w, amis[w])
			}
			if len(u.Reasons) != len(amis) {
				t.Fatalf("%s has %d reasons for %d AMIs", u.InstanceType.Name, len(u.Reasons), len(amis))
			}
			if _, ok := m.AMIFor(u.InstanceType.Name); ok {
				t.Fatalf("AMIFor finds unmapped %s", u.InstanceType.Name)
			}
		}
		for _, it := range types {
			if seen[it.Name] != 1 {
				t.Fatalf("%s appears %d times in the mapping", it.Name, seen[it.Name])
			}
		}
		if err := m.Err(); (err == nil) != (len(m.Groups) > 0) {
			t.Fatalf("Err() = %v with %d groups", err, len(m.Groups))
		} else if err != nil && err.Error() == "" {
			t.Fatalf("empty error")
		}
	})
}

// TestLaunchGroupsProperties: the launch groups partition the mapped
// types, one group per image ID in the order of its first AMI, and each
// type's group is the image AMIFor names.
func TestLaunchGroupsProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		amis := Select(rapid.SliceOfN(rapid.Custom(genCrowdedImage), 0, 24).Draw(t, "images"), at(fixedNow)).AMIs
		types := rapid.SliceOfN(rapid.Custom(genType), 0, 12).Draw(t, "types")
		for i := range types {
			types[i].Name = fmt.Sprintf("%s-%d", types[i].Name, i)
		}
		m := Map(types, amis)
		lgs := m.LaunchGroups()

		var firstIDs []string // image IDs in the order of their first AMI among the groups
		for _, g := range m.Groups {
			if !slices.Contains(firstIDs, g.AMI.ID) {
				firstIDs = append(firstIDs, g.AMI.ID)
			}
		}
		var gotIDs []string
		in := map[string]string{} // type name → launch group image
		for _, lg := range lgs {
			gotIDs = append(gotIDs, lg.ImageID)
			if len(lg.AMIs) == 0 || len(lg.InstanceTypes) == 0 {
				t.Fatalf("launch group %s is empty: %d AMIs, %d types", lg.ImageID, len(lg.AMIs), len(lg.InstanceTypes))
			}
			for _, a := range lg.AMIs {
				if a.ID != lg.ImageID {
					t.Fatalf("launch group %s holds AMI %s", lg.ImageID, a)
				}
			}
			for _, it := range lg.InstanceTypes {
				if prev, dup := in[it.Name]; dup {
					t.Fatalf("%s is in launch groups %s and %s", it.Name, prev, lg.ImageID)
				}
				in[it.Name] = lg.ImageID
				if a, ok := m.AMIFor(it.Name); !ok || a.ID != lg.ImageID {
					t.Fatalf("%s is in launch group %s but AMIFor says %v, %v", it.Name, lg.ImageID, a, ok)
				}
			}
		}
		if diff := cmp.Diff(firstIDs, gotIDs); diff != "" {
			t.Fatalf("launch group order (-first AMI order +got):\n%s", diff)
		}
		mapped := 0
		for _, it := range types {
			if _, ok := m.AMIFor(it.Name); ok {
				mapped++
				if _, ok := in[it.Name]; !ok {
					t.Fatalf("mapped %s is in no launch group", it.Name)
				}
			}
		}
		if mapped != len(in) {
			t.Fatalf("%d types mapped, %d in launch groups", mapped, len(in))
		}
	})
}
