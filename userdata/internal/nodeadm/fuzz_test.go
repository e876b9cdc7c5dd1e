package nodeadm

import "testing"

// FuzzDecode: any userData decodes, merges and reaches the kubelet's
// argv without a panic, and a document that decodes as a NodeConfig is
// recognised as one.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(full))
	f.Add([]byte(`{"apiVersion":"node.eks.aws/v1alpha1","kind":"NodeConfig","spec":{"kubelet":{"flags":["a\nb"]}}}`))
	f.Add([]byte("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: application/node.eks.aws\n\nkind: x\n--b--\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		d, ok := Decode(text)
		if d != nil && (!ok || !IsNodeConfig(text)) {
			t.Fatalf("Decode(%q) = %v, %v", text, d, ok)
		}
		if d != nil {
			m := Merge([]*Doc{d, d})
			_ = MissingCluster(m.Cluster)
			_, _, _ = KubeletArgs(m.Flags)
			_ = d.KeyLine("registerWithTaints")
		}
		if IsMultipart(text) {
			_, _ = Parts(text)
		}
	})
}
