package amiselect

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

var ignoreInternal = cmpopts.IgnoreUnexported(ec2.DescribeImagesInput{}, ec2types.Filter{})

func input(owners []string, filters ...ec2types.Filter) *ec2.DescribeImagesInput {
	return &ec2.DescribeImagesInput{
		Owners:            owners,
		Filters:           append(filters, filter("state", "available")),
		IncludeDeprecated: aws.Bool(true),
		MaxResults:        aws.Int32(1000),
	}
}

func TestQueries(t *testing.T) {
	tests := []struct {
		name  string
		terms []Term
		opts  QueryOptions
		want  []*ec2.DescribeImagesInput
	}{
		{
			name:  "name term defaults owners to self and amazon",
			terms: []Term{{Name: "team-base-*"}},
			want:  []*ec2.DescribeImagesInput{input([]string{"self", "amazon"}, filter("name", "team-base-*"))},
		},
		{
			name:  "owner replaces the default",
			terms: []Term{{Name: "team-base-*", Owner: "111122223333"}},
			want:  []*ec2.DescribeImagesInput{input([]string{"111122223333"}, filter("name", "team-base-*"))},
		},
		{
			name:  "tags sorted by key, star is tag-key, tag terms set no owner",
			terms: []Term{{Tags: map[string]string{"team": "ml", "approved": "*", "env": "prod"}}},
			want: []*ec2.DescribeImagesInput{input(nil,
				filter("tag-key", "approved"), filter("tag:env", "prod"), filter("tag:team", "ml"))},
		},
		{
			name:  "name with tags",
			terms: []Term{{Name: "base-*", Tags: map[string]string{"k": "v"}}},
			want:  []*ec2.DescribeImagesInput{input([]string{"self", "amazon"}, filter("name", "base-*"), filter("tag:k", "v"))},
		},
		{
			name:  "ids merge into one request, first, sorted and deduplicated",
			terms: []Term{{Name: "x"}, {ID: "ami-0c"}, {ID: "ami-0a"}, {ID: "ami-0c"}},
			want: []*ec2.DescribeImagesInput{
				input(nil, filter("image-id", "ami-0a", "ami-0c")),
				input([]string{"self", "amazon"}, filter("name", "x")),
			},
		},
		{
			name:  "al2 latest",
			terms: []Term{{Alias: "al2@latest"}},
			opts:  QueryOptions{KubernetesVersion: "1.32"},
			want: []*ec2.DescribeImagesInput{input([]string{"amazon"}, filter("name",
				"amazon-eks-node-1.32-v*", "amazon-eks-arm64-node-1.32-v*", "amazon-eks-gpu-node-1.32-v*"))},
		},
		{
			name:  "al2 pinned",
			terms: []Term{{Alias: "al2@v20250317"}},
			opts:  QueryOptions{KubernetesVersion: "1.31"},
			want: []*ec2.DescribeImagesInput{input([]string{"amazon"}, filter("name",
				"amazon-eks-node-1.31-v20250317", "amazon-eks-arm64-node-1.31-v20250317", "amazon-eks-gpu-node-1.31-v20250317"))},
		},
		{
			name:  "al2023 latest",
			terms: []Term{{Alias: "al2023@latest"}},
			opts:  QueryOptions{KubernetesVersion: "1.33"},
			want: []*ec2.DescribeImagesInput{input([]string{"amazon"}, filter("name",
				"amazon-eks-node-al2023-x86_64-standard-1.33-v*",
				"amazon-eks-node-al2023-x86_64-nvidia-1.33-v*",
				"amazon-eks-node-al2023-x86_64-neuron-1.33-v*",
				"amazon-eks-node-al2023-arm64-standard-1.33-v*",
				"amazon-eks-node-al2023-arm64-nvidia-1.33-v*"))},
		},
		{
			name:  "al2023 pinned",
			terms: []Term{{Alias: "al2023@v20250403"}},
			opts:  QueryOptions{KubernetesVersion: "1.32"},
			want: []*ec2.DescribeImagesInput{input([]string{"amazon"}, filter("name",
				"amazon-eks-node-al2023-x86_64-standard-1.32-v20250403",
				"amazon-eks-node-al2023-x86_64-nvidia-1.32-v20250403",
				"amazon-eks-node-al2023-x86_64-neuron-1.32-v20250403",
				"amazon-eks-node-al2023-arm64-standard-1.32-v20250403",
				"amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403"))},
		},
		{
			name:  "bottlerocket latest",
			terms: []Term{{Alias: "bottlerocket@latest"}},
			opts:  QueryOptions{KubernetesVersion: "1.32"},
			want: []*ec2.DescribeImagesInput{input([]string{"amazon"}, filter("name",
				"bottlerocket-aws-k8s-1.32-x86_64-v*",
				"bottlerocket-aws-k8s-1.32-aarch64-v*",
				"bottlerocket-aws-k8s-1.32-nvidia-x86_64-v*",
				"bottlerocket-aws-k8s-1.32-nvidia-aarch64-v*"))},
		},
		{
			name:  "bottlerocket pinned without v",
			terms: []Term{{Alias: "bottlerocket@1.42.0"}},
			opts:  QueryOptions{KubernetesVersion: "1.31"},
			want: []*ec2.DescribeImagesInput{input([]string{"amazon"}, filter("name",
				"bottlerocket-aws-k8s-1.31-x86_64-v1.42.0-*",
				"bottlerocket-aws-k8s-1.31-aarch64-v1.42.0-*",
				"bottlerocket-aws-k8s-1.31-nvidia-x86_64-v1.42.0-*",
				"bottlerocket-aws-k8s-1.31-nvidia-aarch64-v1.42.0-*"))},
		},
		{
			name:  "bottlerocket pinned with v and commit",
			terms: []Term{{Alias: "bottlerocket@v1.49.0-713f44ce"}},
			opts:  QueryOptions{KubernetesVersion: "1.32"},
			want: []*ec2.DescribeImagesInput{input([]string{"amazon"}, filter("name",
				"bottlerocket-aws-k8s-1.32-x86_64-v1.49.0-713f44ce",
				"bottlerocket-aws-k8s-1.32-aarch64-v1.49.0-713f44ce",
				"bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.49.0-713f44ce",
				"bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.49.0-713f44ce"))},
		},
		{
			name:  "windows2019",
			terms: []Term{{Alias: "windows2019@latest"}},
			opts:  QueryOptions{KubernetesVersion: "1.32"},
			want: []*ec2.DescribeImagesInput{input([]string{"amazon"}, filter("name",
				"Windows_Server-2019-English-Core-EKS_Optimized-1.32-*"))},
		},
		{
			name:  "windows2022",
			terms: []Term{{Alias: "windows2022@latest"}},
			opts:  QueryOptions{KubernetesVersion: "1.31"},
			want: []*ec2.DescribeImagesInput{input([]string{"amazon"}, filter("name",
				"Windows_Server-2022-English-Core-EKS_Optimized-1.31-*"))},
		},
		{
			name:  "windows2025 from 1.35",
			terms: []Term{{Alias: "windows2025@latest"}},
			opts:  QueryOptions{KubernetesVersion: "1.35"},
			want: []*ec2.DescribeImagesInput{input([]string{"amazon"}, filter("name",
				"Windows_Server-2025-English-Core-EKS_Optimized-1.35-*"))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Queries(tt.terms, tt.opts)
			if err != nil {
				t.Fatalf("Queries: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, ignoreInternal); diff != "" {
				t.Errorf("Queries mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQueriesErrors(t *testing.T) {
	tests := []struct {
		name  string
		terms []Term
		opts  QueryOptions
		want  []string // substrings of the error, in order
	}{
		{"no terms", nil, QueryOptions{}, []string{"amiselect: no selector terms"}},
		{"empty term", []Term{{Name: "x"}, {}}, QueryOptions{}, []string{"term 1 is empty", "set an id, a name, tags, an ssmParameter or an alias"}},
		{"empty tags map is empty", []Term{{Tags: map[string]string{}}}, QueryOptions{}, []string{"term 0 is empty"}},
		{"owner alone", []Term{{Owner: "self"}}, QueryOptions{}, []string{"term 0", `owner "self" alone selects nothing`, "add a name or tags"}},
		{"alias with name", []Term{{Alias: "al2023@latest", Name: "x"}}, QueryOptions{KubernetesVersion: "1.32"}, []string{"term 0", "cannot be combined", "term of its own"}},
		{"alias with tags", []Term{{Alias: "al2023@latest", Tags: map[string]string{"a": "b"}}}, QueryOptions{KubernetesVersion: "1.32"}, []string{"term 0", "cannot be combined"}},
		{"alias with another term", []Term{{Name: "x"}, {Alias: "al2023@latest"}}, QueryOptions{KubernetesVersion: "1.32"}, []string{"term 1", "must be the only term"}},
		{"alias first with another term", []Term{{Alias: "al2023@latest"}, {ID: "ami-0a"}}, QueryOptions{KubernetesVersion: "1.32"}, []string{"term 0", "must be the only term"}},
		{"id with name", []Term{{ID: "ami-0a", Name: "x"}}, QueryOptions{}, []string{"term 0", `id "ami-0a" cannot be combined`}},
		{"bad id", []Term{{ID: "i-0123"}}, QueryOptions{}, []string{"term 0", `id "i-0123" is not an AMI id`}},
		{"uppercase after ami-", []Term{{ID: "ami-ABC"}}, QueryOptions{}, []string{"is not an AMI id", "ami-[0-9a-z]+"}},
		{"no ami- at all", []Term{{ID: "AMI-0abc"}}, QueryOptions{}, []string{"is not an AMI id"}},
		{"empty tag value", []Term{{Tags: map[string]string{"team": ""}}}, QueryOptions{}, []string{"term 0", `tag "team" has an empty value`, `use "*"`}},
		{"empty tag key", []Term{{Tags: map[string]string{"": "x"}}}, QueryOptions{}, []string{"term 0", "empty key"}},
		{"alias without @", []Term{{Alias: "al2023"}}, QueryOptions{KubernetesVersion: "1.32"}, []string{"term 0", "not family@version"}},
		{"unknown family", []Term{{Alias: "ubuntu@latest"}}, QueryOptions{KubernetesVersion: "1.32"}, []string{"term 0", `unknown family "ubuntu"`, "use al2, al2023"}},
		{"uppercase family", []Term{{Alias: "AL2023@latest"}}, QueryOptions{KubernetesVersion: "1.32"}, []string{`families are lowercase: "al2023"`}},
		{"al2023 version without v", []Term{{Alias: "al2023@20250403"}}, QueryOptions{KubernetesVersion: "1.32"}, []string{`version "20250403"`, `add the "v": "v20250403"`}},
		{"al2 impossible date", []Term{{Alias: "al2@v20251340"}}, QueryOptions{KubernetesVersion: "1.32"}, []string{`version "v20251340" is not`}},
		{"bottlerocket bad version", []Term{{Alias: "bottlerocket@1.26"}}, QueryOptions{KubernetesVersion: "1.32"}, []string{`version "1.26" is not`, `"v1.26.2"`}},
		{"bottlerocket bad commit", []Term{{Alias: "bottlerocket@1.26.2-XYZ"}}, QueryOptions{KubernetesVersion: "1.32"}, []string{`version "1.26.2-XYZ" is not`}},
		{"windows pinned", []Term{{Alias: "windows2022@v20250101"}}, QueryOptions{KubernetesVersion: "1.32"}, []string{"term 0", "only the latest release", "windows2022@latest"}},
		{"alias without kubernetes version", []Term{{Alias: "al2023@latest"}}, QueryOptions{}, []string{"term 0", "needs QueryOptions.KubernetesVersion", `"1.32"`}},
		{"al2 on 1.33", []Term{{Alias: "al2@latest"}}, QueryOptions{KubernetesVersion: "1.33"}, []string{"term 0", "AL2 has no AMIs for Kubernetes 1.33", "its last is 1.32", "use al2023 or bottlerocket"}},
		{"windows2025 before 1.35", []Term{{Alias: "windows2025@latest"}}, QueryOptions{KubernetesVersion: "1.34"}, []string{"Windows Server 2025 AMIs start with Kubernetes 1.35", "use windows2022"}},
		{"kubernetes version with v", []Term{{ID: "ami-0a"}}, QueryOptions{KubernetesVersion: "v1.32"}, []string{`Kubernetes version "v1.32"`, `drop the "v": "1.32"`}},
		{"kubernetes version with patch", []Term{{Alias: "al2023@latest"}}, QueryOptions{KubernetesVersion: "1.32.3"}, []string{`drop the patch version: "1.32"`}},
		{"kubernetes version 2.0", []Term{{Alias: "al2023@latest"}}, QueryOptions{KubernetesVersion: "2.0"}, []string{`Kubernetes version "2.0" is not a minor version`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Queries(tt.terms, tt.opts)
			if err == nil {
				t.Fatalf("Queries(%+v) = %v, want an error", tt.terms, got)
			}
			if got != nil {
				t.Errorf("Queries returned requests with its error: %v", got)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "amiselect: ") {
				t.Errorf("error %q lacks the package prefix", msg)
			}
			rest := msg
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error %q does not contain %q (in order)", msg, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestQueriesFresh checks that callers may modify the requests: each call
// builds new ones.
func TestQueriesFresh(t *testing.T) {
	terms := []Term{{Alias: "al2023@latest"}}
	opts := QueryOptions{KubernetesVersion: "1.32"}
	a, err := Queries(terms, opts)
	if err != nil {
		t.Fatal(err)
	}
	a[0].Filters[0].Values[0] = "changed"
	a[0].Owners[0] = "changed"
	b, err := Queries(terms, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := b[0].Filters[0].Values[0]; got != "amazon-eks-node-al2023-x86_64-standard-1.32-v*" {
		t.Errorf("second call sees the first call's change: %q", got)
	}
	if got := b[0].Owners[0]; got != "amazon" {
		t.Errorf("second call sees the first call's owner change: %q", got)
	}
}

// karpenterAMIIDPattern is the amiSelectorTerms id pattern of Karpenter's
// EC2NodeClass CRD (aws/karpenter-provider-aws
// pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml:103 @v1.14.1,
// bde00654; pkg/apis/v1/ec2nodeclass.go:257). The API server checks a CRD
// pattern with Go's regexp MatchString, unanchored (k8s.io/kube-openapi
// pkg/validation/validate/values.go:125-134 @v0.0.0-20250910181357-589584f1c912,
// the version k8s.io/apiextensions-apiserver v0.35.3 requires).
var karpenterAMIIDPattern = regexp.MustCompile(`ami-[0-9a-z]+`)

// TestAMIIDAsKarpenterAdmits: an id term is accepted exactly when the
// API server would admit it in an EC2NodeClass.
func TestAMIIDAsKarpenterAdmits(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"ami-0123456789abcdef0", true}, // EC2: 17 lowercase hex digits
		{"ami-12345678", true},          // EC2's older 8
		{"ami-id-amd64", true},          // Karpenter's amifamily suite (suite_test.go:77-80)
		{"ami-id-arm64-nvidia", true},
		{"ami-0ABC", true},    // "ami-0" matches; the rest is not looked at
		{"my-ami-1", true},    // unanchored: the match may sit anywhere
		{"ami-ABC123", false}, // what Karpenter's fake SSM makes (ami- and 16 mixed-case alphanumerics) may not match
		{"AMI-0123", false},
		{"ami-", false},
		{"ami--1", false},
		{"i-0123456789abcdef0", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			if re := karpenterAMIIDPattern.MatchString(tt.id); re != tt.want {
				t.Fatalf("the CRD pattern says %v for %q; the table is wrong", re, tt.id)
			}
			if got := isAMIID(tt.id); got != tt.want {
				t.Errorf("isAMIID(%q) = %v, want %v", tt.id, got, tt.want)
			}
			_, err := Queries([]Term{{ID: tt.id}}, QueryOptions{})
			if (err == nil) != tt.want {
				t.Errorf("Queries with id %q: err = %v", tt.id, err)
			}
		})
	}
}

// TestAMIIDProperty: on any string, isAMIID agrees with the CRD pattern.
func TestAMIIDProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.SampledFrom([]rune("ami-AMI0z9Z_ é"))).Draw(t, "id")
		if got, want := isAMIID(s), karpenterAMIIDPattern.MatchString(s); got != want {
			t.Fatalf("isAMIID(%q) = %v, the CRD pattern says %v", s, got, want)
		}
	})
}
