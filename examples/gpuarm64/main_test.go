package main

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/examples/internal/cli/clitest"
	"github.com/ec2select/ec2select/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/output.golden with the current output")

func TestRun(t *testing.T) {
	var buf bytes.Buffer
	if err := run(context.Background(), &buf, nil); err != nil {
		t.Fatalf("run: %v", err)
	}
	got := buf.String()

	golden.Check(t, filepath.Join("testdata", "output.golden"), buf.Bytes(), *update)

	al2, al2023, bottlerocket := golden.Section(t, got, "al2@latest"), golden.Section(t, got, "al2023@latest"), golden.Section(t, got, "bottlerocket@latest")
	others := golden.Section(t, got, "Other accelerators")
	for _, c := range []struct{ in, text, why string }{
		{got, "g5g.xlarge   arm64, 1 nvidia t4g GPU", "g5g is arm64 with one NVIDIA T4G"},
		{al2, "g5g.xlarge   → no AMI", "AL2 has no arm64 NVIDIA AMI, so g5g must not map"},
		{al2, "(al2 amd64 nvidia) needs kubernetes.io/arch In [amd64]; it has kubernetes.io/arch In [arm64]", "AL2's x86_64 GPU AMI must be refused on the architecture (#3217)"},
		{al2, "fix: no arm64 NVIDIA AMI in family al2; use bottlerocket or al2023", "the AL2 explanation must name the families that publish one"},
		{al2023, "(al2023 arm64 nvidia) amazon-eks-node-al2023-arm64-nvidia-1.32-v20260714", "g5g takes AL2023's arm64 NVIDIA AMI"},
		{bottlerocket, "(bottlerocket arm64 nvidia) bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.61.0-9a3f5d07", "g5g takes Bottlerocket's arm64 NVIDIA AMI"},
		{got, "g4ad.8xlarge (AMD) satisfies it: true.", "Karpenter's NVIDIA requirement accepts an AMD GPU"},
		{got, "instance-gpu-manufacturer In [nvidia]: satisfies it: false.", "compat's NVIDIA requirement refuses an AMD GPU"},
		{others, "inf2.xlarge  → ami-0d67da32011745106 (bottlerocket amd64 neuron)", "inf2 takes the Neuron role of Bottlerocket's x86_64 image"},
		{others, "g4ad.8xlarge → no AMI", "no Bottlerocket AMI runs an AMD GPU"},
		{others, "instance-gpu-manufacturer NotIn [amd]", "the g4ad fix keeps AMD GPUs out"},
	} {
		if !strings.Contains(c.in, c.text) {
			t.Errorf("%s: output lacks %q", c.why, c.text)
		}
	}
}

func TestCommandLine(t *testing.T) {
	clitest.Conventions(t, run, "extra")
}
