package ec2fake

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"pgregory.net/rapid"
)

// modelImage is the naive model's view of one image.
type modelImage struct {
	id, name, arch, owner string
	state                 ec2types.ImageState
	public                bool
	deprecation           *time.Time
	team                  string // "" = no tag
}

// imageModel answers DescribeImages by brute force, straight from EC2's
// documented rules, to check the backend against.
type imageModel struct {
	account string
	now     time.Time
	images  map[string]modelImage
}

type modelQuery struct {
	names, states, archs, teams, ownerIDs []string // nil = no such filter
	owners                                []string
	ids                                   []string
	includeDeprecated, includeDisabled    bool
}

func anyPattern(patterns []string, s string) bool {
	for _, p := range patterns {
		if referenceRegexp(p).MatchString(s) {
			return true
		}
	}
	return false
}

func (m *imageModel) describe(q modelQuery) (ids []string, notFound bool) {
	for _, id := range q.ids {
		if _, ok := m.images[id]; !ok {
			return nil, true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(m.images)) {
		img := m.images[id]
		if q.ids != nil && !slices.Contains(q.ids, id) {
			continue
		}
		owned := img.owner == m.account
		if !owned && !img.public {
			continue
		}
		if q.owners != nil {
			ok := false
			for _, o := range q.owners {
				if (o == "self" && owned) || o == img.owner {
					ok = true
				}
			}
			if !ok {
				continue
			}
		}
		if img.state == ec2types.ImageStateDisabled && !q.includeDisabled {
			continue
		}
		deprecated := img.deprecation != nil && !img.deprecation.After(m.now)
		if deprecated && !owned && !q.includeDeprecated && q.ids == nil {
			continue
		}
		if q.names != nil && !anyPattern(q.names, img.name) ||
			q.states != nil && !anyPattern(q.states, string(img.state)) ||
			q.archs != nil && !anyPattern(q.archs, img.arch) ||
			q.teams != nil && (img.team == "" || !anyPattern(q.teams, img.team)) ||
			q.ownerIDs != nil && !anyPattern(q.ownerIDs, img.owner) {
			continue
		}
		ids = append(ids, id)
	}
	return ids, false
}

func TestBackendMatchesNaiveModel(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pool := make([]string, 24)
	for i := range pool {
		pool[i] = fmt.Sprintf("ami-%08x", 0xa0+i)
	}
	states := []ec2types.ImageState{"available", "pending", "disabled", "failed", "deregistered"}
	patterns := rapid.StringMatching(`img-[ab*?\\]{0,3}|[ab*?\\]{0,3}`)

	rapid.Check(t, func(t *rapid.T) {
		b := New(Options{Now: func() time.Time { return now }})
		m := &imageModel{account: DefaultAccountID, now: now, images: map[string]modelImage{}}
		put := func(t *rapid.T) {
			img := modelImage{
				id:     rapid.SampledFrom(pool).Draw(t, "id"),
				name:   "img-" + rapid.StringMatching(`[ab*?\\]{0,3}`).Draw(t, "name"),
				arch:   rapid.SampledFrom([]string{"x86_64", "arm64"}).Draw(t, "arch"),
				owner:  rapid.SampledFrom([]string{DefaultAccountID, otherAccount}).Draw(t, "owner"),
				state:  rapid.SampledFrom(states).Draw(t, "state"),
				public: rapid.Bool().Draw(t, "public"),
				team:   rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, "team"),
			}
			api := ec2types.Image{ImageId: aws.String(img.id), Name: aws.String(img.name), Architecture: ec2types.ArchitectureValues(img.arch),
				OwnerId: aws.String(img.owner), State: img.state, Public: aws.Bool(img.public)}
			switch rapid.IntRange(0, 2).Draw(t, "deprecation") {
			case 1:
				d := now.Add(-time.Hour)
				img.deprecation = &d
			case 2:
				d := now.Add(time.Hour)
				img.deprecation = &d
			}
			if img.deprecation != nil {
				api.DeprecationTime = aws.String(img.deprecation.Format(time.RFC3339))
			}
			if img.team != "" {
				api.Tags = []ec2types.Tag{{Key: aws.String("team"), Value: aws.String(img.team)}}
			}
			err := b.PutImage(api)
			if impossible := img.state == ec2types.ImageStateDisabled && img.public; impossible != (err != nil) {
				t.Fatalf("PutImage(%s, disabled and public: %v) = %v", img.id, impossible, err)
			}
			if err == nil {
				m.images[img.id] = img
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"put": func(t *rapid.T) {
				for range rapid.IntRange(1, 6).Draw(t, "count") {
					put(t)
				}
			},
			"setState": func(t *rapid.T) {
				id := rapid.SampledFrom(pool).Draw(t, "id")
				state := rapid.SampledFrom(states).Draw(t, "state")
				err := b.SetImageState(id, state)
				img, ok := m.images[id]
				if ok != (err == nil) || (!ok && !errors.Is(err, ErrNotFound)) {
					t.Fatalf("SetImageState(%s) = %v; the model has the image: %v", id, err, ok)
				}
				if ok {
					// Disabling makes an image private; EnableImage (and so
					// leaving "disabled") does not make it public again.
					img.state = state
					img.public = img.public && state != ec2types.ImageStateDisabled
					m.images[id] = img
				}
			},
			"delete": func(t *rapid.T) {
				id := rapid.SampledFrom(pool).Draw(t, "id")
				err := b.DeleteImage(id)
				if _, ok := m.images[id]; ok != (err == nil) {
					t.Fatalf("DeleteImage(%s) = %v; the model has the image: %v", id, err, ok)
				}
				delete(m.images, id)
			},
			"describe": func(t *rapid.T) {
				var q modelQuery
				in := &ec2.DescribeImagesInput{}
				addFilter := func(name string, gen *rapid.Generator[string], target *[]string) {
					if rapid.Bool().Draw(t, "has "+name) {
						*target = rapid.SliceOfN(gen, 0, 2).Draw(t, name)
						in.Filters = append(in.Filters, ec2types.Filter{Name: aws.String(name), Values: *target})
					}
				}
				addFilter("name", patterns, &q.names)
				addFilter("state", rapid.SampledFrom([]string{"available", "pend*", "?isabled", "*"}), &q.states)
				addFilter("architecture", rapid.SampledFrom([]string{"arm64", "x86_64", "*64"}), &q.archs)
				addFilter("tag:team", rapid.SampledFrom([]string{"a", "b", "*"}), &q.teams)
				addFilter("owner-id", rapid.SampledFrom([]string{DefaultAccountID, otherAccount, "4*"}), &q.ownerIDs)
				if rapid.Bool().Draw(t, "has owners") {
					q.owners = rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"self", DefaultAccountID, otherAccount}), 1, 2, rapid.ID[string]).Draw(t, "owners")
					in.Owners = q.owners
				}
				if rapid.Bool().Draw(t, "has ids") {
					q.ids = rapid.SliceOfNDistinct(rapid.SampledFrom(pool), 1, 3, rapid.ID[string]).Draw(t, "ids")
					in.ImageIds = q.ids
				}
				q.includeDeprecated = rapid.Bool().Draw(t, "includeDeprecated")
				q.includeDisabled = rapid.Bool().Draw(t, "includeDisabled")
				in.IncludeDeprecated, in.IncludeDisabled = aws.Bool(q.includeDeprecated), aws.Bool(q.includeDisabled)
				if rapid.IntRange(0, 3).Draw(t, "paged") > 0 {
					in.MaxResults = aws.Int32(int32(rapid.IntRange(5, 7).Draw(t, "maxResults")))
				}
				want, notFound := m.describe(q)

				var got []string
				for page := 0; ; page++ {
					out, err := b.DescribeImages(context.Background(), in)
					if notFound {
						if e := describeErr(err); e == nil || e.Code != CodeInvalidAMIIDNotFound {
							t.Fatalf("DescribeImages(%+v) = %v; the model says an ID does not exist", in, err)
						}
						return
					}
					if err != nil {
						t.Fatalf("DescribeImages: %v", err)
					}
					if in.MaxResults != nil && len(out.Images) > int(*in.MaxResults) {
						t.Fatalf("page of %d images for MaxResults %d", len(out.Images), *in.MaxResults)
					}
					for _, img := range out.Images {
						got = append(got, *img.ImageId)
					}
					if out.NextToken == nil {
						break
					}
					if page > len(pool) {
						t.Fatal("pagination does not end")
					}
					in.NextToken = out.NextToken
				}
				if !slices.Equal(got, want) {
					t.Fatalf("DescribeImages returned %v; the model says %v", got, want)
				}
			},
		})
	})
}
