package main

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/output.golden with the current output")

// TestRun runs the two replicas against a real API server (run needs
// KUBEBUILDER_ASSETS; it fails without) and checks the whole output.
func TestRun(t *testing.T) {
	var buf bytes.Buffer
	if err := run(context.Background(), &buf, nil); err != nil {
		t.Fatalf("run: %v", err)
	}
	got := buf.String()
	golden.Check(t, filepath.Join("testdata", "output.golden"), buf.Bytes(), *update)
	for _, c := range []struct{ text, why string }{
		{"replica-a saves: ConfigMap default/ec2select-capacity, 1 entry", "replica A writes what it observed"},
		{"replica-b's watch delivers it: replica-b knows m5.large = 7558 MiB", "replica B learns replica A's figure without observing it"},
		{"replica-b saves: ConfigMap default/ec2select-capacity, 2 entries", "replica B writes its figures with replica A's"},
		{"replica-a's watch delivers it: replica-a knows m5.large = 7556 MiB; replica-a knows m6g.large = 7505 MiB", "replica A takes replica B's lower m5.large figure and its m6g.large"},
		{"m5.large   ami-0aa06077113319855    7556 MiB    7556 MiB    7556 MiB", "every replica holds the lower m5.large figure"},
		{"replica-c: 1 loaded", "the third replica knows everything from one load"},
	} {
		if !strings.Contains(got, c.text) {
			t.Errorf("%s: output lacks %q", c.why, c.text)
		}
	}
}

// TestCommandLine checks package cli's conventions (clitest.Conventions
// wants a usage that starts "go run ./examples/", which a nested module
// cannot offer): -h prints the usage and exits 0, an unknown flag or a
// stray argument exits 2 and prints nothing.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-h"}, 0},
		{[]string{"-bogus"}, 2},
		{[]string{"extra"}, 2},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), &out, tc.args)
			if got := cli.ExitCode(err); got != tc.code {
				t.Fatalf("run(%q) = %v, exit %d; want exit %d", tc.args, err, got, tc.code)
			}
			if prefix := "Usage: KUBEBUILDER_ASSETS="; tc.code == 0 != strings.HasPrefix(out.String(), prefix) {
				t.Errorf("run(%q) printed %q; want the usage on -h alone", tc.args, out.String())
			}
		})
	}
}
