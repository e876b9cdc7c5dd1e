package compat

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTenancy pins tenancy as karpenter-provider-aws defines it (commit
// 1d927085dd81, label added by #8218, first released in v1.10.0):
//   - every instance type offers both tenancies:
//     pkg/providers/instancetype/types.go:374
//     (instance-tenancy In [default dedicated]), so a type carries no
//     tenancy label (pkg/cloudprovider/cloudprovider.go:430 turns only
//     single-valued requirements into labels);
//   - a node is labeled with its instance's tenancy:
//     pkg/cloudprovider/cloudprovider.go:465;
//   - requirements may only name default and dedicated:
//     pkg/apis/v1/labels.go:66 (WellKnownValuesForRequirements).
func TestTenancy(t *testing.T) {
	tenancy := func(op Operator, vs ...string) Requirements {
		return MustRequirements(req(LabelInstanceTenancy, op, vs...))
	}
	anyType := InstanceType{Name: "m5.large", Arch: ArchAMD64}
	dedicated := anyType
	dedicated.Tenancy = TenancyDedicated
	if got, _ := anyType.Requirements().Get(LabelInstanceTenancy); !cmp.Equal([]Requirement{req(LabelInstanceTenancy, In, TenancyDedicated, TenancyDefault)}, got) {
		t.Errorf("an instance type's tenancy = %v; want In [dedicated default]", got)
	}
	if v, ok := anyType.Labels()[LabelInstanceTenancy]; ok {
		t.Errorf("an instance type is labeled tenancy=%q; two values make no label", v)
	}
	if v := dedicated.Labels()[LabelInstanceTenancy]; v != TenancyDedicated {
		t.Errorf("a dedicated instance's tenancy label = %q; want dedicated", v)
	}
	typed := map[string]string{LabelInstanceType: "m5.large", LabelArch: ArchAMD64}
	labeled := map[string]string{LabelInstanceType: "m5.large", LabelArch: ArchAMD64, LabelInstanceTenancy: TenancyDefault}
	tests := []struct {
		name     string
		existing Requirements
		required Requirements
		want     bool
	}{
		{"type, In [default]", anyType.Requirements(), tenancy(In, TenancyDefault), true},
		{"type, In [dedicated]", anyType.Requirements(), tenancy(In, TenancyDedicated), true},
		{"type, NotIn [dedicated]", anyType.Requirements(), tenancy(NotIn, TenancyDedicated), true},
		{"type, In [host]", anyType.Requirements(), tenancy(In, "host"), false},
		{"type, DoesNotExist", anyType.Requirements(), tenancy(DoesNotExist), false},
		{"dedicated instance, In [default]", dedicated.Requirements(), tenancy(In, TenancyDefault), false},
		{"dedicated instance, In [dedicated]", dedicated.Requirements(), tenancy(In, TenancyDedicated), true},
		{"labeled node, In [default]", FromNodeLabels(labeled), tenancy(In, TenancyDefault), true},
		{"labeled node, In [dedicated]", FromNodeLabels(labeled), tenancy(In, TenancyDedicated), false},
		// A node without the label has a tenancy; it just does not say
		// which: undefined, not DoesNotExist.
		{"unlabeled node, In [default]", FromNodeLabels(typed), tenancy(In, TenancyDefault), false},
		{"unlabeled node, NotIn [dedicated]", FromNodeLabels(typed), tenancy(NotIn, TenancyDedicated), true},
		{"unlabeled node, DoesNotExist", FromNodeLabels(typed), tenancy(DoesNotExist), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.existing.Compatible(tt.required)
			if got := err == nil; got != tt.want {
				t.Errorf("(%v).Compatible(%v) = %v; want compatible=%v", tt.existing, tt.required, err, tt.want)
			}
		})
	}
	if _, ok := FromNodeLabels(typed).Get(LabelInstanceTenancy); ok {
		t.Error("FromNodeLabels defines tenancy for a node without the label")
	}
}
