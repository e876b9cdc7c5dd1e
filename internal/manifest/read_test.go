package manifest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		lines []int
		docs  []string
	}{
		{"one", "a: 1\n", []int{1}, []string{"a: 1\n"}},
		{"two", "a: 1\n---\nb: 2\n", []int{1, 3}, []string{"a: 1\n", "b: 2\n"}},
		{"leading separator", "---\na: 1\n", []int{1, 2}, []string{"", "a: 1\n"}},
		{"comment after separator", "a: 1\n--- # next\nb: 2", []int{1, 3}, []string{"a: 1\n", "b: 2"}},
		{"indented dashes are text", "a: |\n  ---\n  x\n", []int{1}, []string{"a: |\n  ---\n  x\n"}},
		{"JSON stream", "{\"a\": 1}\n\n  {\"b\":\n 2}", []int{1, 3}, []string{`{"a": 1}`, "{\"b\":\n 2}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := Split([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			var texts []string
			for _, d := range docs {
				lines = append(lines, d.Line)
				texts = append(texts, string(d.Data))
			}
			if diff := cmp.Diff(tt.lines, lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.docs, texts); diff != "" {
				t.Errorf("documents (-want +got):\n%s", diff)
			}
		})
	}
	// apimachinery pkg/util/yaml/decoder.go L413-422: only a comment may
	// follow the separator.
	if _, err := Split([]byte("a: 1\n--- b: 2\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("Split with text after --- = %v; want an error naming line 2", err)
	}
}

// ToJSON reads plain scalars as YAML 1.1 does in go.yaml.in/yaml/v2
// (resolve.go L35-48 for the words, L99-170 for numbers and timestamps;
// decode.go L471-481 keeps a timestamp a string), which is what kubectl
// sends: these are the values that turn a string field into an error.
func TestToJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{"v: yes", `{"v":true}`},
		{"v: on", `{"v":true}`},
		{"v: y", `{"v":true}`},
		{"v: No", `{"v":false}`},
		{"v: off", `{"v":false}`},
		{"v: ~", `{"v":null}`},
		{"v: null", `{"v":null}`},
		{"v: 08", `{"v":8}`},
		{"v: 0x1F", `{"v":31}`},
		{"v: 1_000", `{"v":1000}`},
		{"v: 1e3", `{"v":1000}`},
		{"v: 1.5", `{"v":1.5}`},
		{"v: 2024-01-02", `{"v":"2024-01-02"}`},
		{"v: 'yes'", `{"v":"yes"}`},
		{"on: x", `{"true":"x"}`},
		// decode.go L685-691: a key written twice keeps its last value
		// unless decoding is strict, which kubectl's reader is not.
		{"v: 1\nv: 2", `{"v":2}`},
		{`{"v": 1}`, `{"v": 1}`},
	}
	for _, tt := range tests {
		got, err := ToJSON([]byte(tt.in))
		if err != nil {
			t.Errorf("ToJSON(%q): %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("ToJSON(%q) = %s; want %s", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"a: [", `{"v": 1, "v": 2}`, "v: .inf"} {
		if _, err := ToJSON([]byte(bad)); err == nil {
			t.Errorf("ToJSON(%q) = nil error; want one", bad)
		}
	}
	if _, err := ToJSON([]byte("a: 1\nb: [\n")); ErrorLine(err) != 2 {
		t.Errorf("ErrorLine(%v) = %d; want 2", err, ErrorLine(err))
	}
}

// Numbers come out as the API server sees them after kubectl's round trip
// through an unstructured object: a float64 with no fraction is written
// as an integer, and read back as an int64.
func TestDecode(t *testing.T) {
	v, err := Decode([]byte(`{"a":1,"b":2.0,"c":1.5,"d":1e3,"e":1e20,"f":-0,"g":[1.0]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": int64(1), "b": int64(2), "c": 1.5, "d": int64(1000), "e": 1e20, "f": int64(0), "g": []any{int64(1)}}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`{"a":1e400}`, `{} {}`, `{`} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%s) = nil error; want one", bad)
		}
	}
}

func FuzzSplit(f *testing.F) {
	f.Add([]byte("a: 1\n---\nb: [yes, 08]\n"))
	f.Add([]byte("{\"a\": 1} {\"b\": 2}"))
	f.Add([]byte("--- x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := Split(data)
		if err != nil {
			return
		}
		for _, d := range docs {
			if !bytes.Contains(data, d.Data) {
				t.Fatalf("document %q is not part of the input", d.Data)
			}
			if j, err := ToJSON(d.Data); err == nil {
				_, _ = Decode(j) // must not panic
			}
		}
	})
}
