package amiselect_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// july is after every catalog image and after the catalog's deprecation
// of team-base-al2023-20250315 (2025-06-01).
var july = time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)

func options(k8s string) amiselect.Options {
	return amiselect.Options{
		Query:  amiselect.QueryOptions{KubernetesVersion: k8s},
		Select: amiselect.SelectOptions{Now: func() time.Time { return july }},
	}
}

// clients returns the two ways to reach a catalog backend: the backend
// itself, and a real *ec2.Client over HTTP.
func clients(t *testing.T) (*ec2fake.Backend, map[string]ec2.DescribeImagesAPIClient) {
	t.Helper()
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return july }})
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	return b, map[string]ec2.DescribeImagesAPIClient{"in-process": b, "http": ec2fake.NewClient(srv.URL)}
}

// catalogTypes converts the catalog's instance types, skipping those no
// EKS node runs (mac), keyed by name.
func catalogTypes(t *testing.T) map[string]compat.InstanceType {
	t.Helper()
	_, infos := ec2fake.DefaultCatalog()
	out := map[string]compat.InstanceType{}
	for _, info := range infos {
		it, err := compat.InstanceTypeFromEC2(info)
		if err != nil {
			continue
		}
		out[it.Name] = it
	}
	if len(out) < 80 {
		t.Fatalf("only %d catalog instance types convert", len(out))
	}
	return out
}

func pick(t *testing.T, all map[string]compat.InstanceType, names ...string) []compat.InstanceType {
	t.Helper()
	var out []compat.InstanceType
	for _, n := range names {
		it, ok := all[n]
		if !ok {
			t.Fatalf("catalog has no instance type %s", n)
		}
		out = append(out, it)
	}
	return out
}

// selected lists "name arch variant" per AMI, in order.
func selected(sel amiselect.Selection) []string {
	var out []string
	for _, a := range sel.AMIs {
		out = append(out, a.Name+" "+a.Arch+" "+a.Variant.String())
	}
	return out
}

// TestResolvePending is karpenter-provider-aws #7652: a pending image
// newer than the available one is never selected, and is selected once
// it becomes available. Also: the deprecated image loses to the older
// one, and the malformed date is rejected with a reason.
func TestResolvePending(t *testing.T) {
	for _, via := range []string{"in-process", "http"} {
		t.Run(via, func(t *testing.T) {
			b, cs := clients(t)
			terms := []amiselect.Term{{Name: "team-base-al2023-*"}}
			sel, err := amiselect.Resolve(context.Background(), cs[via], terms, options(""))
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			want := []string{
				"team-base-al2023-arm64-20250310 arm64 unspecified",
				"team-base-al2023-20250301 amd64 unspecified", // not 20250315 (deprecated), not 20250401 (pending)
			}
			if diff := cmp.Diff(want, selected(sel)); diff != "" {
				t.Errorf("AMIs mismatch (-want +got):\n%s", diff)
			}
			wantRejected := []amiselect.Rejection{{
				ImageID: ec2fake.ImageTeamBaseMalformedDate, Name: "team-base-al2023-broken", Kind: amiselect.InvalidCreationDate,
				Reason: `CreationDate "Sat Mar 22 09:30:00 UTC 2025" is not an RFC 3339 time, so the image cannot be ordered`,
			}}
			if diff := cmp.Diff(wantRejected, sel.Rejected); diff != "" {
				t.Errorf("Rejected mismatch (-want +got):\n%s", diff)
			}

			// Packer finishes the build.
			if err := b.SetImageState(ec2fake.ImageTeamBasePending, ec2types.ImageStateAvailable); err != nil {
				t.Fatal(err)
			}
			sel, err = amiselect.Resolve(context.Background(), cs[via], terms, options(""))
			if err != nil {
				t.Fatalf("Resolve after the build: %v", err)
			}
			if len(sel.AMIs) != 2 || sel.AMIs[0].ID != ec2fake.ImageTeamBasePending || sel.AMIs[1].ID != ec2fake.ImageTeamBaseArm64 {
				t.Errorf("after the build, AMIs = %v; want %s first", selected(sel), ec2fake.ImageTeamBasePending)
			}
		})
	}
}

