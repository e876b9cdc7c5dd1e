package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/internal/ec2nodeclass"
	"github.com/ec2select/ec2select/internal/manifest"
	"github.com/ec2select/ec2select/weighting"
)

// The node classes a NodePool's nodeClassRef can name.
const (
	groupKindEC2NodeClass = "karpenter.k8s.aws/EC2NodeClass"
	groupKindAutoMode     = "eks.amazonaws.com/NodeClass"
)

// nodeClass is a decoded EC2NodeClass and where it is.
type nodeClass struct {
	ec2nodeclass.EC2NodeClass
	doc document
	at  string // file:line of its kind
	// userDataLine is the file line of spec.userData's first line when it
	// is a block scalar, else 0.
	userDataLine int
	// filled is what filling its placeholders did, if it has any.
	filled filled
}

// nodePool is a decoded NodePool, or the wildcard values Karpenter would
// refuse it for (problem 4), which keep it from being decoded.
type nodePool struct {
	weighting.NodePool
	doc       document
	at        string
	wildcards []wildcard
	// base is the NodePool without the requirements that hold wildcards,
	// when it decodes, to build the weighted NodePools that replace it.
	base   *weighting.NodePool
	values []string
	// filled is what filling its placeholders did, if it has any.
	filled filled
}

func (p *nodePool) groupKind() string {
	return p.NodeClassRef.Group + "/" + p.NodeClassRef.Kind
}

type wildcard struct{ key, value, at string }

// unit is a set of manifests checked together: the files named on the
// command line (and standard input), or the files of one directory under
// a directory argument. Files that define the same resource between them
// are alternatives (an Auto Mode and a self-managed variant of one
// example): the unit holds them all, and checks a NodePool against an
// EC2NodeClass or another NodePool only when their files are applied
// together (see [unit.together] and [unit.linked]).
type unit struct {
	name    string
	classes []*nodeClass
	pools   []*nodePool
	// refused names the EC2NodeClasses found but refused: a NodePool that
	// names one has no further finding about it. refusedRefs names those
	// that refused NodePools name, which are not unused.
	refused, refusedRefs []ref
	// apart holds the pairs of files that define a resource twice between
	// them, by [filePair]; group gives, when there are such files, each
	// file's group of files linked by references (see [unit.linked]).
	apart map[[2]string]bool
	group map[string]string
}

// ref is a resource name and the file that writes it.
type ref struct{ name, file string }

