package amiselect_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/ec2fake"
)

func instant(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// planLines writes a plan compactly: one line per image (its reason,
// "stays" for an image whose nodes do not move now, when it is selected
// if it is held back, then each move), then the next change.
func planLines(p amiselect.DriftPlan) []string {
	var out []string
	for _, d := range p.Images {
		line := fmt.Sprintf("%s x%d %s", d.ImageID, d.Nodes, d.Reason)
		if !d.Drifts && d.Reason != amiselect.NoDrift {
			line += " stays"
		}
		if !d.SelectedAt.IsZero() {
			line += " selected at " + d.SelectedAt.Format(time.RFC3339)
		}
		for i, m := range d.Moves {
			line += " → " + m.To.ID
			if !m.At.Equal(p.At) {
				line += " at " + m.At.Format(time.RFC3339)
			}
			if i == 0 && (m.To.ID != d.Replacement.ID || (d.Drifts != d.ReplacedAt.IsZero())) {
				line += " INCONSISTENT first move"
			}
		}
		if len(d.Moves) == 0 && (d.Replacement.ID != "" || !d.ReplacedAt.IsZero()) {
			line += " INCONSISTENT replacement without moves"
		}
		if d.Drifts && d.Reason == amiselect.NoDrift || d.Detail == "" {
			line += fmt.Sprintf(" INCONSISTENT drifts=%v detail=%q", d.Drifts, d.Detail)
		}
		out = append(out, line)
	}
	if !p.NextChange.IsZero() {
		out = append(out, "next change "+p.NextChange.Format(time.RFC3339))
	}
	return out
}

// TestRolloutWalk follows one release of a team's node image through
// pending, available, soaking and selected, as karpenter-provider-aws
// #7652 (problem 5) met it, with a minimum age of three days, an injected
// clock, and a real *ec2.Client over HTTP; at each step it checks the
// selection and the drift plan for the nodes running the images. A
// pending, failed or disabled image never selects and never makes another
// image's nodes drift; only nodes on the disabled image itself drift, and
// a canary on the soaking image keeps running.
func TestRolloutWalk(t *testing.T) {
	const (
		v1 = "ami-0c0ffee00000000a1" // team-node-20250301, on three nodes
		v2 = "ami-0c0ffee00000000a2" // team-node-20250401, the new release
		v3 = "ami-0c0ffee00000000a3" // team-node-20250405, a failed build
	)
	now := instant("2025-04-01T10:00:00Z")
	b := ec2fake.New(ec2fake.Options{Now: func() time.Time { return now }})
	put := func(id, name, created string, state ec2types.ImageState) {
		t.Helper()
		img := ec2types.Image{ImageId: aws.String(id), Name: aws.String(name), Architecture: ec2types.ArchitectureValuesX8664,
			CreationDate: aws.String(created), State: state}
		if err := b.PutImage(img); err != nil {
			t.Fatal(err)
		}
	}
	put(v1, "team-node-20250301", "2025-03-01T09:30:00.000Z", ec2types.ImageStateAvailable)
	put(v2, "team-node-20250401", "2025-04-01T09:30:00.000Z", ec2types.ImageStatePending)
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	client := ec2fake.NewClient(srv.URL)

	terms := []amiselect.Term{{Name: "team-node-*", Owner: "self"}}
	opts := amiselect.Options{Select: amiselect.SelectOptions{Now: func() time.Time { return now }, MinAge: 72 * time.Hour}}
	check := func(step string, running []amiselect.Running, wantAMIs, wantPlan []string) {
		t.Helper()
		sel, err := amiselect.Resolve(context.Background(), client, terms, opts)
		if err != nil {
			t.Fatalf("%s: Resolve: %v", step, err)
		}
		var amis []string
		for _, a := range sel.AMIs {
			amis = append(amis, a.ID)
		}
		if diff := cmp.Diff(wantAMIs, amis); diff != "" {
			t.Errorf("%s: AMIs mismatch (-want +got):\n%s", step, diff)
		}
		plan, err := amiselect.PlanDrift(context.Background(), client, sel, running)
		if err != nil {
			t.Fatalf("%s: PlanDrift: %v", step, err)
		}
		if diff := cmp.Diff(wantPlan, planLines(plan)); diff != "" {
			t.Errorf("%s: plan mismatch (-want +got):\n%s", step, diff)
		}
	}
	nodes := []amiselect.Running{{ImageID: v1, Nodes: 3}}

	check("pending", nodes, []string{v1}, []string{v1 + " x3 none"})

	now = instant("2025-04-01T12:00:00Z")
	if err := b.SetImageState(v2, ec2types.ImageStateAvailable); err != nil {
		t.Fatal(err)
	}
	soaking := []string{
		v1 + " x3 none → " + v2 + " at 2025-04-04T09:30:00Z",
		"next change 2025-04-04T09:30:00Z",
	}
	check("available, soaking", nodes, []string{v1}, soaking)
	// A canary someone launched on the new image by hand keeps running:
	// the image is selected when it comes of age. Drifting it to v1 now
	// would move it back to v2 then.
	check("soaking, with a canary", append(nodes, amiselect.Running{ImageID: v2, Nodes: 1}), []string{v1}, []string{
		v1 + " x3 none → " + v2 + " at 2025-04-04T09:30:00Z",
		v2 + " x1 held-back stays selected at 2025-04-04T09:30:00Z",
		"next change 2025-04-04T09:30:00Z",
	})

	now = instant("2025-04-04T09:29:59Z")
	check("a second before", nodes, []string{v1}, soaking)

	now = instant("2025-04-04T09:30:00Z")
	check("selected", nodes, []string{v2}, []string{v1 + " x3 superseded → " + v2})

	now = instant("2025-04-05T12:00:00Z")
	put(v3, "team-node-20250405", "2025-04-05T09:30:00.000Z", ec2types.ImageStateFailed)
	moved := []amiselect.Running{{ImageID: v2, Nodes: 3}}
	check("a failed build", moved, []string{v2}, []string{v2 + " x3 none"})

	if _, err := client.DisableImage(context.Background(), &ec2.DisableImageInput{ImageId: aws.String(v2)}); err != nil {
		t.Fatal(err)
	}
	check("v2 disabled", moved, []string{v1}, []string{v2 + " x3 disabled → " + v1})

	if err := b.DeleteImage(v1); err != nil {
		t.Fatal(err)
	}
	check("v1 deregistered too", append(moved, amiselect.Running{ImageID: v1}), nil, []string{
		v1 + " x0 deregistered",
		v2 + " x3 disabled",
	})
}

// TestPlanDriftReasons names each reason once, with its detail, against
// the fake EC2's catalog.
func TestPlanDriftReasons(t *testing.T) {
	late := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC) // after every catalog release
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return late }})
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	ec2c, ssmc := ec2fake.NewClient(srv.URL), ec2fake.NewSSMClient(srv.URL)
	const (
		al2023_131_v20250317 = "ami-0a70d93e6ef3d67bf" // x86_64 standard
		al2023_131_v20260318 = "ami-07d0ab3cf32682b0c"
		al2023_132_v20260610 = "ami-0b315b27118709bc2"
		al2023_132_v20260714 = "ami-0aa06077113319855"
		gone                 = "ami-0000000000000dead"
	)
	opts := func(k8s string, aliases amiselect.AliasSource) amiselect.Options {
		return amiselect.Options{
			Query: amiselect.QueryOptions{KubernetesVersion: k8s}, Aliases: aliases, SSM: ssmc,
			Select: amiselect.SelectOptions{Now: func() time.Time { return late }},
		}
	}
	tests := []struct {
		name    string
		terms   []amiselect.Term
		opts    amiselect.Options
		running string
		want    amiselect.ImageDrift
	}{
		{
			name: "a pinned release changed", terms: []amiselect.Term{{Alias: "al2023@v20260318"}}, opts: opts("1.31", amiselect.AliasByName),
			running: al2023_131_v20250317,
			want: amiselect.ImageDrift{Reason: amiselect.DriftReleaseChanged, Replacement: amiselect.AMI{ID: al2023_131_v20260318},
				Detail: `the alias "al2023@v20260318" pins release v20260318; this image is release v20250317`},
		},
		{
			name: "the Kubernetes version changed", terms: []amiselect.Term{{Alias: "al2023@latest"}}, opts: opts("1.32", amiselect.AliasByName),
			running: al2023_131_v20260318,
			want: amiselect.ImageDrift{Reason: amiselect.DriftReleaseChanged, Replacement: amiselect.AMI{ID: al2023_132_v20260714},
				Detail: `the alias "al2023@latest" selects Kubernetes 1.32 images; this one is for Kubernetes 1.31`},
		},
		{
			name: "latest by name: superseded", terms: []amiselect.Term{{Alias: "al2023@latest"}}, opts: opts("1.32", amiselect.AliasByName),
			running: al2023_132_v20260610,
			want: amiselect.ImageDrift{Reason: amiselect.DriftSuperseded, Replacement: amiselect.AMI{ID: al2023_132_v20260714},
				Detail: al2023_132_v20260714 + " is a newer release (v20260714 over v20260610): created 2026-07-14T16:10:07Z, after 2026-06-10T16:10:07Z"},
		},
		{
			name: "latest through SSM: superseded", terms: []amiselect.Term{{Alias: "al2023@latest"}}, opts: opts("1.32", amiselect.AliasBySSM),
			running: al2023_132_v20260610,
			want: amiselect.ImageDrift{Reason: amiselect.DriftSuperseded, Replacement: amiselect.AMI{ID: al2023_132_v20260714},
				Detail: `SSM's latest parameter for the alias "al2023@latest" names ` + al2023_132_v20260714 + " now, a newer release (v20260714 over v20260610)"},
		},
		{
			name: "deprecated", terms: []amiselect.Term{{Name: "team-base-al2023-*", Owner: "self"}}, opts: opts("", amiselect.AliasByName),
			running: ec2fake.ImageTeamBaseDeprecated,
			want: amiselect.ImageDrift{Reason: amiselect.DriftDeprecated, Replacement: amiselect.AMI{ID: ec2fake.ImageTeamBaseAvailable},
				Detail: ec2fake.ImageTeamBaseDeprecated + " is deprecated and " + ec2fake.ImageTeamBaseAvailable + " is not"},
		},
		{
			name: "refused", terms: []amiselect.Term{{Name: "team-base-al2023-*", Owner: "self"}}, opts: opts("", amiselect.AliasByName),
			running: ec2fake.ImageTeamBaseMalformedDate,
			want: amiselect.ImageDrift{Reason: amiselect.DriftRefused,
				Detail: `invalid-creation-date: CreationDate "Sat Mar 22 09:30:00 UTC 2025" is not an RFC 3339 time, so the image cannot be ordered`},
		},
		{
			name: "no longer matched", terms: []amiselect.Term{{Name: "team-base-al2023-*", Owner: "self"}}, opts: opts("", amiselect.AliasByName),
			running: al2023_132_v20260714,
			// A node of its role (amd64, no accelerator) launches with the custom amd64 AMI.
			want: amiselect.ImageDrift{Reason: amiselect.DriftUnmatched, Replacement: amiselect.AMI{ID: ec2fake.ImageTeamBaseAvailable}, Detail: "it is available, but the terms no longer find it"},
		},
		{
			name: "disabled", terms: []amiselect.Term{{Name: "team-base-al2023-*", Owner: "self"}}, opts: opts("", amiselect.AliasByName),
			running: ec2fake.ImageTeamBaseDisabled,
			want: amiselect.ImageDrift{Reason: amiselect.DriftDisabled, Replacement: amiselect.AMI{ID: ec2fake.ImageTeamBaseAvailable},
				Detail: `its state is "disabled"; only available images can be launched`},
		},
		{
			name: "gone", terms: []amiselect.Term{{Name: "team-base-al2023-*", Owner: "self"}}, opts: opts("", amiselect.AliasByName),
			running: gone,
			want:    amiselect.ImageDrift{Reason: amiselect.DriftDeregistered, Detail: "EC2 does not describe it: it is deregistered, or not shared with this account"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := amiselect.Resolve(context.Background(), ec2c, tt.terms, tt.opts)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			plan, err := amiselect.PlanDrift(context.Background(), ec2c, sel, []amiselect.Running{{ImageID: tt.running, Nodes: 2}})
			if err != nil {
				t.Fatalf("PlanDrift: %v", err)
			}
			if len(plan.Images) != 1 {
				t.Fatalf("plan has %d images", len(plan.Images))
			}
			got := plan.Images[0]
			want := tt.want
			want.ImageID, want.Nodes, want.Drifts = tt.running, 2, true
			got.Name, got.Replacement, got.Moves = "", amiselect.AMI{ID: got.Replacement.ID}, nil
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("plan mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanDriftErrors(t *testing.T) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return july }})
	sel, err := amiselect.Resolve(context.Background(), b, []amiselect.Term{{ID: ec2fake.ImageTeamBaseAvailable}}, options(""))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		client  ec2.DescribeImagesAPIClient
		running []amiselect.Running
		want    string
	}{
		{"empty id", b, []amiselect.Running{{ImageID: ec2fake.ImageTeamBaseAvailable}, {}}, `amiselect: running image 1: "" is not an AMI id`},
		{"not an id", b, []amiselect.Running{{ImageID: "i-0123"}}, `amiselect: running image 0: "i-0123" is not an AMI id`},
		{"negative count", b, []amiselect.Running{{ImageID: "ami-0123", Nodes: -1}}, "amiselect: running image 0 (ami-0123): -1 nodes; give a count of 0 or more"},
		{"no client for an unknown image", nil, []amiselect.Running{{ImageID: "ami-0123"}}, "amiselect: PlanDrift needs a DescribeImages client"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := amiselect.PlanDrift(context.Background(), tt.client, sel, tt.running)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v, want prefix %q", err, tt.want)
			}
			if plan.Images != nil {
				t.Errorf("a failed plan returned %v", plan.Images)
			}
		})
	}
	// Without an image to describe, no client is needed; duplicates merge.
	plan, err := amiselect.PlanDrift(context.Background(), nil, sel, []amiselect.Running{
		{ImageID: ec2fake.ImageTeamBaseAvailable, Nodes: 2}, {ImageID: ec2fake.ImageTeamBaseAvailable, Nodes: 5},
	})
	if diff := cmp.Diff([]string{ec2fake.ImageTeamBaseAvailable + " x7 none"}, planLines(plan)); err != nil || diff != "" {
		t.Errorf("err %v; plan mismatch (-want +got):\n%s", err, diff)
	}
}