// TestSelectWithoutStateFilter: a caller's own request that forgets the
// state filter still cannot make Select choose a pending image.
func TestSelectWithoutStateFilter(t *testing.T) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{})
	out, err := b.DescribeImages(context.Background(), &ec2.DescribeImagesInput{
		Owners:            []string{"self"},
		Filters:           []ec2types.Filter{{Name: aws.String("name"), Values: []string{"team-base-al2023-2025*"}}},
		IncludeDeprecated: aws.Bool(true),
		IncludeDisabled:   aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	sel := amiselect.Select(out.Images, amiselect.SelectOptions{Now: func() time.Time { return july }})
	if diff := cmp.Diff([]string{"team-base-al2023-20250301 amd64 unspecified"}, selected(sel)); diff != "" {
		t.Errorf("AMIs mismatch (-want +got):\n%s", diff)
	}
	var notAvailable []string
	for _, r := range sel.Rejected {
		if r.Kind == amiselect.NotAvailable {
			notAvailable = append(notAvailable, r.ImageID+": "+r.Reason)
		}
	}
	want := []string{
		ec2fake.ImageTeamBaseDisabled + `: state is "disabled", not "available"; only available images can be launched`,
		ec2fake.ImageTeamBasePending + `: state is "pending", not "available"; only available images can be launched`,
	}
	if diff := cmp.Diff(want, notAvailable); diff != "" {
		t.Errorf("rejections mismatch (-want +got):\n%s", diff)
	}
}

// TestResolveAliases resolves every alias against the catalog, which
// holds several releases per family and Kubernetes version: latest takes
// the newest, pinned the one named. It checks the alias names against the
// catalog's real EKS AMI names.
func TestResolveAliases(t *testing.T) {
	tests := []struct {
		alias, k8s string
		want       []string
	}{
		{"al2@latest", "1.32", []string{
			"amazon-eks-gpu-node-1.32-v20251209 amd64 nvidia",
			"amazon-eks-gpu-node-1.32-v20251209 amd64 neuron",
			"amazon-eks-arm64-node-1.32-v20251209 arm64 standard",
			"amazon-eks-node-1.32-v20251209 amd64 standard",
		}},
		{"al2@v20250317", "1.31", []string{
			"amazon-eks-gpu-node-1.31-v20250317 amd64 nvidia",
			"amazon-eks-gpu-node-1.31-v20250317 amd64 neuron",
			"amazon-eks-arm64-node-1.31-v20250317 arm64 standard",
			"amazon-eks-node-1.31-v20250317 amd64 standard",
		}},
		{"al2023@latest", "1.32", []string{
			"amazon-eks-node-al2023-arm64-nvidia-1.32-v20260714 arm64 nvidia",
			"amazon-eks-node-al2023-arm64-standard-1.32-v20260714 arm64 standard",
			"amazon-eks-node-al2023-x86_64-neuron-1.32-v20260714 amd64 neuron",
			"amazon-eks-node-al2023-x86_64-nvidia-1.32-v20260714 amd64 nvidia",
			"amazon-eks-node-al2023-x86_64-standard-1.32-v20260714 amd64 standard",
		}},
		{"al2023@v20250317", "1.31", []string{ // no arm64 NVIDIA AMI before v20250403
			"amazon-eks-node-al2023-arm64-standard-1.31-v20250317 arm64 standard",
			"amazon-eks-node-al2023-x86_64-neuron-1.31-v20250317 amd64 neuron",
			"amazon-eks-node-al2023-x86_64-nvidia-1.31-v20250317 amd64 nvidia",
			"amazon-eks-node-al2023-x86_64-standard-1.31-v20250317 amd64 standard",
		}},
		{"bottlerocket@latest", "1.32", []string{
			"bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.61.0-9a3f5d07 arm64 nvidia",
			"bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.61.0-9a3f5d07 amd64 nvidia",
			"bottlerocket-aws-k8s-1.32-aarch64-v1.61.0-9a3f5d07 arm64 standard",
			"bottlerocket-aws-k8s-1.32-x86_64-v1.61.0-9a3f5d07 amd64 standard",
			"bottlerocket-aws-k8s-1.32-x86_64-v1.61.0-9a3f5d07 amd64 neuron",
		}},
		{"bottlerocket@1.42.0", "1.31", []string{
			"bottlerocket-aws-k8s-1.31-nvidia-aarch64-v1.42.0-5ed15786 arm64 nvidia",
			"bottlerocket-aws-k8s-1.31-nvidia-x86_64-v1.42.0-5ed15786 amd64 nvidia",
			"bottlerocket-aws-k8s-1.31-aarch64-v1.42.0-5ed15786 arm64 standard",
			"bottlerocket-aws-k8s-1.31-x86_64-v1.42.0-5ed15786 amd64 standard",
			"bottlerocket-aws-k8s-1.31-x86_64-v1.42.0-5ed15786 amd64 neuron",
		}},
		{"bottlerocket@v1.42.0-5ed15786", "1.32", []string{
			"bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.42.0-5ed15786 arm64 nvidia",
			"bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.42.0-5ed15786 amd64 nvidia",
			"bottlerocket-aws-k8s-1.32-aarch64-v1.42.0-5ed15786 arm64 standard",
			"bottlerocket-aws-k8s-1.32-x86_64-v1.42.0-5ed15786 amd64 standard",
			"bottlerocket-aws-k8s-1.32-x86_64-v1.42.0-5ed15786 amd64 neuron",
		}},
		{"windows2019@latest", "1.32", []string{"Windows_Server-2019-English-Core-EKS_Optimized-1.32-2026.11.12 amd64 unspecified"}},
		{"windows2022@latest", "1.31", []string{"Windows_Server-2022-English-Core-EKS_Optimized-1.31-2026.11.12 amd64 unspecified"}},
		{"windows2025@latest", "1.36", []string{"Windows_Server-2025-English-Core-EKS_Optimized-1.36-2026.11.12 amd64 unspecified"}},
		{"windows2025@latest", "1.37", nil}, // the catalog stops at 1.36
	}
	_, cs := clients(t)
	for _, tt := range tests {
		for _, via := range []string{"in-process", "http"} {
			t.Run(tt.alias+"/"+tt.k8s+"/"+via, func(t *testing.T) {
				sel, err := amiselect.Resolve(context.Background(), cs[via], []amiselect.Term{{Alias: tt.alias}}, options(tt.k8s))
				if err != nil {
					t.Fatalf("Resolve: %v", err)
				}
				if diff := cmp.Diff(tt.want, selected(sel)); diff != "" {
					t.Errorf("AMIs mismatch (-want +got):\n%s", diff)
				}
				if len(sel.Rejected) != 0 {
					t.Errorf("Rejected = %v", sel.Rejected)
				}
			})
		}
	}
}

// TestResolveBottlerocketMapping is #7925 end to end: the alias resolves
// to four images (five entries), and each type gets its own variant in
// whatever order the AMIs arrive.
func TestResolveBottlerocketMapping(t *testing.T) {
	_, cs := clients(t)
	sel, err := amiselect.Resolve(context.Background(), cs["http"], []amiselect.Term{{Alias: "bottlerocket@latest"}}, options("1.32"))
	if err != nil {
		t.Fatal(err)
	}
	types := pick(t, catalogTypes(t), "m5.large", "m6g.large", "g4dn.xlarge", "g5g.xlarge")
	want := map[string]string{
		"m5.large":    "bottlerocket-aws-k8s-1.32-x86_64-v1.61.0-9a3f5d07 standard",
		"m6g.large":   "bottlerocket-aws-k8s-1.32-aarch64-v1.61.0-9a3f5d07 standard",
		"g4dn.xlarge": "bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.61.0-9a3f5d07 nvidia",
		"g5g.xlarge":  "bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.61.0-9a3f5d07 nvidia",
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}, {1, 3, 0, 4, 2}, {3, 4, 1, 2, 0}} {
		amis := make([]amiselect.AMI, len(order))
		for i, j := range order {
			amis[i] = sel.AMIs[j]
		}
		m := amiselect.Map(types, amis)
		got := map[string]string{}
		for _, it := range types {
			a, ok := m.AMIFor(it.Name)
			if !ok {
				t.Fatalf("order %v: %s unmapped: %v", order, it.Name, m.Unmapped)
			}
			got[it.Name] = a.Name + " " + a.Variant.String()
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("order %v mismatch (-want +got):\n%s", order, diff)
		}
	}
}

