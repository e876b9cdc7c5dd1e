package weighting

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"
)

// Values the generator draws from. Strings YAML 1.1 would read as another
// type ("yes", "on", "08", "1e3", "null") are there on purpose.
var (
	genWords      = []string{"a", "web", "yes", "on", "08", "1e3", "null", "true", "x.y_z-1", "Team"}
	genKeys       = []string{"team", "example.com/tier", "on", "a.b/c", "kubernetes.io/role", "x.k8s.io/y", "karpenter.sh/capacity-type"}
	genQuantities = []string{"1000", "1000Gi", "500m", "1.5", "+.5", "2E", "1e3", "-1", "0"}
	genDurations  = []string{"0s", "30s", "5m", "1h30m", "720h", "Never"}
	genGrace      = []string{"90s", "1h", "48h", "1h2m3s"}
	genSchedules  = []string{"0 9 * * mon-fri", "@daily", "*/5 * * * *", "@hourly"}
	genBudgetDur  = []string{"8h", "30m", "1h30m", "10m0s"}
	genUnknown    = []string{"/metadata/uid", "/metadata/generation", "/metadata/finalizers", "/metadata/name~1x", "/spec/future",
		"/spec/disruption/future", "/spec/template/future", "/spec/template/metadata/future", "/spec/template/spec/kubelet",
		"/spec/template/spec/nodeClassRef/future", "/future"}
)

func drawStrings(t *rapid.T, label string) map[string]string {
	m := rapid.MapOfN(rapid.SampledFrom(genKeys), rapid.SampledFrom(genWords), 0, 3).Draw(t, label)
	if len(m) == 0 {
		return nil
	}
	return m
}

// drawJSON draws a value as encoding/json decodes it into an any.
func drawJSON(t *rapid.T, label string, depth int) any {
	kinds := 5
	if depth > 0 {
		kinds = 7
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, label+".kind") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, label)
	case 2:
		return float64(rapid.Int64Range(-1<<40, 1<<40).Draw(t, label)) / 8
	case 3, 4:
		return rapid.SampledFrom(genWords).Draw(t, label)
	case 5:
		n := rapid.IntRange(0, 2).Draw(t, label+".len")
		out := make([]any, n)
		for i := range out {
			out[i] = drawJSON(t, fmt.Sprintf("%s[%d]", label, i), depth-1)
		}
		return out
	}
	out := map[string]any{}
	for _, k := range rapid.SliceOfNDistinct(rapid.SampledFrom(genWords), 0, 2, rapid.ID[string]).Draw(t, label+".keys") {
		out[k] = drawJSON(t, label+"."+k, depth-1)
	}
	return out
}

func drawTaints(t *rapid.T, label string, effects []userdata.Effect) []userdata.Taint {
	var out []userdata.Taint
	for i, key := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "example.com/b", "c.d/e"}), 0, 2, rapid.ID[string]).Draw(t, label) {
		out = append(out, userdata.Taint{
			Key:    key,
			Value:  rapid.SampledFrom(append([]string{""}, genWords...)).Draw(t, fmt.Sprintf("%s[%d].value", label, i)),
			Effect: rapid.SampledFrom(effects).Draw(t, fmt.Sprintf("%s[%d].effect", label, i)),
		})
	}
	return out
}

func drawDisruption(t *rapid.T) Disruption {
	if !rapid.Bool().Draw(t, "disruption") {
		return Disruption{}
	}
	d := Disruption{
		ConsolidationPolicy: rapid.SampledFrom([]ConsolidationPolicy{"", WhenEmpty, WhenEmptyOrUnderutilized, Balanced}).Draw(t, "policy"),
		ConsolidateAfter:    rapid.SampledFrom(genDurations).Draw(t, "consolidateAfter"),
	}
	if rapid.Bool().Draw(t, "budgets set") {
		d.Budgets = []Budget{}
	}
	for i := range rapid.IntRange(0, 3).Draw(t, "budgets") {
		b := Budget{Nodes: rapid.SampledFrom([]string{"", "0", "5", "10%", "100%"}).Draw(t, fmt.Sprintf("budget[%d].nodes", i))}
		if rapid.Bool().Draw(t, fmt.Sprintf("budget[%d].scheduled", i)) {
			b.Schedule = rapid.SampledFrom(genSchedules).Draw(t, fmt.Sprintf("budget[%d].schedule", i))
			b.Duration = rapid.SampledFrom(genBudgetDur).Draw(t, fmt.Sprintf("budget[%d].duration", i))
		}
		b.Reasons = rapid.SliceOfNDistinct(rapid.SampledFrom([]DisruptionReason{Underutilized, Empty, Drifted}), 0, 3, rapid.ID[DisruptionReason]).Draw(t, fmt.Sprintf("budget[%d].reasons", i))
		if len(b.Reasons) == 0 {
			b.Reasons = nil
		}
		d.Budgets = append(d.Budgets, b)
	}
	return d
}

// drawMinValues draws a minValues Karpenter accepts on r, often none.
func drawMinValues(t *rapid.T, r compat.Requirement, label string) int {
	if rapid.Bool().Draw(t, label+" none") {
		return 0
	}
	most := 50
	if r.Operator == compat.In {
		most = len(r.Values) // the generator's values are distinct
	}
	return rapid.IntRange(1, most).Draw(t, label)
}

