package amiselect_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/ec2fake"
)

// TestReleaseWalkBothWays walks one AL2023 release of Amazon's through
// pending, available, soaking and selected, with a week's soak, against a
// real *ec2.Client and *ssm.Client over HTTP to ec2fake, resolving the
// alias by name and through SSM at each step: both ways select the same
// images and plan the same drift. It is the case of issue 37: through
// SSM, a 7-hour-old release was selected under a 168-hour soak and the
// plan moved ten nodes at once. Midway the soak is raised (72h, then
// 168h) and the nodes already on the new release are not sent back.
func TestReleaseWalkBothWays(t *testing.T) {
	const (
		old = "ami-0a000001" // v20250317, x86_64 standard, on ten nodes
		new = "ami-0b000001" // v20250403, the release walked
	)
	created := instant("2025-04-03T16:40:40Z")
	now := instant("2025-04-03T12:00:00Z")
	b := ec2fake.New(ec2fake.Options{Now: func() time.Time { return now }})
	for _, img := range append(al2023Release("a", "v20250317", "2025-03-17T16:40:40.000Z"), al2023Release("b", "v20250403", "2025-04-03T16:40:40.000Z")...) {
		if strings.HasPrefix(aws.ToString(img.ImageId), "ami-0b") {
			img.State = ec2types.ImageStatePending // v20250403, still being built and copied
		}
		if err := b.PutImage(img); err != nil {
			t.Fatal(err)
		}
	}
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	ec2c, ssmc := ec2fake.NewClient(srv.URL), ec2fake.NewSSMClient(srv.URL)

	minAge := 168 * time.Hour
	check := func(step string, running []amiselect.Running, wantAMI string, wantPlan []string) {
		t.Helper()
		for _, source := range []amiselect.AliasSource{amiselect.AliasByName, amiselect.AliasBySSM} {
			sel, err := amiselect.Resolve(context.Background(), ec2c, []amiselect.Term{{Alias: "al2023@latest"}}, amiselect.Options{
				Query: amiselect.QueryOptions{KubernetesVersion: "1.32"}, SSM: ssmc, Aliases: source,
				Select: amiselect.SelectOptions{Now: func() time.Time { return now }, MinAge: minAge},
			})
			if err != nil {
				t.Fatalf("%s, %v: Resolve: %v", step, source, err)
			}
			got := ""
			for _, a := range sel.AMIs {
				if a.Arch == "amd64" && a.Variant == amiselect.Standard {
					got = a.ID
				}
			}
			if got != wantAMI {
				t.Errorf("%s, %v: x86_64 standard AMI %s, want %s", step, source, got, wantAMI)
			}
			plan, err := amiselect.PlanDrift(context.Background(), ec2c, sel, running)
			if err != nil {
				t.Fatalf("%s, %v: PlanDrift: %v", step, source, err)
			}
			if diff := cmp.Diff(wantPlan, planLines(plan)); diff != "" {
				t.Errorf("%s, %v: plan mismatch (-want +got):\n%s", step, source, diff)
			}
		}
	}
	ten := []amiselect.Running{{ImageID: old, Nodes: 10}}

	check("pending", ten, old, []string{old + " x10 none"})

	now = created.Add(7 * time.Hour)
	for _, id := range []string{"ami-0b000001", "ami-0b000002", "ami-0b000003", "ami-0b000004", "ami-0b000005"} {
		if err := b.SetImageState(id, ec2types.ImageStateAvailable); err != nil {
			t.Fatal(err)
		}
	}
	due := created.Add(minAge).Format(time.RFC3339)
	soaking := []string{old + " x10 none → " + new + " at " + due, "next change " + due}
	check("available, 7 hours old: soaking", ten, old, soaking)
	check("soaking, a canary on the new release keeps running", append(ten, amiselect.Running{ImageID: new, Nodes: 1}), old, []string{
		old + " x10 none → " + new + " at " + due,
		new + " x1 held-back stays selected at " + due,
		"next change " + due,
	})

	// The operator first soaked for 72 hours; after 100 hours the nodes
	// are on the new release. Raising the soak to 168 hours holds it back
	// again, but sends nobody back to the old one.
	now, minAge = created.Add(100*time.Hour), 72*time.Hour
	moved := []amiselect.Running{{ImageID: new, Nodes: 10}}
	check("72h soak, 100 hours old: selected", moved, new, []string{new + " x10 none"})
	minAge = 168 * time.Hour
	check("soak raised to 168h", moved, old, []string{new + " x10 held-back stays selected at " + due, "next change " + due})

	now = created.Add(minAge - time.Second)
	check("a second before", ten, old, soaking)
	now = created.Add(minAge)
	check("selected", ten, new, []string{old + " x10 superseded → " + new})
}