// TestResolveG5G: the g5g scenario for each Linux alias.
func TestResolveG5G(t *testing.T) {
	all := catalogTypes(t)
	types := pick(t, all, "g5g.xlarge", "g5g.2xlarge", "g5g.4xlarge")
	_, cs := clients(t)
	tests := []struct {
		alias string
		want  string // the AMI name for every g5g type, or "" for the explanation
	}{
		{"al2@latest", ""},
		{"al2023@latest", "amazon-eks-node-al2023-arm64-nvidia-1.32-v20260714"},
		{"bottlerocket@latest", "bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.61.0-9a3f5d07"},
	}
	for _, tt := range tests {
		t.Run(tt.alias, func(t *testing.T) {
			sel, err := amiselect.Resolve(context.Background(), cs["in-process"], []amiselect.Term{{Alias: tt.alias}}, options("1.32"))
			if err != nil {
				t.Fatal(err)
			}
			m := amiselect.Map(types, sel.AMIs)
			err = m.Err()
			if tt.want != "" {
				if err != nil {
					t.Fatalf("Err() = %v", err)
				}
				for _, it := range types {
					if a, ok := m.AMIFor(it.Name); !ok || a.Name != tt.want {
						t.Errorf("AMIFor(%s) = %v, %v; want %s", it.Name, a.Name, ok, tt.want)
					}
				}
				return
			}
			var nc *amiselect.NoCompatibleAMIError
			if !errors.As(err, &nc) {
				t.Fatalf("Err() = %v, want a *NoCompatibleAMIError", err)
			}
			if want := "no arm64 NVIDIA AMI in family al2; use bottlerocket or al2023"; nc.Fix != want {
				t.Errorf("Fix = %q, want %q", nc.Fix, want)
			}
			if !strings.Contains(err.Error(), "(al2 arm64 standard): 3 of 3 types conflict on karpenter.k8s.aws/instance-gpu-count (instance 1, AMI DoesNotExist)") {
				t.Errorf("Err() = %q does not explain the arm64 standard AMI", err)
			}
		})
	}
}

