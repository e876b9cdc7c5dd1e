package compat

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAMIFamily(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		want  AMIFamily
		alias string
	}{
		{"AL2", AL2, "al2"},
		{"al2023", AL2023, "al2023"},
		{"BOTTLEROCKET", Bottlerocket, "bottlerocket"},
		{"Windows2019", Windows2019, "windows2019"},
		{"windows2022", Windows2022, "windows2022"},
		{"Windows2025", Windows2025, "windows2025"},
		{"custom", Custom, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAMIFamily(tt.in)
			if err != nil || got != tt.want {
				t.Fatalf("ParseAMIFamily(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			if got.Alias() != tt.alias || !got.Valid() {
				t.Errorf("%v: Alias() = %q, Valid() = %v; want %q, true", got, got.Alias(), got.Valid(), tt.alias)
			}
		})
	}
	for _, bad := range []string{"", "Ubuntu", "windows", "AL 2"} {
		if _, err := ParseAMIFamily(bad); err == nil || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("ParseAMIFamily(%q) error = %v, want one quoting the input", bad, err)
		}
	}
}

func TestAMIFamilyZeroValue(t *testing.T) {
	t.Parallel()
	var f AMIFamily
	if f.Valid() || f.Alias() != "" || f.IsWindows() || f.WindowsBuild() != "" || f.String() != "AMIFamily()" {
		t.Errorf("zero AMIFamily: Valid %v Alias %q IsWindows %v WindowsBuild %q String %q",
			f.Valid(), f.Alias(), f.IsWindows(), f.WindowsBuild(), f.String())
	}
}

func TestAMIFamilyWindows(t *testing.T) {
	t.Parallel()
	got := map[AMIFamily]string{}
	for _, f := range AMIFamilies() {
		if f.IsWindows() {
			got[f] = f.WindowsBuild()
		} else if f.WindowsBuild() != "" {
			t.Errorf("%v is not Windows but has build %q", f, f.WindowsBuild())
		}
	}
	want := map[AMIFamily]string{Windows2019: WindowsBuild2019, Windows2022: WindowsBuild2022, Windows2025: WindowsBuild2025}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Windows families (-want +got):\n%s", diff)
	}
}
