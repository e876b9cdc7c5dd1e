package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/userdata"
	"github.com/ec2select/ec2select/weighting"
)

// document is one YAML document of an input file, with the line it starts
// on, so that every error can name file and line.
type document struct {
	file string
	line int // 1-based line of the document's first line
	data []byte
}

func (d document) at(offset int) string { return fmt.Sprintf("%s:%d", d.file, d.line+offset) }

// lineOf is the offset of the first line of d for which match is true, or
// of its first line that is neither blank nor a comment.
func (d document) lineOf(match func(line string) bool) int {
	lines := strings.Split(string(d.data), "\n")
	for i, l := range lines {
		if match(strings.TrimSpace(l)) {
			return i
		}
	}
	for i, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return i
		}
	}
	return 0
}

func hasPrefix(p string) func(string) bool {
	return func(l string) bool { return strings.HasPrefix(l, p) }
}

// splitDocuments splits a multi-document YAML stream at its "---" lines.
func splitDocuments(file string, data []byte) []document {
	var docs []document
	start, cur := 1, []string{}
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "---") && strings.TrimSpace(strings.SplitN(l[3:], "#", 2)[0]) == "" {
			docs = append(docs, document{file, start, []byte(strings.Join(cur, "\n"))})
			start, cur = i+2, nil
			continue
		}
		cur = append(cur, l)
	}
	return append(docs, document{file, start, []byte(strings.Join(cur, "\n"))})
}

// manifests are the resources preflight checks; other kinds are counted.
type manifests struct {
	classes []nodeClass
	pools   []nodePool
	ignored []string // "file:line: kind name", for the report
}

// nodeClass is what preflight reads of a karpenter.k8s.aws/v1 EC2NodeClass.
type nodeClass struct {
	name   string
	at     string // file:line
	family compat.AMIFamily
	terms  []amiselect.Term
	cfg    userdata.Config // CustomUserData, Kubelet, InstanceStorePolicy
	// userDataLine is the file line of spec.userData's first line when it
	// is a block scalar, else 0.
	userDataLine int
}

// nodePool is a decoded NodePool, or the wildcard values Karpenter would
// refuse it for (problem 4), which keep it from being decoded.
type nodePool struct {
	weighting.NodePool
	at        string
	wildcards []wildcard
	// base is the NodePool without the requirements that hold wildcards,
	// when it decodes, to build the weighted NodePools that replace it.
	base   *weighting.NodePool
	values []string
}

type wildcard struct{ key, value, at string }

var yamlLine = regexp.MustCompile(`line (\d+)`)

// syntaxError names file and line of a YAML error, whose own line numbers
// count from the start of the document.
func syntaxError(d document, err error) error {
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	offset := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		offset = n - 1
		msg = strings.Replace(msg, m[0]+": ", "", 1)
	}
	return cli.Inputf("%s: %s; fix the YAML", d.at(offset), msg)
}

// readManifests decodes every document of every input.
func readManifests(inputs []document) (manifests, error) {
	var m manifests
	defined := map[string]string{} // "kind/name": where
	for _, d := range inputs {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(d.data, &head); err != nil {
			return manifests{}, syntaxError(d, err)
		}
		if err := m.add(d, head.APIVersion, head.Kind, head.Metadata.Name); err != nil {
			return manifests{}, err
		}
		if head.Kind != "EC2NodeClass" && head.Kind != "NodePool" {
			continue
		}
		// The API server keeps one resource per name: a second one would
		// replace the first, and the check would describe neither.
		key, at := head.Kind+"/"+head.Metadata.Name, d.at(d.lineOf(hasPrefix("kind:")))
		if first, ok := defined[key]; ok {
			return manifests{}, cli.Inputf("%s: %s %q is already defined at %s; rename one, or check the two sets of manifests separately", at, head.Kind, head.Metadata.Name, first)
		}
		defined[key] = at
	}
	return m, nil
}

func (m *manifests) add(d document, apiVersion, kind, name string) error {
	switch {
	case kind == "" && apiVersion == "" && len(bytes.TrimSpace(stripComments(d.data))) == 0:
		return nil // an empty document
	case kind == "EC2NodeClass" && apiVersion != "karpenter.k8s.aws/v1",
		kind == "NodePool" && apiVersion != "karpenter.sh/v1":
		want := map[string]string{"EC2NodeClass": "karpenter.k8s.aws/v1", "NodePool": "karpenter.sh/v1"}[kind]
		return cli.Inputf("%s: %s %q has apiVersion %q; preflight reads %s (Karpenter v1); convert it first", d.at(0), kind, name, apiVersion, want)
	case kind == "EC2NodeClass":
		c, err := decodeNodeClass(d)
		if err != nil {
			return err
		}
		m.classes = append(m.classes, c)
	case kind == "NodePool":
		p, err := decodeNodePool(d)
		if err != nil {
			return err
		}
		m.pools = append(m.pools, p)
	default:
		m.ignored = append(m.ignored, fmt.Sprintf("%s: %s %s", d.at(0), kind, name))
	}
	return nil
}