// TestResolveArch is #7211 against the catalog: one amd64 AMI, an
// unconstrained NodePool.
func TestResolveArch(t *testing.T) {
	all := catalogTypes(t)
	_, cs := clients(t)
	sel, err := amiselect.Resolve(context.Background(), cs["http"], []amiselect.Term{{ID: ec2fake.ImageTeamBaseAvailable}}, options(""))
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.AMIs) != 1 || sel.AMIs[0].Arch != compat.ArchAMD64 {
		t.Fatalf("AMIs = %v, want the one amd64 image", selected(sel))
	}
	var types, arm []compat.InstanceType
	for _, it := range all {
		types = append(types, it)
		if it.Arch == compat.ArchARM64 {
			arm = append(arm, it)
		}
	}
	slices.SortFunc(types, func(a, b compat.InstanceType) int { return strings.Compare(a.Name, b.Name) })
	m := amiselect.Map(types, sel.AMIs)
	if err := m.Err(); err != nil {
		t.Fatalf("Err() = %v", err)
	}
	for _, it := range types {
		_, ok := m.AMIFor(it.Name)
		if ok != (it.Arch == compat.ArchAMD64) {
			t.Errorf("%s (%s) mapped = %v", it.Name, it.Arch, ok)
		}
	}
	if len(m.Unmapped) != len(arm) {
		t.Errorf("%d unmapped, want the %d arm64 types", len(m.Unmapped), len(arm))
	}

	err = amiselect.Map(arm, sel.AMIs).Err()
	var nc *amiselect.NoCompatibleAMIError
	if !errors.As(err, &nc) {
		t.Fatalf("arm64 only: Err() = %v", err)
	}
	if len(nc.AMIs) != 1 || nc.AMIs[0].Key != compat.LabelArch || nc.AMIs[0].Conflicting != len(arm) {
		t.Errorf("conflicts = %+v, want all %d types on %s", nc.AMIs, len(arm), compat.LabelArch)
	}
	if !strings.Contains(nc.Fix, "kubernetes.io/arch In [amd64]") {
		t.Errorf("Fix = %q, want kubernetes.io/arch In [amd64]", nc.Fix)
	}
}

