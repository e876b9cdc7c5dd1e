package nodeadm

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/ec2select/ec2select/userdata/internal/kubelet"
)

const (
	// Command is nodeadm's command name, as a script would run it.
	Command = "nodeadm"
	// MediaType is the Content-Type of a NodeConfig part.
	MediaType = "application/node.eks.aws"
	// APIVersion is the one version nodeadm's scheme registers
	// (nodeadm/internal/api/bridge/scheme.go L12-13).
	APIVersion = "node.eks.aws/v1alpha1"
	// ConfigDir is where nodeadm-run reads more NodeConfigs, merged after
	// the userData's (nodeadm-run.service: --config-source
	// file:///etc/eks/nodeadm.d/).
	ConfigDir = "/etc/eks/nodeadm.d"
)

// Doc is one NodeConfig as nodeadm reads it.
type Doc struct {
	Cluster map[string]any // spec.cluster
	Config  map[string]any // spec.kubelet.config
	Flags   []string       // spec.kubelet.flags
	// MaxPodsExpression is spec.kubelet.maxPodsExpression, CEL text
	// nodeadm evaluates at boot to compute maxPods.
	MaxPodsExpression string
	// Body is the document's text; Line the 1-based line of the userData
	// it starts on, 0 if unknown.
	Body []byte
	Line int
}

// Decode decodes a NodeConfig written as YAML or JSON. ok is false when
// the text is not a YAML/JSON object; the result is nil when it is an
// object but not a NodeConfig: any apiVersion but [APIVersion], or any
// kind but NodeConfig, fails to decode in nodeadm.
func Decode(text []byte) (*Doc, bool) {
	var m map[string]any
	if err := yaml.Unmarshal(text, &m); err != nil || m == nil {
		return nil, false
	}
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	if apiVersion != APIVersion || kind != "NodeConfig" {
		return nil, true
	}
	d := &Doc{Body: text}
	spec, _ := m["spec"].(map[string]any)
	d.Cluster, _ = spec["cluster"].(map[string]any)
	kube, _ := spec["kubelet"].(map[string]any)
	d.Config, _ = kube["config"].(map[string]any)
	d.MaxPodsExpression, _ = kube["maxPodsExpression"].(string)
	if flags, ok := kube["flags"].([]any); ok {
		for _, f := range flags {
			s, ok := f.(string)
			if !ok {
				s = fmt.Sprint(f)
			}
			d.Flags = append(d.Flags, s)
		}
	}
	return d, true
}

// IsNodeConfig reports whether text decodes as a NodeConfig.
func IsNodeConfig(text []byte) bool {
	d, ok := Decode(text)
	return ok && d != nil
}

// LineOf returns the userData line of the first occurrence of s in the
// document, or the document's own line.
func (d *Doc) LineOf(s string) int {
	return d.lineAt(bytes.Index(d.Body, []byte(s)))
}

// KeyLine returns the userData line of key as a mapping key of the
// document (matched ignoring ASCII case, quoted or not, as YAML or JSON
// writes it), skipping comments, so that a comment mentioning the key is
// not taken for it; the document's own line when there is none.
func (d *Doc) KeyLine(key string) int {
	lower := []byte(strings.ToLower(key))
	line := 0
	for rest := d.Body; len(rest) > 0; line++ {
		text, next, _ := bytes.Cut(rest, []byte("\n"))
		rest = next
		if at := keyAt(bytes.ToLower(uncommented(text)), lower); at && d.Line > 0 {
			return d.Line + line
		}
	}
	return d.Line
}

// keyAt reports whether line holds key as a mapping key: the key, bare or
// in quotes, at the start of the line (after indentation and list dashes)
// or after '{' or ',', then optional spaces and ':'.
func keyAt(line, key []byte) bool {
	for i := 0; i < len(line); {
		j := bytes.Index(line[i:], key)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(key)
		i = start + 1
		before, after := start, end
		if before > 0 && (line[before-1] == '"' || line[before-1] == '\'') {
			if after >= len(line) || line[after] != line[before-1] {
				continue
			}
			before, after = before-1, after+1
		}
		lead := bytes.TrimRight(line[:before], " \t-")
		if len(lead) > 0 && lead[len(lead)-1] != '{' && lead[len(lead)-1] != ',' {
			continue
		}
		if tail := bytes.TrimLeft(line[after:], " \t"); len(tail) > 0 && tail[0] == ':' {
			return true
		}
	}
	return false
}

