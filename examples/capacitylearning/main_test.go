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

	order := section(t, got, "bottlerocket@latest")
	first, old := section(t, got, "A pod requests"), section(t, got, "Karpenter's old lookup")
	observe, second, stale := section(t, got, "capacity.Cache.Observe"), section(t, got, "Second launch"), section(t, got, "A node still")
	for _, c := range []struct{ in, text, why string }{
		{order, "5 AMIs from 4 images", "the alias resolves to four images, the x86_64 one serving standard and Neuron"},
		{order, "in selection order:\n  2025-10-07 16:25  ami-0103053eef770bb28 arm64 nvidia   ", "the newest AMI, NVIDIA, comes first"},
		{first, "launches m5.large\nThe node runs ami-08ee4a0deae5f04ca (bottlerocket amd64 standard)", "m5.large maps to the standard x86_64 AMI"},
		{old, "picks ami-0f52182b72b398691 (bottlerocket amd64 nvidia)", "Karpenter's lenient first match picks the NVIDIA AMI (#7925)"},
		{observe, "needs karpenter.k8s.aws/instance-gpu-count Exists;\n  the node has karpenter.k8s.aws/instance-gpu-count DoesNotExist", "the node's labels must say it has no GPU"},
		{observe, "recorded true: m5.large under ami-08ee4a0deae5f04ca = 7558 MiB", "Observe records under the standard AMI"},
		{second, "m5.large     7558 MiB (learned)", "Apply puts the learned memory in place of the catalog's"},
		{second, "launches m5.xlarge", "the second launch is sized by the learned memory"},
		{stale, "refused (ErrUnknownImage: true)", "a node on an AMI no longer selected is refused"},
		{stale, "1 recorded, 1 refused; m5.large still 7558 MiB", "the refused figure must not replace the learned one"},
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
