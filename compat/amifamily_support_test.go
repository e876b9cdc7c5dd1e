package compat

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSupport pins the support table to its sources: AL2023 excludes a1
// (https://docs.aws.amazon.com/linux/al2023/ug/system-requirements.html:
// "AL2023 doesn't support A1 instances"); no other family excludes an
// instance family.
func TestSupport(t *testing.T) {
	a1 := InstanceType{Name: "a1.large", Family: "a1", Arch: ArchARM64}
	m6g := InstanceType{Name: "m6g.large", Family: "m6g", Arch: ArchARM64}
	for _, f := range AMIFamilies() {
		t.Run(string(f), func(t *testing.T) {
			s := f.Support()
			var want []string
			if f == AL2023 {
				want = []string{"a1"}
			}
			if diff := cmp.Diff(want, s.Excluded); diff != "" {
				t.Errorf("Excluded mismatch (-want +got):\n%s", diff)
			}
			_, a1Refused := a1.Conflict(s.Requirements())
			if _, c := m6g.Conflict(s.Requirements()); c || a1Refused != (f == AL2023) {
				t.Errorf("requirements %v: a1 refused %v, m6g refused %v", s.Requirements(), a1Refused, c)
			}
			if (s.Reason == "") != (len(s.Excluded) == 0) || (s.Source == "") != (len(s.Excluded) == 0) {
				t.Errorf("reason %q, source %q for %d exclusions", s.Reason, s.Source, len(s.Excluded))
			}
		})
	}
	// A node without the instance-family label is not refused: NotIn
	// accepts a missing label.
	if _, c := FromNodeLabels(map[string]string{LabelArch: ArchARM64}).Conflict(AL2023.Support().Requirements()); c {
		t.Error("a node without instance-family is refused")
	}
}
