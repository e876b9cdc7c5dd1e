package compat

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func mv(r Requirement, n int) Requirement { r.MinValues = n; return r }

// TestMinValuesValidation pins Karpenter's rules (kubernetes-sigs/karpenter
// 2266468104f3): 1 to 50 (pkg/apis/v1/nodeclaim.go:117-119), In lists at
// least minValues values (pkg/apis/v1/nodeclaim_validation.go:144), any
// operator may carry it.
func TestMinValuesValidation(t *testing.T) {
	tests := []struct {
		name string
		r    Requirement
		want string // "" for valid, else a substring of the error
	}{
		{"In with enough values", mv(req(LabelInstanceFamily, In, "c5", "m5"), 2), ""},
		{"Exists", mv(req(LabelInstanceFamily, Exists), 5), ""},
		{"NotIn", mv(req(LabelInstanceFamily, NotIn, "t3"), 5), ""},
		{"Gt", mv(req(LabelInstanceCPU, Gt, "4"), 3), ""},
		{"DoesNotExist, as Karpenter accepts it", mv(req(LabelInstanceGPUCount, DoesNotExist), 1), ""},
		{"fifty", mv(req(LabelInstanceFamily, Exists), 50), ""},
		{"fifty-one", mv(req(LabelInstanceFamily, Exists), 51), "between 1 and 50"},
		{"negative", mv(req(LabelInstanceFamily, Exists), -1), "between 1 and 50"},
		{"In with too few values", mv(req(LabelInstanceFamily, In, "c5", "m5"), 3), "more values than the 2 distinct"},
		// Karpenter counts the listed values, so it accepts this; no set of
		// instance types can offer two distinct values of it.
		{"In with a repeated value", mv(req(LabelInstanceFamily, In, "c5", "c5"), 2), "more values than the 1 distinct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRequirements(tt.r)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("NewRequirements(%v): %v", tt.r, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "minValues")):
				t.Errorf("NewRequirements(%v) = %v; want an error containing %q", tt.r, err, tt.want)
			}
		})
	}
}

// TestMinValuesIntersection: intersecting keeps the larger minValues
// (kubernetes-sigs/karpenter 2266468104f3, pkg/scheduling/requirement.go:188
// and maxIntPtr at :365), also when the result is DoesNotExist (:190); List
// puts it on every requirement of the key, as BoundedNodeSelectorRequirements
// (:121-125) does for a range.
func TestMinValuesIntersection(t *testing.T) {
	fam := LabelInstanceFamily
	tests := []struct {
		name string
		a, b []Requirement
		want []Requirement
	}{
		{"larger wins", []Requirement{mv(req(fam, In, "c5", "m5", "r5"), 2)}, []Requirement{mv(req(fam, In, "c5", "m5", "r5"), 3)}, []Requirement{mv(req(fam, In, "c5", "m5", "r5"), 3)}},
		{"one side only", []Requirement{mv(req(fam, Exists), 2)}, []Requirement{req(fam, In, "c5", "m5", "r5")}, []Requirement{mv(req(fam, In, "c5", "m5", "r5"), 2)}},
		// In with fewer values than minValues is invalid as written, so
		// List states it as In and "Exists minValues n".
		{"fewer values than minValues", []Requirement{mv(req(fam, Exists), 5)}, []Requirement{req(fam, In, "c5", "m5")}, []Requirement{req(fam, In, "c5", "m5"), mv(req(fam, Exists), 5)}},
		{"complements", []Requirement{mv(req(fam, NotIn, "t3"), 2)}, []Requirement{mv(req(fam, NotIn, "t4g"), 4)}, []Requirement{mv(req(fam, NotIn, "t3", "t4g"), 4)}},
		{"a range states it twice", []Requirement{mv(req(LabelInstanceCPU, Gt, "1"), 2)}, []Requirement{req(LabelInstanceCPU, Lt, "9")},
			[]Requirement{mv(req(LabelInstanceCPU, Gte, "2"), 2), mv(req(LabelInstanceCPU, Lte, "8"), 2)}},
		{"crossing bounds keep it", []Requirement{mv(req(LabelInstanceCPU, Gt, "8"), 2)}, []Requirement{req(LabelInstanceCPU, Lt, "4")},
			[]Requirement{mv(req(LabelInstanceCPU, Exists), 2), mv(req(LabelInstanceCPU, DoesNotExist), 2)}},
		{"no minValues", []Requirement{req(fam, In, "c5")}, []Requirement{req(fam, Exists)}, []Requirement{req(fam, In, "c5")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := MustRequirements(tt.a...), MustRequirements(tt.b...)
			for _, got := range []Requirements{a.Intersect(b), b.Intersect(a), MustRequirements(append(tt.a, tt.b...)...)} {
				if diff := cmp.Diff(tt.want, got.List()); diff != "" {
					t.Errorf("%v ∩ %v mismatch (-want +got):\n%s", a, b, diff)
				}
			}
		})
	}
	if got, want := MustRequirements(mv(req(fam, In, "c5", "m5"), 2)).String(), fam+" In [c5 m5] minValues 2"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
	if a, b := MustRequirements(mv(req(fam, Exists), 2)), MustRequirements(req(fam, Exists)); a.Equal(b) {
		t.Error("requirements differing only in minValues are Equal")
	}
}

