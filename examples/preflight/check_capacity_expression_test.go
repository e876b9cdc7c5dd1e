package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestMaxPodsExpression: preflight evaluates the maxPodsExpression of an
// AL2023 userData's NodeConfig as nodeadm does: one that does not compile
// is reported at its line and left out of the estimate; one nodeadm
// refuses for some types is reported with how many; one that works moves
// the estimate's max pods.
func TestMaxPodsExpression(t *testing.T) {
	t.Parallel()
	manifest := func(expr string) string {
		return fmt.Sprintf(`apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole-prod
  amiSelectorTerms:
    - alias: al2023@latest
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: prod}
  securityGroupSelectorTerms:
    - tags: {karpenter.sh/discovery: prod}
  userData: |
    apiVersion: node.eks.aws/v1alpha1
    kind: NodeConfig
    spec:
      kubelet:
        maxPodsExpression: %q
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: ["m5.large", "m5.24xlarge"]
`, expr)
	}
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{"max_pods +", []string{`<stdin>:18 warning [max-pods-expression]`, `nodeadm cannot compile spec.kubelet.maxPodsExpression "max_pods +" (at 1:11: Syntax error`}},
		{"max_pods - 100", []string{`<stdin>:18 warning [max-pods-expression]`, `for 1 of the 2 instance types the NodePool can launch`, `m5.large: nodeadm logs "Failed to evaluate custom expression, using standard max pods value" (29)`}},
	} {
		out, _ := runArgs(t, manifest(tc.expr))
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%q: output lacks %q:\n%s", tc.expr, w, out)
			}
		}
	}
	if out, _ := runArgs(t, manifest("max_pods * 2")); strings.Contains(out, "max-pods-expression") {
		t.Errorf("a working expression is reported:\n%s", out)
	}
}
