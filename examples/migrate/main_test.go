package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/examples/internal/cli/clitest"
	"github.com/ec2select/ec2select/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the current output")

// TestRun: the example script moves to AL2023 and to Bottlerocket, every
// setting with its line and target field, and Lint on both sides agrees.
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		golden string
		want   []string
	}{
		{"al2023", nil, "al2023.golden", []string{
			"line 18: --register-with-taints=karpenter.sh/unregistered:NoExecute,team=web:NoSchedule → spec.kubelet.config.registerWithTaints",
			"line 11: --image-gc-high-threshold=90 → spec.kubelet.config.imageGCHighThresholdPercent",
			"Both register the same taints, labels, max pods and kubelet configuration.",
			"sysctl -w vm.max_map_count=262144", // kept: AL2023 runs the script
			": # moved to the NodeConfig by userdata.Migrate",
		}},
		{"bottlerocket", []string{"-to", "bottlerocket"}, "bottlerocket.golden", []string{
			"line 10: sysctl vm.max_map_count=262144 → settings.kernel.sysctl.\"vm.max_map_count\"",
			"image-gc-high-threshold-percent = '90'",
			"[settings.kernel.sysctl]",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := run(context.Background(), &buf, tc.args); err != nil {
				t.Fatalf("run: %v\n%s", err, buf.String())
			}
			golden.Check(t, filepath.Join("testdata", tc.golden), buf.Bytes(), *update)
			for _, w := range tc.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("output lacks %q", w)
				}
			}
		})
	}
}

// TestRefused: a script AL2023 cannot run is refused by name, exit 1,
// and no userData is written.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "yum.sh")
	script := "#!/bin/bash\nyum install -y htop\n/etc/eks/bootstrap.sh c --apiserver-endpoint https://x.example.com --b64-cluster-ca LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJzekNDQVZtZ0F3SUJBZ0lVRWMybE1BPT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo= --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"
	if err := os.WriteFile(in, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var buf bytes.Buffer
	err := run(context.Background(), &buf, []string{"-o", out, in})
	if cli.ExitCode(err) != 1 {
		t.Fatalf("run = %v (exit %d); want exit 1", err, cli.ExitCode(err))
	}
	if !strings.Contains(buf.String(), "line 2: yum: AL2023's package manager is dnf") {
		t.Errorf("the refusal does not name yum and its line:\n%s", buf.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused migration wrote %s", out)
	}
}

func TestCommandLine(t *testing.T) {
	clitest.Conventions(t, run, "testdata/no-such-file.sh")
	for _, args := range [][]string{{"-to", "windows"}, {"-required", "bad taint"}, {"a", "b"}} {
		if err := run(context.Background(), &bytes.Buffer{}, args); cli.ExitCode(err) != 2 {
			t.Errorf("run(%q) = %v; want exit 2", args, err)
		}
	}
}
