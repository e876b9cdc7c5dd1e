package edit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseJQ(t *testing.T) {
	t.Parallel()
	taint := map[string]any{"key": "a", "effect": "NoSchedule"}
	tests := []struct {
		name, filter string
		args         []string
		want         []Edit
		err          bool
	}{
		{"set", ".maxPods = 20", nil, []Edit{{Path: []string{"maxPods"}, Op: Set, Value: 20.0}}, false},
		{"add a list with bare keys", `.registerWithTaints += [{key: "a", effect: "NoSchedule"}]`, nil,
			[]Edit{{Path: []string{"registerWithTaints"}, Op: Add, Value: []any{taint}}}, false},
		{"nested path and a pipe", `.a.b="x" | ."c-d" = true | .["e"] = null`, nil,
			[]Edit{{Path: []string{"a", "b"}, Op: Set, Value: "x"}, {Path: []string{"c-d"}, Op: Set, Value: true}, {Path: []string{"e"}, Op: Set}}, false},
		// bootstrap.sh's own form (templates/al2/runtime/bootstrap.sh@0ab84280 L526).
		{"merge an object into the document", `. += {"evictionHard": {"memory.available": "100Mi"}}`, nil,
			[]Edit{{Path: []string{"evictionHard"}, Op: Set, Value: map[string]any{"memory.available": "100Mi"}}}, false},
		{"--arg and --argjson", `.a = $x | .b = $y`, []string{"--arg", "x", "1", "--argjson", "y", "[1]"},
			[]Edit{{Path: []string{"a"}, Op: Set, Value: "1"}, {Path: []string{"b"}, Op: Set, Value: []any{1.0}}}, false},
		{"del", "del(.a, .b.c)", nil, []Edit{{Path: []string{"a"}, Op: Delete}, {Path: []string{"b", "c"}, Op: Delete}}, false},
		{"identity", ".", nil, nil, false},
		{"update assignment is not followed", ".a |= . + 1", nil, nil, true},
		{"an expression value is not followed", ".a = .b", nil, nil, true},
		{"interpolation is not followed", `.a = "\(.b)"`, nil, nil, true},
		{"an undefined $name", ".a = $x", nil, nil, true},
		{"setting the whole document", ". = {}", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJQ(tt.filter, tt.args)
			if (err != nil) != tt.err {
				t.Fatalf("ParseJQ(%q) error = %v; want error %v", tt.filter, err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAddValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b, want any
		ok         bool
	}{
		{nil, []any{"x"}, []any{"x"}, true},
		{[]any{"x"}, []any{"y"}, []any{"x", "y"}, true},
		{map[string]any{"a": 1.0, "b": 1.0}, map[string]any{"b": 2.0}, map[string]any{"a": 1.0, "b": 2.0}, true},
		{1.0, 2.0, 3.0, true},
		{"a", "b", "ab", true},
		{"a", 1.0, nil, false},
		{true, true, nil, false},
	}
	for _, tt := range tests {
		got, ok := AddValues(tt.a, tt.b)
		if ok != tt.ok || ok && !cmp.Equal(tt.want, got) {
			t.Errorf("AddValues(%v, %v) = %v, %v; want %v, %v", tt.a, tt.b, got, ok, tt.want, tt.ok)
		}
	}
}
