package kubelet

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSetConfigurationMap: k8s.io/component-base/cli/flag
// ConfigurationMap.Set: split on ',', skip empty entries, split on the
// first '=', trim; a later entry wins.
func TestSetConfigurationMap(t *testing.T) {
	t.Parallel()
	m := map[string]string{"old": "1"}
	SetConfigurationMap(m, "a=1,,b = 2 ,c,d=e=f")
	SetConfigurationMap(m, "a=3")
	want := map[string]string{"old": "1", "a": "3", "b": "2", "c": "", "d": "e=f"}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}

func TestSplitList(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff([]string{"10.0.0.10", "fd00::a"}, SplitList(" 10.0.0.10,, fd00::a ,")); diff != "" {
		t.Errorf("SplitList (-want +got):\n%s", diff)
	}
	if got := SplitList(""); got != nil {
		t.Errorf("SplitList(\"\") = %q; want none", got)
	}
}

// TestParseMap: MapStringString ("=") and LangleSeparatedMapStringString
// ("<"), as --system-reserved and --eviction-hard read them.
func TestParseMap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, sep string
		want      map[string]string
		err       string
	}{
		{"cpu=100m, memory = 1Gi,", "=", map[string]string{"cpu": "100m", "memory": "1Gi"}, ""},
		{"memory.available<500Mi,nodefs.available<10%", "<", map[string]string{"memory.available": "500Mi", "nodefs.available": "10%"}, ""},
		{"", "=", map[string]string{}, ""},
		{"cpu", "=", nil, `entry "cpu" is not key=value`},
		{"memory.available=1", "<", nil, `entry "memory.available=1" is not key<value`},
	}
	for _, tt := range tests {
		got, err := ParseMap(tt.text, tt.sep)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseMap(%q, %q) error = %v; want %q", tt.text, tt.sep, err, tt.err)
			}
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" || err != nil {
			t.Errorf("ParseMap(%q, %q) (-want +got):\n%s%v", tt.text, tt.sep, diff, err)
		}
	}
}

// TestDurations: metav1.Duration is Go's time.ParseDuration, and writes
// back as time.Duration's String.
func TestDurations(t *testing.T) {
	t.Parallel()
	got, err := Durations(map[string]string{"memory.available": "1m30s", "nodefs.available": "0s"})
	want := map[string]time.Duration{"memory.available": 90 * time.Second, "nodefs.available": 0}
	if diff := cmp.Diff(want, got); diff != "" || err != nil {
		t.Errorf("Durations (-want +got):\n%s%v", diff, err)
	}
	if _, err := Durations(map[string]string{"memory.available": "90"}); err == nil || err.Error() != "memory.available=90 is not a duration" {
		t.Errorf("Durations(90) error = %v", err)
	}
	if diff := cmp.Diff(map[string]string{"memory.available": "1m30s"}, DurationStrings(map[string]time.Duration{"memory.available": 90 * time.Second})); diff != "" {
		t.Errorf("DurationStrings (-want +got):\n%s", diff)
	}
	if DurationStrings(map[string]time.Duration{}) != nil {
		t.Error("DurationStrings(empty) is not nil")
	}
}

// TestWholeNumber: the numbers YAML/JSON (float64), TOML (int64) and
// Bottlerocket's string percentages decode to, within int32.
func TestWholeNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw  any
		want int32
		ok   bool
	}{
		{int64(110), 110, true},
		{float64(110), 110, true},
		{float64(1.5), 0, false},
		{"85", 85, true},
		{"85%", 0, false},
		{int64(1 << 31), 0, false},
		{float64(-1 << 31), -1 << 31, true},
		{float64(-1<<31 - 1), 0, false},
		{true, 0, false},
		{nil, 0, false},
	}
	for _, tt := range tests {
		if got, ok := WholeNumber(tt.raw); got != tt.want || ok != tt.ok {
			t.Errorf("WholeNumber(%#v) = %d, %v; want %d, %v", tt.raw, got, ok, tt.want, tt.ok)
		}
	}
}

func TestStringMap(t *testing.T) {
	t.Parallel()
	got, ok := StringMap(map[string]any{"cpu": "100m"})
	if diff := cmp.Diff(map[string]string{"cpu": "100m"}, got); diff != "" || !ok {
		t.Errorf("StringMap (-want +got):\n%s", diff)
	}
	for _, raw := range []any{map[string]any{"cpu": 1}, []any{"cpu"}, "cpu=1", nil} {
		if _, ok := StringMap(raw); ok {
			t.Errorf("StringMap(%#v) accepted it", raw)
		}
	}
}

// TestLookup: the kubelet decodes its config with encoding/json, whose
// field matching ignores case; an exact key wins, then the first of the
// others by key order (encoding/json takes the last duplicate in the
// text, which a decoded map no longer has; key order makes it
// deterministic).
func TestLookup(t *testing.T) {
	t.Parallel()
	m := map[string]any{"maxPods": 1, "MAXPODS": 2, "maxpods": 3, "registerwithtaints": 4}
	for key, want := range map[string]any{"maxPods": 1, "MaxPods": 2, "registerWithTaints": 4, "podsPerCore": nil} {
		if got := Lookup(m, key); got != want {
			t.Errorf("Lookup(%q) = %v; want %v", key, got, want)
		}
	}
}

// TestParseGates: k8s.io/component-base@v0.35.3 cli/flag/map_string_bool.go
// Set: split on ',', empty entries skipped, split on the first '=', both
// sides trimmed, strconv.ParseBool; a later entry wins.
func TestParseGates(t *testing.T) {
	t.Parallel()
	got, err := ParseGates(" A = true,,B=0,A=F, C=TRUE")
	if diff := cmp.Diff(map[string]bool{"A": false, "B": false, "C": true}, got); diff != "" || err != nil {
		t.Errorf("ParseGates (-want +got):\n%s%v", diff, err)
	}
	for _, bad := range []string{"A", "A=yes", " ", "A=true,B"} {
		if _, err := ParseGates(bad); err == nil {
			t.Errorf("ParseGates(%q) accepted it", bad)
		}
	}
}

// TestLookupKey tells a key set to null from a missing one.
func TestLookupKey(t *testing.T) {
	t.Parallel()
	m := map[string]any{"maxPods": nil, "EvictionHard": map[string]any{}}
	if v, ok := LookupKey(m, "maxPods"); v != nil || !ok {
		t.Errorf("maxPods = %v, %v; want nil, found", v, ok)
	}
	if _, ok := LookupKey(m, "evictionHard"); !ok {
		t.Error("evictionHard not found in another case")
	}
	if _, ok := LookupKey(m, "podsPerCore"); ok {
		t.Error("a missing key found")
	}
}
