package offerings

import (
	"fmt"
	"strconv"
)

// ZoneType is the kind of zone, as DescribeAvailabilityZones' ZoneType
// says it. Its text form is EC2's value. The zero value is not a zone type.
type ZoneType uint8

// The zone types EC2 has.
const (
	AvailabilityZone ZoneType = iota + 1
	LocalZone
	WavelengthZone
)

var zoneTypeText = [...]string{AvailabilityZone: "availability-zone", LocalZone: "local-zone", WavelengthZone: "wavelength-zone"}

// String returns EC2's word for the zone type.
func (t ZoneType) String() string {
	if t >= AvailabilityZone && t <= WavelengthZone {
		return zoneTypeText[t]
	}
	return "ZoneType(" + strconv.Itoa(int(t)) + ")"
}

// MarshalText implements encoding.TextMarshaler.
func (t ZoneType) MarshalText() ([]byte, error) {
	if t < AvailabilityZone || t > WavelengthZone {
		return nil, fmt.Errorf("offerings: cannot marshal %s", t)
	}
	return []byte(t.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *ZoneType) UnmarshalText(b []byte) error {
	for v := AvailabilityZone; v <= WavelengthZone; v++ {
		if zoneTypeText[v] == string(b) {
			*t = v
			return nil
		}
	}
	return fmt.Errorf("offerings: zone type %q: want availability-zone, local-zone or wavelength-zone", b)
}

// OptInStatus says whether the account may use a zone: availability zones
// need no opt-in; Local and Wavelength Zones do. Its text form is EC2's
// value. The zero value is not a status.
type OptInStatus uint8

// The opt-in statuses EC2 has.
const (
	OptInNotRequired OptInStatus = iota + 1
	OptedIn
	NotOptedIn
)

var optInText = [...]string{OptInNotRequired: "opt-in-not-required", OptedIn: "opted-in", NotOptedIn: "not-opted-in"}

// String returns EC2's word for the status.
func (s OptInStatus) String() string {
	if s >= OptInNotRequired && s <= NotOptedIn {
		return optInText[s]
	}
	return "OptInStatus(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText implements encoding.TextMarshaler.
func (s OptInStatus) MarshalText() ([]byte, error) {
	if s < OptInNotRequired || s > NotOptedIn {
		return nil, fmt.Errorf("offerings: cannot marshal %s", s)
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *OptInStatus) UnmarshalText(b []byte) error {
	for v := OptInNotRequired; v <= NotOptedIn; v++ {
		if optInText[v] == string(b) {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("offerings: opt-in status %q: want opt-in-not-required, opted-in or not-opted-in", b)
}

// Zone is one zone of a region, as DescribeAvailabilityZones describes it.
type Zone struct {
	// Name is the zone's name in this account (us-east-1a); ID names the
	// same physical zone in every account (use1-az1).
	Name string `json:"name"`
	ID   string `json:"id"`
	// Type is availability-zone, local-zone or wavelength-zone.
	Type ZoneType `json:"type"`
	// OptInStatus says whether the account may launch there.
	OptInStatus OptInStatus `json:"optInStatus"`
	// State is EC2's ZoneState: available, information, impaired,
	// unavailable or constrained. Only available and information zones
	// take launches.
	State string `json:"state"`
	// ParentZone is the availability zone a Local or Wavelength Zone
	// hangs off (its name), empty for an availability zone.
	ParentZone string `json:"parentZone,omitempty"`
}

// Usable reports whether launches may go to z: the account has opted in
// (or needs no opt-in) and the zone is available (or merely carries
// information).
func (z Zone) Usable() bool {
	return z.OptInStatus != NotOptedIn && (z.State == "available" || z.State == "information")
}
