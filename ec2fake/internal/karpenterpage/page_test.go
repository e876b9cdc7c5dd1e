package karpenterpage

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A two-type excerpt in the page's own layout (v1.14, a1 family).
const excerpt = `---
title: "Instance Types"
---
AWS instance types offer varying resources:
- ` + "`amiFamily`" + ` is set to ` + "`AL2023`" + `
## a1 Family
### ` + "`a1.medium`" + `
#### Labels
 | Label | Value |
 |--|--|
 |karpenter.k8s.aws/instance-cpu|1|
 |karpenter.k8s.aws/instance-hypervisor|nitro|
#### Resources
 | Resource | Quantity |
 |--|--|
 |cpu|940m|
 |pods|8|
### ` + "`a1.metal`" + `
#### Labels
 | Label | Value |
 |--|--|
 |karpenter.k8s.aws/instance-hypervisor||
#### Resources
 | Resource | Quantity |
 |--|--|
 |vpc.amazonaws.com/efa|1|
`

func TestParse(t *testing.T) {
	got, err := Parse(excerpt)
	if err != nil {
		t.Fatal(err)
	}
	want := []Type{
		{Name: "a1.medium", Labels: map[string]string{"karpenter.k8s.aws/instance-cpu": "1", "karpenter.k8s.aws/instance-hypervisor": "nitro"},
			Resources: map[string]string{"cpu": "940m", "pods": "8"}},
		{Name: "a1.metal", Labels: map[string]string{"karpenter.k8s.aws/instance-hypervisor": ""},
			Resources: map[string]string{"vpc.amazonaws.com/efa": "1"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"no types", "# Instance Types\nnothing here\n", "no instance types found"},
		{"repeated type", "### `a.b`\n### `a.b`\n", "line 2: bad or repeated type heading"},
		{"empty heading", "### ``\n", "bad or repeated type heading"},
		{"three cells", "### `a.b`\n#### Labels\n |k|v|x|\n", `line 3 (a.b): table row " |k|v|x|" is not |key|value|`},
		{"key twice", "### `a.b`\n#### Labels\n |k|v|\n |k|w|\n", `key "k" appears twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "karpenterpage: ") {
				t.Fatalf("Parse error = %v; want one starting karpenterpage: and containing %q", err, tc.want)
			}
		})
	}
}

// The recorded page parses whole: every type has the labels every type
// carries.
func TestParseRecordedPage(t *testing.T) {
	text, err := os.ReadFile("../../catalog/upstream/karpenter-v1.14-instance-types.md")
	if err != nil {
		t.Fatal(err)
	}
	types, err := Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(types) != 1363 {
		t.Errorf("%d types; want 1363", len(types))
	}
	for _, ty := range types {
		for _, key := range []string{"karpenter.k8s.aws/instance-cpu", "karpenter.k8s.aws/instance-memory", "kubernetes.io/arch", "node.kubernetes.io/instance-type"} {
			if _, ok := ty.Labels[key]; !ok {
				t.Errorf("%s lacks %s", ty.Name, key)
			}
		}
		if ty.Labels["node.kubernetes.io/instance-type"] != ty.Name {
			t.Errorf("%s is labelled %q", ty.Name, ty.Labels["node.kubernetes.io/instance-type"])
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(excerpt)
	f.Add("### `x.y`\n#### Resources\n |a|b|\n")
	f.Fuzz(func(t *testing.T, text string) {
		types, err := Parse(text)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, ty := range types {
			if ty.Name == "" || seen[ty.Name] {
				t.Fatalf("type name %q empty or repeated", ty.Name)
			}
			seen[ty.Name] = true
		}
	})
}