// filePair is the key of two files in [unit.apart], in order.
func filePair(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// together reports whether a NodePool of file a can name an EC2NodeClass
// of file b: the same file, or two that define no resource twice between
// them.
func (u *unit) together(a, b string) bool { return a == b || !u.apart[filePair(a, b)] }

// linked reports whether the files a and b are applied together, so that
// the NodePools of the one and of the other are checked against each
// other (order, overlaps, a pool that catches another's pods). Without
// alternatives, every file of a unit is. With them, the unit is a
// collection of examples, and a file is applied with the files its
// NodePools' nodeClassRefs lead to and from, transitively: the
// NodePools of one directory that share an EC2NodeClass file are one
// cluster's, while two examples that merely do not collide are not
// applied together.
func (u *unit) linked(a, b string) bool {
	return u.together(a, b) && (len(u.apart) == 0 || u.group[a] == u.group[b])
}

// manifests are the resources preflight checks; other kinds are listed.
type manifests struct {
	units   []*unit
	skipped []string // "file:line: kind name"
}

// readManifests decodes every document of every input, reporting what
// kubectl or the API server would refuse as findings.
func readManifests(inputs []input, out *findings) manifests {
	var m manifests
	groups := map[string][]*unit{} // by directory, or "" for the command line
	var groupOrder []string
	for _, in := range inputs {
		u := &unit{name: in.name}
		for _, d := range split(in, out) {
			m.read(d, in, u, out)
		}
		group := ""
		if in.dir {
			group = filepath.Dir(in.name)
		}
		if _, ok := groups[group]; !ok {
			groupOrder = append(groupOrder, group)
		}
		groups[group] = append(groups[group], u)
	}
	for _, g := range groupOrder {
		m.units = append(m.units, merge(g, groups[g]))
	}
	return m
}

// merge makes one unit of a group's files, noting the pairs of files that
// define a resource twice between them.
func merge(name string, files []*unit) *unit {
	if len(files) == 1 {
		return files[0]
	}
	if name == "" {
		name = "the command line"
	}
	all := &unit{name: name, apart: map[[2]string]bool{}}
	defined := map[string][]string{} // kind/name: the files that define it
	for _, f := range files {
		all.classes = append(all.classes, f.classes...)
		all.pools = append(all.pools, f.pools...)
		all.refused = append(all.refused, f.refused...)
		all.refusedRefs = append(all.refusedRefs, f.refusedRefs...)
		for _, n := range f.resourceNames() {
			for _, other := range defined[n] {
				all.apart[filePair(other, f.name)] = true
			}
			defined[n] = append(defined[n], f.name)
		}
	}
	if len(all.apart) > 0 {
		all.group = all.referenceGroups(files)
	}
	return all
}

// referenceGroups groups the files whose NodePools name an EC2NodeClass
// of another, transitively, over pairs of files that are not
// alternatives; each file maps to its group's first file.
func (u *unit) referenceGroups(files []*unit) map[string]string {
	group := map[string]string{}
	for _, f := range files {
		group[f.name] = f.name
	}
	var find func(string) string
	find = func(f string) string {
		if group[f] != f {
			group[f] = find(group[f])
		}
		return group[f]
	}
	for _, p := range u.pools {
		for _, nc := range u.classesFor(p) {
			a, b := find(p.doc.file), find(nc.doc.file)
			if a != b {
				group[max(a, b)] = min(a, b)
			}
		}
	}
	for f := range group {
		group[f] = find(f)
	}
	return group
}

// resourceNames are the kind/name of every resource a file's unit
// defines, once each.
func (u *unit) resourceNames() []string {
	var names []string
	for _, c := range u.classes {
		names = append(names, "EC2NodeClass/"+c.Name)
	}
	for _, p := range u.pools {
		names = append(names, "NodePool/"+p.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// read decodes one document into u.
func (m *manifests) read(d document, in input, u *unit, out *findings) {
	j, err := manifest.ToJSON(d.data)
	if err != nil {
		line := d.line
		if n := manifest.ErrorLine(err); n > 0 {
			line += n - 1
		}
		out.add(unreadable(in, line, err))
		return
	}
	v, err := manifest.Decode(j)
	if err != nil {
		out.add(unreadable(in, d.line, err))
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return // an empty document, or a list or scalar: no resource
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	group, version, _ := strings.Cut(apiVersion, "/")
	switch {
	case kind == weighting.Kind && apiVersion == weighting.APIVersion:
		m.readNodePool(d, obj, u, out)
	case kind == ec2nodeclass.Kind && apiVersion == ec2nodeclass.APIVersion:
		m.readNodeClass(d, u, out)
	case (group == "karpenter.sh" || group == "karpenter.k8s.aws") && version != "v1":
		out.add(Finding{Severity: SevError, Code: codeOldAPI, Where: d.where(), Subjects: []string{kind + " " + name},
			Message: fmt.Sprintf("%s %q is %s, which Karpenter v1.14.1 does not serve (v1beta1 went in v1.1.0); kubectl apply fails with \"no matches for kind %s in version %s\"", kind, name, apiVersion, kind, apiVersion),
			Fix:     "convert it to karpenter.sh/v1 (NodePool) or karpenter.k8s.aws/v1 (EC2NodeClass), as Karpenter's v1 migration guide describes"})
	case kind == "" && apiVersion == "":
		// not a Kubernetes resource (a values file, a config): not ours
	default:
		m.skipped = append(m.skipped, fmt.Sprintf("%s: %s %s", d.at(0), kind, name))
	}
}

func (m *manifests) readNodeClass(d document, u *unit, out *findings) {
	c, f, rest, err := decodeFilled(d.data, ec2nodeclass.Decode, classProblems)
	name := c.Name
	if name == "" {
		name = nameOf(objectOf(d))
	}
	subject := []string{"EC2NodeClass " + name}
	placeholderFinding(d, subject, f, out)
	if err != nil {
		u.refused = append(u.refused, ref{name, d.file})
		if _, ok := classProblems(err); !ok {
			out.add(Finding{Severity: SevError, Code: codeRefused, Where: d.where(), Message: err.Error(), Fix: "correct the EC2NodeClass"})
			return
		}
		if len(rest) > 0 {
			out.add(Finding{Severity: SevError, Code: codeRefused, Where: d.at(lineOfPath(d, rest[0].path)), Subjects: subject,
				Message: fmt.Sprintf("kubectl apply is refused (or Karpenter v1.14.1 cannot use it)%s: %s", stillRefused(f), problemTexts(rest)),
				Fix:     "correct the EC2NodeClass as each problem says"})
		}
		return
	}
	for _, prev := range u.classes {
		if prev.Name == c.Name {
			definedTwice(d, "EC2NodeClass", c.Name, prev.at, out)
			u.classes = slices.DeleteFunc(u.classes, func(x *nodeClass) bool { return x == prev })
			break
		}
	}
	nc := &nodeClass{EC2NodeClass: c, doc: d, at: d.where(), filled: f}
	// A block scalar's first line is the line after "userData: |".
	if i := d.lineOf(hasPrefix("userData:")); strings.HasPrefix(strings.TrimSpace(strings.Split(string(d.data), "\n")[i]), "userData:") {
		nc.userDataLine = d.line + i + 1
	}
	u.classes = append(u.classes, nc)
}

func definedTwice(d document, kind, name, first string, out *findings) {
	out.add(Finding{Severity: SevWarning, Code: codeDefinedTwice, Where: d.where(), Subjects: []string{kind + " " + name},
		Message: fmt.Sprintf("%s %q is already defined at %s; kubectl apply applies both, so this one replaces it", kind, name, first),
		Fix:     "rename one, or keep one"})
}

// lineOfPath is the offset of the line in d that writes the last field of
// path ("spec.template.spec.kubelet" → "kubelet:"), or of the kind.
func lineOfPath(d document, path string) int {
	field := path
	if i := strings.LastIndexAny(field, ".["); i >= 0 {
		field = field[i+1:]
	}
	field = strings.TrimSuffix(field, "]")
	if field == "" {
		return d.lineOf(hasPrefix("kind:"))
	}
	for _, prefix := range []string{field + ":", "- " + field + ":"} {
		if i := d.lineOf(hasPrefix(prefix)); strings.HasPrefix(strings.TrimSpace(strings.Split(string(d.data), "\n")[i]), prefix) {
			return i
		}
	}
	return d.lineOf(hasPrefix("kind:"))
}

// readNodePool decodes a NodePool; a wildcard value is problem 4, and
// every other refusal one finding (the v1beta1 kubelet field one of its
// own).
func (m *manifests) readNodePool(d document, obj map[string]any, u *unit, out *findings) {
	name := nameOf(obj)
	np := &nodePool{doc: d, at: d.where()}
	np.Name = name
	if wild, values, rest := wildcards(d, obj); len(wild) > 0 {
		np.wildcards, np.values = wild, values
		if base, f, left, err := decodeFilled(rest, weighting.DecodeNodePool, poolProblems); err == nil {
			np.base = &base
		} else {
			placeholderFinding(d, []string{"NodePool " + name}, f, out)
			refusedPool(d, name, err, left, f, out)
		}
		u.pools = append(u.pools, np)
		return
	}
	decoded, f, rest, err := decodeFilled(d.data, weighting.DecodeNodePool, poolProblems)
	placeholderFinding(d, []string{"NodePool " + name}, f, out)
	if err != nil {
		refusedPool(d, name, err, rest, f, out)
		u.refusedRefs = append(u.refusedRefs, ref{refName(obj), d.file})
		return
	}
	np.NodePool, np.filled = decoded, f
	for _, prev := range u.pools {
		if prev.Name == np.Name {
			definedTwice(d, "NodePool", np.Name, prev.at, out)
			u.pools = slices.DeleteFunc(u.pools, func(x *nodePool) bool { return x == prev })
			break
		}
	}
	u.pools = append(u.pools, np)
}

// refName is the nodeClassRef name a NodePool document writes.
func refName(obj map[string]any) string {
	spec, _ := obj["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	ts, _ := tmpl["spec"].(map[string]any)
	ref, _ := ts["nodeClassRef"].(map[string]any)
	name, _ := ref["name"].(string)
	return name
}

func nameOf(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	return name
}

// refusedPool reports a NodePool weighting refuses for the problems
// rest: the v1beta1 kubelet field apart, since its fix is its own, and the
// other problems together. An error that lists no problems is reported
// as it is.
func refusedPool(d document, name string, err error, rest []problem, f filled, out *findings) {
	subject := []string{"NodePool " + name}
	if _, ok := poolProblems(err); !ok {
		out.add(Finding{Severity: SevError, Code: codeRefused, Where: d.where(), Subjects: subject, Message: err.Error(), Fix: "correct the NodePool"})
		return
	}
	var others []problem
	for _, p := range rest {
		if p.path == "spec.template.spec.kubelet" {
			out.add(Finding{Severity: SevError, Code: codeKubelet, Where: d.at(lineOfPath(d, p.path)), Subjects: subject,
				Message: "spec.template.spec.kubelet is where karpenter.sh/v1beta1 kept kubelet settings; the v1 NodePool has no such field, so kubectl apply refuses the NodePool (strict field validation, its default), and with --validate=false the API server drops the field and its settings never apply",
				Fix:     "move the settings to spec.kubelet of the EC2NodeClass the NodePool names (Karpenter v1 moved them there)"})
			continue
		}
		others = append(others, p)
	}
	if len(others) == 0 {
		return
	}
	out.add(Finding{Severity: SevError, Code: codeRefused, Where: d.at(lineOfPath(d, others[0].path)), Subjects: subject,
		Message: fmt.Sprintf("kubectl apply is refused, or Karpenter v1.14.1 marks the NodePool not ready%s: %s", stillRefused(f), problemTexts(others)),
		Fix:     "correct the NodePool as each problem says"})
}

// stillRefused says, for a manifest with placeholders, that the refusal
// stands once they are filled in.
func stillRefused(f filled) string {
	if len(f.asWritten) == 0 {
		return ""
	}
	return ", even with its placeholders filled in"
}

func problemTexts(ps []problem) string {
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = p.text
	}
	return strings.Join(texts, "; ")
}

// objectOf reads a document into JSON values, or nil.
func objectOf(d document) map[string]any {
	doc, _ := jsonDocument(d.data)
	return doc
}

// wildcards finds requirement values with a wildcard, which Karpenter has
// not, and returns the document without those requirements.
func wildcards(d document, obj map[string]any) (wild []wildcard, values []string, rest []byte) {
	spec, _ := obj["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	ts, _ := tmpl["spec"].(map[string]any)
	reqs, _ := ts["requirements"].([]any)
	var kept []any
	for _, r := range reqs {
		req, _ := r.(map[string]any)
		key, _ := req["key"].(string)
		vs, _ := req["values"].([]any)
		var strs []string
		hasWild := false
		for _, v := range vs {
			s, _ := v.(string)
			strs = append(strs, s)
			if strings.ContainsAny(s, "*?") {
				hasWild = true
				at := d.at(d.lineOf(func(l string) bool { return strings.Contains(l, "key: "+key) }))
				wild = append(wild, wildcard{key, s, at})
			}
		}
		if hasWild {
			values = strs
		} else {
			kept = append(kept, r)
		}
	}
	if len(wild) == 0 {
		return nil, nil, nil
	}
	if kept == nil {
		kept = []any{}
	}
	ts["requirements"] = kept
	rest, _ = json.Marshal(obj)
	return wild, values, rest
}
