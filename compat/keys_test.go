package compat_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
)

// TestAddingAKeyIsOneRow adds a row to the table of instance keys, and
// nothing else: Labels, Requirements, FromNodeLabels,
// InstanceTypeFromLabels, the well-known index and amiselect.Map all see
// the new key.
func TestAddingAKeyIsOneRow(t *testing.T) {
	const key = compat.LabelTestInstanceStore
	var d3, m5 compat.InstanceType // with an instance store, and without
	for _, it := range catalogTypes(t) {
		switch it.Name {
		case "d3.xlarge":
			d3 = it
		case "m5.large":
			m5 = it
		}
	}
	if d3.InstanceStoreGB != 5940 || m5.InstanceStoreGB != 0 {
		t.Fatalf("d3.xlarge has %d GB of instance store, m5.large %d; want 5940 and 0", d3.InstanceStoreGB, m5.InstanceStoreGB)
	}
	if _, ok := d3.Labels()[key]; ok || slices.Contains(compat.InstanceLabels(), key) {
		t.Fatalf("%s is a key before the row is added", key)
	}

	defer compat.WithInstanceStoreKey()()

	if got := d3.Labels()[key]; got != "5940" {
		t.Errorf("d3.xlarge labels %s=%q; want 5940", key, got)
	}
	if _, ok := m5.Labels()[key]; ok {
		t.Errorf("m5.large labels %s; it has no instance store", key)
	}
	if !slices.Contains(compat.InstanceLabels(), key) || !slices.Contains(compat.WellKnownLabels(), key) || !slices.IsSorted(compat.WellKnownLabels()) {
		t.Errorf("InstanceLabels or WellKnownLabels lack %s, or are not sorted", key)
	}
	for _, tc := range []struct {
		it   compat.InstanceType
		want []compat.Requirement
	}{
		{d3, []compat.Requirement{{Key: key, Operator: compat.In, Values: []string{"5940"}}}},
		{m5, []compat.Requirement{{Key: key, Operator: compat.DoesNotExist}}},
	} {
		got, _ := tc.it.Requirements().Get(key)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: Requirements on %s (-want +got):\n%s", tc.it.Name, key, diff)
		}
	}
	// A node without the label has no instance store.
	if got, _ := compat.FromNodeLabels(m5.Labels()).Get(key); len(got) != 1 || got[0].Operator != compat.DoesNotExist {
		t.Errorf("FromNodeLabels of an m5.large node: %s is %v; want DoesNotExist", key, got)
	}
	back, notes, err := compat.ReadInstanceTypeLabels(d3.Labels())
	if err != nil || len(notes) > 0 || back.InstanceStoreGB != 5940 {
		t.Errorf("ReadInstanceTypeLabels(d3.xlarge's labels) = %d GB, %v, %v; want 5940", back.InstanceStoreGB, notes, err)
	}
	// Well-known now: Compatible's index finds it, and lenient
	// comparisons skip it where undefined.
	bigStore := compat.MustRequirements(compat.Requirement{Key: key, Operator: compat.Gt, Values: []string{"1000"}})
	if err := compat.FromLabels(nil).Compatible(bigStore, compat.AllowUndefinedWellKnown()); err != nil {
		t.Errorf("AllowUndefinedWellKnown does not skip %s: %v", key, err)
	}
	ami := amiselect.AMI{ID: "ami-0123456789abcdef0", Name: "team-storage", Arch: compat.ArchAMD64, Family: compat.Custom,
		Requirements: bigStore.Intersect(compat.MustRequirements(compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchAMD64}}))}
	m := amiselect.Map([]compat.InstanceType{m5, d3}, []amiselect.AMI{ami})
	if a, ok := m.AMIFor("d3.xlarge"); !ok || a.ID != ami.ID {
		t.Errorf("Map: d3.xlarge gets %v; want %s", a, ami)
	}
	var ie *compat.IncompatibleError
	if len(m.Unmapped) != 1 || m.Unmapped[0].InstanceType.Name != "m5.large" || !errors.As(m.Unmapped[0].Reasons[0], &ie) || ie.Key != key {
		for _, u := range m.Unmapped {
			t.Errorf("Map: %s unmapped: %v", u.InstanceType.Name, u.Reasons)
		}
		t.Errorf("Map: want m5.large unmapped, refused on %s", key)
	}
}
