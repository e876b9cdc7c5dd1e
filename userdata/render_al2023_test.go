package userdata

import (
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// With no taints at all, Render still writes registerWithTaints: [],
// which replaces a custom NodeConfig's list when nodeadm merges the
// documents in order: mergo.WithOverride sets a map key to the later
// document's value even when that value is empty
// (awslabs/amazon-eks-ami@81fec2e8 nodeadm/internal/api/merge.go
// mergeInlineDocument, nodeadm/internal/util/merge.go Merge).
func TestRenderAL2023ClearsCustomTaints(t *testing.T) {
	t.Parallel()
	cfg := baseConfig()
	cfg.NoRequiredTaints = true
	cfg.CustomUserData = []byte("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registerWithTaints: [{key: a, effect: NoSchedule}]\n")
	out, err := Render(compat.AL2023, cfg)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	r := mustLint(t, compat.AL2023, out, []Taint{})
	if diff := cmp.Diff(Report{Verdict: Joins, Taints: wantRegistered(compat.AL2023, nil, nil)}, r, ignoreKubelet); diff != "" {
		t.Errorf("Lint(Render) (-want +got):\n%s", diff)
	}
}

func TestRenderAL2023Decodes(t *testing.T) {
	t.Parallel()
	cfg := goldenConfig(compat.AL2023)
	cfg.CustomUserData = nil
	out, err := Render(compat.AL2023, cfg)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := mimedoc.Parse(out, 1)
	if err != nil || len(parts) != 1 {
		t.Fatalf("parts %v, %v", parts, err)
	}
	var nc nodeadm.NodeConfig
	if err := yaml.UnmarshalStrict(parts[0].Body, &nc); err != nil {
		t.Fatal(err)
	}
	if nc.Spec.Cluster != (nodeadm.Cluster{Name: cfg.ClusterName, APIServerEndpoint: cfg.APIServerEndpoint, CertificateAuthority: cfg.CABundle, CIDR: cfg.ClusterCIDR}) {
		t.Errorf("cluster = %+v", nc.Spec.Cluster)
	}
	if diff := cmp.Diff([]string{"--node-labels=example.com/team=ml,karpenter.sh/nodepool=default,node.kubernetes.io/lifecycle=spot"}, nc.Spec.Kubelet.Flags); diff != "" {
		t.Errorf("labels must be the only flag (-want +got):\n%s", diff)
	}
}
