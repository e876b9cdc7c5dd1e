package weighting

import (
	"errors"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
)

func TestValidate(t *testing.T) {
	ok := Tier{Name: "rest", Weight: 1, Families: []string{"*"}}
	tests := []struct {
		name string
		tier Tier // added before ok
		// wantTier is the tier each error must name (several when the
		// policy has several problems), wantReason a part of the first.
		wantTier   []string
		wantReason string
	}{
		{"weight 0", Tier{Name: "flex", Weight: 0, Families: []string{"c7i-flex"}}, []string{"flex"}, "weight 0 is outside 1–100"},
		{"weight 101", Tier{Name: "flex", Weight: 101, Families: []string{"c7i-flex"}}, []string{"flex"}, "weight 101 is outside"},
		{"negative weight", Tier{Name: "flex", Weight: -5, Families: []string{"c7i-flex"}}, []string{"flex"}, "weight -5"},
		{"duplicate weight", Tier{Name: "flex", Weight: 1, Families: []string{"c7i-flex"}}, []string{"rest"}, `weight 1 is also the weight of tier "flex"`},
		{"no patterns", Tier{Name: "flex", Weight: 100}, []string{"flex"}, "no family patterns"},
		{"empty pattern", Tier{Name: "flex", Weight: 100, Families: []string{""}}, []string{"flex"}, "is empty"},
		{"bad pattern", Tier{Name: "flex", Weight: 100, Families: []string{"c7i-flex", "C7I"}}, []string{"flex"}, "upper-case"},
		{"two bad patterns", Tier{Name: "flex", Weight: 100, Families: []string{"a b", "c.d.e"}}, []string{"flex", "flex"}, `pattern "a b" has ' ' at byte 1`},
		{"no name", Tier{Weight: 100, Families: []string{"c7i-flex"}}, []string{""}, "name is empty"},
		{"bad name", Tier{Name: "Flex_1", Weight: 100, Families: []string{"c7i-flex"}}, []string{"Flex_1"}, "not a DNS-1123 label"},
		{"duplicate name", Tier{Name: "rest", Weight: 100, Families: []string{"c7i-flex"}}, []string{"rest"}, "also used by tier #1"},
		{"bad requirement", Tier{Name: "flex", Weight: 100, Families: []string{"c7i-flex"}, Requirements: []compat.Requirement{{Key: compat.LabelArch, Operator: compat.In}}}, []string{"flex"}, "requirements are invalid"},
		{"wildcard requirement value", Tier{Name: "flex", Weight: 100, Families: []string{"c7i-flex"}, Requirements: []compat.Requirement{{Key: compat.LabelInstanceFamily, Operator: compat.In, Values: []string{"*"}}}}, []string{"flex"}, "requirements are invalid"},
		{"non-instance key", Tier{Name: "spot", Weight: 100, Families: []string{"*"}, Requirements: []compat.Requirement{{Key: compat.LabelCapacityType, Operator: compat.In, Values: []string{"spot"}}}}, []string{"spot"}, "karpenter.sh/capacity-type does not describe an instance type"},
		{"everything wrong", Tier{Name: "", Weight: 0}, []string{"", "", ""}, "name is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Policy{Tiers: []Tier{tt.tier, ok}}
			err := p.Validate()
			if err == nil {
				t.Fatalf("Validate() = nil; want an error naming tier %q", tt.wantTier)
			}
			var tes []*TierError
			if joined, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range joined.Unwrap() {
					var te *TierError
					if !errors.As(e, &te) {
						t.Fatalf("error %v is not a *TierError", e)
					}
					tes = append(tes, te)
				}
			}
			if len(tes) != len(tt.wantTier) {
				t.Fatalf("Validate() = %v\nwant %d problems", err, len(tt.wantTier))
			}
			for i, te := range tes {
				if te.Tier != tt.wantTier[i] || te.Fix == "" || te.Reason == "" {
					t.Errorf("problem %d = %+v; want tier %q with a reason and a fix", i, te, tt.wantTier[i])
				}
			}
			if !strings.Contains(tes[0].Reason, tt.wantReason) {
				t.Errorf("reason %q does not contain %q", tes[0].Reason, tt.wantReason)
			}
			if !strings.HasPrefix(err.Error(), "weighting: tier") {
				t.Errorf("error %q does not start with \"weighting: tier\"", err)
			}
			// Every method that takes the policy reports the same problems.
			if _, rerr := p.Rank(nil, RankOptions{}); rerr == nil || rerr.Error() != err.Error() {
				t.Errorf("Rank error = %v; want %v", rerr, err)
			}
			if _, nerr := p.NodePools(nil, NodePool{NodeClassRef: NodeClassRef{Name: "default"}}); nerr == nil || nerr.Error() != err.Error() {
				t.Errorf("NodePools error = %v; want %v", nerr, err)
			}
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	for _, p := range []Policy{
		flexPolicy(),
		{Tiers: []Tier{{Name: "a", Weight: 100, Families: []string{"c7i.*large", "m?", "*-flex"}, Requirements: []compat.Requirement{
			{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchAMD64}},
			{Key: compat.LabelInstanceCPU, Operator: compat.Gte, Values: []string{"4"}},
			{Key: "beta.kubernetes.io/arch", Operator: compat.NotIn, Values: []string{compat.ArchARM64}},
		}}}},
		{Tiers: []Tier{{Name: "only", Weight: 1, Families: []string{"*"}}}},
	} {
		if err := p.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v; want nil", p, err)
		}
	}
	if err := (Policy{}).Validate(); err == nil || !strings.Contains(err.Error(), "no tiers") {
		t.Errorf("Validate of the zero Policy = %v; want \"no tiers\"", err)
	}
}

func TestTierErrorUnnamed(t *testing.T) {
	err := Policy{Tiers: []Tier{{Weight: 5, Families: []string{"*"}}}}.Validate()
	if err == nil || !strings.HasPrefix(err.Error(), "weighting: tier #1 (unnamed): the name is empty;") {
		t.Errorf("Validate() = %v; want the unnamed tier called #1", err)
	}
}
