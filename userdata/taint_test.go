package userdata

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestParseTaint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Taint
		wantErr string // substring of the error; "" means success
	}{
		{in: "karpenter.sh/unregistered:NoExecute", want: Taint{Key: "karpenter.sh/unregistered", Effect: NoExecute}},
		{in: "team=a:NoSchedule", want: Taint{Key: "team", Value: "a", Effect: NoSchedule}},
		{in: "example.com/gpu=true:PreferNoSchedule", want: Taint{Key: "example.com/gpu", Value: "true", Effect: PreferNoSchedule}},
		{in: "k=:NoSchedule", want: Taint{Key: "k", Effect: NoSchedule}},
		{in: "team", wantErr: "has no effect"},
		{in: "team=a", wantErr: "has no effect"},
		{in: "a:b:NoSchedule", wantErr: "more than one ':'"},
		{in: "a=b=c:NoSchedule", wantErr: "more than one '='"},
		{in: "team:noschedule", wantErr: `effect "noschedule"`},
		{in: "team:", wantErr: "the effect is missing"},
		{in: "team=a/b:NoSchedule", wantErr: "value"},
		{in: ":NoSchedule", wantErr: "key"},
		{in: "Example.com/x:NoSchedule", wantErr: "prefix"},
		{in: " team:NoSchedule", wantErr: "whitespace"},
		{in: "team:NoSchedule-", wantErr: "removing a taint"},
		{in: strings.Repeat("a", 64) + ":NoSchedule", wantErr: "63"},
	}
	for _, tt := range tests {
		got, err := ParseTaint(tt.in)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("ParseTaint(%q) error: %v", tt.in, err)
				continue
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseTaint(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "userdata: ") {
			t.Errorf("ParseTaint(%q) error = %v; want one containing %q", tt.in, err, tt.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), tt.in) {
			t.Errorf("ParseTaint(%q) error %q does not quote the input", tt.in, err)
		}
	}
}

func TestParseTaints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []Taint
		wantErr string
	}{
		{in: "", want: nil},
		{in: "a:NoSchedule,b=c:NoExecute", want: []Taint{{Key: "a", Effect: NoSchedule}, {Key: "b", Value: "c", Effect: NoExecute}}},
		{in: "a:NoSchedule,a:NoExecute", want: []Taint{{Key: "a", Effect: NoSchedule}, {Key: "a", Effect: NoExecute}}},
		{in: "env=prod:NoSchedule,env=staging:NoSchedule", wantErr: "share key and effect"},
		{in: "a:NoSchedule,", wantErr: "empty entry"},
		{in: "a:NoSchedule, b:NoSchedule", wantErr: "whitespace"},
		{in: "a:NoSchedule,b:NoSchedule-", wantErr: "removing"},
	}
	for _, tt := range tests {
		got, err := ParseTaints(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseTaints(%q) error = %v; want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseTaints(%q) error: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseTaints(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestEffectiveTaints(t *testing.T) {
	t.Parallel()
	unreg := UnregisteredTaint()
	uninit := Taint{Key: "karpenter.sh/uninitialized", Effect: NoExecute}
	tests := []struct {
		name                     string
		taints, startup, require []Taint
		want                     []Taint
		wantErr                  string
	}{
		{name: "required appended", taints: []Taint{{Key: "a", Effect: NoSchedule}}, require: []Taint{unreg},
			want: []Taint{{Key: "a", Effect: NoSchedule}, unreg}},
		{name: "required matched by key and effect, value ignored",
			startup: []Taint{{Key: unreg.Key, Value: "x", Effect: NoExecute}}, require: []Taint{unreg},
			want: []Taint{{Key: unreg.Key, Value: "x", Effect: NoExecute}}},
		{name: "same key, other effect is another taint",
			taints: []Taint{{Key: unreg.Key, Effect: NoSchedule}}, require: []Taint{unreg},
			want: []Taint{{Key: unreg.Key, Effect: NoSchedule}, unreg}},
		{name: "exact repeat dropped", taints: []Taint{{Key: "a", Value: "1", Effect: NoSchedule}}, startup: []Taint{{Key: "a", Value: "1", Effect: NoSchedule}}, require: []Taint{},
			want: []Taint{{Key: "a", Value: "1", Effect: NoSchedule}}},
		{name: "conflict", taints: []Taint{{Key: "a", Value: "1", Effect: NoSchedule}}, startup: []Taint{{Key: "a", Value: "2", Effect: NoSchedule}},
			wantErr: "Config.StartupTaints[0]"},
		{name: "override required", require: []Taint{uninit}, want: []Taint{uninit}},
		{name: "duplicate required", require: []Taint{uninit, uninit}, wantErr: "Config.RequiredTaints"},
		{name: "invalid", taints: []Taint{{Key: "a"}}, wantErr: "Config.Taints[0]"},
	}
	for _, tt := range tests {
		got, err := effectiveTaints(tt.taints, tt.startup, tt.require)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error = %v; want one containing %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

// Generators of valid Kubernetes names, shared by the property tests.

func genName() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		edge := rapid.SampledFrom([]rune("abcxyzABZ019")).Draw(t, "edge")
		mid := rapid.StringOfN(rapid.SampledFrom([]rune("abcXYZ09-_.")), 0, 20, -1).Draw(t, "mid")
		if mid == "" {
			return string(edge)
		}
		last := rapid.SampledFrom([]rune("az09Z")).Draw(t, "last")
		return string(edge) + mid + string(last)
	})
}

func genPrefix() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		labels := rapid.SliceOfN(rapid.StringMatching(`[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?`), 1, 3).Draw(t, "labels")
		return strings.Join(labels, ".")
	})
}

