package karpenter_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/yaml"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/offerings"
	"github.com/ec2select/ec2select/weighting"
)

var (
	overlayOnce    sync.Once
	overlayServers [2]*apiServer
	overlayErr     error
)

// overlayAPIServers builds the create path for the NodeOverlay CRD
// karpenter-provider-aws v1.14.1 installs (with its karpenter.k8s.aws key
// rule) and for kubernetes-sigs/karpenter v1.14.1's own copy.
func overlayAPIServers(t testing.TB) [2]*apiServer {
	t.Helper()
	overlayOnce.Do(func() {
		for i, module := range []string{"github.com/aws/karpenter-provider-aws", "sigs.k8s.io/karpenter"} {
			if overlayServers[i], overlayErr = newAPIServer(karpenterCRD(t, module, "karpenter.sh_nodeoverlays.yaml")); overlayErr != nil {
				return
			}
		}
	})
	if overlayErr != nil {
		t.Fatal(overlayErr)
	}
	return overlayServers
}

// drawPricingPolicy draws one pricing policy: which offerings of the
// catalog (types, zones, capacity types) are priced, the discounts, and
// how the overlays are written.
func drawPricingPolicy(r *rand.Rand, types []string) ([]offerings.Offering, offerings.PriceOptions, weighting.OverlayOptions) {
	zones := []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-west-2a"}
	var os []offerings.Offering
	for range 1 + r.IntN(40) {
		o := offerings.Offering{InstanceType: types[r.IntN(len(types))], Zone: zones[r.IntN(len(zones))],
			CapacityType: []offerings.CapacityType{offerings.OnDemand, offerings.Spot, offerings.Reserved}[r.IntN(3)]}
		if o.CapacityType == offerings.Reserved {
			o.Reservation = &offerings.Reservation{ID: "cr-0" + string(rune('a'+r.IntN(3))), Type: offerings.ReservationDefault, Total: 2, Available: 1}
		}
		if !slices.ContainsFunc(os, func(x offerings.Offering) bool { return x.Key() == o.Key() }) {
			os = append(os, o)
		}
	}
	var d offerings.Discounts
	if r.IntN(2) == 0 {
		d.EnterprisePercent = float64(r.IntN(30)) + r.Float64()
	}
	for range r.IntN(3) {
		t := os[r.IntN(len(os))].InstanceType
		if r.IntN(2) == 0 {
			d.SavingsPlans = append(d.SavingsPlans, offerings.SavingsPlanRate{Region: "us-east-1", Family: familyOf(t), Percent: 1 + float64(r.IntN(60))})
		} else {
			d.ReservedInstances = append(d.ReservedInstances, offerings.ReservedInstance{Region: "us-east-1", InstanceType: t, Rate: r.Float64(), Unused: r.IntN(3)})
		}
	}
	opts := weighting.OverlayOptions{Weight: int32(1 + r.IntN(10000)), Mode: weighting.OverlayMode(r.IntN(2))}
	if r.IntN(2) == 0 {
		opts.NodePools = []string{"general", "flex-first"}[:1+r.IntN(2)]
	}
	if r.IntN(3) == 0 {
		opts.Name = "team-a.prices"
	}
	return os, offerings.PriceOptions{Discounts: d}, opts
}

func familyOf(t string) string {
	for i := range t {
		if t[i] == '.' {
			return t[:i]
		}
	}
	return t
}

