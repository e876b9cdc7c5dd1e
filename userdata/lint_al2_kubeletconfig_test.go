package userdata

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
)

// TestAL2ConfigLayouts pins the texts of kubelet-config.json AL2 AMIs
// have shipped (awslabs/amazon-eks-ami templates/al2/runtime/kubelet-config.json
// @0ab84280: 36 lines, "apiVersion" on line 3; install-worker.sh from
// 30ccd211 to 41298160 rewrote it for Kubernetes before 1.28 with
// `echo $KUBELET_CONFIG_WITH_KUBELET_CREDENTIAL_PROVIDER_FEATURE_GATE_ENABLED
// > kubelet-config.json`, unquoted, so one line).
func TestAL2ConfigLayouts(t *testing.T) {
	t.Parallel()
	layouts := al2ConfigLayouts()
	written := strings.Split(strings.TrimSuffix(layouts[0].text, "\n"), "\n")
	if len(written) != 36 || written[2] != `  "apiVersion": "kubelet.config.k8s.io/v1beta1",` || !strings.HasPrefix(written[34], `  "tlsCipherSuites": ["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", `) {
		t.Errorf("the file as written:\n%s", layouts[0].text)
	}
	if lines := strings.Count(layouts[3].text, "\n"); lines != 1 || !strings.HasPrefix(layouts[3].text, `{ "kind": "KubeletConfiguration", "apiVersion":`) {
		t.Errorf("the one-line file:\n%s", layouts[3].text)
	}
	for _, l := range layouts {
		obj, ok := firstJSONObject(l.text)
		if !ok || obj["kind"] != "KubeletConfiguration" || len(obj) != len(al2AMIConfig) {
			t.Errorf("%s: not the AMI's configuration: %v", l.name, obj)
		}
	}
}

// TestLintConfigTextEdits (issue 39): sed edits of kubelet-config.json are
// followed on every text AMIs of the node's releases ship. Inserting keys
// after the "apiVersion" line (the moneysmart corpus documents) sets them
// on the AMIs whose file has a line per key; on those whose file is one
// line (Kubernetes 1.24-1.27, AMIs built from 2023-08-04), the inserted
// lines follow the JSON object, bootstrap.sh's first jq (L488) writes only
// the object back, and the keys are lost.
func TestLintConfigTextEdits(t *testing.T) {
	t.Parallel()
	script := func(high, low int) string {
		return "#!/bin/bash\nsed -i '/\"apiVersion*/a \\ \\ \"imageGCHighThresholdPercent\": " + strconv.Itoa(high) + ",' /etc/kubernetes/kubelet/kubelet-config.json\n" +
			"sed -i '/\"imageGCHigh*/a \\ \\ \"imageGCLowThresholdPercent\": " + strconv.Itoa(low) + ",' /etc/kubernetes/kubelet/kubelet-config.json\n" +
			"/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"
	}
	tests := []struct {
		name    string
		script  string
		version string
		want    Verdict
		high    int32 // the kubelet's imageGCHighThresholdPercent, 0 when not set
	}{
		{"a valid pair: joins on every AMI", script(70, 50), "", Joins, 0},
		{"a valid pair, Kubernetes 1.32: the keys are set", script(70, 50), "1.32", Joins, 70},
		{"the pair the kubelet refuses: it depends on the AMI", script(50, 50), "", Unresolved, 0},
		{"the same on 1.32, whose file has a line per key", script(50, 50), "1.32", NeverJoins, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Lint(compat.AL2, []byte(tc.script), []Taint{UnregisteredTaint()}, KubernetesVersion(tc.version))
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tc.want {
				t.Fatalf("verdict %v; want %v\n%s", r.Verdict, tc.want, r)
			}
			var high int32
			if r.Kubelet.ImageGCHighThresholdPercent != nil {
				high = *r.Kubelet.ImageGCHighThresholdPercent
			}
			if high != tc.high {
				t.Errorf("imageGCHighThresholdPercent %d; want %d", high, tc.high)
			}
		})
	}
}