// pagedClient makes the backend answer in pages of 5 and, after the
// first page, queues a fault for the following call: a request that
// fails half way through.
type pagedClient struct {
	b     *ec2fake.Backend
	fault ec2fake.Fault
	calls int
	err   error // from InjectFault
}

func (c *pagedClient) DescribeImages(ctx context.Context, in *ec2.DescribeImagesInput, opts ...func(*ec2.Options)) (*ec2.DescribeImagesOutput, error) {
	c.calls++
	in.MaxResults = aws.Int32(5) // the smallest page EC2 allows
	out, err := c.b.DescribeImages(ctx, in, opts...)
	if c.calls == 1 && c.fault.Code != "" {
		c.err = c.b.InjectFault(c.fault)
	}
	return out, err
}

// TestResolveFaults: a throttled or failing page gives an error that
// wraps the SDK's, and never a partial selection.
func TestResolveFaults(t *testing.T) {
	terms := []amiselect.Term{{Alias: "al2023@latest"}}
	apiCode := func(err error) string {
		var ae smithy.APIError
		if errors.As(err, &ae) {
			return ae.ErrorCode()
		}
		return ""
	}

	t.Run("throttled in-process", func(t *testing.T) {
		b, cs := clients(t)
		if err := b.InjectFault(ec2fake.Fault{Operation: ec2fake.OpDescribeImages, Code: ec2fake.CodeRequestLimitExceeded, Times: 1}); err != nil {
			t.Fatal(err)
		}
		sel, err := amiselect.Resolve(context.Background(), cs["in-process"], terms, options("1.32"))
		if code := apiCode(err); code != ec2fake.CodeRequestLimitExceeded {
			t.Fatalf("err = %v (code %q), want %s", err, code, ec2fake.CodeRequestLimitExceeded)
		}
		if !strings.Contains(err.Error(), `amiselect: describing images for term 0 (alias "al2023@latest")`) {
			t.Errorf("err = %q does not name the term", err)
		}
		if sel.AMIs != nil || sel.Rejected != nil {
			t.Errorf("partial selection returned with the error: %+v", sel)
		}
	})
	t.Run("throttled once over http is retried by the SDK", func(t *testing.T) {
		b, cs := clients(t)
		if err := b.InjectFault(ec2fake.Fault{Operation: ec2fake.OpDescribeImages, Code: ec2fake.CodeRequestLimitExceeded, Times: 1}); err != nil {
			t.Fatal(err)
		}
		sel, err := amiselect.Resolve(context.Background(), cs["http"], terms, options("1.32"))
		if err != nil || len(sel.AMIs) != 5 {
			t.Fatalf("Resolve = %v, %v; want the five AMIs after a retry", selected(sel), err)
		}
	})
	t.Run("throttled for good over http", func(t *testing.T) {
		b, cs := clients(t)
		if err := b.InjectFault(ec2fake.Fault{Operation: ec2fake.OpDescribeImages, Code: ec2fake.CodeRequestLimitExceeded}); err != nil {
			t.Fatal(err)
		}
		sel, err := amiselect.Resolve(context.Background(), cs["http"], terms, options("1.32"))
		if code := apiCode(err); code != ec2fake.CodeRequestLimitExceeded {
			t.Fatalf("err = %v (code %q), want %s", err, code, ec2fake.CodeRequestLimitExceeded)
		}
		var oe *smithy.OperationError
		if !errors.As(err, &oe) || oe.Operation() != "DescribeImages" {
			t.Errorf("err = %v does not wrap the SDK's operation error", err)
		}
		if sel.AMIs != nil {
			t.Errorf("partial selection: %v", selected(sel))
		}
	})
	t.Run("second page fails", func(t *testing.T) {
		b := ec2fake.NewWithCatalog(ec2fake.Options{})
		c := &pagedClient{b: b, fault: ec2fake.Fault{Operation: ec2fake.OpDescribeImages, Code: ec2fake.CodeInternalError, Times: 1}}
		// 34 images match al2023@latest on 1.32 (seven releases, the
		// oldest without arm64 NVIDIA), so pages of 5 make seven requests.
		sel, err := amiselect.Resolve(context.Background(), c, terms, options("1.32"))
		if code := apiCode(err); code != ec2fake.CodeInternalError {
			t.Fatalf("err = %v (code %q), want %s", err, code, ec2fake.CodeInternalError)
		}
		if c.err != nil || c.calls != 2 {
			t.Errorf("%d calls (fault: %v), want 2: the first page, then the failure", c.calls, c.err)
		}
		if sel.AMIs != nil {
			t.Errorf("partial selection after the first page: %v", selected(sel))
		}
	})
	t.Run("pages without a fault", func(t *testing.T) {
		c := &pagedClient{b: ec2fake.NewWithCatalog(ec2fake.Options{})}
		sel, err := amiselect.Resolve(context.Background(), c, terms, options("1.32"))
		if err != nil || len(sel.AMIs) != 5 || c.calls != 7 {
			t.Errorf("Resolve = %v, %v in %d calls; want 5 AMIs in 7 pages", selected(sel), err, c.calls)
		}
	})
}

