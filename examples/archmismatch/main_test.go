package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/output.golden with the current output")

func TestRun(t *testing.T) {
	var buf bytes.Buffer
	if err := run(context.Background(), &buf); err != nil {
		t.Fatalf("run: %v", err)
	}
	got := buf.String()

	golden := filepath.Join("testdata", "output.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("output differs from %s (-want +got); if the change is intended, run go test -update:\n%s", golden, diff)
	}

	step1, step2, step3 := section(t, got, "1. "), section(t, got, "2. "), section(t, got, "3. ")
	for _, c := range []struct{ in, text, why string }{
		{got, "ami-0c0ffee0000000301 (custom amd64) requires kubernetes.io/arch In [amd64]", "the custom AMI must state only its architecture"},
		{step1, "archs amd64 135, arm64 0\n", "every amd64 type, and no arm64 type, maps to the amd64 AMI"},
		{step1, "unmapped: 57 types, archs amd64 0, arm64 57", "every arm64 type stays unmapped"},
		{step2, "57 of 57 types conflict on kubernetes.io/arch (instance arm64, AMI amd64)", "Mapping.Err must name the conflicting key with counts"},
		{step2, "fix: add kubernetes.io/arch In [amd64] to the NodePool requirements", "Mapping.Err must suggest the arch requirement"},
		{step3, "kubernetes.io/arch In [amd64] the NodePool offers 135 of the 192 types", "the fix must keep exactly the amd64 types"},
		{step3, "unmapped: none", "with the fix every offered type maps"},
	} {
		if !strings.Contains(c.in, c.text) {
			t.Errorf("%s: output lacks %q", c.why, c.text)
		}
	}
}

// section returns the output from the line starting with prefix to the
// next blank line.
func section(t *testing.T, out, prefix string) string {
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
