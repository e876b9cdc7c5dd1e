package karpenter_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/weighting"
	"pgregory.net/rapid"
)

// Values the generators draw: valid ones, and ones the API server or
// Karpenter refuses.
var (
	npWords      = []string{"web", "a", "x.y_z-1", "Team", "gpu"}
	npYAML11     = []plain{"yes", "no", "on", "off", "y", "n", "true", "08", "0x1F", "1e3", "1_000", "~", "null", "2024-01-02", "1.5", ".inf", "12", "0"}
	npLabelKeys  = []string{"team", "example.com/tier", "a.b/c", "kubernetes.io/role", "x.k8s.io/y", "karpenter.sh/capacity-type", "node.kubernetes.io/instance-type"}
	npBadKeys    = []string{"karpenter.sh/foo", "karpenter.sh", "x.karpenter.sh/y", "notkarpenter.sh/y", "karpenter.sh/nodepool", "kubernetes.io/hostname", "karpenter.k8s.aws/foo", "karpenter.k8s.aws/ec2nodeclass", "x.karpenter.k8s.aws/y", "karpenter.k8s.aws", "Bad Key", "", "/x", "a/b/c", "-a", strings.Repeat("k", 64), strings.Repeat("a.", 130) + "b/c"}
	npQuantities = []any{"1000", "1000Gi", "500m", "1.5", "+.5", "2E", "1e3", "-1", "0", 12, plain("1.5"), plain("-5"), plain("1e3"), plain("1.0"), "10GB", "1 CPU", "", true, plain("~")}
	npDurations  = []string{"0s", "30s", "5m", "1h30m", "720h", "Never", "", "1d", "never", "9999999999h", "1h30m0s", "-1s", "1.5h"}
	npGrace      = []string{"90s", "1h", "48h", "1h2m3s", "Never", "", "0s"}
	npSchedules  = []string{"0 9 * * mon-fri", "@daily", "*/5 * * * *", "@hourly", "weekdays", "", "@dailyish", "a b c d e"}
	npBudgetDur  = []string{"8h", "30m", "1h30m", "10m0s", "30s", "", "1h30m0s"}
	npNodes      = []string{"0", "5", "10%", "100%", "101%", "", "5.5", "-1", "1000"}
	npOperators  = []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte", "in", "", "Near"}
	npNumbers    = []string{"0", "1", "4", "+1", "-0", "007", "1.5", "", "99999999999999999999", "-1", "x"}
	npReqKeys    = []string{compat.LabelInstanceFamily, compat.LabelInstanceCategory, compat.LabelInstanceCPU, compat.LabelInstanceGeneration, compat.LabelArch, compat.LabelCapacityType, compat.LabelInstanceTenancy, compat.LabelZone, "beta.kubernetes.io/arch", "example.com/team", compat.LabelInstanceGPUCount}
	npValues     = []string{"c7i-flex", "m7i", "c", "m", "amd64", "arm64", "spot", "on-demand", "reserved", "preemptible", "dedicated", "default", "us-west-2a", "4", "web"}
	npEffects    = []string{"NoSchedule", "PreferNoSchedule", "NoExecute", "", "Sometimes", "noschedule"}
	npTaintVals  = []string{"true", "web", "", "a/b", "example.com/x", "-bad", "Web_1"}
	npNames      = []string{"default", "a", "gpu-1", "x.y", "Default", "", "a/b", "-a", strings.Repeat("n", 64), strings.Repeat("n", 254), ".", "a..b"}
	npFinalizers = []any{"example.com/cleanup", "karpenter.sh/termination", "foo", "bad finalizer", "", "a/b/c", plain("~"), 1}
)

// npValuesFor are valid values for a requirement on key, so that the base
// documents are mostly valid and the mutations make them wrong.
func npValuesFor(key string) []string {
	switch key {
	case compat.LabelCapacityType:
		return []string{"spot", "on-demand", "reserved"}
	case compat.LabelInstanceTenancy:
		return []string{"default", "dedicated"}
	case compat.LabelArch, "beta.kubernetes.io/arch":
		return []string{"amd64", "arm64"}
	case compat.LabelInstanceCPU, compat.LabelInstanceGeneration, compat.LabelInstanceGPUCount:
		return []string{"2", "4", "8"}
	}
	return []string{"c7i-flex", "m7i", "c", "m", "us-west-2a", "web"}
}

