package main

import (
	"testing"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/userdata"
)

// TestArisesOn: a userData problem scoped to some AMIs of the family
// (a Bottlerocket setting only the NVIDIA variants or newer releases have)
// is reported only when an image the NodePool's nodes boot lacks it, and
// whenever that cannot be shown.
func TestArisesOn(t *testing.T) {
	nvidia := amiselect.AMI{Variant: amiselect.NVIDIA, Release: "v1.49.0"}
	standard := amiselect.AMI{Variant: amiselect.Standard, Release: "v1.49.0"}
	old := amiselect.AMI{Variant: amiselect.Standard, Release: "v1.43.2"}
	unknown := amiselect.AMI{Variant: amiselect.Standard}
	onlyNVIDIA := userdata.AMIScope{ExceptVariant: "nvidia"}
	since144 := userdata.AMIScope{Before: "1.44.0"}
	tests := []struct {
		name   string
		scope  userdata.AMIScope
		booted []amiselect.AMI
		want   bool
	}{
		{"unscoped", userdata.AMIScope{}, []amiselect.AMI{nvidia}, true},
		{"no images known", onlyNVIDIA, nil, true},
		{"GPU pool: NVIDIA only", onlyNVIDIA, []amiselect.AMI{nvidia}, false},
		{"a standard image too", onlyNVIDIA, []amiselect.AMI{nvidia, standard}, true},
		{"new enough", since144, []amiselect.AMI{standard, nvidia}, false},
		{"one too old", since144, []amiselect.AMI{standard, old}, true},
		{"release unknown", since144, []amiselect.AMI{unknown}, true},
		{"exactly the release", since144, []amiselect.AMI{{Release: "v1.44.0"}}, false},
		{"a minor above, lower patch", since144, []amiselect.AMI{{Release: "v1.45.0"}}, false},
		{"malformed release", since144, []amiselect.AMI{{Release: "v1.x.0"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := arisesOn(tt.scope, tt.booted); got != tt.want {
				t.Errorf("arisesOn(%+v, %v) = %v, want %v", tt.scope, tt.booted, got, tt.want)
			}
		})
	}
}
