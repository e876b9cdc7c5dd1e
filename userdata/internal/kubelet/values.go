package kubelet

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SetConfigurationMap applies one --node-labels value as the kubelet's
// ConfigurationMap does (k8s.io/component-base/cli/flag): entries split on
// ',', empty ones skipped, each split on the first '=', key and value
// trimmed; later entries win.
func SetConfigurationMap(m map[string]string, value string) {
	for _, s := range strings.Split(value, ",") {
		if s == "" {
			continue
		}
		k, v, _ := strings.Cut(s, "=")
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
}

// SplitList splits a comma-separated flag value (--cluster-dns), trimming
// each entry and dropping empty ones.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseMap reads a map flag's value, "k<sep>v,k2<sep>v2", as the
// kubelet's MapStringString (sep "=") and LangleSeparatedMapStringString
// (sep "<") do (k8s.io/component-base cli/flag map_string_string.go,
// langle_separated_map_string_string.go Set): empty entries skipped (an
// entry of spaces is not empty, and has no separator), each split on the
// first separator, key and value trimmed.
func ParseMap(text, sep string) (map[string]string, error) {
	m := map[string]string{}
	for _, entry := range strings.Split(text, ",") {
		if entry == "" {
			continue
		}
		k, v, ok := strings.Cut(entry, sep)
		if !ok {
			return nil, fmt.Errorf("entry %q is not key%svalue", entry, sep)
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return m, nil
}

// Durations parses each value as a Go duration, the kubelet's
// time.ParseDuration of a metav1.Duration.
func Durations(m map[string]string) (map[string]time.Duration, error) {
	out := make(map[string]time.Duration, len(m))
	for k, s := range m {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("%s=%s is not a duration", k, s)
		}
		out[k] = d
	}
	return out, nil
}

// DurationStrings formats durations as Go durations ("1m30s"), the form
// metav1.Duration marshals to and [Durations] reads; nil for none.
func DurationStrings(m map[string]time.Duration) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, d := range m {
		out[k] = d.String()
	}
	return out
}

// WholeNumber accepts the number types the YAML, JSON and TOML decoders
// produce (int64, float64 without a fraction), and, for Bottlerocket's
// percentages, a string of digits, within int32.
func WholeNumber(raw any) (int32, bool) {
	var n int64
	switch x := raw.(type) {
	case int64:
		n = x
	case float64:
		if x != float64(int64(x)) {
			return 0, false
		}
		n = int64(x)
	case string:
		v, err := strconv.ParseInt(x, 10, 32)
		if err != nil {
			return 0, false
		}
		n = v
	default:
		return 0, false
	}
	if n < -1<<31 || n > 1<<31-1 {
		return 0, false
	}
	return int32(n), true
}

// StringMap returns a decoded table whose values are all strings.
func StringMap(raw any) (map[string]string, bool) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		out[k] = s
	}
	return out, true
}

// Lookup finds a key of a decoded KubeletConfiguration the way the kubelet
// decodes its merged config: with encoding/json, whose field matching
// ignores case (kubernetes cmd/kubelet/app/server.go, the drop-in merge);
// an exact match wins, then the first of the others in key order.
func Lookup(m map[string]any, key string) any {
	if v, ok := m[key]; ok {
		return v
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if strings.EqualFold(k, key) {
			return m[k]
		}
	}
	return nil
}

// LookupKey is [Lookup] that also says whether the key is there, so that
// a key set to null (nil) is told from a missing one.
func LookupKey(m map[string]any, key string) (any, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if strings.EqualFold(k, key) {
			return m[k], true
		}
	}
	return nil, false
}

// ParseGates reads a --feature-gates value as the kubelet's MapStringBool
// does (k8s.io/component-base@v0.35.3 cli/flag/map_string_bool.go Set):
// entries split on ',', empty ones skipped, each "name=bool" split on the
// first '=', both trimmed, the bool as strconv.ParseBool reads it.
func ParseGates(value string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, s := range strings.Split(value, ",") {
		if s == "" {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("entry %q is not name=true or name=false", s)
		}
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("gate %s: %q is not true or false", strings.TrimSpace(k), strings.TrimSpace(v))
		}
		out[strings.TrimSpace(k)] = b
	}
	return out, nil
}