func draw[T any](t *rapid.T, label string, from []T) T {
	return rapid.SampledFrom(from).Draw(t, label)
}

// drawNodePoolDoc draws a NodePool document that is valid but for what
// the generator makes wrong on purpose, rarely.
func drawNodePoolDoc(t *rapid.T) *mapping {
	meta := m("name", draw(t, "name", npNames[:4]))
	if rapid.Bool().Draw(t, "object labels") {
		meta.set("labels", m(draw(t, "object label", npLabelKeys[:5]), draw(t, "object label value", npWords)))
	}
	reqs := s()
	for i := range rapid.IntRange(0, 4).Draw(t, "requirements") {
		key := draw(t, fmt.Sprintf("req[%d].key", i), npReqKeys)
		op := draw(t, fmt.Sprintf("req[%d].op", i), npOperators[:8])
		r := m("key", key, "operator", op)
		switch op {
		case "In", "NotIn":
			n := rapid.IntRange(1, 3).Draw(t, fmt.Sprintf("req[%d].n", i))
			vals := s()
			for j := range n {
				vals.items = append(vals.items, draw(t, fmt.Sprintf("req[%d].v[%d]", i, j), npValuesFor(key)))
			}
			r.set("values", vals)
			if op == "In" && rapid.Bool().Draw(t, fmt.Sprintf("req[%d].minValues?", i)) {
				r.set("minValues", rapid.IntRange(1, n).Draw(t, fmt.Sprintf("req[%d].minValues", i)))
			}
		case "Gt", "Lt", "Gte", "Lte":
			r.set("values", s(draw(t, fmt.Sprintf("req[%d].n", i), npNumbers[:3])))
		}
		reqs.items = append(reqs.items, r)
	}
	tspec := m("nodeClassRef", m("group", "karpenter.k8s.aws", "kind", "EC2NodeClass", "name", draw(t, "class", npWords)), "requirements", reqs)
	if rapid.Bool().Draw(t, "taints?") {
		tspec.set("taints", s(m("key", "example.com/dedicated", "value", draw(t, "taint value", npTaintVals[:2]), "effect", "NoSchedule")))
	}
	if rapid.Bool().Draw(t, "startupTaints?") {
		tspec.set("startupTaints", s(m("key", "example.com/agent-not-ready", "effect", "NoExecute")))
	}
	if rapid.Bool().Draw(t, "expireAfter?") {
		tspec.set("expireAfter", draw(t, "expireAfter", npDurations[:6]))
	}
	if rapid.Bool().Draw(t, "grace?") {
		tspec.set("terminationGracePeriod", draw(t, "grace", npGrace[:4]))
	}
	tmpl := m("spec", tspec)
	if rapid.Bool().Draw(t, "template labels?") {
		tmpl.keys, tmpl.vals = append([]any{"metadata"}, tmpl.keys...), append([]any{m("labels", m(draw(t, "tl key", npLabelKeys), draw(t, "tl value", npWords)))}, tmpl.vals...)
	}
	spec := m("template", tmpl)
	if rapid.Bool().Draw(t, "disruption?") {
		d := m("consolidateAfter", draw(t, "consolidateAfter", npDurations[:6]))
		if rapid.Bool().Draw(t, "policy?") {
			d.set("consolidationPolicy", draw(t, "policy", []string{"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"}))
		}
		if rapid.Bool().Draw(t, "budgets?") {
			b := s()
			for i := range rapid.IntRange(0, 2).Draw(t, "budgets") {
				bud := m("nodes", draw(t, fmt.Sprintf("budget[%d].nodes", i), npNodes[:4]))
				if rapid.Bool().Draw(t, fmt.Sprintf("budget[%d].scheduled", i)) {
					bud.set("schedule", draw(t, fmt.Sprintf("budget[%d].schedule", i), npSchedules[:4]))
					bud.set("duration", draw(t, fmt.Sprintf("budget[%d].duration", i), npBudgetDur[:4]))
				}
				if rapid.Bool().Draw(t, fmt.Sprintf("budget[%d].reasons?", i)) {
					bud.set("reasons", s(draw(t, fmt.Sprintf("budget[%d].reason", i), []string{"Underutilized", "Empty", "Drifted"})))
				}
				b.items = append(b.items, bud)
			}
			d.set("budgets", b)
		}
		spec.set("disruption", d)
	}
	if rapid.Bool().Draw(t, "static?") {
		spec.set("replicas", rapid.IntRange(0, 10).Draw(t, "replicas"))
		if rapid.Bool().Draw(t, "node limit?") {
			spec.set("limits", m("nodes", draw(t, "nodes limit", npQuantities[:4])))
		}
	} else {
		if rapid.Bool().Draw(t, "weight?") {
			spec.set("weight", rapid.IntRange(1, 100).Draw(t, "weight"))
		}
		if rapid.Bool().Draw(t, "limits?") {
			spec.set("limits", m(draw(t, "limit", []string{"cpu", "memory", "nvidia.com/gpu"}), draw(t, "limit value", npQuantities[:9])))
		}
	}
	return m("apiVersion", "karpenter.sh/v1", "kind", "NodePool", "metadata", meta, "spec", spec)
}