func TestResolveContext(t *testing.T) {
	terms := []amiselect.Term{{Alias: "bottlerocket@latest"}}
	t.Run("canceled", func(t *testing.T) {
		_, cs := clients(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for via, c := range cs {
			if _, err := amiselect.Resolve(ctx, c, terms, options("1.32")); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: err = %v, want context.Canceled", via, err)
			}
		}
	})
	t.Run("deadline during a slow call", func(t *testing.T) {
		b, cs := clients(t)
		if err := b.SetLatency(ec2fake.OpDescribeImages, time.Minute); err != nil {
			t.Fatal(err)
		}
		for via, c := range cs {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			start := time.Now()
			_, err := amiselect.Resolve(ctx, c, terms, options("1.32"))
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: err = %v, want context.DeadlineExceeded", via, err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("%s: Resolve took %v after the deadline", via, d)
			}
		}
	})
}

// TestResolveMergesQueries: an image found by several terms is kept once,
// and each term is one request.
func TestResolveMergesQueries(t *testing.T) {
	b, _ := clients(t)
	terms := []amiselect.Term{
		{Name: "team-base-al2023-2025*"},
		{Tags: map[string]string{"team": "*"}},
		{ID: ec2fake.ImageTeamBaseAvailable},
	}
	sel, err := amiselect.Resolve(context.Background(), b, terms, options(""))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"team-base-al2023-arm64-20250310 arm64 unspecified", "team-base-al2023-20250301 amd64 unspecified"}
	if diff := cmp.Diff(want, selected(sel)); diff != "" {
		t.Errorf("AMIs mismatch (-want +got):\n%s", diff)
	}
	if len(sel.Rejected) != 1 || sel.Rejected[0].ImageID != ec2fake.ImageTeamBaseMalformedDate {
		t.Errorf("Rejected = %v, want the malformed date once", sel.Rejected)
	}
	if n := len(b.Calls()); n != 3 {
		t.Errorf("%d DescribeImages calls, want 3", n)
	}
}

func TestResolveErrors(t *testing.T) {
	b := ec2fake.New(ec2fake.Options{})
	if _, err := amiselect.Resolve(context.Background(), b, []amiselect.Term{{}}, amiselect.Options{}); err == nil || !strings.Contains(err.Error(), "term 0 is empty") {
		t.Errorf("empty term: err = %v", err)
	}
	if _, err := amiselect.Resolve(context.Background(), nil, []amiselect.Term{{ID: "ami-0a"}}, amiselect.Options{}); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("nil client: err = %v", err)
	}
	if len(b.Calls()) != 0 {
		t.Errorf("invalid input reached EC2: %v", b.Calls())
	}
	// An ID EC2 does not know matches nothing: an empty selection, for
	// Mapping.Err to explain, not an error.
	sel, err := amiselect.Resolve(context.Background(), b, []amiselect.Term{{ID: "ami-0123456789abcdef0"}}, amiselect.Options{})
	if err != nil || len(sel.AMIs) != 0 {
		t.Errorf("unknown id: Resolve = %v, %v; want nothing and no error", selected(sel), err)
	}
}
