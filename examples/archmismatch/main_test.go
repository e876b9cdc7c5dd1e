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

	step1, step2, step3 := golden.Section(t, got, "1. "), golden.Section(t, got, "2. "), golden.Section(t, got, "3. ")
	for _, c := range []struct{ in, text, why string }{
		{got, "ami-0c0ffee0000000301 (custom amd64) requires kubernetes.io/arch In [amd64]", "the custom AMI must state only its architecture"},
		{step1, "archs amd64 968, arm64 0\n", "every amd64 type, and no arm64 type, maps to the amd64 AMI"},
		{step1, "unmapped: 396 types, archs amd64 0, arm64 396", "every arm64 type stays unmapped"},
		{step2, "396 of 396 types conflict on kubernetes.io/arch (instance arm64, AMI amd64)", "Mapping.Err must name the conflicting key with counts"},
		{step2, "fix: add kubernetes.io/arch In [amd64] to the NodePool requirements", "Mapping.Err must suggest the arch requirement"},
		{step3, "kubernetes.io/arch In [amd64] the NodePool offers 968 of the 1364 types", "the fix must keep exactly the amd64 types"},
		{step3, "unmapped: none", "with the fix every offered type maps"},
	} {
		if !strings.Contains(c.in, c.text) {
			t.Errorf("%s: output lacks %q", c.why, c.text)
		}
	}
}

func TestCommandLine(t *testing.T) {
	clitest.Conventions(t, run, "extra")
}