// nodePoolMutations each break a document in one of the ways people do,
// or the API server and Karpenter disagree on: the kinds of the 550
// documents weighting accepted and kubectl apply refused (issue 24), and
// more.
var nodePoolMutations = []struct {
	name   string
	mutate func(t *rapid.T, doc *mapping)
}{
	{"requirements absent", func(t *rapid.T, doc *mapping) { doc.path(true, "spec", "template", "spec").del("requirements") }},
	{"requirements null", func(t *rapid.T, doc *mapping) {
		doc.path(true, "spec", "template", "spec").set("requirements", plain(draw(t, "null", []string{"~", "null", ""})))
	}},
	{"disruption without consolidateAfter", func(t *rapid.T, doc *mapping) {
		doc.path(true, "spec").set("disruption", draw(t, "disruption", []any{m(), m("consolidationPolicy", "WhenEmpty"), m("budgets", s(m("nodes", "1")))}))
	}},
	{"empty string", func(t *rapid.T, doc *mapping) {
		switch draw(t, "where", []string{"expireAfter", "terminationGracePeriod", "consolidateAfter", "group", "kind", "class", "taint value", "label value", "weight"}) {
		case "expireAfter":
			doc.path(true, "spec", "template", "spec").set("expireAfter", "")
		case "terminationGracePeriod":
			doc.path(true, "spec", "template", "spec").set("terminationGracePeriod", "")
		case "consolidateAfter":
			doc.path(true, "spec", "disruption").set("consolidateAfter", "")
		case "group", "kind":
			doc.path(true, "spec", "template", "spec", "nodeClassRef").set(draw(t, "ref field", []string{"group", "kind"}), "")
		case "class":
			doc.path(true, "spec", "template", "spec", "nodeClassRef").set("name", "")
		case "taint value":
			doc.path(true, "spec", "template", "spec").set("taints", s(m("key", "a", "value", "", "effect", "NoSchedule")))
		case "label value":
			doc.path(true, "spec", "template", "metadata", "labels").set("team", "")
		case "weight":
			doc.path(true, "spec").set("weight", "")
		}
	}},
	{"YAML 1.1 scalar in a string field", func(t *rapid.T, doc *mapping) {
		v := draw(t, "scalar", npYAML11)
		switch draw(t, "where", []string{"label", "object label", "taint value", "requirement value", "class name", "name", "expireAfter", "consolidateAfter", "nodes", "annotation", "label key", "operator", "key"}) {
		case "label":
			doc.path(true, "spec", "template", "metadata", "labels").set("team", v)
		case "object label":
			doc.path(true, "metadata", "labels").set("team", v)
		case "taint value":
			doc.path(true, "spec", "template", "spec").set("taints", s(m("key", "a", "value", v, "effect", "NoSchedule")))
		case "requirement value":
			addRequirement(doc, m("key", "example.com/team", "operator", "In", "values", s("web", v)))
		case "class name":
			doc.path(true, "spec", "template", "spec", "nodeClassRef").set("name", v)
		case "name":
			doc.path(true, "metadata").set("name", v)
		case "expireAfter":
			doc.path(true, "spec", "template", "spec").set("expireAfter", v)
		case "consolidateAfter":
			doc.path(true, "spec", "disruption").set("consolidateAfter", v)
		case "nodes":
			doc.path(true, "spec", "disruption").set("budgets", s(m("nodes", v)))
			doc.path(true, "spec", "disruption").set("consolidateAfter", "1m")
		case "annotation":
			doc.path(true, "spec", "template", "metadata", "annotations").set("example.com/x", v)
		case "label key":
			doc.path(true, "spec", "template", "metadata", "labels").add(v, "x")
		case "operator":
			addRequirement(doc, m("key", "example.com/team", "operator", v))
		case "key":
			addRequirement(doc, m("key", v, "operator", "Exists"))
		}
	}},
	{"number where a string goes, or the other way", func(t *rapid.T, doc *mapping) {
		switch draw(t, "where", []string{"weight string", "weight float", "weight integral float", "minValues string", "replicas float", "replicas huge", "weight huge", "minValues float"}) {
		case "weight string":
			doc.path(true, "spec").set("weight", "5")
		case "weight float":
			doc.path(true, "spec").set("weight", plain("1.5"))
		case "weight integral float":
			doc.path(true, "spec").set("weight", plain(draw(t, "f", []string{"5.0", "1e1", "50.000"})))
		case "minValues string":
			addRequirement(doc, m("key", "example.com/team", "operator", "In", "values", s("a", "b"), "minValues", "2"))
		case "minValues float":
			addRequirement(doc, m("key", "example.com/team", "operator", "In", "values", s("a", "b"), "minValues", plain("2.0")))
		case "replicas float":
			doc.path(true, "spec").del("weight")
			doc.path(true, "spec").set("replicas", plain(draw(t, "f", []string{"1.5", "2.0", "1e3"})))
		case "replicas huge":
			doc.path(true, "spec").del("weight")
			doc.path(true, "spec").set("replicas", plain(draw(t, "n", []string{"3000000000", "2147483647", "2147483648", "1e19"})))
		case "weight huge":
			doc.path(true, "spec").set("weight", plain("4294967297"))
		}
	}},
	{"limits", func(t *rapid.T, doc *mapping) {
		doc.path(true, "spec").set("limits", m(draw(t, "resource", []string{"cpu", "memory", "nodes"}), draw(t, "quantity", npQuantities)))
	}},
	{"unknown field", func(t *rapid.T, doc *mapping) {
		var where *mapping
		switch draw(t, "where", []string{"spec", "template", "template spec", "kubelet", "requirement", "taint", "disruption", "budget", "metadata", "root", "status", "nodeClassRef", "template metadata", "case"}) {
		case "spec":
			where = doc.path(true, "spec")
		case "template":
			where = doc.path(true, "spec", "template")
		case "template spec":
			where = doc.path(true, "spec", "template", "spec")
		case "kubelet": // v1beta1's place for kubelet settings
			doc.path(true, "spec", "template", "spec").set("kubelet", m("maxPods", 110))
			return
		case "requirement":
			addRequirement(doc, m("key", "example.com/team", "operator", "Exists", "weight", 1))
			return
		case "taint":
			doc.path(true, "spec", "template", "spec").set("taints", s(m("key", "a", "effect", "NoSchedule", "timeAdded", "2026-01-01T00:00:00Z")))
			return
		case "disruption":
			where = doc.path(true, "spec", "disruption")
			where.set("consolidateAfter", "1m")
		case "budget":
			doc.path(true, "spec", "disruption").set("consolidateAfter", "1m")
			doc.path(true, "spec", "disruption").set("budgets", s(m("nodes", "1", "when", "never")))
			return
		case "metadata":
			where = doc.path(true, "metadata")
		case "root":
			where = doc
		case "status":
			doc.set("status", draw(t, "status", []any{m("foo", 1), m(), m("nodes", 3), m("conditions", s(m("type", "Ready", "bogus", 1)))}))
			return
		case "nodeClassRef":
			where = doc.path(true, "spec", "template", "spec", "nodeClassRef")
		case "template metadata":
			where = doc.path(true, "spec", "template", "metadata")
			where.set("name", "x")
			return
		case "case":
			doc.path(true, "spec").set(draw(t, "field", []string{"Weight", "Limits", "Template"}), plain("5"))
			return
		}
		where.set(draw(t, "field", []string{"future", "kubelet", "foo"}), draw(t, "value", []any{1, "x", m("a", 1), plain("~")}))
	}},
	{"metadata", func(t *rapid.T, doc *mapping) {
		meta := doc.path(true, "metadata")
		switch draw(t, "what", []string{"resourceVersion", "finalizers", "generateName", "namespace", "uid", "creationTimestamp", "generation", "ownerReferences", "annotations", "labels", "managedFields", "name"}) {
		case "resourceVersion":
			meta.set("resourceVersion", draw(t, "rv", []any{"4711", "0", "abc", plain("12")}))
		case "finalizers":
			meta.set("finalizers", s(draw(t, "finalizer", npFinalizers)))
		case "generateName":
			meta.set("generateName", draw(t, "gn", []string{"pool-", "Pool-", "a"}))
		case "namespace":
			meta.set("namespace", draw(t, "ns", []any{"default", "Bad NS", 1}))
		case "uid":
			meta.set("uid", draw(t, "uid", []any{"0b2f1c8e", plain("12"), plain("true")}))
		case "creationTimestamp":
			meta.set("creationTimestamp", draw(t, "ts", []any{plain("null"), "2026-03-02T10:15:00Z", "yesterday", plain("2026-03-02")}))
		case "generation":
			meta.set("generation", draw(t, "gen", []any{3, plain("-1"), "3"}))
		case "ownerReferences":
			meta.set("ownerReferences", s(draw(t, "ref", []any{
				m("apiVersion", "v1", "kind", "ConfigMap", "name", "x", "uid", "u"),
				m("apiVersion", "", "kind", "ConfigMap", "name", "x", "uid", "u"),
				m("apiVersion", "apps/v1", "kind", "Deployment", "name", "x"),
				m("apiVersion", "v1", "kind", "Event", "name", "x", "uid", "u"),
			})))
		case "annotations":
			meta.set("annotations", m(draw(t, "ak", []string{"example.com/x", "Example.com/x", "bad key", "kubectl.kubernetes.io/last-applied-configuration"}), draw(t, "av", []any{"v", plain("yes"), plain("1")})))
		case "labels":
			meta.set("labels", m(draw(t, "lk", []string{"team", "bad key", "example.com/x"}), draw(t, "lv", []any{"web", "-x", plain("~"), plain("on"), strings.Repeat("v", 64)})))
		case "managedFields":
			meta.set("managedFields", s(m("manager", "kubectl", "operation", "Update", "apiVersion", "karpenter.sh/v1", "fieldsType", "FieldsV1")))
		case "name":
			meta.set("name", draw(t, "name", npNames))
		}
	}},
	{"restricted key", func(t *rapid.T, doc *mapping) {
		key := draw(t, "key", npBadKeys)
		if rapid.Bool().Draw(t, "label?") {
			doc.path(true, "spec", "template", "metadata", "labels").set(key, "x")
		} else {
			addRequirement(doc, m("key", key, "operator", draw(t, "op", []string{"Exists", "In"}), "values", s("x")))
		}
	}},
	{"operator and values", func(t *rapid.T, doc *mapping) {
		r := m("key", draw(t, "key", npReqKeys), "operator", draw(t, "op", npOperators))
		switch draw(t, "values", []string{"none", "empty", "null", "one number", "two", "word", "null item", "duplicate"}) {
		case "duplicate":
			r.set("values", s("c7i", "c7i"))
		case "empty":
			r.set("values", s())
		case "null":
			r.set("values", plain("~"))
		case "one number":
			r.set("values", s(draw(t, "n", npNumbers)))
		case "two":
			r.set("values", s("1", "2"))
		case "word":
			r.set("values", s(draw(t, "v", npValues)))
		case "null item":
			r.set("values", s(plain("~")))
		}
		if rapid.Bool().Draw(t, "minValues?") {
			r.set("minValues", draw(t, "minValues", []any{0, 1, 2, 50, 51, plain("-1")}))
		}
		addRequirement(doc, r)
	}},
	{"weight and replicas", func(t *rapid.T, doc *mapping) {
		spec := doc.path(true, "spec")
		switch draw(t, "what", []string{"weight 0", "weight 101", "weight -1", "replicas and weight", "replicas and cpu", "replicas -1", "replicas null"}) {
		case "weight 0":
			spec.set("weight", 0)
		case "weight 101":
			spec.set("weight", 101)
		case "weight -1":
			spec.set("weight", plain("-1"))
		case "replicas and weight":
			spec.set("replicas", 2)
			spec.set("weight", 10)
		case "replicas and cpu":
			spec.set("replicas", 2)
			spec.del("weight")
			spec.set("limits", m("cpu", "10", "nodes", "3"))
		case "replicas -1":
			spec.del("weight")
			spec.set("replicas", plain("-1"))
		case "replicas null":
			spec.set("replicas", plain("~"))
		}
	}},
	{"budgets", func(t *rapid.T, doc *mapping) {
		d := doc.path(true, "spec", "disruption")
		d.set("consolidateAfter", "5m")
		b := m()
		if rapid.Bool().Draw(t, "nodes?") {
			b.set("nodes", draw(t, "nodes", npNodes))
		}
		if rapid.Bool().Draw(t, "schedule?") {
			b.set("schedule", draw(t, "schedule", npSchedules))
		}
		if rapid.Bool().Draw(t, "duration?") {
			b.set("duration", draw(t, "duration", npBudgetDur))
		}
		if rapid.Bool().Draw(t, "reasons?") {
			b.set("reasons", draw(t, "reasons", []any{s("Drifted", "Drifted"), s("Expired"), s(), s("Empty", "Underutilized")}))
		}
		d.set("budgets", draw(t, "budgets", []any{s(b), s(), plain("~"), s(plain("~"))}))
	}},
	{"taints", func(t *rapid.T, doc *mapping) {
		ts := doc.path(true, "spec", "template", "spec")
		taint := m("key", draw(t, "key", []any{"a", "example.com/b", "", "Bad Key", "a/b/c", plain("~")}), "effect", draw(t, "effect", npEffects))
		if rapid.Bool().Draw(t, "value?") {
			taint.set("value", draw(t, "value", npTaintVals))
		}
		list := s(taint)
		if rapid.Bool().Draw(t, "twice?") {
			list.items = append(list.items, taint)
		}
		ts.set(draw(t, "list", []string{"taints", "startupTaints"}), list)
		if rapid.Bool().Draw(t, "both?") {
			ts.set("taints", list)
			ts.set("startupTaints", list)
		}
	}},
	{"duplicate key", func(t *rapid.T, doc *mapping) {
		switch draw(t, "what", []string{"weight", "requirements", "name", "spec"}) {
		case "weight":
			spec := doc.path(true, "spec")
			spec.del("replicas")
			spec.add("weight", 200)
			spec.add("weight", 20)
		case "requirements":
			doc.path(true, "spec", "template", "spec").add("requirements", s())
		case "name":
			doc.path(true, "metadata").add("name", "Second")
			doc.path(true, "metadata").add("name", "second")
		case "spec":
			doc.add("spec", m("template", m("spec", m("nodeClassRef", m("group", "g", "kind", "K", "name", "n"), "requirements", s()))))
		}
	}},
	{"durations", func(t *rapid.T, doc *mapping) {
		switch draw(t, "where", []string{"expireAfter", "terminationGracePeriod", "consolidateAfter"}) {
		case "expireAfter":
			doc.path(true, "spec", "template", "spec").set("expireAfter", draw(t, "d", npDurations))
		case "terminationGracePeriod":
			doc.path(true, "spec", "template", "spec").set("terminationGracePeriod", draw(t, "d", append(npGrace, npDurations...)))
		case "consolidateAfter":
			doc.path(true, "spec", "disruption").set("consolidateAfter", draw(t, "d", npDurations))
		}
	}},
	{"node class reference", func(t *rapid.T, doc *mapping) {
		ref := doc.path(true, "spec", "template", "spec", "nodeClassRef")
		switch draw(t, "what", []string{"group slash", "drop group", "drop kind", "drop name", "eks", "null"}) {
		case "group slash":
			ref.set("group", "karpenter.k8s.aws/v1")
		case "drop group":
			ref.del("group")
		case "drop kind":
			ref.del("kind")
		case "drop name":
			ref.del("name")
		case "eks":
			ref.set("group", "eks.amazonaws.com")
			ref.set("kind", "NodeClass")
		case "null":
			doc.path(true, "spec", "template", "spec").set("nodeClassRef", plain("~"))
		}
	}},
	{"many", func(t *rapid.T, doc *mapping) {
		n := draw(t, "n", []int{99, 100, 101})
		if rapid.Bool().Draw(t, "labels?") {
			labels := doc.path(true, "spec", "template", "metadata", "labels")
			for i := range n {
				labels.set(fmt.Sprintf("example.com/l%d", i), "x")
			}
			return
		}
		reqs := s()
		for i := range n {
			reqs.items = append(reqs.items, m("key", fmt.Sprintf("example.com/r%d", i), "operator", "Exists"))
		}
		doc.path(true, "spec", "template", "spec").set("requirements", reqs)
	}},
	{"structure", func(t *rapid.T, doc *mapping) {
		switch draw(t, "what", []string{"no spec", "no template", "no template spec", "spec null", "template list", "metadata null", "no metadata", "apiVersion", "labels list"}) {
		case "no spec":
			doc.del("spec")
		case "no template":
			doc.path(true, "spec").del("template")
		case "no template spec":
			doc.path(true, "spec", "template").del("spec")
		case "spec null":
			doc.set("spec", plain("~"))
		case "template list":
			doc.path(true, "spec").set("template", s("x"))
		case "metadata null":
			doc.set("metadata", plain("~"))
		case "no metadata":
			doc.del("metadata")
		case "apiVersion":
			doc.set("apiVersion", draw(t, "v", []string{"karpenter.sh/v1beta1", "karpenter.sh/v2"}))
		case "labels list":
			doc.path(true, "spec", "template", "metadata").set("labels", s("a"))
		}
	}},
}

