// Package golden holds the test helpers for output checked against files
// under testdata: compare with a golden file or rewrite it, and find a
// titled section of a report. Tests keep their own -update flag and pass
// its value in, so the helper registers nothing globally.
package golden

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Check compares got with the file at path. With update, it writes got to
// the file first, so the comparison passes and the file is refreshed.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("output differs from %s (-want +got); if the change is intended, run go test -update:\n%s", path, diff)
	}
}

// Section returns the part of out from the line that starts with prefix
// up to the next blank line, and fails t if no line starts with prefix.
func Section(t testing.TB, out, prefix string) string {
	t.Helper()
	i := strings.Index(out, "\n"+prefix)
	if i < 0 {
		t.Fatalf("output has no section %q", prefix)
	}
	s := out[i+1:]
	if j := strings.Index(s, "\n\n"); j >= 0 {
		s = s[:j+1]
	}
	return s
}
