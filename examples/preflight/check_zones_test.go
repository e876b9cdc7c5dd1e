package main

import (
	"strings"
	"testing"
)

// TestZoneRegion: the region of availability, local and wavelength zone
// names, as EC2 names them (DescribeAvailabilityZones: us-east-1a,
// us-west-2-lax-1a, us-east-1-wl1-bos-wlz-1); what is not a zone name
// (a zone ID, a region, a placeholder filled in) has none.
func TestZoneRegion(t *testing.T) {
	for _, tt := range []struct {
		zone, region string
		ok           bool
	}{
		{"us-east-1a", "us-east-1", true},
		{"eu-central-2b", "eu-central-2", true},
		{"us-gov-west-1a", "us-gov-west-1", true},
		{"ap-southeast-5c", "ap-southeast-5", true},
		{"us-west-2-lax-1a", "us-west-2", true},
		{"us-east-1-wl1-bos-wlz-1", "us-east-1", true},
		{"us-east-1", "", false},
		{"use1-az1", "", false},
		{"az", "", false},
		{"us-east-1ab", "", false},
		{"US-EAST-1A", "", false},
		{"1a-east-1a", "", false},
		{"", "", false},
	} {
		region, ok := zoneRegion(tt.zone)
		if region != tt.region || ok != tt.ok {
			t.Errorf("zoneRegion(%q) = %q, %v; want %q, %v", tt.zone, region, ok, tt.region, tt.ok)
		}
	}
}

// FuzzZoneRegion: never a panic, and a region found is a region name
// (-region's form) that the zone name starts with.
func FuzzZoneRegion(f *testing.F) {
	for _, s := range []string{"us-east-1a", "us-west-2-lax-1a", "us-east-1-wl1-bos-wlz-1", "use1-az1", "a-b-1", "--1a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, zone string) {
		region, ok := zoneRegion(zone)
		if ok && (!regionName.MatchString(region) || !strings.HasPrefix(zone, region)) {
			t.Fatalf("zoneRegion(%q) = %q, which is not a region name the zone starts with", zone, region)
		}
	})
}

// TestNameDistance: a nodeClassRef is a near miss of an EC2NodeClass name
// when they differ in case or separators, or by two edits in names of five
// or more characters; short names that differ (gpu, cpu) are different
// names.
func TestNameDistance(t *testing.T) {
	for _, tt := range []struct {
		ref, name string
		near      bool
	}{
		{"defualt", "default", true},
		{"Default", "default", true},
		{"general_purpose", "general-purpose", true},
		{"defaults", "default", true},
		{"default", "default", false},
		{"gpu", "cpu", false},
		{"al2023", "al2", false},
		{"bottlerocket", "bottlerocket-gpu", false},
	} {
		if _, near := nameDistance(tt.ref, tt.name); near != tt.near {
			t.Errorf("nameDistance(%q, %q) near = %v; want %v", tt.ref, tt.name, near, tt.near)
		}
	}
}
