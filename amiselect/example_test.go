package amiselect_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// The whole flow against the fake EC2's embedded catalog: resolve an
// alias, then give each instance type its AMI.
func Example() {
	ec2 := ec2fake.NewWithCatalog(ec2fake.Options{})
	sel, err := amiselect.Resolve(context.Background(), ec2,
		[]amiselect.Term{{Alias: "bottlerocket@latest"}},
		amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: "1.32"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range sel.AMIs {
		fmt.Println(a.Name, a.Arch, a.Variant)
	}

	_, infos := ec2fake.DefaultCatalog()
	var types []compat.InstanceType
	for _, info := range infos {
		switch string(info.InstanceType) {
		case "m5.large", "m6g.large", "g4dn.xlarge", "g5g.xlarge", "inf2.xlarge":
			it, err := compat.InstanceTypeFromEC2(info)
			if err != nil {
				fmt.Println(err)
				return
			}
			types = append(types, it)
		}
	}
	m := amiselect.Map(types, sel.AMIs)
	for _, name := range []string{"m5.large", "m6g.large", "g4dn.xlarge", "g5g.xlarge", "inf2.xlarge"} {
		a, _ := m.AMIFor(name)
		fmt.Printf("%-11s → %s\n", name, a)
	}
	// Output:
	// bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.61.0-9a3f5d07 arm64 nvidia
	// bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.61.0-9a3f5d07 amd64 nvidia
	// bottlerocket-aws-k8s-1.32-aarch64-v1.61.0-9a3f5d07 arm64 standard
	// bottlerocket-aws-k8s-1.32-x86_64-v1.61.0-9a3f5d07 amd64 standard
	// bottlerocket-aws-k8s-1.32-x86_64-v1.61.0-9a3f5d07 amd64 neuron
	// m5.large    → ami-0d67da32011745106 (bottlerocket amd64 standard)
	// m6g.large   → ami-055b75e3e842d9086 (bottlerocket arm64 standard)
	// g4dn.xlarge → ami-09e25088510049924 (bottlerocket amd64 nvidia)
	// g5g.xlarge  → ami-0ddd9bbe8873c3788 (bottlerocket arm64 nvidia)
	// inf2.xlarge → ami-0d67da32011745106 (bottlerocket amd64 neuron)
}

func ExampleQueries() {
	qs, err := amiselect.Queries([]amiselect.Term{{Alias: "al2@latest"}},
		amiselect.QueryOptions{KubernetesVersion: "1.32"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, q := range qs {
		fmt.Println("owners:", q.Owners, "deprecated too:", *q.IncludeDeprecated)
		for _, f := range q.Filters {
			fmt.Println(*f.Name, f.Values)
		}
	}

	_, err = amiselect.Queries([]amiselect.Term{{Alias: "al2@latest"}},
		amiselect.QueryOptions{KubernetesVersion: "1.33"})
	fmt.Println(err)
	// Output:
	// owners: [amazon] deprecated too: true
	// name [amazon-eks-node-1.32-v* amazon-eks-arm64-node-1.32-v* amazon-eks-gpu-node-1.32-v*]
	// state [available]
	// amiselect: term 0: alias "al2@latest": AL2 has no AMIs for Kubernetes 1.33 (its last is 1.32); use al2023 or bottlerocket
}

// Select refuses what cannot be launched and keeps the best image per
// requirement set.
func ExampleSelect() {
	image := func(id, name, state, created string) ec2types.Image {
		return ec2types.Image{ImageId: aws.String(id), Name: aws.String(name), Architecture: "x86_64",
			State: ec2types.ImageState(state), CreationDate: aws.String(created)}
	}
	sel := amiselect.Select([]ec2types.Image{
		image("ami-0301", "team-base-20250301", "available", "2025-03-01T09:30:00.000Z"),
		image("ami-0401", "team-base-20250401", "pending", "2025-04-01T09:30:00.000Z"),
		image("ami-0322", "team-base-broken", "available", "Sat Mar 22 09:30:00 UTC 2025"),
	}, amiselect.SelectOptions{Now: func() time.Time { return time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC) }})
	for _, a := range sel.AMIs {
		fmt.Println("selected:", a, a.Requirements)
	}
	for _, r := range sel.Rejected {
		fmt.Println("rejected:", r.ImageID, r.Kind, "-", r.Reason)
	}
	// Output:
	// selected: ami-0301 (custom amd64) kubernetes.io/arch In [amd64]
	// rejected: ami-0322 invalid-creation-date - CreationDate "Sat Mar 22 09:30:00 UTC 2025" is not an RFC 3339 time, so the image cannot be ordered
	// rejected: ami-0401 not-available - state is "pending", not "available"; only available images can be launched
}

// With a minimum age, a new release waits while the previous one serves;
// the Selection says when it comes of age.
func ExampleSelect_minAge() {
	image := func(id, name, created string) ec2types.Image {
		return ec2types.Image{ImageId: aws.String(id), Name: aws.String(name), Architecture: "x86_64",
			State: ec2types.ImageStateAvailable, CreationDate: aws.String(created)}
	}
	sel := amiselect.Select([]ec2types.Image{
		image("ami-0301", "team-base-20250301", "2025-03-01T09:30:00.000Z"),
		image("ami-0401", "team-base-20250401", "2025-04-01T09:30:00.000Z"),
	}, amiselect.SelectOptions{
		Now:    func() time.Time { return time.Date(2025, 4, 2, 0, 0, 0, 0, time.UTC) },
		MinAge: 7 * 24 * time.Hour,
	})
	for _, a := range sel.AMIs {
		fmt.Println("selected:", a, "created", a.CreationDate)
	}
	for _, h := range sel.HeldBack() {
		fmt.Println("held back:", h.Reason())
	}
	// Output:
	// selected: ami-0301 (custom amd64) created 2025-03-01T09:30:00.000Z
	// held back: ami-0401 was created 2025-04-01T09:30:00Z, less than MinAge (168h0m0s) before now; it comes of age at 2025-04-08T09:30:00Z, and ami-0301 serves until then
}

// PlanDrift says which nodes drift, why and to what, and when the next
// change is due, before any node is replaced. Nodes two releases behind
// are told both moves; a canary on the release still soaking keeps
// running, since that release is selected when it comes of age.
func ExamplePlanDrift() {
	ec2, sel, err := teamRelease()
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := amiselect.PlanDrift(context.Background(), ec2, sel, []amiselect.Running{
		{ImageID: "ami-0c0ffee0000000301", Nodes: 3}, // an older release
		{ImageID: "ami-0c0ffee0000000315", Nodes: 5}, // the current one
		{ImageID: "ami-0c0ffee0000000401", Nodes: 1}, // a canary on the new one
		{ImageID: "ami-0c0ffee0000000999", Nodes: 1}, // deregistered since
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range plan.Images {
		fmt.Printf("%s x%d drifts=%v %s: %s\n", d.ImageID, d.Nodes, d.Drifts, d.Reason, d.Detail)
	}
	fmt.Println("next change:", plan.NextChange.Format(time.RFC3339))
	// Output:
	// ami-0c0ffee0000000301 x3 drifts=true superseded: ami-0c0ffee0000000315 is newer: created 2025-03-15T09:30:00Z, after 2025-03-01T09:30:00Z; its nodes move to ami-0c0ffee0000000315 now and to ami-0c0ffee0000000401 at 2025-04-08T09:30:00Z
	// ami-0c0ffee0000000315 x5 drifts=false none: selected until 2025-04-08T09:30:00Z, when ami-0c0ffee0000000401 comes of age and replaces it
	// ami-0c0ffee0000000401 x1 drifts=false held-back: keeps running: held back until 2025-04-08T09:30:00Z; ami-0c0ffee0000000401 was created 2025-04-01T09:30:00Z, less than MinAge (168h0m0s) before now; it comes of age at 2025-04-08T09:30:00Z, and ami-0c0ffee0000000315 serves until then
	// ami-0c0ffee0000000999 x1 drifts=true deregistered: EC2 does not describe it: it is deregistered, or not shared with this account
	// next change: 2025-04-08T09:30:00Z
}

// PlanDriftWith's options: Wait lets nodes two releases behind wait for a
// move due soon, and move once; Strict moves a canary off the release
// still soaking (and back later).
func ExamplePlanDriftWith() {
	ec2, sel, err := teamRelease()
	if err != nil {
		fmt.Println(err)
		return
	}
	running := []amiselect.Running{{ImageID: "ami-0c0ffee0000000301", Nodes: 3}, {ImageID: "ami-0c0ffee0000000401", Nodes: 1}}
	for _, opts := range []amiselect.PlanOptions{{Wait: 7 * 24 * time.Hour}, {Strict: true}} {
		plan, err := amiselect.PlanDriftWith(context.Background(), ec2, sel, running, opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%+v:\n", opts)
		for _, d := range plan.Images {
			fmt.Printf("  %s drifts=%v", d.ImageID, d.Drifts)
			for _, m := range d.Moves {
				fmt.Printf(", to %s at %s", m.To.ID, m.At.Format(time.RFC3339))
			}
			fmt.Println()
		}
	}
	// Output:
	// {Strict:false Wait:168h0m0s}:
	//   ami-0c0ffee0000000301 drifts=false, to ami-0c0ffee0000000401 at 2025-04-08T09:30:00Z
	//   ami-0c0ffee0000000401 drifts=false
	// {Strict:true Wait:0s}:
	//   ami-0c0ffee0000000301 drifts=true, to ami-0c0ffee0000000315 at 2025-04-02T00:00:00Z, to ami-0c0ffee0000000401 at 2025-04-08T09:30:00Z
	//   ami-0c0ffee0000000401 drifts=true, to ami-0c0ffee0000000315 at 2025-04-02T00:00:00Z, to ami-0c0ffee0000000401 at 2025-04-08T09:30:00Z
}

// teamRelease is a team's three releases in a fake EC2, resolved on 2 April
// 2025 with a week's soak: the 1 April release is held back.
func teamRelease() (*ec2fake.Backend, amiselect.Selection, error) {
	ec2 := ec2fake.New(ec2fake.Options{})
	for _, img := range []ec2types.Image{
		{ImageId: aws.String("ami-0c0ffee0000000301"), Name: aws.String("team-base-20250301"), CreationDate: aws.String("2025-03-01T09:30:00.000Z")},
		{ImageId: aws.String("ami-0c0ffee0000000315"), Name: aws.String("team-base-20250315"), CreationDate: aws.String("2025-03-15T09:30:00.000Z")},
		{ImageId: aws.String("ami-0c0ffee0000000401"), Name: aws.String("team-base-20250401"), CreationDate: aws.String("2025-04-01T09:30:00.000Z")},
	} {
		img.Architecture, img.State = ec2types.ArchitectureValuesX8664, ec2types.ImageStateAvailable
		if err := ec2.PutImage(img); err != nil {
			return nil, amiselect.Selection{}, err
		}
	}
	now := time.Date(2025, 4, 2, 0, 0, 0, 0, time.UTC)
	sel, err := amiselect.Resolve(context.Background(), ec2, []amiselect.Term{{Name: "team-base-*", Owner: "self"}},
		amiselect.Options{Select: amiselect.SelectOptions{Now: func() time.Time { return now }, MinAge: 7 * 24 * time.Hour}})
	return ec2, sel, err
}

// With SkipMissingParameters, an ssmParameter term whose parameter SSM
// does not have matches nothing, as in Karpenter, and the Selection says
// which.
func ExampleOptions_skipMissingParameters() {
	ec2 := ec2fake.NewWithCatalog(ec2fake.Options{})
	if err := ec2.PutParameter("/team/node-ami", ec2fake.ImageTeamBaseAvailable); err != nil {
		fmt.Println(err)
		return
	}
	sel, err := amiselect.Resolve(context.Background(), ec2,
		[]amiselect.Term{{SSMParameter: "/team/node-ami"}, {SSMParameter: "/team/node-ami-typo"}},
		amiselect.Options{SSM: ec2, SkipMissingParameters: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range sel.AMIs {
		fmt.Println("selected:", a.ID, a.Name)
	}
	for _, m := range sel.MissingParameters {
		fmt.Printf("term %d matches nothing: SSM has no parameter %s\n", m.Term, m.Parameter)
	}
	// Output:
	// selected: ami-0c0ffee0000000301 team-base-al2023-20250301
	// term 1 matches nothing: SSM has no parameter /team/node-ami-typo
}

// When nothing maps, Err says why per AMI and what would fix it
// (karpenter-provider-aws #7211).
func ExampleMapping_Err() {
	sel := amiselect.Select([]ec2types.Image{{
		ImageId: aws.String("ami-06d9bcac32f727ddb"), Name: aws.String("team-base-20250301"),
		Architecture: "x86_64", State: "available", CreationDate: aws.String("2025-03-01T09:30:00.000Z"),
	}}, amiselect.SelectOptions{})
	graviton := []compat.InstanceType{
		{Name: "m6g.large", Arch: compat.ArchARM64, VCPU: 2, MemoryMiB: 8192},
		{Name: "c7g.xlarge", Arch: compat.ArchARM64, VCPU: 4, MemoryMiB: 8192},
	}
	fmt.Println(amiselect.Map(graviton, sel.AMIs).Err())
	// Output:
	// amiselect: none of 2 instance types can run any of 1 AMIs: ami-06d9bcac32f727ddb (custom amd64): 2 of 2 types conflict on kubernetes.io/arch (instance arm64, AMI amd64); fix: add kubernetes.io/arch In [amd64] to the NodePool requirements, or select an AMI built for arm64
}

// One Bottlerocket x86_64 image serves both standard and Neuron types, so
// it is one launch group (one launch template) with both variants; an
// older release lost to it, and Superseded says why.
func ExampleMapping_LaunchGroups() {
	image := func(id, name, arch, created string) ec2types.Image {
		return ec2types.Image{ImageId: aws.String(id), Name: aws.String(name), Architecture: ec2types.ArchitectureValues(arch),
			State: "available", CreationDate: aws.String(created)}
	}
	sel := amiselect.Select([]ec2types.Image{
		image("ami-0b01", "bottlerocket-aws-k8s-1.33-x86_64-v1.49.0-713f44ce", "x86_64", "2025-10-07T16:20:20Z"),
		image("ami-0b02", "bottlerocket-aws-k8s-1.33-aarch64-v1.49.0-713f44ce", "arm64", "2025-10-07T16:21:27Z"),
		image("ami-0a01", "bottlerocket-aws-k8s-1.33-x86_64-v1.42.0-5ed15786", "x86_64", "2025-06-24T16:20:20Z"),
	}, amiselect.SelectOptions{})
	types := []compat.InstanceType{
		{Name: "m5.large", Family: "m5", Arch: compat.ArchAMD64},
		{Name: "inf2.xlarge", Family: "inf2", Arch: compat.ArchAMD64, AcceleratorCount: 1, AcceleratorManufacturer: "aws"},
		{Name: "a1.large", Family: "a1", Arch: compat.ArchARM64},
	}
	for _, g := range amiselect.Map(types, sel.AMIs).LaunchGroups() {
		fmt.Print(g.ImageID, " ", g.AMIs[0].Release, ":")
		for _, a := range g.AMIs {
			fmt.Print(" ", a.Variant)
		}
		for _, it := range g.InstanceTypes {
			fmt.Print(" ", it.Name)
		}
		fmt.Println()
	}
	for _, s := range sel.Superseded() {
		fmt.Println(s.AMI.ID, s.AMI.Variant, "-", s.Reason())
	}
	// Output:
	// ami-0b02 v1.49.0: standard a1.large
	// ami-0b01 v1.49.0: standard neuron m5.large inf2.xlarge
	// ami-0a01 standard - ami-0b01 is a newer release (v1.49.0 over v1.42.0): created 2025-10-07T16:20:20Z, after 2025-06-24T16:20:20Z
	// ami-0a01 neuron - ami-0b01 is a newer release (v1.49.0 over v1.42.0): created 2025-10-07T16:20:20Z, after 2025-06-24T16:20:20Z
}

// Resolving an alias through SSM, as Karpenter does, and checking that
// resolving it by name (no SSM permission needed) selects the same
// images. Backend serves both EC2 and SSM, here in process; over HTTP,
// pass ec2fake.NewClient and ec2fake.NewSSMClient instead.
func ExampleCompareAliasSources() {
	backend := ec2fake.NewWithCatalog(ec2fake.Options{})
	opts := amiselect.Options{
		Query:   amiselect.QueryOptions{KubernetesVersion: "1.33"},
		SSM:     backend,
		Aliases: amiselect.AliasBySSM,
	}
	sel, err := amiselect.Resolve(context.Background(), backend, []amiselect.Term{{Alias: "al2023@latest"}}, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(sel.AMIs), "AMIs through SSM, all of one release:", sel.AMIs[0].Release == sel.AMIs[len(sel.AMIs)-1].Release)
	diffs, err := amiselect.CompareAliasSources(context.Background(), backend, "al2023@latest", opts)
	fmt.Println(len(diffs), "differences, err:", err)
	// Output:
	// 5 AMIs through SSM, all of one release: true
	// 0 differences, err: <nil>
}

// Enums are words on the wire: JSON, logs and flags read the same name.
func ExampleDriftReason_MarshalText() {
	data, err := json.Marshal(map[string]any{"reason": amiselect.DriftHeldBack, "variant": amiselect.NVIDIA, "kind": amiselect.NotAvailable})
	fmt.Println(string(data), err)
	var r amiselect.DriftReason
	fmt.Println(r.UnmarshalText([]byte("deregistered")), r == amiselect.DriftDeregistered)
	// Output:
	// {"kind":"not-available","reason":"held-back","variant":"nvidia"} <nil>
	// <nil> true
}

// A Selection says what it will select later, asking Select's rule about
// each instant where the answer can change.
func ExampleSelection_Changes() {
	_, sel, err := teamRelease()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range sel.Changes() {
		fmt.Printf("at %s: %s replaces %s\n", c.At.Format(time.RFC3339), c.To.ID, c.From.ID)
	}
	for _, h := range sel.HeldBack() {
		fmt.Printf("held back: %s, eligible at %s, selected at %s\n", h.AMI.ID, h.EligibleAt.Format(time.RFC3339), h.SelectedAt.Format(time.RFC3339))
	}
	// Output:
	// at 2025-04-08T09:30:00Z: ami-0c0ffee0000000401 replaces ami-0c0ffee0000000315
	// held back: ami-0c0ffee0000000401, eligible at 2025-04-08T09:30:00Z, selected at 2025-04-08T09:30:00Z
}
