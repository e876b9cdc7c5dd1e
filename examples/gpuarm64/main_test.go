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

	al2, al2023, bottlerocket := section(t, got, "al2@latest"), section(t, got, "al2023@latest"), section(t, got, "bottlerocket@latest")
	others := section(t, got, "Other accelerators")
	for _, c := range []struct{ in, text, why string }{
		{got, "g5g.xlarge   arm64, 1 nvidia t4g GPU", "g5g is arm64 with one NVIDIA T4G"},
		{al2, "g5g.xlarge   → no AMI", "AL2 has no arm64 NVIDIA AMI, so g5g must not map"},
		{al2, "(al2 amd64 nvidia) needs kubernetes.io/arch In [amd64]; it has kubernetes.io/arch In [arm64]", "AL2's x86_64 GPU AMI must be refused on the architecture (#3217)"},
		{al2, "fix: no arm64 NVIDIA AMI in family al2; use bottlerocket or al2023", "the AL2 explanation must name the families that publish one"},
		{al2023, "(al2023 arm64 nvidia) amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403", "g5g takes AL2023's arm64 NVIDIA AMI"},
		{bottlerocket, "(bottlerocket arm64 nvidia) bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.49.0-713f44ce", "g5g takes Bottlerocket's arm64 NVIDIA AMI"},
		{got, "g4ad.8xlarge (AMD) satisfies it: true.", "Karpenter's NVIDIA requirement accepts an AMD GPU"},
		{got, "instance-gpu-manufacturer In [nvidia]: satisfies it: false.", "compat's NVIDIA requirement refuses an AMD GPU"},
		{others, "inf2.xlarge  → ami-08ee4a0deae5f04ca (bottlerocket amd64 neuron)", "inf2 takes the Neuron role of Bottlerocket's x86_64 image"},
		{others, "g4ad.8xlarge → no AMI", "no Bottlerocket AMI runs an AMD GPU"},
		{others, "instance-gpu-manufacturer NotIn [amd]", "the g4ad fix keeps AMD GPUs out"},
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