// Acceptance: the NodeOverlays generated for 260 random pricing policies
// are all accepted by the API server's own validation over both copies of
// Karpenter v1.14.1's NodeOverlay CRD, pass Karpenter's RuntimeValidate
// (pkg/apis/v1alpha1/nodeoverlay_validation.go:170), and, matched the way
// Karpenter's overlay controller matches them (getOverlaidOfferings,
// pkg/controllers/nodeoverlay/controller.go:231-245, with Karpenter's own
// scheduling.Requirements), select exactly the offerings whose price each
// carries, with the price Karpenter's AdjustedPrice
// (pkg/cloudprovider/types.go:493-525) then computes.
func TestNodeOverlaysAPIServer(t *testing.T) {
	servers := overlayAPIServers(t)
	_, catalog := ec2fake.DefaultCatalog()
	var types []string
	for _, it := range catalog {
		types = append(types, string(it.InstanceType))
	}
	slices.Sort(types)
	book := offerings.NewPriceBook(offerings.EmbeddedPriceSnapshot())
	r := rand.New(rand.NewPCG(36, 260))
	overlays, selected := 0, 0
	for policy := range 260 {
		os, popts, oopts := drawPricingPolicy(r, types)
		prices, err := book.PriceAll(os, popts)
		if err != nil {
			t.Fatalf("policy %d: %v", policy, err)
		}
		plan, err := weighting.NodeOverlays(prices, oopts)
		if err != nil {
			t.Fatalf("policy %d: %v", policy, err)
		}
		hits := map[offerings.Key]int{}
		for _, o := range plan.Overlays {
			doc, err := o.EncodeYAML()
			if err != nil {
				t.Fatalf("policy %d: %v", policy, err)
			}
			for i, s := range servers {
				if err := s.apply(doc); err != nil {
					t.Fatalf("policy %d, CRD copy %d refused:\n%s\n%v", policy, i, doc, err)
				}
			}
			var ko v1alpha1.NodeOverlay
			if err := yaml.UnmarshalStrict(doc, &ko); err != nil {
				t.Fatal(err)
			}
			if err := ko.RuntimeValidate(context.Background()); err != nil {
				t.Fatalf("policy %d: Karpenter's RuntimeValidate: %v\n%s", policy, err, doc)
			}
			for _, k := range checkSelection(t, ko, prices, plan, oopts.NodePools) {
				hits[k]++
				selected++
			}
			overlays++
		}
		for _, p := range prices {
			unselectable := slices.ContainsFunc(plan.Unselectable, func(u offerings.Price) bool { return u.Offering.Key() == p.Offering.Key() })
			if p.Known && !unselectable && hits[p.Offering.Key()] != 1 {
				t.Fatalf("policy %d: %s is selected by %d overlays; want 1", policy, p.Offering, hits[p.Offering.Key()])
			}
		}
	}
	t.Logf("%d overlays from 260 policies, all accepted; %d offerings selected", overlays, selected)
	if selected < overlays {
		t.Errorf("%d overlays selected only %d offerings", overlays, selected)
	}
	if overlays < 260 {
		t.Errorf("only %d overlays: the policies price too little", overlays)
	}
}

// checkSelection matches overlay ko against every priced offering as
// Karpenter does, for a NodePool it names (or "general"), and checks it
// selects exactly the priced, selectable offerings carrying its price.
func checkSelection(t *testing.T, ko v1alpha1.NodeOverlay, prices []offerings.Price, plan weighting.OverlayPlan, pools []string) []offerings.Key {
	t.Helper()
	pool := "general"
	if len(pools) > 0 {
		pool = pools[0]
	}
	reqs := make([]corev1.NodeSelectorRequirement, len(ko.Spec.Requirements))
	for i, r := range ko.Spec.Requirements {
		reqs[i] = r.AsNodeSelectorRequirement()
	}
	overlayReqs := scheduling.NewNodeSelectorRequirements(reqs...)
	var n []offerings.Key
	for _, p := range prices {
		o := p.Offering
		// An instance type's requirements hold the zones and capacity
		// types of all its offerings (instancetype.go computeRequirements).
		var zones, capacities []string
		for _, q := range prices {
			if q.Offering.InstanceType == o.InstanceType {
				zones, capacities = append(zones, q.Offering.Zone), append(capacities, q.Offering.CapacityType.String())
			}
		}
		itReqs := scheduling.NewRequirements(
			scheduling.NewRequirement("karpenter.sh/nodepool", corev1.NodeSelectorOpIn, pool),
			scheduling.NewRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, o.InstanceType),
			scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...),
			scheduling.NewRequirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, capacities...))
		offReqs := scheduling.NewRequirements(
			scheduling.NewRequirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, o.CapacityType.String()),
			scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, o.Zone))
		off := &cloudprovider.Offering{Requirements: offReqs, Price: 1}
		hit := itReqs.IsCompatible(overlayReqs) && len(cloudprovider.Offerings{off}.Compatible(overlayReqs)) == 1
		mine := p.Known && !slices.ContainsFunc(plan.Unselectable, func(u offerings.Price) bool { return u.Offering.Key() == o.Key() })
		if !hit {
			continue
		}
		if !mine {
			t.Fatalf("overlay %s selects %s, which it was not computed for", ko.Name, o)
		}
		base := 0.0
		if len(p.Terms) > 0 {
			base = p.Terms[0].Price
		}
		change := ""
		if ko.Spec.Price != nil {
			change = *ko.Spec.Price
		} else if ko.Spec.PriceAdjustment != nil {
			change = *ko.Spec.PriceAdjustment
		}
		if got := cloudprovider.AdjustedPrice(base, change); got-p.Effective > 1e-6 || p.Effective-got > 1e-6 {
			t.Fatalf("overlay %s prices %s at %v; ec2select's effective price is %v", ko.Name, o, got, p.Effective)
		}
		n = append(n, o.Key())
	}
	return n
}

var _ = compat.LabelZone
