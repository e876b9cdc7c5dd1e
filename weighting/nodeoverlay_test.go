package weighting_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/offerings"
	"github.com/ec2select/ec2select/weighting"
)

// drawPrices draws priced offerings over a few types, zones and capacity
// types, with prices from a small set so that overlays group, some
// unknown.
func drawPrices(t *rapid.T) []offerings.Price {
	types := []string{"m5.large", "m5.xlarge", "c7i-flex.large", "g5.xlarge", "m7g.metal"}
	zones := []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	values := []float64{0, 0.0416, 0.096, 0.1, 0.19200000000000003, 1.006, 2}
	seen := map[offerings.Key]bool{}
	var out []offerings.Price
	for i := range rapid.IntRange(0, 30).Draw(t, "n") {
		o := offerings.Offering{InstanceType: rapid.SampledFrom(types).Draw(t, "type"), Zone: rapid.SampledFrom(zones).Draw(t, "zone"),
			CapacityType: rapid.SampledFrom([]offerings.CapacityType{offerings.OnDemand, offerings.Spot, offerings.Reserved}).Draw(t, "capacity")}
		if o.CapacityType == offerings.Reserved {
			o.Reservation = &offerings.Reservation{ID: "cr-" + strconv.Itoa(i), Type: offerings.ReservationDefault, Total: 1, Available: 1}
		}
		if seen[o.Key()] {
			continue
		}
		seen[o.Key()] = true
		p := offerings.Price{Offering: o, Region: "us-east-1", Currency: "USD"}
		if rapid.IntRange(0, 5).Draw(t, "unknown?") > 0 {
			base := rapid.SampledFrom(values).Draw(t, "base")
			eff := base * (1 - float64(rapid.SampledFrom([]int{0, 0, 10, 25}).Draw(t, "discount"))/100)
			p.Known, p.Effective = true, eff
			p.Terms = []offerings.Term{{Kind: offerings.TermList, Amount: base, Price: base, Applied: true}}
		} else {
			p.Reason = "unknown in this test"
		}
		out = append(out, p)
	}
	return out
}

// offeringLabels are the labels Karpenter matches an overlay against for
// an offering of a NodePool: the NodePool's name, the type's and the
// offering's (controller.go getOverlaidOfferings, L231-245).
func offeringLabels(o offerings.Offering, pool string) map[string]string {
	return map[string]string{compat.LabelNodePool: pool, compat.LabelInstanceType: o.InstanceType,
		compat.LabelCapacityType: o.CapacityType.String(), compat.LabelZone: o.Zone}
}

