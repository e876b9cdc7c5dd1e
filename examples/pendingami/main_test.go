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

	step1, step2 := golden.Section(t, got, "1. "), golden.Section(t, got, "2. ")
	step3, step4 := golden.Section(t, got, "3. "), golden.Section(t, got, "4. ")
	for _, c := range []struct {
		in, text, why string
		absent        bool
	}{
		{in: step1, text: "ami-0c0ffee0000000401  team-base-al2023-20250401       pending", why: "without a state filter the query returns the pending build"},
		{in: step2, text: "selected  ami-0c0ffee0000000401", why: "a pending image must never be selected (#7652)", absent: true},
		{in: step2, text: `rejected  ami-0c0ffee0000000401 team-base-al2023-20250401: not-available: state is "pending"`, why: "Select refuses the pending image even when the query forgot the filter"},
		{in: step2, text: "rejected  ami-0c0ffee0000000322 team-base-al2023-broken: invalid-creation-date", why: "a malformed date is refused, not a panic"},
		{in: step2, text: "selected  ami-0c0ffee0000000301 (custom amd64)", why: "the older, non-deprecated image is the amd64 choice"},
		{in: step2, text: "selected  ami-0c0ffee0000000310 (custom arm64)", why: "the arm64 image is kept for its own architecture"},
		{in: step2, text: "passed over ami-0c0ffee0000000315 team-base-al2023-20250315, created 2025-03-15: deprecated, so it ranks after the non-deprecated ami-0c0ffee0000000301", why: "the newer, deprecated image loses to the older one"},
		{in: step3, text: "name=team-base-al2023-*, state=available; 4 images", why: "Resolve's request filters on state=available"},
		{in: step3, text: "selected  ami-0c0ffee0000000301 (custom amd64)", why: "Resolve selects the same amd64 image"},
		{in: step3, text: "ami-0c0ffee0000000401", why: "the pending image is not even returned", absent: true},
		{in: step4, text: "selected  ami-0c0ffee0000000401 (custom amd64)", why: "once available, the new build is selected"},
		{in: step4, text: "passed over ami-0c0ffee0000000301 team-base-al2023-20250301, created 2025-03-01: older than ami-0c0ffee0000000401", why: "the previous image now loses to the newer one"},
	} {
		if strings.Contains(c.in, c.text) == c.absent {
			t.Errorf("%s: strings.Contains(output, %q) = %t, want %t", c.why, c.text, c.absent, !c.absent)
		}
	}
}

func TestCommandLine(t *testing.T) {
	clitest.Conventions(t, run, "extra")
}
