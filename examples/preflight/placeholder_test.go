package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/internal/ec2nodeclass"
)

// TestDecodeFilled: an EC2NodeClass refused for its placeholders is
// decoded again with each filled in where it stands (an AMI ID where the
// CRD's pattern wants one, an enum value, a label value), and what is left
// is what the real values would not fix: karpenter-blueprints'
// update-nodes-with-drift has ID placeholders and no amiFamily, which the
// CRD's rule requires without an alias (karpenter-provider-aws v1.14.1,
// pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml L746).
func TestDecodeFilled(t *testing.T) {
	const head = "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: c}\nspec:\n  role: r\n" +
		"  subnetSelectorTerms: [{tags: {a: <<CLUSTER>>}}]\n  securityGroupSelectorTerms: [{tags: {a: b}}]\n"
	for _, tt := range []struct {
		name, spec string
		decodes    bool
		tokens     []string
		rest       []string
	}{
		{"no placeholder refused", "  amiFamily: AL2023\n  amiSelectorTerms: [{id: ami-0123456789abcdef0}]\n", true, nil, nil},
		{"IDs, and the rule that remains", "  amiSelectorTerms: [{id: <<AMD64PREVAMI>>}, {id: <<ARM64PREVAMI>>}]\n", false,
			[]string{"<<AMD64PREVAMI>>", "<<ARM64PREVAMI>>"},
			[]string{"spec: must specify amiFamily if amiSelectorTerms does not contain an alias (rule self.amiSelectorTerms.exists(x, has(x.alias)) ? true : has(self.amiFamily)); set spec.amiFamily (AL2023, Bottlerocket, Custom...) or select by an alias"}},
		{"an enum", "  amiFamily: ${FAMILY}\n  amiSelectorTerms:\n    - id: ${AMI}\n", true, []string{"${FAMILY}", "${AMI}"}, nil},
		{"a problem of its own", "  amiFamily: AL2023\n  amiSelectorTerms: [{id: <<AMI>>}]\n  kubelet: {maxPods: -1}\n", false,
			[]string{"<<AMI>>"}, []string{"spec.kubelet.maxPods: -1 is below the CRD's minimum of 0"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, f, rest, err := decodeFilled([]byte(head+tt.spec), ec2nodeclass.Decode, classProblems)
			if (err == nil) != tt.decodes {
				t.Errorf("decodes = %v (%v), want %v", err == nil, err, tt.decodes)
			}
			var texts []string
			for _, p := range rest {
				texts = append(texts, p.text)
			}
			if diff := cmp.Diff(tt.rest, texts); diff != "" {
				t.Errorf("rest (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.tokens, f.tokens); diff != "" {
				t.Errorf("tokens (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFillValues(t *testing.T) {
	for _, tt := range []struct{ token, want string }{
		{"<<CLUSTER_NAME>>", "cluster-name"}, {"${KARPENTER_NODE_ROLE}", "karpenter-node-role"}, {"<<__>>", "x"}, {"<<AZ>>", "az"},
	} {
		if got := labelValue(tt.token); got != tt.want {
			t.Errorf("labelValue(%q) = %q, want %q", tt.token, got, tt.want)
		}
	}
	if diff := cmp.Diff([]any{"spec", "tags", "a.b/c", "list", 3, "id"}, pathSteps("spec.tags[a.b/c].list[3].id")); diff != "" {
		t.Errorf("pathSteps (-want +got):\n%s", diff)
	}
	if v, ok := enumValue(`spec.amiFamily: "x" is not one of "AL2", "AL2023"`); v != "AL2" || !ok {
		t.Errorf("enumValue = %q, %v; want AL2", v, ok)
	}
}