// uncommented cuts a YAML comment off a line: from a '#' at the start or
// after a space or tab, outside quotes.
func uncommented(line []byte) []byte {
	var quote byte
	for i, c := range line {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}

func (d *Doc) lineAt(i int) int {
	if i < 0 || d.Line == 0 {
		return d.Line
	}
	return d.Line + bytes.Count(d.Body[:i], []byte("\n"))
}

// SetsTaintFlag reports whether a kubelet flag is --register-with-taints
// (in any spelling the kubelet accepts), which overrides the config's
// registerWithTaints (aws/karpenter-provider-aws#7486).
func SetsTaintFlag(flag string) bool {
	return strings.Contains(strings.ReplaceAll(flag, "_", "-"), "register-with-taints")
}

// Merged is nodeadm's merge of the NodeConfig documents.
type Merged struct {
	Cluster, Config map[string]any
	Flags           []string
	FlagDocs        []*Doc // documents with a --register-with-taints flag
	TaintDoc        *Doc   // the last document that sets registerWithTaints
	// MaxPodsExpression is the last non-empty one (mergo.WithOverride,
	// internal/api/merge.go), from ExpressionDoc.
	MaxPodsExpression string
	ExpressionDoc     *Doc
}

// Merge merges documents in order as nodeadm does: cluster fields where
// set, kubelet.config as an InlineDocument ([mergeInline]), kubelet.flags
// appended (internal/api/merge.go mergeKubeletFlags).
func Merge(docs []*Doc) Merged {
	m := Merged{Cluster: map[string]any{}}
	for _, d := range docs {
		m.Cluster = mergeConfig(m.Cluster, d.Cluster)
		if _, set := d.Config["registerWithTaints"]; set || kubelet.Lookup(d.Config, "registerWithTaints") != nil {
			m.TaintDoc = d
		}
		if m.Config == nil {
			m.Config = d.Config
		} else if len(d.Config) > 0 {
			m.Config = mergeInline(m.Config, d.Config)
		}
		m.Flags = append(m.Flags, d.Flags...)
		if d.MaxPodsExpression != "" {
			m.MaxPodsExpression, m.ExpressionDoc = d.MaxPodsExpression, d
		}
		for _, f := range d.Flags {
			if SetsTaintFlag(f) {
				m.FlagDocs = append(m.FlagDocs, d)
				break
			}
		}
	}
	return m
}

// MissingCluster lists the cluster fields nodeadm requires
// (internal/api/validation.go) that cluster lacks, as spec.cluster.NAME.
func MissingCluster(cluster map[string]any) []string {
	var missing []string
	for _, f := range []string{"name", "apiServerEndpoint", "certificateAuthority", "cidr"} {
		if IsEmpty(cluster[f]) {
			missing = append(missing, "spec.cluster."+f)
		}
	}
	return missing
}

// mergeConfig merges src into a copy of dst the way nodeadm's mergo call
// does: maps are merged key by key, and any other src value replaces the
// dst value unless it is empty.
func mergeConfig(dst, src map[string]any) map[string]any {
	out := make(map[string]any, len(dst)+len(src))
	for k, v := range dst {
		out[k] = v
	}
	for k, sv := range src {
		dv, exists := out[k]
		sm, sIsMap := sv.(map[string]any)
		dm, dIsMap := dv.(map[string]any)
		switch {
		case exists && sIsMap && dIsMap:
			out[k] = mergeConfig(dm, sm)
		case exists && IsEmpty(sv):
		default:
			out[k] = sv
		}
	}
	return out
}

// mergeInline merges src into a copy of dst the way nodeadm merges
// kubelet.config (an InlineDocument: api/merge.go mergeInlineDocument, then
// util.Merge with mergo.WithOverride over JSON maps): nested maps merge key
// by key, and any other value of src replaces dst's, even an empty list or
// null, which clears it.
func mergeInline(dst, src map[string]any) map[string]any {
	out := make(map[string]any, len(dst)+len(src))
	for k, v := range dst {
		out[k] = v
	}
	for k, sv := range src {
		sm, sIsMap := sv.(map[string]any)
		dm, dIsMap := out[k].(map[string]any)
		if sIsMap && dIsMap {
			out[k] = mergeInline(dm, sm)
			continue
		}
		out[k] = sv
	}
	return out
}

// IsEmpty reports whether a decoded value is empty as mergo sees it: nil,
// "", false, 0, or an empty list or map.
func IsEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case bool:
		return !v
	case float64:
		return v == 0
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}
