package kubeletrules

import (
	"strconv"
	"testing"
)

// releases is a test's set of two kubelet releases, bit 0 and bit 1.
type releases uint32

func (r releases) String() string { return strconv.Itoa(int(r)) }

// TestRefuseByRelease: a signal only some releases know is refused for
// the others, with Only naming them; one every release knows passes; the
// rules Validate applies refuse what every release refuses.
func TestRefuseByRelease(t *testing.T) {
	signals := func(s string) releases {
		switch s {
		case "memory.available":
			return 3
		case "new.signal":
			return 2 // only the newer release knows it
		}
		return 0
	}
	if r := Refuse(Fields{EvictionHard: map[string]string{"memory.available": "100Mi"}}, releases(3), signals); r != nil {
		t.Errorf("a signal both releases know: %+v", r)
	}
	r := Refuse(Fields{EvictionHard: map[string]string{"new.signal": "100Mi"}}, releases(3), signals)
	if r == nil || r.Only != 1 || r.Field != "EvictionHard" || r.Key != "new.signal" || !r.Signal {
		t.Errorf("a signal only the newer release knows: %+v", r)
	}
	neg := int32(-1)
	if r := Validate(Fields{PodsPerCore: &neg}); r == nil || r.Subject() != "PodsPerCore" {
		t.Errorf("Validate of a negative PodsPerCore: %+v", r)
	}
	if r := Validate(Fields{ClusterDNS: []string{" "}}); r == nil || r.Subject() != "ClusterDNS[0]" {
		t.Errorf("Validate of an empty ClusterDNS entry: %+v", r)
	}
}
