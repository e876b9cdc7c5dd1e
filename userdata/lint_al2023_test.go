package userdata

import (
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
)

// The nodeadm trap of aws/karpenter-provider-aws#7486: a user NodeConfig
// with a --register-with-taints flag overrides Karpenter's
// registerWithTaints.
func TestLintNodeadmTrap(t *testing.T) {
	t.Parallel()
	doc := `MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: application/node.eks.aws

apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  kubelet:
    flags:
    - --register-with-taints=dedicated=gpu:NoSchedule
--//
Content-Type: application/node.eks.aws

# Karpenter Generated NodeConfig
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    apiServerEndpoint: https://x.eks.amazonaws.com
    certificateAuthority: Y2E=
    cidr: 10.100.0.0/16
    name: my-cluster
  kubelet:
    config:
      clusterDNS:
      - 10.100.0.10
      maxPods: 110
      registerWithTaints:
      - effect: NoExecute
        key: karpenter.sh/unregistered
    flags:
    - --node-labels="karpenter.sh/nodepool=default"
--//--
`
	got := mustLint(t, compat.AL2023, []byte(doc), nil)
	if diff := cmp.Diff([]Code{CodeFlagOverridesConfig, CodeRequiredTaintMissing}, codes(got)); diff != "" {
		t.Fatalf("codes mismatch (-want +got):\n%s\n%s", diff, got)
	}
	if got.Problems[0].Line != 12 {
		t.Errorf("flag-overrides-config on line %d; want 12 (the flag)", got.Problems[0].Line)
	}
	if diff := cmp.Diff([]Taint{{Key: "dedicated", Value: "gpu", Effect: NoSchedule}}, configuredTaints(got)); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	// Without the user's flag, the config's list is what registers.
	clean := strings.Replace(doc, "    flags:\n    - --register-with-taints=dedicated=gpu:NoSchedule\n", "    config:\n      registerWithTaints:\n      - {key: dedicated, value: gpu, effect: NoSchedule}\n", 1)
	got = mustLint(t, compat.AL2023, []byte(clean), nil)
	want := Report{
		Verdict: Joins, Taints: wantRegistered(compat.AL2023, []Taint{UnregisteredTaint()}, []Taint{UnregisteredTaint()}),
		Labels: map[string]string{"karpenter.sh/nodepool": "default"},
		// nodeadm's own config.json is merged beneath the NodeConfig's
		// (nodeadm/internal/kubelet/config.go@81fec2e8 L80-137, L274-288).
		Kubelet: KubeletConfig{ClusterDNS: []string{"10.100.0.10"}, MaxPods: ptr[int32](110),
			KubeReserved: map[string]string{"ephemeral-storage": "1Gi"},
			EvictionHard: map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}},
		KubeletSources: []KubeletSource{
			{Field: "ClusterDNS", From: "spec.kubelet.config.clusterDNS", Line: 28},
			{Field: "EvictionHard", From: "nodeadm's config.json"},
			{Field: "KubeReserved", Keys: []string{"ephemeral-storage"}, From: "nodeadm's config.json"},
			{Field: "KubeReserved", Keys: []string{"cpu", "memory"}, From: "nodeadm's config.json, computed at boot"},
			{Field: "MaxPods", From: "spec.kubelet.config.maxPods", Line: 30},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("later registerWithTaints replaces the earlier list (-want +got):\n%s", diff)
	}
}

func TestLintNodeadmProblems(t *testing.T) {
	t.Parallel()
	cluster := "  cluster:\n    name: c\n    apiServerEndpoint: https://x\n    certificateAuthority: Y2E=\n    cidr: 10.100.0.0/16\n"
	tests := []struct {
		name string
		doc  string
		want []Code
	}{
		{name: "single document", doc: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n" + cluster + "  kubelet:\n    config:\n      registerWithTaints:\n      - {key: karpenter.sh/unregistered, effect: NoExecute}\n"},
		{name: "json", doc: `{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig","spec":{"cluster":{"name":"c","apiServerEndpoint":"https://x","certificateAuthority":"Y2E=","cidr":"10.0.0.0/16"},"kubelet":{"config":{"registerWithTaints":[{"key":"karpenter.sh/unregistered","effect":"NoExecute"}]}}}}`},
		{name: "missing taint", doc: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n" + cluster, want: []Code{CodeRequiredTaintMissing}},
		{name: "missing cluster", doc: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: {}\n", want: []Code{CodeIncompleteConfig}},
		{name: "not a NodeConfig", doc: "apiVersion: v1\nkind: Pod\n", want: []Code{CodeSyntax}},
		{name: "not yaml", doc: "#!/bin/bash\necho hi\n", want: []Code{CodeSyntax}},
		{name: "invalid taint in config", doc: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n" + cluster + "  kubelet:\n    config:\n      registerWithTaints:\n      - {key: karpenter.sh/unregistered, effect: NoExecute}\n      - {key: a, effect: Sometimes}\n",
			want: []Code{CodeInvalidTaint}},
		{name: "flag alone", doc: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n" + cluster + "  kubelet:\n    flags: [--register-with-taints=karpenter.sh/unregistered:NoExecute]\n"},
	}
	for _, tt := range tests {
		got := mustLint(t, compat.AL2023, []byte(tt.doc), nil)
		if diff := cmp.Diff(tt.want, codes(got)); diff != "" {
			t.Errorf("%s: codes mismatch (-want +got):\n%s\n%s", tt.name, diff, got)
		}
	}
}
