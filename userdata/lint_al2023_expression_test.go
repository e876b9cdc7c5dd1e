package userdata

import (
	"testing"

	"github.com/ec2select/ec2select/compat"
)

// TestLintMaxPodsExpression: Lint reports the maxPodsExpression nodeadm
// will evaluate, the last NodeConfig's that sets one (mergo.WithOverride,
// nodeadm/internal/api/merge.go@81fec2e8 L28-30), with its line, for
// capacity to evaluate as nodeadm does.
func TestLintMaxPodsExpression(t *testing.T) {
	t.Parallel()
	doc := `MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: application/node.eks.aws

apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  kubelet:
    maxPodsExpression: "max_pods + 2"
--//
Content-Type: application/node.eks.aws

apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    apiServerEndpoint: https://x.eks.amazonaws.com
    certificateAuthority: Y2E=
    cidr: 10.100.0.0/16
    name: my-cluster
  kubelet:
    maxPodsExpression: ((default_enis - 1) * (ips_per_eni - 1)) + 2
    config:
      registerWithTaints: [{key: karpenter.sh/unregistered, effect: NoExecute}]
--//--
`
	r, err := Lint(compat.AL2023, []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != Joins || r.MaxPodsExpression != "((default_enis - 1) * (ips_per_eni - 1)) + 2" || r.MaxPodsExpressionLine != 24 {
		t.Errorf("verdict %v, expression %q at line %d; want the second NodeConfig's at line 24\n%s", r.Verdict, r.MaxPodsExpression, r.MaxPodsExpressionLine, r)
	}
}
