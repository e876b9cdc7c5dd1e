package userdata

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"

	"github.com/ec2select/ec2select/userdata/internal/kubelet"
)

// al2AMIConfig is /etc/kubernetes/kubelet/kubelet-config.json as AL2's
// EKS AMIs ship it, in its key order (awslabs/amazon-eks-ami
// templates/al2/runtime/kubelet-config.json@0ab84280, the same since
// 30ccd211; files/kubelet-config.json before): each value as JSON. The
// AMIs of some releases add the feature gate KubeletCredentialProviders
// (al2GateKCP).
var al2AMIConfig = []struct{ key, value string }{
	{"kind", `"KubeletConfiguration"`},
	{"apiVersion", `"kubelet.config.k8s.io/v1beta1"`},
	{"address", `"0.0.0.0"`},
	{"authentication", `{"anonymous":{"enabled":false},"webhook":{"cacheTTL":"2m0s","enabled":true},"x509":{"clientCAFile":"/etc/kubernetes/pki/ca.crt"}}`},
	{"authorization", `{"mode":"Webhook","webhook":{"cacheAuthorizedTTL":"5m0s","cacheUnauthorizedTTL":"30s"}}`},
	{"clusterDomain", `"cluster.local"`},
	{"hairpinMode", `"hairpin-veth"`},
	{"readOnlyPort", `0`},
	{"cgroupDriver", `"cgroupfs"`},
	{"cgroupRoot", `"/"`},
	{"featureGates", `{"RotateKubeletServerCertificate":true}`},
	{"protectKernelDefaults", `true`},
	{"serializeImagePulls", `false`},
	{"serverTLSBootstrap", `true`},
	{"tlsCipherSuites", `["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256","TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256","TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305","TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384","TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305","TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384","TLS_RSA_WITH_AES_256_GCM_SHA384","TLS_RSA_WITH_AES_128_GCM_SHA256"]`},
}

// al2GateKCP is the feature gates of the AMIs that enable
// KubeletCredentialProviders.
const al2GateKCP = `{"RotateKubeletServerCertificate":true,"KubeletCredentialProviders":true}`

// al2ConfigLayout is one text of kubelet-config.json AL2 AMIs have
// shipped, and the releases whose AMIs may have it. The text matters to
// an edit by lines (sed); its JSON, to what the kubelet gets.
type al2ConfigLayout struct {
	name     string
	text     string
	releases kubelet.Releases
}

// al2ConfigLayouts are the texts of kubelet-config.json on AL2 AMIs
// (provisioners/install-worker.sh, scripts/install-worker.sh before):
//
//   - the file as written, one key per line, arrays on one line: every
//     release since 30ccd211 (2023-08-04) for Kubernetes 1.28 and later;
//   - the same with KubeletCredentialProviders: fbb0ded6 (2023-03-30) to
//     30ccd211, Kubernetes up to 1.27;
//   - jq's output written with printf "%s" (da570d5d, 2022-03-14, to
//     fbb0ded6): one key per line, arrays one item per line, no final
//     newline, Kubernetes 1.22 and later (so 1.24 to 1.27 here);
//   - jq's output written with an unquoted echo (30ccd211 to 41298160,
//     2025-08-18, for Kubernetes before 1.28): the shell's word splitting
//     joins it into one line.
//
// They are built once, on the first AL2 Lint, and only read after.
var al2ConfigLayouts = sync.OnceValue(func() []al2ConfigLayout {
	return []al2ConfigLayout{
		{"as written", al2ConfigText(false), kubelet.Span(24, 32)},
		{"as written, with KubeletCredentialProviders", al2ConfigText(true), kubelet.Span(24, 27)},
		{"written by jq", al2ConfigJQ(true), kubelet.Span(24, 27)},
		{"on one line (jq's output through an unquoted echo)", strings.Join(strings.Fields(al2ConfigJQ(true)), " ") + "\n", kubelet.Span(24, 27)},
	}
})

// al2ConfigText writes the file as the repository holds it: two-space
// indentation, objects expanded, arrays on one line.
func al2ConfigText(kcp bool) string {
	var b strings.Builder
	b.WriteString("{\n")
	for i, kv := range al2AMIConfig {
		v := kv.value
		if kv.key == "featureGates" && kcp {
			v = al2GateKCP
		}
		b.WriteString(`  "` + kv.key + `": ` + prettyValue(v, "  "))
		if i < len(al2AMIConfig)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.String()
}

// prettyValue indents an object; an array stays on one line, its items
// separated by ", ".
func prettyValue(v, indent string) string {
	switch {
	case strings.HasPrefix(v, "["):
		var items []json.RawMessage
		_ = json.Unmarshal([]byte(v), &items)
		var parts []string
		for _, it := range items {
			parts = append(parts, string(it))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case strings.HasPrefix(v, "{"):
		var b bytes.Buffer
		_ = json.Indent(&b, []byte(v), indent, "  ")
		return b.String()
	}
	return v
}

// al2ConfigJQ is jq's output for the file (with the gate): two-space
// indentation, every array item on its own line, no final newline.
func al2ConfigJQ(kcp bool) string {
	var b strings.Builder
	b.WriteString("{")
	for i, kv := range al2AMIConfig {
		v := kv.value
		if kv.key == "featureGates" && kcp {
			v = al2GateKCP
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + kv.key + `":` + v)
	}
	b.WriteString("}")
	var out bytes.Buffer
	_ = json.Indent(&out, []byte(b.String()), "", "  ")
	return out.String()
}

// firstJSONObject is what bootstrap.sh's jq makes of kubelet-config.json
// (templates/al2/runtime/bootstrap.sh@0ab84280 L488, the first jq edit,
// echo "$(jq ... $KUBELET_CONFIG)" > $KUBELET_CONFIG): jq reads a stream of
// JSON values and writes its result for the first before it fails on
// what follows, and the failure of a command substitution in an argument
// does not stop the script, so the file becomes the first value. ok is
// false when the text does not start with an object.
func firstJSONObject(text string) (map[string]any, bool) {
	d := json.NewDecoder(strings.NewReader(text))
	var obj map[string]any
	if err := d.Decode(&obj); err != nil || obj == nil {
		return nil, false
	}
	return obj, true
}

// where names the AMIs whose file this is, for messages.
func (c al2ConfigLayout) where() string {
	return "as the AMIs of Kubernetes " + c.releases.String() + " have it (" + c.name + ")"
}
