package compat

import "slices"

// LabelTestInstanceStore is a key no Karpenter label has: the size of a
// type's instance store, which InstanceType carries and labels do not.
const LabelTestInstanceStore = "example.com/instance-store-gb"

// WithInstanceStoreKey adds one row, for LabelTestInstanceStore, to the
// table of well-known keys until restore is called: everything adding an
// instance key takes. Tests that call it must not run in parallel.
func WithInstanceStoreKey() (restore func()) {
	old := wellKnown
	wellKnown = newKeyTable(append(slices.Clone(old.rows), keyRow{
		label: LabelTestInstanceStore, missing: absent, numeric: true,
		get: func(t *InstanceType) fact { return number(t.InstanceStoreGB, t.InstanceStoreGB > 0) },
		set: func(t *InstanceType, v string) (err error) { t.InstanceStoreGB, err = positive64(v); return err },
	}))
	return func() { wellKnown = old }
}