// TestPlanDriftFromOwnDescribe: a caller that describes images itself,
// without the state filter, and calls Select: an image Select refuses for
// its state drifts as unavailable, one refused for another reason as
// refused; no second DescribeImages is needed.
func TestPlanDriftFromOwnDescribe(t *testing.T) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{})
	out, err := b.DescribeImages(context.Background(), &ec2.DescribeImagesInput{
		Owners:          []string{"self"},
		Filters:         []ec2types.Filter{{Name: aws.String("name"), Values: []string{"team-base-al2023-*"}}},
		IncludeDisabled: aws.Bool(true), IncludeDeprecated: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	sel := amiselect.Select(out.Images, amiselect.SelectOptions{Now: func() time.Time { return july }})
	plan, err := amiselect.PlanDrift(context.Background(), nil, sel, []amiselect.Running{
		{ImageID: ec2fake.ImageTeamBaseDisabled, Nodes: 1}, {ImageID: ec2fake.ImageTeamBaseMalformedDate, Nodes: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range plan.Images {
		got = append(got, d.ImageID+" "+d.Reason.String()+": "+d.Detail)
	}
	want := []string{
		ec2fake.ImageTeamBaseDisabled + ` disabled: state is "disabled", not "available"; only available images can be launched`,
		ec2fake.ImageTeamBaseMalformedDate + ` refused: invalid-creation-date: CreationDate "Sat Mar 22 09:30:00 UTC 2025" is not an RFC 3339 time, so the image cannot be ordered`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan mismatch (-want +got):\n%s", diff)
	}
}
