package weighting

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
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
)

// genUnknown are the metadata fields NodePool keeps in Unknown, each with
// a generator of values the API server reads for it.
var genUnknown = map[string]func(t *rapid.T, label string) any{
	"/metadata/uid":      func(t *rapid.T, l string) any { return rapid.SampledFrom([]string{"0b2f1c8e", "x"}).Draw(t, l) },
	"/metadata/selfLink": func(t *rapid.T, l string) any { return "/apis/karpenter.sh/v1/nodepools/x" },
	"/metadata/generation": func(t *rapid.T, l string) any {
		return float64(rapid.Int64Range(0, 1<<40).Draw(t, l))
	},
	"/metadata/creationTimestamp": func(t *rapid.T, l string) any {
		return rapid.SampledFrom([]any{nil, "2026-03-02T10:15:00Z"}).Draw(t, l)
	},
	"/metadata/finalizers": func(t *rapid.T, l string) any {
		fs := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"example.com/cleanup", "karpenter.sh/termination", "foo"}), 0, 2, rapid.ID[string]).Draw(t, l)
		out := make([]any, len(fs))
		for i, f := range fs {
			out[i] = f
		}
		return out
	},
	"/metadata/namespace": func(t *rapid.T, l string) any { return "default" },
}

func drawStrings(t *rapid.T, label string) map[string]string {
	m := rapid.MapOfN(rapid.SampledFrom(genKeys), rapid.SampledFrom(genWords), 0, 3).Draw(t, label)
	if len(m) == 0 {
		return nil
	}
	return m
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
		n := rapid.Int64Range(0, math.MaxInt32).Draw(t, "replicas") // the scale subresource's bound
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
	for _, k := range rapid.SliceOfNDistinct(rapid.SampledFrom(slices.Sorted(maps.Keys(genUnknown))), 0, 3, rapid.ID[string]).Draw(t, "unknown") {
		if np.Unknown == nil {
			np.Unknown = map[string]any{}
		}
		np.Unknown[k] = genUnknown[k](t, "unknown"+k)
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