func addRequirement(doc *mapping, r *mapping) {
	ts := doc.path(true, "spec", "template", "spec")
	reqs, ok := ts.get("requirements").(*seq)
	if !ok {
		reqs = s()
		ts.set("requirements", reqs)
	}
	reqs.items = append(reqs.items, r)
}

// outcomes counts how weighting and the API server judged the documents.
type outcomes struct {
	mu                            sync.Mutex
	cases, bothAccept, bothRefuse int
	stricter                      map[string]int // by our first problem's field and kind
	mutations                     map[string]int
}

func (o *outcomes) add(mutations []string, ours, theirs error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.cases++
	for _, m := range mutations {
		o.mutations[m]++
	}
	switch {
	case ours == nil && theirs == nil:
		o.bothAccept++
	case ours != nil && theirs != nil:
		o.bothRefuse++
	case ours != nil:
		o.stricter[classify(ours)]++
	}
}

// classify names a refusal by its first problem: the field, with indexes
// and map keys dropped, and the problem's first words, without values.
func classify(err error) string {
	msg := err.Error()
	for _, prefix := range []string{"weighting: NodePool ", "ec2nodeclass: EC2NodeClass "} {
		if rest, ok := strings.CutPrefix(msg, prefix); ok {
			_, msg, _ = strings.Cut(rest, ": ")
		}
	}
	msg, _, _ = strings.Cut(msg, ";")
	msg, _, _ = strings.Cut(msg, " (")
	var b strings.Builder
	depth, quoted := 0, false
	for _, r := range msg {
		switch {
		case r == '"':
			quoted = !quoted
			if quoted {
				b.WriteString("…")
			}
		case quoted:
		case r == '[':
			depth++
			if depth == 1 {
				b.WriteString("[…]")
			}
		case r == ']':
			depth--
		case depth > 0:
		default:
			b.WriteRune(r)
		}
	}
	if s := b.String(); len(s) > 110 {
		return s[:110]
	}
	return b.String()
}

