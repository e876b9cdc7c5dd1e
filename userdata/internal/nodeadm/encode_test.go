package nodeadm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEncode: the NodeConfig Render writes decodes, as nodeadm decodes
// it, to the same cluster, config and flags.
func TestEncode(t *testing.T) {
	t.Parallel()
	nc := New(Cluster{Name: "c", APIServerEndpoint: "https://x", CertificateAuthority: "Q0E=", CIDR: "10.100.0.0/16"})
	nc.Spec.Instance = &Instance{}
	nc.Spec.Instance.LocalStorage.Strategy = "RAID0"
	nc.Spec.Kubelet = Kubelet{Config: map[string]any{"registerWithTaints": []Taint{{Key: "k", Effect: "NoExecute"}}}, Flags: []string{"--node-labels=a=b"}}
	out, err := nc.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    apiServerEndpoint: https://x
    certificateAuthority: Q0E=
    cidr: 10.100.0.0/16
    name: c
  instance:
    localStorage:
      strategy: RAID0
  kubelet:
    config:
      registerWithTaints:
      - effect: NoExecute
        key: k
    flags:
    - --node-labels=a=b
`
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("Encode (-want +got):\n%s", diff)
	}
	d, ok := Decode(out)
	if !ok || d == nil || len(MissingCluster(d.Cluster)) > 0 || !cmp.Equal(d.Flags, []string{"--node-labels=a=b"}) {
		t.Errorf("Decode(Encode) = %+v, %v", d, ok)
	}
}