// drawNodePool draws a valid NodePool that may set every field.
func drawNodePool(t *rapid.T) NodePool {
	np := NodePool{
		Name:                   rapid.SampledFrom([]string{"default", "a", "gpu-1", "x.y"}).Draw(t, "name"),
		ObjectLabels:           drawStrings(t, "objectLabels"),
		ObjectAnnotations:      drawStrings(t, "objectAnnotations"),
		Disruption:             drawDisruption(t),
		Labels:                 drawStrings(t, "labels"),
		Annotations:            drawStrings(t, "annotations"),
		NodeClassRef:           NodeClassRef{Group: DefaultNodeClassGroup, Kind: DefaultNodeClassKind, Name: rapid.SampledFrom(genWords).Draw(t, "nodeClass")},
		ExpireAfter:            rapid.SampledFrom(append([]string{""}, genDurations...)).Draw(t, "expireAfter"),
		TerminationGracePeriod: rapid.SampledFrom(append([]string{""}, genGrace...)).Draw(t, "terminationGracePeriod"),
	}
	if rapid.Bool().Draw(t, "static") {
		n := rapid.Int64Range(0, 1<<62).Draw(t, "replicas")
		np.Replicas = &n
		if rapid.Bool().Draw(t, "node limit") {
			np.Limits = map[string]string{"nodes": rapid.SampledFrom(genQuantities).Draw(t, "nodes")}
		}
	} else {
		np.Weight = rapid.Int32Range(0, MaxWeight).Draw(t, "weight")
		limits := rapid.MapOfN(rapid.SampledFrom([]string{"cpu", "memory", "nodes", "nvidia.com/gpu"}), rapid.SampledFrom(genQuantities), 0, 3).Draw(t, "limits")
		if len(limits) > 0 {
			np.Limits = limits
		}
	}
	for i := range rapid.IntRange(0, 4).Draw(t, "requirements") {
		r := rapid.SampledFrom(genRequirements).Draw(t, fmt.Sprintf("requirement[%d]", i))
		np.Requirements = append(np.Requirements, cloneRequirements(r)...)
	}
	if rapid.Bool().Draw(t, "family") {
		np.Requirements = append(np.Requirements, compat.Requirement{Key: compat.LabelInstanceFamily, Operator: compat.In, Values: []string{"c7i-flex", "m7i-flex", "m7i"}})
	}
	if rapid.Bool().Draw(t, "family exists") { // a second minValues on one key
		np.Requirements = append(np.Requirements, compat.Requirement{Key: compat.LabelInstanceFamily, Operator: compat.Exists})
	}
	for i := range np.Requirements {
		np.Requirements[i].MinValues = drawMinValues(t, np.Requirements[i], fmt.Sprintf("minValues[%d]", i))
	}
	effects := rapid.Permutation([]userdata.Effect{userdata.NoSchedule, userdata.PreferNoSchedule, userdata.NoExecute}).Draw(t, "effects")
	np.Taints = drawTaints(t, "taints", effects[:2])
	np.StartupTaints = drawTaints(t, "startupTaints", effects[2:]) // never the key and effect of a taint
	for _, k := range rapid.SliceOfNDistinct(rapid.SampledFrom(genUnknown), 0, 3, rapid.ID[string]).Draw(t, "unknown") {
		if np.Unknown == nil {
			np.Unknown = map[string]any{}
		}
		np.Unknown[k] = drawJSON(t, "unknown"+k, 2)
	}
	if _, ok := np.Unknown["/spec/disruption/future"]; ok && np.Disruption.ConsolidateAfter == "" {
		np.Disruption.ConsolidateAfter = "0s" // required once disruption is written
	}
	return np
}

// TestNodePoolRoundTrip: every valid NodePool survives encoding and
// decoding, through YAML, JSON and embedding, unchanged, and encodes to
// the same bytes again.
func TestNodePoolRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		np := drawNodePool(t)
		if err := np.Validate(); err != nil {
			t.Fatalf("the generator drew an invalid NodePool: %v", err)
		}
		y, err := np.EncodeYAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeNodePool(y)
		if err != nil {
			t.Fatalf("DecodeNodePool: %v\n%s", err, y)
		}
		if diff := gocmp.Diff(np, back); diff != "" {
			t.Fatalf("YAML round trip mismatch (-want +got):\n%s\n%s", diff, y)
		}
		if again, _ := back.EncodeYAML(); string(again) != string(y) {
			t.Fatalf("encoding is not stable:\n%s\n%s", y, again)
		}

		j, err := json.Marshal(np)
		if err != nil {
			t.Fatal(err)
		}
		var fromJSON NodePool
		if err := json.Unmarshal(j, &fromJSON); err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(np, fromJSON); diff != "" {
			t.Fatalf("JSON round trip mismatch (-want +got):\n%s", diff)
		}

		type wrapper struct{ Pool NodePool }
		wy, err := yaml.Marshal(wrapper{np})
		if err != nil {
			t.Fatal(err)
		}
		var w wrapper
		if err := yaml.Unmarshal(wy, &w); err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(np, w.Pool); diff != "" {
			t.Fatalf("embedded round trip mismatch (-want +got):\n%s", diff)
		}
	})
}