func genKey() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		name := genName().Draw(t, "name")
		if rapid.Bool().Draw(t, "prefixed") {
			p := genPrefix().Draw(t, "prefix")
			if forbiddenLabel(p + "/" + name) {
				p = "example.com"
			}
			return p + "/" + name
		}
		return name
	})
}

func genTaint() *rapid.Generator[Taint] {
	return rapid.Custom(func(t *rapid.T) Taint {
		value := ""
		if rapid.Bool().Draw(t, "hasValue") {
			value = genName().Draw(t, "value")
		}
		return Taint{
			Key:    genKey().Draw(t, "key"),
			Value:  value,
			Effect: rapid.SampledFrom([]Effect{NoSchedule, PreferNoSchedule, NoExecute}).Draw(t, "effect"),
		}
	})
}

// genTaints draws taints unique by key and effect.
func genTaints(max int) *rapid.Generator[[]Taint] {
	return rapid.Custom(func(t *rapid.T) []Taint {
		all := rapid.SliceOfN(genTaint(), 0, max).Draw(t, "taints")
		var out []Taint
		for _, x := range all {
			if !containsMatch(out, x) {
				out = append(out, x)
			}
		}
		return out
	})
}

func genLabels(max int) *rapid.Generator[map[string]string] {
	return rapid.MapOfN(genKey(), rapid.OneOf(rapid.Just(""), genName()), 0, max)
}

func TestTaintsRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		taints := genTaints(8).Draw(t, "taints")
		for _, x := range taints {
			if err := x.Validate(); err != nil {
				t.Fatalf("generator made an invalid taint: %v", err)
			}
			one, err := ParseTaint(x.String())
			if err != nil || one != x {
				t.Fatalf("ParseTaint(%q) = %v, %v; want %v", x.String(), one, err, x)
			}
		}
		got, err := ParseTaints(FormatTaints(taints))
		if err != nil {
			t.Fatalf("ParseTaints(%q): %v", FormatTaints(taints), err)
		}
		if len(taints) == 0 {
			taints = nil
		}
		if diff := cmp.Diff(taints, got); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
	})
}

// FuzzParseTaints checks that ParseTaints never panics, that what it
// accepts round-trips through FormatTaints, and that it agrees with the
// model of the kubelet's own parser: whatever ParseTaints accepts, the
// kubelet registers identically.
func FuzzParseTaints(f *testing.F) {
	for _, s := range []string{"", "a:NoSchedule", "a=b:NoExecute,c:PreferNoSchedule", "a:b:c", "a=b=c:NoSchedule", "a:NoSchedule-", "a,b", "k=v", "é:NoSchedule", "a:NoSchedule,a:NoSchedule"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		taints, err := ParseTaints(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "userdata: ") {
				t.Errorf("ParseTaints(%q) error %q lacks the package prefix", s, err)
			}
			return
		}
		again, err := ParseTaints(FormatTaints(taints))
		if err != nil || !slices.Equal(again, taints) {
			t.Fatalf("ParseTaints(FormatTaints(%v)) = %v, %v", taints, again, err)
		}
		kubelet, removed, code, msg := kubeletTaints(s)
		if code != "" || len(removed) > 0 || !slices.Equal(kubelet, taints) {
			t.Fatalf("ParseTaints(%q) = %v but the kubelet model gives %v, removed %v, %s %s", s, taints, kubelet, removed, code, msg)
		}
	})
}