// Law: a generated NodeOverlay selects exactly the offerings its price was
// computed for. Every priced offering is selected by one overlay only,
// which carries its price (or adjustment); no unpriced offering is
// selected; every overlay is valid.
func TestNodeOverlaysSelectExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prices := drawPrices(t)
		mode := rapid.SampledFrom([]weighting.OverlayMode{weighting.OverlayPrice, weighting.OverlayAdjustment}).Draw(t, "mode")
		pools := rapid.SampledFrom([][]string{nil, {"general"}, {"general", "flex"}}).Draw(t, "pools")
		plan, err := weighting.NodeOverlays(prices, weighting.OverlayOptions{Mode: mode, NodePools: pools})
		if err != nil {
			t.Fatal(err)
		}
		pool := "general"
		if pools == nil {
			pool = "any"
		}
		unselectable := map[offerings.Key]bool{}
		for _, p := range plan.Unselectable {
			unselectable[p.Offering.Key()] = true
		}
		for _, p := range prices {
			labels := offeringLabels(p.Offering, pool)
			var hits []weighting.NodeOverlay
			for _, o := range plan.Overlays {
				if compat.MustRequirements(o.Requirements...).Matches(labels) {
					hits = append(hits, o)
				}
			}
			switch {
			case (!p.Known || unselectable[p.Offering.Key()]) && len(hits) > 0:
				t.Fatalf("unpriced or unselectable %s selected by %s", p.Offering, hits[0].Name)
			case unselectable[p.Offering.Key()]:
			case p.Known && len(hits) != 1:
				t.Fatalf("%s selected by %d overlays", p.Offering, len(hits))
			case p.Known:
				if got := applied(p, hits[0]); !close(got, p.Effective) {
					t.Fatalf("%s: overlay %s gives %v; the price is %v", p.Offering, hits[0].Name, got, p.Effective)
				}
			}
		}
		for _, o := range plan.Overlays {
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// applied is Karpenter's AdjustedPrice (cloudprovider/types.go:493-525)
// of an overlay on the offering's base price.
func applied(p offerings.Price, o weighting.NodeOverlay) float64 {
	if o.Price != "" {
		v, _ := strconv.ParseFloat(o.Price, 64)
		return v
	}
	base := p.Terms[0].Price
	change := o.PriceAdjustment
	if strings.HasSuffix(change, "%") {
		v, _ := strconv.ParseFloat(strings.TrimSuffix(change, "%"), 64)
		return max(0, base*(1+v/100))
	}
	v, _ := strconv.ParseFloat(change, 64)
	return max(0, base+v)
}

func close(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestNodeOverlayValidate(t *testing.T) {
	ok := weighting.NodeOverlay{Name: "prices-1", Weight: 1, Price: "0.096", Requirements: []compat.Requirement{{Key: compat.LabelInstanceType, Operator: compat.In, Values: []string{"m5.large"}}}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(*weighting.NodeOverlay)
		want   string
	}{
		{"both prices", func(o *weighting.NodeOverlay) { o.PriceAdjustment = "-10%" }, "cannot set both 'price' and 'priceAdjustment'"},
		{"signed price", func(o *weighting.NodeOverlay) { o.Price = "-1" }, "spec.price"},
		{"exponent", func(o *weighting.NodeOverlay) { o.Price = "1e-3" }, "spec.price"},
		{"adjustment over 100% off", func(o *weighting.NodeOverlay) { o.Price, o.PriceAdjustment = "", "-150%" }, "spec.priceAdjustment"},
		{"weight", func(o *weighting.NodeOverlay) { o.Weight = 10001 }, "spec.weight"},
		{"no requirements", func(o *weighting.NodeOverlay) { o.Requirements = nil }, "spec.requirements"},
		{"restricted key", func(o *weighting.NodeOverlay) {
			o.Requirements = append(o.Requirements, compat.Requirement{Key: "karpenter.k8s.aws/instance-tenancy", Operator: compat.Exists})
		}, `label domain "karpenter.k8s.aws" is restricted`},
		{"hostname", func(o *weighting.NodeOverlay) {
			o.Requirements = append(o.Requirements, compat.Requirement{Key: compat.LabelHostname, Operator: compat.Exists})
		}, "kubernetes.io/hostname"},
		{"NotIn without values", func(o *weighting.NodeOverlay) {
			o.Requirements = append(o.Requirements, compat.Requirement{Key: "example.com/x", Operator: compat.NotIn})
		}, "NotIn"},
		{"unknown capacity type", func(o *weighting.NodeOverlay) {
			o.Requirements = append(o.Requirements, compat.Requirement{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"preemptible"}})
		}, "no value is one Karpenter knows"},
		{"bad name", func(o *weighting.NodeOverlay) { o.Name = "Prices_1" }, "metadata.name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			o.Requirements = append([]compat.Requirement(nil), ok.Requirements...)
			tc.change(&o)
			err := o.Validate()
			var oe *weighting.NodeOverlayError
			if !errors.As(err, &oe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v; want a *NodeOverlayError containing %q", err, tc.want)
			}
		})
	}
	y, err := ok.EncodeYAML()
	if err != nil {
		t.Fatal(err)
	}
	want := "apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata:\n  name: prices-1\nspec:\n  price: \"0.096\"\n  requirements:\n  - key: node.kubernetes.io/instance-type\n    operator: In\n    values:\n    - m5.large\n  weight: 1\n"
	if diff := cmp.Diff(want, string(y)); diff != "" {
		t.Errorf("EncodeYAML (-want +got):\n%s", diff)
	}
}

// Rank by effective price; an unknown price ranks last, or, under
// UnknownPriceSkip, leaves the tiers for Ranking.Unpriced.
func TestRankUnknownPrices(t *testing.T) {
	types := []compat.InstanceType{{Name: "m5.large", Family: "m5"}, {Name: "m5.xlarge", Family: "m5"}, {Name: "m5.2xlarge", Family: "m5"}}
	price := func(name string) (float64, bool) {
		v, ok := map[string]float64{"m5.xlarge": 0.1, "m5.2xlarge": 0.05}[name]
		return v, ok
	}
	policy := weighting.Policy{Tiers: []weighting.Tier{{Name: "all", Weight: 1, Families: []string{"*"}}}}
	names := func(its []compat.InstanceType) []string {
		var out []string
		for _, it := range its {
			out = append(out, it.Name)
		}
		return out
	}
	r, err := policy.Rank(types, weighting.RankOptions{Price: price})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"m5.2xlarge", "m5.xlarge", "m5.large"}, names(r.Tiers[0].InstanceTypes)); diff != "" {
		t.Errorf("unknown last (-want +got):\n%s", diff)
	}
	r, err = policy.Rank(types, weighting.RankOptions{Price: price, Unknown: offerings.UnknownPriceSkip})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"m5.2xlarge", "m5.xlarge"}, names(r.Tiers[0].InstanceTypes)); diff != "" {
		t.Errorf("unknown unavailable (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"m5.large"}, names(r.Unpriced)); diff != "" {
		t.Errorf("Unpriced (-want +got):\n%s", diff)
	}
	if got := r.Explain("m5.large"); !strings.Contains(got, "unpriced") {
		t.Errorf("Explain = %q", got)
	}
}

func TestOverlayModeText(t *testing.T) {
	for _, m := range []weighting.OverlayMode{weighting.OverlayPrice, weighting.OverlayAdjustment} {
		b, err := m.MarshalText()
		var back weighting.OverlayMode
		if err != nil || back.UnmarshalText(b) != nil || back != m {
			t.Errorf("%v: %q, %v, %v", m, b, err, back)
		}
	}
	if _, err := weighting.OverlayMode(9).MarshalText(); err == nil {
		t.Error("OverlayMode(9) marshalled")
	}
}
