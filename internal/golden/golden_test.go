package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden")
	Check(t, path, []byte("one\n"), true)
	if b, _ := os.ReadFile(path); string(b) != "one\n" {
		t.Fatalf("update wrote %q", b)
	}
	Check(t, path, []byte("one\n"), false)
	r := &recorder{TB: t}
	Check(r, path, []byte("two\n"), false)
	if !r.failed {
		t.Error("Check passed output that differs from the golden file")
	}
}

func TestSection(t *testing.T) {
	out := "intro\n\n1. first\na\n\n2. second\nb\n"
	if got := Section(t, out, "1. "); got != "1. first\na\n" {
		t.Errorf("Section(1.) = %q", got)
	}
	if got := Section(t, out, "2. "); got != "2. second\nb\n" {
		t.Errorf("Section(2.) = %q", got)
	}
}