func family(name string) InstanceType {
	f, _, _ := strings.Cut(name, ".")
	return InstanceType{Name: name, Family: f, Arch: ArchAMD64, VCPU: 2, MemoryMiB: 4096}
}

func families(names ...string) []InstanceType {
	out := make([]InstanceType, len(names))
	for i, n := range names {
		out[i] = family(n)
	}
	return out
}

// TestSatisfiesMinValues follows the example on Karpenter's
// InstanceTypes.SatisfiesMinValues (kubernetes-sigs/karpenter 2266468104f3,
// pkg/cloudprovider/types.go:370-398) and the cases where Karpenter
// miscounts.
func TestSatisfiesMinValues(t *testing.T) {
	karpenterExample := MustRequirements(
		mv(req(LabelInstanceType, In, "c4.large", "c4.xlarge", "c5.large", "c5.xlarge", "m4.large", "m4.xlarge"), 3),
		mv(req(LabelInstanceFamily, In, "c4", "c5", "m4"), 3),
	)
	tenancy := MustRequirements(mv(req(LabelInstanceTenancy, NotIn, TenancyDedicated), 2))
	tests := []struct {
		name       string
		reqs       Requirements
		types      []InstanceType
		wantNeeded int
		want       []Shortfall // nil: satisfied
	}{
		{"karpenter's passing example, with a type the requirements allow", karpenterExample, families("c4.large", "c5.xlarge", "m4.xlarge"), 3, nil},
		{"karpenter's failing example", karpenterExample, families("c4.large", "c4.xlarge", "c5.xlarge"), 3,
			[]Shortfall{{Key: LabelInstanceFamily, MinValues: 3, Values: []string{"c4", "c5"}}}},
		// Karpenter's own passing example lists m4.2xlarge, which its
		// instance-type requirement rejects: it cannot serve the claim, so
		// its name does not count here (Karpenter counts it).
		{"karpenter's example as printed", karpenterExample, families("c4.large", "c5.xlarge", "m4.2xlarge"), 3,
			[]Shortfall{{Key: LabelInstanceType, MinValues: 3, Values: []string{"c4.large", "c5.xlarge"}}}},
		{"shortest prefix", MustRequirements(mv(req(LabelInstanceFamily, Exists), 2)), families("c5.large", "c5.xlarge", "m5.large", "r5.large"), 3, nil},
		{"two keys short", karpenterExample, families("c4.large"), 1, []Shortfall{
			{Key: LabelInstanceFamily, MinValues: 3, Values: []string{"c4"}},
			{Key: LabelInstanceType, MinValues: 3, Values: []string{"c4.large"}},
		}},
		// Karpenter passes an empty list.
		{"no types", karpenterExample, nil, 0, []Shortfall{
			{Key: LabelInstanceFamily, MinValues: 3}, {Key: LabelInstanceType, MinValues: 3},
		}},
		// Every type offers both tenancies; Karpenter counts both, though
		// the requirement allows one.
		{"only accepted values count", tenancy, families("m5.large", "c5.large"), 2, []Shortfall{{Key: LabelInstanceTenancy, MinValues: 2, Values: []string{TenancyDefault}}}},
		{"offerings' keys are not instance facts", MustRequirements(mv(req(LabelZone, In, "us-east-1a", "us-east-1b"), 2)), families("m5.large"), 1,
			[]Shortfall{{Key: LabelZone, MinValues: 2}}},
		{"no minValues", MustRequirements(req(LabelInstanceFamily, In, "c5")), families("m5.large"), 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			needed, err := tt.reqs.SatisfiesMinValues(tt.types)
			if needed != tt.wantNeeded {
				t.Errorf("needed = %d; want %d", needed, tt.wantNeeded)
			}
			if tt.want == nil {
				if err != nil {
					t.Errorf("SatisfiesMinValues: %v", err)
				}
				return
			}
			var mvErr *MinValuesError
			if !errors.As(err, &mvErr) {
				t.Fatalf("SatisfiesMinValues = %v; want a *MinValuesError", err)
			}
			if diff := cmp.Diff(tt.want, mvErr.Shortfalls); diff != "" {
				t.Errorf("shortfalls mismatch (-want +got):\n%s", diff)
			}
			for _, s := range tt.want {
				if !strings.Contains(err.Error(), s.Key) || !strings.Contains(err.Error(), "short") {
					t.Errorf("error %q does not name %s and its shortfall", err, s.Key)
				}
			}
		})
	}
}