func stripComments(b []byte) []byte {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, "\n"))
}

// nodeClassJSON is the part of an EC2NodeClass preflight interprets; the
// rest (role, subnets, security groups...) is not its business.
type nodeClassJSON struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		AMIFamily           string            `json:"amiFamily"`
		AMISelectorTerms    []json.RawMessage `json:"amiSelectorTerms"`
		UserData            string            `json:"userData"`
		Kubelet             json.RawMessage   `json:"kubelet"`
		InstanceStorePolicy string            `json:"instanceStorePolicy"`
	} `json:"spec"`
}

type termJSON struct {
	Alias        string            `json:"alias"`
	ID           string            `json:"id"`
	Name         string            `json:"name"`
	Owner        string            `json:"owner"`
	SSMParameter string            `json:"ssmParameter"`
	Tags         map[string]string `json:"tags"`
}

// kubeletJSON is EC2NodeClass spec.kubelet (Karpenter v1.14), every field.
type kubeletJSON struct {
	ClusterDNS                  []string          `json:"clusterDNS"`
	MaxPods                     *int32            `json:"maxPods"`
	PodsPerCore                 *int32            `json:"podsPerCore"`
	SystemReserved              map[string]string `json:"systemReserved"`
	KubeReserved                map[string]string `json:"kubeReserved"`
	EvictionHard                map[string]string `json:"evictionHard"`
	EvictionSoft                map[string]string `json:"evictionSoft"`
	EvictionSoftGracePeriod     map[string]string `json:"evictionSoftGracePeriod"`
	EvictionMaxPodGracePeriod   *int32            `json:"evictionMaxPodGracePeriod"`
	ImageGCHighThresholdPercent *int32            `json:"imageGCHighThresholdPercent"`
	ImageGCLowThresholdPercent  *int32            `json:"imageGCLowThresholdPercent"`
	CPUCFSQuota                 *bool             `json:"cpuCFSQuota"`
}

// strict decodes raw into v refusing unknown fields: a typo in a field
// preflight interprets must not pass as "not set".
func strict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func decodeNodeClass(d document) (nodeClass, error) {
	var j nodeClassJSON
	if err := yaml.Unmarshal(d.data, &j); err != nil {
		return nodeClass{}, syntaxError(d, err)
	}
	c := nodeClass{name: j.Metadata.Name, at: d.at(d.lineOf(hasPrefix("kind:")))}
	// A block scalar's first line is the line after "userData: |".
	if i := d.lineOf(hasPrefix("userData:")); strings.HasPrefix(strings.TrimSpace(strings.Split(string(d.data), "\n")[i]), "userData:") {
		c.userDataLine = d.line + i + 1
	}
	bad := func(format string, args ...any) error {
		return cli.Inputf("%s: EC2NodeClass %q: %s", c.at, c.name, fmt.Sprintf(format, args...))
	}
	if c.name == "" {
		return nodeClass{}, bad("no metadata.name; name it")
	}
	if len(j.Spec.AMISelectorTerms) == 0 {
		return nodeClass{}, bad("spec.amiSelectorTerms is empty; Karpenter v1 requires at least one term (e.g. - alias: al2023@latest)")
	}
	for i, raw := range j.Spec.AMISelectorTerms {
		var t termJSON
		if err := strict(raw, &t); err != nil {
			return nodeClass{}, bad("spec.amiSelectorTerms[%d]: %v; a term has alias, id, name, owner, ssmParameter or tags", i, err)
		}
		c.terms = append(c.terms, amiselect.Term{ID: t.ID, Name: t.Name, Owner: t.Owner, Alias: t.Alias, SSMParameter: t.SSMParameter, Tags: t.Tags})
	}
	family, err := classFamily(j.Spec.AMIFamily, c.terms)
	if err != nil {
		return nodeClass{}, bad("%v", err)
	}
	c.family = family
	if c.cfg.Kubelet, err = decodeKubelet(j.Spec.Kubelet); err != nil {
		return nodeClass{}, bad("spec.kubelet: %v", err)
	}
	c.cfg.InstanceStorePolicy = userdata.InstanceStorePolicy(j.Spec.InstanceStorePolicy)
	if j.Spec.UserData != "" {
		c.cfg.CustomUserData = []byte(j.Spec.UserData)
	}
	return c, nil
}