// TestMinAgeThroughSSMNeedsHistory: with a client that cannot read a
// parameter's history (Karpenter's GetParameter-only interface), a soak
// through SSM fails, naming MinAge and the missing capability, instead of
// being ignored; without MinAge the same client resolves.
func TestMinAgeThroughSSMNeedsHistory(t *testing.T) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return july }})
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	ec2c := ec2fake.NewClient(srv.URL)
	opts := options("1.32")
	opts.Aliases, opts.SSM = amiselect.AliasBySSM, getParameterOnly{ec2fake.NewSSMClient(srv.URL)}
	if _, err := amiselect.Resolve(context.Background(), ec2c, []amiselect.Term{{Alias: "al2023@latest"}}, opts); err != nil {
		t.Fatalf("without MinAge: %v", err)
	}
	opts.Select.MinAge = 168 * time.Hour
	sel, err := amiselect.Resolve(context.Background(), ec2c, []amiselect.Term{{Alias: "al2023@latest"}}, opts)
	if !errors.Is(err, amiselect.ErrMinAgeNeedsHistory) {
		t.Fatalf("err = %v, want ErrMinAgeNeedsHistory", err)
	}
	want := `amiselect: term 0 (alias "al2023@latest" through SSM): MinAge (168h0m0s) holds back releases younger than it, which needs the releases each public parameter named before its current one, and Options.SSM (amiselect_test.getParameterOnly) has no GetParameterHistory to read them; pass a client that has it, such as *ssm.Client, resolve the alias by name (Options.Aliases = AliasByName), or set MinAge to 0: MinAge through SSM needs GetParameterHistory`
	if err.Error() != want {
		t.Errorf("err = %q\nwant  %q", err, want)
	}
	if sel.AMIs != nil {
		t.Errorf("a failed resolve selected %v", sel.AMIs)
	}
}

// withHistory is an in-test parameter store whose public parameters have
// a history: the releases they named, oldest first, the last being the
// value now. AWS moves a recommended parameter forward at each release
// and back when it withdraws one.
type withHistory struct {
	*parameters
	history map[string][]string
}

func (w withHistory) GetParameterHistory(_ context.Context, in *ssm.GetParameterHistoryInput, _ ...func(*ssm.Options)) (*ssm.GetParameterHistoryOutput, error) {
	name := aws.ToString(in.Name)
	values, ok := w.history[name]
	if !ok {
		return nil, &ssmtypes.ParameterNotFound{Message: aws.String("parameter " + name + " not found")}
	}
	out := &ssm.GetParameterHistoryOutput{}
	for i, v := range values {
		out.Parameters = append(out.Parameters, ssmtypes.ParameterHistory{Name: in.Name, Value: aws.String(v), Version: int64(i + 1)})
	}
	return out, nil
}

