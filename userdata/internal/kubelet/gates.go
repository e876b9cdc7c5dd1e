package kubelet

import (
	"fmt"
	"maps"
	"slices"
)

// GatesRefusal applies a kubelet's feature gate settings as each release
// in rs does, and returns the releases whose kubelet exits on them, with
// the gate at fault (one of those set) and the reason for the first such
// release: a gate the release does not know ("unrecognized feature
// gate"), one locked to the other value, or, once the gates are set, one
// left on that depends on a gate left off ("is enabled, but depends on
// features that are disabled", from 1.35). The kubelet sets its gates from its flags and config before
// anything else and exits on the error (cmd/kubelet/app/server.go@v1.35.3
// L204-206, L235-237; k8s.io/component-base@v0.35.3
// featuregate/feature_gate.go unsafeSetFromMap L374-437).
func GatesRefusal(gates map[string]bool, rs Releases) (refuse Releases, gate, why string) {
	names := slices.Sorted(maps.Keys(gates))
	for m := FirstMinor; m <= LastMinor; m++ {
		r := Minor(m)
		if rs&r == 0 {
			continue
		}
		if g, w := gatesRefusalIn(gates, names, m); g != "" {
			if refuse == 0 {
				gate, why = g, w
			}
			refuse |= r
		}
	}
	return refuse, gate, why
}

func gatesRefusalIn(gates map[string]bool, names []string, minor int) (gate, why string) {
	i := minor - FirstMinor
	state := func(name string) byte {
		if row := gateTable()[name]; i < len(row) {
			return row[i]
		}
		return '.'
	}
	for _, name := range names {
		on := gates[name]
		switch c := state(name); {
		case c == '.':
			return name, fmt.Sprintf("the kubelet has no feature gate %s (\"unrecognized feature gate\")", name)
		case c == 'T' && !on || c == 'F' && on:
			return name, fmt.Sprintf("the feature gate %s is locked to %v (\"cannot set feature gate %s to %v\")", name, !on, name, on)
		}
	}
	enabled := func(name string) bool {
		if on, ok := gates[name]; ok {
			return on
		}
		c := state(name)
		return c == 't' || c == 'T'
	}
	for _, dep := range gateDeps() {
		if dep.in.Has(minor) && enabled(dep.gate) && !enabled(dep.needs) {
			// Blame the gate the settings turned off, or else the one they
			// turned on: one of the two is set.
			blame := dep.needs
			if _, set := gates[blame]; !set {
				blame = dep.gate
			}
			return blame, fmt.Sprintf("the feature gate %s is on and depends on %s, which is off (\"depends on features that are disabled\")", dep.gate, dep.needs)
		}
	}
	return "", ""
}

// GateDefault reports whether the feature gate name is on by default in
// every release of rs, and whether that is known (the releases agree and
// know the gate).
func GateDefault(name string, rs Releases) (on, known bool) {
	row := gateTable()[name]
	onIn, offIn := releaseChars(row, "tT")&rs, releaseChars(row, "fFp")&rs
	switch rs {
	case onIn:
		return true, rs != 0
	case offIn:
		return false, rs != 0
	}
	return false, false
}

// SignalReleases returns the releases whose kubelet knows the eviction
// signal (pkg/kubelet/eviction/helpers.go signalToResource, read at every
// release from v1.24.17 to v1.36.3: containerfs.available and
// containerfs.inodesFree came in v1.29).
func SignalReleases(signal string) Releases {
	switch signal {
	case "memory.available", "allocatableMemory.available", "nodefs.available", "nodefs.inodesFree",
		"imagefs.available", "imagefs.inodesFree", "pid.available":
		return ReleasesAll
	case "containerfs.available", "containerfs.inodesFree":
		return Span(29, LastMinor)
	}
	return 0
}
