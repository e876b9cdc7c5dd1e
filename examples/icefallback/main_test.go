package main

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/examples/internal/cli"
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

	before, after := golden.Section(t, got, "Before: "), golden.Section(t, got, "After: ")
	for _, c := range []struct {
		in, text, why string
		absent        bool
	}{
		{in: before, text: "launch 4 at 12:00:30: spot      over 6 offerings -> InsufficientInstanceCapacity for the whole call (offering-unavailable); offerings marked: 0",
			why: "read as Karpenter reads it, a whole-call error marks nothing and every launch is spot again (#9616)"},
		{in: before, text: "Before: 4 of 4 launches were spot", why: "Karpenter never falls back"},
		{in: before, text: "on-demand", why: "Karpenter never reaches on-demand", absent: true},
		{in: after, text: "launch 1 at 12:00:00: spot      over 6 offerings -> InsufficientInstanceCapacity for the whole call (offering-unavailable); offerings marked: 6, until 12:03:00",
			why: "FleetOutcome reads the whole-call error as a failure of every spot offering asked for"},
		{in: after, text: "m7i.large   us-east-1a  spot       marked: InsufficientInstanceCapacity until 12:03:00", why: "each spot offering carries its reason and deadline"},
		{in: after, text: "launch 2 at 12:00:10: on-demand over 6 offerings -> launched i-00000000000000001 m7i.large us-east-1a on-demand",
			why: "the next launch is on-demand, and it launches"},
		{in: after, text: "After: 1 of 4 launches were spot", why: "only the first launch tried spot"},
	} {
		if strings.Contains(c.in, c.text) == c.absent {
			t.Errorf("%s: strings.Contains(output, %q) = %t, want %t", c.why, c.text, c.absent, !c.absent)
		}
	}
}

// The issue's own example, an InternalError for the whole call, falls back
// the same way: a server error is retried later, and the spot offerings
// it concerned are marked meanwhile.
func TestInternalError(t *testing.T) {
	var buf bytes.Buffer
	if err := run(context.Background(), &buf, []string{"-code", "InternalError", "-launches", "2"}); err != nil {
		t.Fatal(err)
	}
	after := golden.Section(t, buf.String(), "After: ")
	for _, want := range []string{"InternalError for the whole call (server-error); offerings marked: 6, until 12:00:30", "launch 2 at 12:00:10: on-demand"} {
		if !strings.Contains(after, want) {
			t.Errorf("missing %q in:\n%s", want, after)
		}
	}
}

func TestCommandLine(t *testing.T) {
	clitest.Conventions(t, run, "extra")
	for _, args := range [][]string{{"-launches", "0"}, {"-launches", "21"}, {"-code", ""}, {"-code", "InvalidAMIID.NotFound"}} {
		var buf bytes.Buffer
		err := run(context.Background(), &buf, args)
		if cli.ExitCode(err) != 2 || buf.Len() > 0 {
			t.Errorf("run(%q) = %v (exit %d), printed %q; want exit 2 and no report", args, err, cli.ExitCode(err), buf.String())
		}
	}
}
