package offerings

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
)

func names(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Offering.String())
	}
	return out
}

func mustCandidates(t *testing.T, r Region, marks []Mark, opts CandidateOptions) CandidateList {
	t.Helper()
	l, err := Candidates(r, marks, t0, opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// prices are list prices per hour (synthetic, in the shape of us-east-1's),
// spot a third of on-demand; c5.large's spot price is not known.
func prices(o Offering) (float64, bool) {
	od := map[string]float64{"m5.large": 0.096, "c5.large": 0.085, "u-6tb1.metal": 44}[o.InstanceType]
	switch o.CapacityType {
	case Spot:
		if o.InstanceType == "c5.large" {
			return 0, false
		}
		return od / 3, true
	case Reserved:
		return 0, true
	}
	return od, true
}

func TestCandidateOrder(t *testing.T) {
	r := smallRegion(false)
	for _, tc := range []struct {
		name string
		opts CandidateOptions
		want []string
	}{
		{"without prices: reserved, then spot before on-demand", CandidateOptions{}, []string{
			"m5.large us-east-1a reserved cr-0a1",
			"c5.large us-east-1a spot", "m5.large us-east-1a spot", "m5.large us-east-1b spot",
			"c5.large us-east-1a on-demand", "m5.large us-east-1a on-demand", "m5.large us-east-1b on-demand", "u-6tb1.metal us-east-1a on-demand",
		}},
		{"by price, the unknown last", CandidateOptions{Price: prices}, []string{
			"m5.large us-east-1a reserved cr-0a1",
			"m5.large us-east-1a spot", "m5.large us-east-1b spot",
			"c5.large us-east-1a on-demand", "m5.large us-east-1a on-demand", "m5.large us-east-1b on-demand", "u-6tb1.metal us-east-1a on-demand",
			"c5.large us-east-1a spot",
		}},
		{"by price, the unknown skipped", CandidateOptions{Price: prices, UnknownPrice: UnknownPriceSkip}, []string{
			"m5.large us-east-1a reserved cr-0a1",
			"m5.large us-east-1a spot", "m5.large us-east-1b spot",
			"c5.large us-east-1a on-demand", "m5.large us-east-1a on-demand", "m5.large us-east-1b on-demand", "u-6tb1.metal us-east-1a on-demand",
		}},
		{"a NodePool without reserved or spot, in zone b", CandidateOptions{Requirements: compat.MustRequirements(
			compat.Requirement{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"on-demand"}},
			compat.Requirement{Key: compat.LabelZone, Operator: compat.In, Values: []string{"us-east-1b"}},
			compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{"amd64"}}, // not the offering's to answer
		)}, []string{"m5.large us-east-1b on-demand"}},
		{"a NodePool that requires its reservation", CandidateOptions{Requirements: compat.MustRequirements(
			compat.Requirement{Key: compat.LabelCapacityReservationID, Operator: compat.In, Values: []string{"cr-0a1"}},
		)}, []string{"m5.large us-east-1a reserved cr-0a1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := mustCandidates(t, r, nil, tc.opts)
			if diff := cmp.Diff(tc.want, names(l.Candidates)); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
			if len(l.Candidates)+len(l.Skipped) != len(r.Offerings()) {
				t.Errorf("%d candidates and %d skipped of %d offerings", len(l.Candidates), len(l.Skipped), len(r.Offerings()))
			}
		})
	}
}

func TestCandidateSkipReasons(t *testing.T) {
	r := smallRegion(false)
	l := mustCandidates(t, r, nil, CandidateOptions{Price: prices, UnknownPrice: UnknownPriceSkip, Requirements: compat.MustRequirements(
		compat.Requirement{Key: compat.LabelInstanceType, Operator: compat.NotIn, Values: []string{"u-6tb1.metal"}})})
	got := map[string]string{}
	for _, s := range l.Skipped {
		got[s.Offering.String()] = s.Reason.Code.String()
	}
	for offering, want := range map[string]string{
		"c5.large us-east-1a spot":                "price-unknown",
		"u-6tb1.metal us-east-1a on-demand":       "requirements",
		"m5.large us-east-1b reserved cr-0b1":     "reservation-not-started",
		"m5.large us-east-1-chi-2a on-demand":     "zone-not-opted-in",
		"u-6tb1.metal us-east-1a spot":            "requirements", // excluded before it is judged: the NodePool does not ask for it
		"c5.large us-east-1b on-demand":           "not-offered",
		"m5.large us-east-1c spot":                "zone-unavailable",
		"u-6tb1.metal us-east-1-chi-2a on-demand": "requirements",
	} {
		if got[offering] != want {
			t.Errorf("%s skipped for %q, want %q", offering, got[offering], want)
		}
	}
	for _, s := range l.Skipped {
		if s.Reason.Code == ReasonRequirements && !strings.Contains(s.Reason.Message, "node.kubernetes.io/instance-type") {
			t.Errorf("requirements reason does not name the key: %s", s.Reason.Message)
		}
	}
}

func TestCandidatesRefuseBadPrices(t *testing.T) {
	for _, p := range []float64{-1, math.NaN(), math.Inf(1)} {
		_, err := Candidates(smallRegion(false), nil, t0, CandidateOptions{Price: func(Offering) (float64, bool) { return p, true }})
		if err == nil || !strings.Contains(err.Error(), "a known price is finite and not negative") {
			t.Errorf("price %v: error %v", p, err)
		}
	}
	if _, err := Candidates(smallRegion(false), nil, t0, CandidateOptions{Price: func(Offering) (float64, bool) { return math.NaN(), false }}); err != nil {
		t.Errorf("an unknown price's value is ignored, got %v", err)
	}
}

// A spot offering marked out leaves its on-demand sibling the first
// candidate: the fallback is the rule's, not a code path's.
func TestSpotMarkedOnDemandFollows(t *testing.T) {
	r := smallRegion(false)
	r.InstanceTypes = []string{"m5.large"}
	r.Reserved = nil
	m, _ := newTestMemory(t, MemoryOptions{})
	for _, z := range []string{"us-east-1a", "us-east-1b"} {
		m.Observe(Failure{Offering: Offering{InstanceType: "m5.large", Zone: z, CapacityType: Spot}, Code: "InsufficientInstanceCapacity"})
	}
	l := mustCandidates(t, r, m.Marks(), CandidateOptions{})
	if diff := cmp.Diff([]string{"m5.large us-east-1a on-demand", "m5.large us-east-1b on-demand"}, names(l.Candidates)); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
}

func TestUnknownPriceText(t *testing.T) {
	for _, u := range []UnknownPrice{UnknownPriceLast, UnknownPriceSkip} {
		b, err := u.MarshalText()
		var back UnknownPrice
		if err != nil || back.UnmarshalText(b) != nil || back != u {
			t.Errorf("%s: round trip %v, %v", u, back, err)
		}
	}
	var u UnknownPrice
	if err := u.UnmarshalText([]byte("first")); err == nil {
		t.Error("accepted first")
	}
}
