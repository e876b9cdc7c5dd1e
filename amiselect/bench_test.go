package amiselect

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// benchImages returns n images shaped like the results of broad name
// selectors: weekly releases of every AL2023, AL2 and Bottlerocket image
// for several Kubernetes versions, custom images, and one in fifty
// refused (pending, i386 or a malformed date).
func benchImages(n int) []ec2types.Image {
	start := time.Date(2022, 1, 4, 16, 0, 0, 0, time.UTC)
	patterns := []struct{ format, arch string }{
		{"amazon-eks-node-al2023-x86_64-standard-%s-v%s", "x86_64"},
		{"amazon-eks-node-al2023-x86_64-nvidia-%s-v%s", "x86_64"},
		{"amazon-eks-node-al2023-x86_64-neuron-%s-v%s", "x86_64"},
		{"amazon-eks-node-al2023-arm64-standard-%s-v%s", "arm64"},
		{"amazon-eks-node-al2023-arm64-nvidia-%s-v%s", "arm64"},
		{"amazon-eks-node-%s-v%s", "x86_64"},
		{"amazon-eks-arm64-node-%s-v%s", "arm64"},
		{"amazon-eks-gpu-node-%s-v%s", "x86_64"},
		{"bottlerocket-aws-k8s-%s-x86_64-v1.%s-0123abcd", "x86_64"},
		{"bottlerocket-aws-k8s-%s-nvidia-aarch64-v1.%s-0123abcd", "arm64"},
		{"team-base-%s-%s", "x86_64"},
		{"team-base-arm64-%s-%s", "arm64"},
	}
	k8s := []string{"1.29", "1.30", "1.31", "1.32"}
	images := make([]ec2types.Image, 0, n)
	for i := 0; len(images) < n; i++ {
		p := patterns[i%len(patterns)]
		week := i / (len(patterns) * len(k8s))
		created := start.Add(time.Duration(week)*7*24*time.Hour + time.Duration(i%97)*time.Minute)
		release := created.Format("20060102")
		if p.format[0] == 'b' {
			release = fmt.Sprintf("%d.%d", week/10, week%10)
		}
		img := ec2types.Image{
			ImageId:      aws.String(fmt.Sprintf("ami-%017x", i+1)),
			Name:         aws.String(fmt.Sprintf(p.format, k8s[(i/len(patterns))%len(k8s)], release)),
			Architecture: ec2types.ArchitectureValues(p.arch),
			State:        ec2types.ImageStateAvailable,
			CreationDate: aws.String(created.Format("2006-01-02T15:04:05.000Z")),
		}
		switch i % 50 {
		case 7:
			img.State = ec2types.ImageStatePending
		case 19:
			img.Architecture = ec2types.ArchitectureValuesI386
		case 31:
			img.CreationDate = aws.String(created.Format(time.UnixDate))
		case 43:
			img.DeprecationTime = aws.String(created.Add(90 * 24 * time.Hour).Format(time.RFC3339))
		}
		images = append(images, img)
	}
	return images
}

func BenchmarkSelect(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		images := benchImages(n)
		opts := at(fixedNow)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Select(images, opts)
			}
		})
	}
}

// BenchmarkSelectMinAge is BenchmarkSelect with a week's soak: on these
// images (weekly releases to early 2026, judged at mid-2025) about one in
// eight is young, so most roles compare young against old. The target is
// BenchmarkSelect's time + 10%.
func BenchmarkSelectMinAge(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		images := benchImages(n)
		opts := at(fixedNow)
		opts.MinAge = 7 * 24 * time.Hour
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Select(images, opts)
			}
		})
	}
}

// BenchmarkSuperseded is what asking for the superseded images costs on
// top of Select: every old release a broad pattern found, explained.
func BenchmarkSuperseded(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		sel := Select(benchImages(n), at(fixedNow))
		b.Run(fmt.Sprintf("%d-of-%d", len(sel.Superseded()), n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sel.Superseded()
			}
		})
	}
}

// benchTypes returns n instance types: the catalog's, repeated under new
// names ("m5.large-2") until there are n.
func benchTypes(tb testing.TB, n int) []compat.InstanceType {
	_, infos := ec2fake.DefaultCatalog()
	var base []compat.InstanceType
	for _, info := range infos {
		if it, err := compat.InstanceTypeFromEC2(info); err == nil {
			base = append(base, it)
		}
	}
	if len(base) == 0 {
		tb.Fatal("no catalog instance types")
	}
	types := make([]compat.InstanceType, n)
	for i := range types {
		types[i] = base[i%len(base)]
		if round := i / len(base); round > 0 {
			types[i].Name = fmt.Sprintf("%s-%d", types[i].Name, round)
		}
	}
	return types
}