func (o *outcomes) report(t *testing.T, what string) {
	t.Logf("%s: %d documents: %d accepted by both, %d refused by both, %d refused by ec2select only, 0 accepted by ec2select only",
		what, o.cases, o.bothAccept, o.bothRefuse, o.cases-o.bothAccept-o.bothRefuse)
	keys := make([]string, 0, len(o.stricter))
	for k := range o.stricter {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  stricter %4d  %s", o.stricter[k], k)
	}
}

// TestNodePoolsAgainstAPIServer is the differential test of issue 24:
// random NodePool documents, most broken on purpose in one to three ways,
// go through `kubectl apply`'s reader and the API server's create path
// over the CRD karpenter-provider-aws v1.14.1 ships (apiServer), and
// through weighting.DecodeNodePool. weighting must refuse every document
// the API server refuses; where it refuses one the API server takes, the
// reason is Karpenter's runtime validation or a documented stricter rule
// (weighting.NodePool.Validate), and the log counts them by kind.
func TestNodePoolsAgainstAPIServer(t *testing.T) {
	api, _ := apiServers(t)
	o := &outcomes{stricter: map[string]int{}, mutations: map[string]int{}}
	const rounds = 50 // of rapid's default 100 checks each: 5,000 documents
	for range rounds {
		rapid.Check(t, func(t *rapid.T) {
			doc := drawNodePoolDoc(t)
			var applied []string
			for i := range rapid.IntRange(0, 3).Draw(t, "mutations") {
				mu := rapid.SampledFrom(nodePoolMutations).Draw(t, fmt.Sprintf("mutation[%d]", i))
				mu.mutate(t, doc)
				applied = append(applied, mu.name)
			}
			text := yamlText(doc)
			theirs := api.apply([]byte(text))
			_, ours := weighting.DecodeNodePool([]byte(text))
			o.add(applied, ours, theirs)
			if ours == nil && theirs != nil {
				t.Fatalf("weighting.DecodeNodePool accepts a NodePool kubectl apply refuses:\n%s\nkubectl/API server: %v", text, theirs)
			}
		})
		if t.Failed() {
			break
		}
	}
	o.report(t, "NodePools")
	if o.cases < 5000 {
		t.Errorf("%d documents; want at least 5,000", o.cases)
	}
	for _, mu := range nodePoolMutations {
		if o.mutations[mu.name] == 0 {
			t.Errorf("mutation %q was never applied", mu.name)
		}
	}
}