func TestMinValuesErrorMessage(t *testing.T) {
	_, err := MustRequirements(mv(req(LabelInstanceFamily, In, "c4", "c5", "m4"), 3), mv(req(LabelZone, Exists), 2)).SatisfiesMinValues(families("c4.large", "c5.large"))
	want := "compat: minValues not met by 2 instance types: karpenter.k8s.aws/instance-family has 2 distinct values [c4 c5], needs 3 (1 short); " +
		"topology.kubernetes.io/zone has 0 distinct values [], needs 2 (2 short), and no instance type defines it; allow more instance types or values, or lower minValues"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

// naiveSatisfiesMinValues is SatisfiesMinValues by its definition, over the
// keys these tests draw (each a single-valued label of the type): grow the
// list one type at a time and count, per key, the distinct labels the key's
// requirements accept.
func naiveSatisfiesMinValues(rs []Requirement, types []InstanceType) (int, map[string]int) {
	minValues := map[string]int{}
	for _, r := range rs {
		minValues[r.Key] = max(minValues[r.Key], r.MinValues)
	}
	for k, m := range minValues {
		if m == 0 {
			delete(minValues, k)
		}
	}
	if len(minValues) == 0 {
		return 0, nil
	}
	seen := map[string]map[string]bool{}
	short := func() map[string]int {
		out := map[string]int{}
		for k, m := range minValues {
			if len(seen[k]) < m {
				out[k] = len(seen[k])
			}
		}
		return out
	}
	for i, t := range types {
		for k := range minValues {
			v, ok := t.Labels()[k]
			if ok && naiveMatches(onKey(rs, k), map[string]string{k: v}) {
				if seen[k] == nil {
					seen[k] = map[string]bool{}
				}
				seen[k][v] = true
			}
		}
		if len(short()) == 0 {
			return i + 1, nil
		}
	}
	return len(types), short()
}

func TestPropertySatisfiesMinValuesAgreesWithNaiveModel(t *testing.T) {
	families := []string{"c5", "m5", "r5", "t3"}
	cpus := []string{"1", "2", "4", "8"}
	rapid.Check(t, func(t *rapid.T) {
		rs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Requirement {
			key, values := LabelInstanceFamily, families
			if rapid.Bool().Draw(t, "cpu") {
				key, values = LabelInstanceCPU, cpus
			}
			r := Requirement{Key: key, Operator: rapid.SampledFrom([]Operator{In, NotIn, Exists, Gt, Lt}).Draw(t, "op")}
			switch r.Operator {
			case In, NotIn:
				r.Values = rapid.SliceOfNDistinct(rapid.SampledFrom(values), 1, 3, rapid.ID[string]).Draw(t, "values")
			case Gt, Lt:
				r.Values = []string{rapid.SampledFrom(cpus).Draw(t, "bound")}
			}
			limit := 4
			if r.Operator == In {
				limit = len(r.Values)
			}
			r.MinValues = rapid.IntRange(0, limit).Draw(t, "minValues")
			return r
		}), 0, 4).Draw(t, "requirements")
		types := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) InstanceType {
			f := rapid.SampledFrom(families).Draw(t, "family")
			cpu := rapid.SampledFrom(cpus).Draw(t, "vcpu")
			n, _ := strconv.Atoi(cpu)
			return InstanceType{Name: f + ".x" + cpu, Family: f, VCPU: n, Arch: ArchAMD64}
		}), 0, 6).Draw(t, "types")
		wantNeeded, wantShort := naiveSatisfiesMinValues(rs, types)
		needed, err := MustRequirements(rs...).SatisfiesMinValues(types)
		if needed != wantNeeded {
			t.Fatalf("needed = %d; naive model says %d", needed, wantNeeded)
		}
		gotShort := map[string]int{}
		var mvErr *MinValuesError
		if errors.As(err, &mvErr) {
			for _, s := range mvErr.Shortfalls {
				gotShort[s.Key] = len(s.Values)
			}
		} else if err != nil {
			t.Fatalf("SatisfiesMinValues: %v", err)
		}
		if len(wantShort) == 0 {
			wantShort = map[string]int{}
		}
		if diff := cmp.Diff(wantShort, gotShort); diff != "" {
			t.Fatalf("shortfalls (key: values found) differ from the naive model (-want +got):\n%s", diff)
		}
	})
}
