package kubelet

import (
	"strings"
	"testing"
)

// TestGatesRefusal pins facts of the gate tables against the releases'
// pkg/features/kube_features.go (k8s.io/kubernetes from the module proxy):
//   - DisableKubeletCloudCredentialProviders: alpha in v1.24.17 (L985),
//     beta on by default in v1.29.6 (L1043), GA locked to true from 1.31
//     (v1.32.13 versioned_kube_features.go L166-170), gone in v1.33.13;
//   - GracefulNodeShutdownBasedOnPodPriority depends on GracefulNodeShutdown
//     from v1.35 (v1.35.3 kube_features.go L2257), and is on by default;
//     so is WindowsGracefulNodeShutdown from v1.34, which depends on it
//     too (L2489).
//
// component-base's unsafeSetFromMap (v0.35.3 featuregate/feature_gate.go
// L374-437) refuses an unknown gate, a locked gate set to the other value,
// and an enabled gate whose dependency is off.
func TestGatesRefusal(t *testing.T) {
	t.Parallel()
	const gate = "DisableKubeletCloudCredentialProviders"
	tests := []struct {
		name   string
		gates  map[string]bool
		rs     Releases
		refuse Releases
		why    string
	}{
		{"known up to 1.32", map[string]bool{gate: true}, ReleasesAll, Span(33, LastMinor), "unrecognized feature gate"},
		{"locked to true in 1.31 and 1.32", map[string]bool{gate: false}, Span(29, 32), Span(31, 32), "is locked to true"},
		{"unknown and locked: every current release", map[string]bool{gate: false}, Span(31, 36), Span(31, 36), "locked to true"},
		{"a gate no release has", map[string]bool{"NoSuchGate": true}, ReleasesCurrent, ReleasesCurrent, "has no feature gate NoSuchGate"},
		{"a dependency turned off", map[string]bool{"GracefulNodeShutdown": false}, ReleasesAll, Span(35, LastMinor), "depends on GracefulNodeShutdown"},
		// WindowsGracefulNodeShutdown, on by default, depends on it too.
		{"a dependency and one of its gates turned off", map[string]bool{"GracefulNodeShutdown": false, "GracefulNodeShutdownBasedOnPodPriority": false}, Span(35, LastMinor), Span(35, LastMinor), "WindowsGracefulNodeShutdown is on"},
		{"a dependency and its gates turned off", map[string]bool{"GracefulNodeShutdown": false, "GracefulNodeShutdownBasedOnPodPriority": false, "WindowsGracefulNodeShutdown": false}, Span(35, LastMinor), 0, ""},
		{"nothing set", nil, ReleasesAll, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refuse, _, why := GatesRefusal(tt.gates, tt.rs)
			if refuse != tt.refuse || !strings.Contains(why, tt.why) {
				t.Errorf("GatesRefusal = %v, %q; want %v, %q", refuse, why, tt.refuse, tt.why)
			}
		})
	}
	if on, known := GateDefault(gate, Span(29, 32)); !on || !known {
		t.Errorf("%s on by default in 1.29–1.32: %v, %v", gate, on, known)
	}
	if _, known := GateDefault(gate, Span(28, 29)); known {
		t.Errorf("%s: 1.28 (off) and 1.29 (on) disagree, yet the default is known", gate)
	}
}

// TestTables: the embedded tables read, and each gate dependency names
// gates its releases know.
func TestTables(t *testing.T) {
	t.Parallel()
	if len(flagTable()) < 150 || len(gateTable()) < 300 || len(gateDeps()) == 0 {
		t.Fatalf("tables: %d flags, %d gates, %d dependencies", len(flagTable()), len(gateTable()), len(gateDeps()))
	}
	for _, d := range gateDeps() {
		for _, g := range []string{d.gate, d.needs} {
			if known := releaseChars(gateTable()[g], "tfTF"); known&d.in != d.in {
				t.Errorf("%s needs %s in %v, but %s is known only in %v", d.gate, d.needs, d.in, g, known)
			}
		}
	}
	for _, bad := range []string{"x ttt\n", "x " + strings.Repeat("t", 12) + "z\n", "x " + strings.Repeat("t", 13) + "\nx " + strings.Repeat("f", 13) + "\n"} {
		if _, err := parseRows(bad, "tf"); err == nil {
			t.Errorf("parseRows(%q) accepted it", bad)
		}
	}
}