// Every NodePool weighting.Policy.NodePools generates is one the API server
// creates.
func TestGeneratedNodePoolsAgainstAPIServer(t *testing.T) {
	api, _ := apiServers(t)
	_, infos := ec2fake.DefaultCatalog()
	var catalog []compat.InstanceType
	for _, info := range infos {
		if it, err := compat.InstanceTypeFromEC2(info); err == nil {
			catalog = append(catalog, it)
		}
	}
	families := map[string]bool{}
	for _, it := range catalog {
		families[it.Family] = true
	}
	var familyList []string
	for f := range families {
		familyList = append(familyList, f)
	}
	sort.Strings(familyList)
	n := 0
	rapid.Check(t, func(t *rapid.T) {
		var tiers []weighting.Tier
		weights := rapid.SliceOfNDistinct(rapid.Int32Range(1, 100), 1, 4, rapid.ID[int32]).Draw(t, "weights")
		for i, w := range weights {
			pats := rapid.SliceOfN(rapid.SampledFrom(append(familyList, "c7*", "m*", "*", "*.metal", "g?")), 1, 3).Draw(t, fmt.Sprintf("tier[%d]", i))
			tiers = append(tiers, weighting.Tier{Name: fmt.Sprintf("t%d", i), Weight: w, Families: pats})
		}
		doc := drawNodePoolDoc(t)
		doc.path(true, "spec").del("weight")
		doc.path(true, "spec").del("replicas")
		base, err := weighting.DecodeNodePool([]byte(yamlText(doc)))
		if err != nil {
			t.Skip("base refused")
		}
		pools, err := weighting.Policy{Tiers: tiers}.NodePools(catalog, base)
		if err != nil {
			t.Skip("policy refused: ", err)
		}
		for _, p := range pools {
			y, err := p.EncodeYAML()
			if err != nil {
				t.Fatal(err)
			}
			n++
			if err := api.apply(y); err != nil {
				t.Fatalf("the API server refuses a generated NodePool: %v\n%s", err, y)
			}
		}
	})
	t.Logf("%d generated NodePools, all created", n)
	if n == 0 {
		t.Error("no NodePool was generated")
	}
}