// benchAMIs returns 12 AMIs: AL2023's five, Bottlerocket's five and a
// custom image per architecture, in that order (the order of a caller
// concatenating selections).
func benchAMIs() []AMI {
	amis := Select(al2023Images(), at(fixedNow)).AMIs
	amis = append(amis, Select(bottlerocketImages(), at(fixedNow)).AMIs...)
	return append(amis, Select([]ec2types.Image{
		image("ami-0c0000000000000a1", "team-base-amd64", "x86_64", "2025-01-01T00:00:00Z"),
		image("ami-0c0000000000000a2", "team-base-arm64", "arm64", "2025-01-01T00:00:00Z"),
	}, at(fixedNow)).AMIs...)
}

func BenchmarkMap(b *testing.B) {
	amis := benchAMIs()
	if len(amis) != 12 {
		b.Fatalf("%d AMIs, want 12", len(amis))
	}
	for _, n := range []int{100, 800} {
		types := benchTypes(b, n)
		b.Run(fmt.Sprintf("%dx%d", n, len(amis)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Map(types, amis)
			}
		})
	}
	// The catalog lists a family's sizes together; Map's time must not
	// depend on it.
	types := benchTypes(b, 800)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(types), func(i, j int) { types[i], types[j] = types[j], types[i] })
	b.Run(fmt.Sprintf("%dx%d-shuffled", len(types), len(amis)), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Map(types, amis)
		}
	})
}

// TestMapAllocs guards Map's allocations: a bounded number per call
// (the AMIs' keys are read once each), none per mapped type. Unmapped
// types allocate their explanations.
func TestMapAllocs(t *testing.T) {
	amis := benchAMIs()
	allocs := map[int]float64{}
	for _, n := range []int{800, 1600} {
		types := benchTypes(t, n)
		if m := Map(types, amis); len(m.Unmapped) != 0 {
			t.Fatalf("%d types unmapped; the guard needs every type mapped: %v", len(m.Unmapped), m.Unmapped[0].Reasons)
		}
		allocs[n] = testing.AllocsPerRun(10, func() { Map(types, amis) })
	}
	// About 20: Map's three working slices, the clone of the AMIs, the
	// groups (which grow a few times) and one slice per group.
	if limit := 24.0; allocs[800] > limit {
		t.Errorf("Map of 800 types allocates %.0f times, want at most %.0f", allocs[800], limit)
	}
	if allocs[1600] != allocs[800] {
		t.Errorf("Map allocates %.0f times for 800 types and %.0f for 1600: allocations grow with the types", allocs[800], allocs[1600])
	}
}

// BenchmarkMapCatalog maps every instance type of the catalog onto every
// AMI of three aliases (al2023, bottlerocket and al2 at latest, for the
// newest Kubernetes version AL2 still has), concatenated as a fork
// resolving three EC2NodeClasses would.
func BenchmarkMapCatalog(b *testing.B) {
	backend := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return fixedNow.AddDate(2, 0, 0) }})
	var amis []AMI
	for _, alias := range []string{"al2023@latest", "bottlerocket@latest", "al2@latest"} {
		sel, err := Resolve(context.Background(), backend, []Term{{Alias: alias}}, Options{Query: QueryOptions{KubernetesVersion: "1.32"}})
		if err != nil || len(sel.AMIs) == 0 {
			b.Fatalf("%s: %d AMIs, %v", alias, len(sel.AMIs), err)
		}
		amis = append(amis, sel.AMIs...)
	}
	_, infos := ec2fake.DefaultCatalog()
	var types []compat.InstanceType
	for _, info := range infos {
		if it, err := compat.InstanceTypeFromEC2(info); err == nil {
			types = append(types, it)
		}
	}
	b.Run(fmt.Sprintf("%dx%d", len(types), len(amis)), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Map(types, amis)
		}
	})
}

// BenchmarkPlanDrift plans the drift of 1,000 running images (every
// tenth image) under a Selection of 10,000 with a week's soak: every
// role's later changes asked of the rule, each running image explained.
// Judged at mid-2025, as BenchmarkSelectMinAge, one image in eight is
// young (the weekly releases run to early 2026), so the plan foresees
// some 1,300 changes; judged two days after the last release, a week's
// releases are. The target is 20 ms.
func BenchmarkPlanDrift(b *testing.B) {
	images := benchImages(10000)
	last := fixedNow
	for _, img := range images {
		if t, err := time.Parse(time.RFC3339, aws.ToString(img.CreationDate)); err == nil && t.After(last) {
			last = t
		}
	}
	var running []Running
	for i := 0; i < len(images); i += 10 {
		running = append(running, Running{ImageID: aws.ToString(images[i].ImageId), Nodes: 1 + i%7})
	}
	for _, c := range []struct {
		name string
		now  time.Time
	}{{"young-1-in-8", fixedNow}, {"after-the-last-release", last.Add(48 * time.Hour)}} {
		opts := at(c.now)
		opts.MinAge = 7 * 24 * time.Hour
		sel := Select(images, opts)
		b.Run(fmt.Sprintf("%d-images-%d-running-%s", len(images), len(running), c.name), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := PlanDrift(context.Background(), nil, sel, running); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