// TestMinAgeThroughSSMKeepsToWhatSSMNamed: through SSM, the soak chooses
// among the releases the parameter named up to its current one. A release
// AWS named and then withdrew (the parameter moved back) never serves,
// however old; a soak holds the current release back for the one before.
func TestMinAgeThroughSSMKeepsToWhatSSMNamed(t *testing.T) {
	const param = "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id"
	b := ec2fake.New(ec2fake.Options{Now: func() time.Time { return july }})
	images := append(al2023Release("a", "v20250317", "2025-03-17T16:40:40.000Z"), al2023Release("b", "v20250403", "2025-04-03T16:40:40.000Z")...)
	images = append(images, al2023Release("c", "v20250627", "2025-06-27T16:40:40.000Z")...)
	if err := b.Load(images, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		history []string
		minAge  time.Duration
		want    string
		held    []string
	}{
		{"no soak: what SSM names now", []string{"ami-0a000001", "ami-0b000001", "ami-0c000001"}, 0, "ami-0c000001", nil},
		{"a week's soak: the release before", []string{"ami-0a000001", "ami-0b000001", "ami-0c000001"}, 7 * 24 * time.Hour, "ami-0b000001",
			[]string{"ami-0c000001 until 2025-07-04T16:40:40Z"}},
		{"a withdrawn release never serves", []string{"ami-0a000001", "ami-0b000001", "ami-0c000001", "ami-0a000001"}, 7 * 24 * time.Hour, "ami-0a000001", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := withHistory{&parameters{values: map[string]string{param: tt.history[len(tt.history)-1]}}, map[string][]string{param: tt.history}}
			opts := options("1.32")
			opts.Aliases, opts.SSM, opts.Select.MinAge = amiselect.AliasBySSM, store, tt.minAge
			sel, err := amiselect.Resolve(context.Background(), b, []amiselect.Term{{Alias: "al2023@latest"}}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tt.want + " amd64 standard"}, ids(sel)); diff != "" {
				t.Errorf("AMIs mismatch (-want +got):\n%s", diff)
			}
			var held []string
			for _, h := range sel.HeldBack() {
				held = append(held, h.AMI.ID+" until "+h.EligibleAt.Format(time.RFC3339))
			}
			if diff := cmp.Diff(tt.held, held); diff != "" {
				t.Errorf("HeldBack mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIssue37Promises pins each broken promise issue 37 reports, as the
// plan now states it, on hand-made images.
func TestIssue37Promises(t *testing.T) {
	now := instant("2025-04-05T00:00:00Z")
	const week = 7 * 24 * time.Hour
	image := func(id, name, arch, created, deprecation string) ec2types.Image {
		img := ec2types.Image{ImageId: aws.String(id), Name: aws.String(name), Architecture: ec2types.ArchitectureValues(arch),
			State: ec2types.ImageStateAvailable, CreationDate: aws.String(created)}
		if deprecation != "" {
			img.DeprecationTime = aws.String(deprecation)
		}
		return img
	}
	tests := []struct {
		name    string
		images  []ec2types.Image
		running []amiselect.Running
		want    []string
	}{
		{
			// Both young, same CreationDate: at their coming of age the
			// greater name wins, as Select then decides (not the smaller ID).
			name: "two young images share a CreationDate",
			images: []ec2types.Image{
				image("ami-0old", "team-base-20250301", "x86_64", "2025-03-01T00:00:00Z", ""),
				image("ami-0a", "team-base-20250403-b", "x86_64", "2025-04-03T00:00:00Z", ""),
				image("ami-0b", "team-base-20250403-a", "x86_64", "2025-04-03T00:00:00Z", ""),
			},
			running: []amiselect.Running{{ImageID: "ami-0old", Nodes: 2}},
			want:    []string{"ami-0old x2 none → ami-0a at 2025-04-10T00:00:00Z", "next change 2025-04-10T00:00:00Z"},
		},
		{
			// Deprecated before it comes of age: nothing is promised.
			name: "a young image is deprecated before it comes of age",
			images: []ec2types.Image{
				image("ami-0old", "team-base-20250301", "x86_64", "2025-03-01T00:00:00Z", ""),
				image("ami-0new", "team-base-20250403", "x86_64", "2025-04-03T00:00:00Z", "2025-04-08T00:00:00Z"),
			},
			running: []amiselect.Running{{ImageID: "ami-0old", Nodes: 2}, {ImageID: "ami-0new", Nodes: 1}},
			want:    []string{"ami-0new x1 held-back → ami-0old", "ami-0old x2 none"},
		},
		{
			// The accelerated AL2 image wins the NVIDIA role (the only
			// one) while it soaks in the Neuron role, where an AL2023
			// Neuron image serves: the Neuron role changes when it comes
			// of age.
			name: "an image soaking in one role while it wins another",
			images: []ec2types.Image{
				image("ami-0gpu", "amazon-eks-gpu-node-1.32-v20250403", "x86_64", "2025-04-03T00:00:00Z", ""),
				image("ami-0neuron", "amazon-eks-node-al2023-x86_64-neuron-1.32-v20250301", "x86_64", "2025-03-01T00:00:00Z", ""),
			},
			running: []amiselect.Running{{ImageID: "ami-0neuron", Nodes: 3}},
			want:    []string{"ami-0neuron x3 none → ami-0gpu at 2025-04-10T00:00:00Z", "next change 2025-04-10T00:00:00Z"},
		},
		{
			// Two releases behind: told both moves, now and when the
			// held-back release comes of age.
			name: "a node two releases behind",
			images: []ec2types.Image{
				image("ami-0v1", "team-base-20250201", "x86_64", "2025-02-01T00:00:00Z", ""),
				image("ami-0v2", "team-base-20250301", "x86_64", "2025-03-01T00:00:00Z", ""),
				image("ami-0v3", "team-base-20250403", "x86_64", "2025-04-03T00:00:00Z", ""),
			},
			running: []amiselect.Running{{ImageID: "ami-0v1", Nodes: 4}},
			want:    []string{"ami-0v1 x4 superseded → ami-0v2 → ami-0v3 at 2025-04-10T00:00:00Z", "next change 2025-04-10T00:00:00Z"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel := amiselect.Select(tt.images, amiselect.SelectOptions{Now: func() time.Time { return now }, MinAge: week})
			plan, err := amiselect.PlanDrift(context.Background(), nil, sel, tt.running)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, planLines(plan)); diff != "" {
				t.Errorf("plan mismatch (-want +got):\n%s", diff)
			}
			// Each promise comes true: Select at each instant named.
			for _, c := range plan.Changes {
				at := amiselect.Select(tt.images, amiselect.SelectOptions{Now: func() time.Time { return c.At }, MinAge: week})
				if !containsAMI(at.AMIs, c.To.ID, c.To.Variant) {
					t.Errorf("the plan says %s at %v; Select then gives %v", c.To, c.At, at.AMIs)
				}
			}
		})
	}
}

func containsAMI(amis []amiselect.AMI, id string, v amiselect.Variant) bool {
	for _, a := range amis {
		if a.ID == id && a.Variant == v {
			return true
		}
	}
	return false
}

var _ ec2.DescribeImagesAPIClient = (*ec2fake.Backend)(nil)
