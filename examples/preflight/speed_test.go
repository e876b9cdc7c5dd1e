package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestSpeed: a built preflight checks the corpus (65 files, more than the
// 60 the issue asks about) in at most 2 seconds, reading, validating,
// resolving against the embedded catalog and writing the report. The
// time is the process's CPU time (user and system), the best of three
// runs: on a shared machine the wall time measures the other processes
// too (this one's was 1.3 s at a load average of 17 on 2 cores, for 0.64 s
// of CPU, with the full release history and capacity estimates).
func TestSpeed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := filepath.Join(t.TempDir(), "preflight")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	files, err := manifestFiles("testdata/corpus")
	if err != nil || len(files) < 60 {
		t.Fatalf("corpus: %d files, %v; want at least 60", len(files), err)
	}
	best, wall := time.Duration(1<<62), time.Duration(1<<62)
	for range 3 {
		start := time.Now()
		cmd := exec.Command(bin, "-fail-on", "none", "testdata/corpus")
		cmd.Stdout, cmd.Stderr = nil, os.Stderr
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		wall = min(wall, time.Since(start))
		best = min(best, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	t.Logf("%d files in %v of CPU, %v of wall time (best of 3)", len(files), best, wall)
	if best > 2*time.Second {
		t.Errorf("%d files took %v; want at most 2s", len(files), best)
	}
}