// classFamily is the family that writes the node's userData: the alias's,
// or spec.amiFamily, which Karpenter v1 requires without an alias.
func classFamily(amiFamily string, terms []amiselect.Term) (compat.AMIFamily, error) {
	if len(terms) == 1 && terms[0].Alias != "" {
		f, err := compat.ParseAMIFamily(strings.SplitN(terms[0].Alias, "@", 2)[0])
		if err != nil {
			return "", fmt.Errorf("spec.amiSelectorTerms[0].alias %q: %w", terms[0].Alias, err)
		}
		if amiFamily != "" && !strings.EqualFold(amiFamily, string(f)) {
			return "", fmt.Errorf("spec.amiFamily %q disagrees with alias %q; drop amiFamily (the alias sets it)", amiFamily, terms[0].Alias)
		}
		return f, nil
	}
	if amiFamily == "" {
		return "", fmt.Errorf("no spec.amiFamily; without an alias Karpenter v1 needs it (AL2, AL2023, Bottlerocket, Windows2019, Windows2022, Windows2025 or Custom)")
	}
	f, err := compat.ParseAMIFamily(amiFamily)
	if err != nil {
		return "", fmt.Errorf("spec.amiFamily: %w", err)
	}
	return f, nil
}

func decodeKubelet(raw json.RawMessage) (userdata.KubeletConfig, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return userdata.KubeletConfig{}, nil
	}
	var k kubeletJSON
	if err := strict(raw, &k); err != nil {
		return userdata.KubeletConfig{}, err
	}
	grace := map[string]time.Duration{}
	for signal, s := range k.EvictionSoftGracePeriod {
		d, err := time.ParseDuration(s)
		if err != nil {
			return userdata.KubeletConfig{}, fmt.Errorf("evictionSoftGracePeriod %s: %q is not a duration; write e.g. 1m30s", signal, s)
		}
		grace[signal] = d
	}
	if len(grace) == 0 {
		grace = nil
	}
	return userdata.KubeletConfig{
		ClusterDNS: k.ClusterDNS, MaxPods: k.MaxPods, PodsPerCore: k.PodsPerCore,
		SystemReserved: k.SystemReserved, KubeReserved: k.KubeReserved,
		EvictionHard: k.EvictionHard, EvictionSoft: k.EvictionSoft, EvictionSoftGracePeriod: grace,
		EvictionMaxPodGracePeriod:   k.EvictionMaxPodGracePeriod,
		ImageGCHighThresholdPercent: k.ImageGCHighThresholdPercent, ImageGCLowThresholdPercent: k.ImageGCLowThresholdPercent,
		CPUCFSQuota: k.CPUCFSQuota,
	}, nil
}

// requirementsJSON is just enough of a NodePool to find wildcard values,
// which weighting.DecodeNodePool (like Karpenter) refuses outright.
type requirementsJSON struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Template struct {
			Spec struct {
				Requirements []struct {
					Key    string   `json:"key"`
					Values []string `json:"values"`
				} `json:"requirements"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

func decodeNodePool(d document) (nodePool, error) {
	var r requirementsJSON
	if err := yaml.Unmarshal(d.data, &r); err != nil {
		return nodePool{}, syntaxError(d, err)
	}
	var wild []wildcard
	var values []string // of the requirement holding a wildcard
	for _, req := range r.Spec.Template.Spec.Requirements {
		if slices.ContainsFunc(req.Values, func(v string) bool { return strings.ContainsAny(v, "*?") }) {
			values = req.Values
		}
		for _, v := range req.Values {
			if strings.ContainsAny(v, "*?") {
				at := d.at(d.lineOf(func(l string) bool { return strings.Contains(l, "key: "+req.Key) }))
				wild = append(wild, wildcard{req.Key, v, at})
			}
		}
	}
	if len(wild) > 0 {
		np := weighting.NodePool{Name: r.Metadata.Name}
		return nodePool{NodePool: np, at: d.at(d.lineOf(hasPrefix("kind:"))), wildcards: wild, values: values, base: withoutWildcards(d.data)}, nil
	}
	np, err := weighting.DecodeNodePool(d.data)
	if err != nil {
		return nodePool{}, cli.Inputf("%s: %v", d.at(d.lineOf(hasPrefix("kind:"))), err)
	}
	return nodePool{NodePool: np, at: d.at(d.lineOf(hasPrefix("kind:")))}, nil
}

// withoutWildcards decodes data as a NodePool without its requirements
// that hold a wildcard value, or returns nil if that fails.
func withoutWildcards(data []byte) *weighting.NodePool {
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil
	}
	spec, _ := doc["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	tspec, _ := tmpl["spec"].(map[string]any)
	reqs, _ := tspec["requirements"].([]any)
	var kept []any
	for _, r := range reqs {
		m, _ := r.(map[string]any)
		values, _ := m["values"].([]any)
		if !slices.ContainsFunc(values, func(v any) bool { s, _ := v.(string); return strings.ContainsAny(s, "*?") }) {
			kept = append(kept, r)
		}
	}
	if tspec == nil {
		return nil
	}
	tspec["requirements"] = kept
	if kept == nil {
		tspec["requirements"] = []any{}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil
	}
	np, err := weighting.DecodeNodePool(out)
	if err != nil {
		return nil
	}
	return &np
}
