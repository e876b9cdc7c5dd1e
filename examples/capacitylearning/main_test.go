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
	if err := demo(context.Background(), &buf, t.TempDir()); err != nil {
		t.Fatalf("run: %v", err)
	}
	got := buf.String()

	golden.Check(t, filepath.Join("testdata", "output.golden"), buf.Bytes(), *update)

	order := golden.Section(t, got, "bottlerocket@latest")
	first, old := golden.Section(t, got, "A pod requests"), golden.Section(t, got, "Karpenter's old lookup")
	observe, second, stale := golden.Section(t, got, "capacity.Cache.Observe"), golden.Section(t, got, "Second launch"), golden.Section(t, got, "A node still")
	saved, restarted, replicas := golden.Section(t, got, "The controller saves"), golden.Section(t, got, "Third launch"), golden.Section(t, got, "A second replica")
	lost, merged, _ := strings.Cut(restarted, "refused")
	for _, c := range []struct{ in, text, why string }{
		{order, "selects 4 AMIs (5 variants)", "the alias resolves to four images, the x86_64 one serving standard and Neuron"},
		{order, "in selection order:\n  2026-05-18 16:15  ami-0ddd9bbe8873c3788 arm64 nvidia   ", "the newest AMI, NVIDIA, comes first"},
		{first, "launches m5.large\nThe node runs ami-0d67da32011745106 (bottlerocket amd64 standard)", "m5.large maps to the standard x86_64 AMI"},
		{old, "picks ami-09e25088510049924 (bottlerocket amd64 nvidia)", "Karpenter's lenient first match picks the NVIDIA AMI (#7925)"},
		{observe, "needs karpenter.k8s.aws/instance-gpu-count Exists;\n  the node has karpenter.k8s.aws/instance-gpu-count DoesNotExist", "the node's labels must say it has no GPU"},
		{observe, "recorded true: m5.large under ami-0d67da32011745106 = 7558 MiB", "Observe records under the standard AMI"},
		{second, "m5.large     7558 MiB (learned)", "Apply puts the learned memory in place of the catalog's"},
		{second, "launches m5.xlarge", "the second launch is sized by the learned memory"},
		{stale, "refused (ErrUnknownImage: true)", "a node on an AMI no longer selected is refused"},
		{stale, "1 recorded, 1 refused; m5.large still 7558 MiB", "the refused figure must not replace the learned one"},
		{saved, `"types":["m5.large"],"amis":["ami-0d67da32011745106"],"type":[0],"ami":[0],"memory":[7926000000],"observed":[1759915800]`, "the snapshot holds the learned figure under the AMI, at the fixed clock"},
		{lost, "launches m5.large", "a restart without the snapshot forgets, as Karpenter does"},
		{merged, "it was altered or corrupted", "a damaged snapshot is refused by its sum"},
		{merged, "merges capacity.json:\n  m5.large     7558 MiB (learned)", "the figure survives the restart"},
		{merged, "launches m5.xlarge", "the launch after the restart is sized by the merged figure"},
		{replicas, "m5.large       7556 MiB     7556 MiB", "both replicas keep the lower m5.large figure"},
		{replicas, "m5.xlarge     15354 MiB    15354 MiB", "replica A learns m5.xlarge from replica B"},
		{replicas, "again takes 0 entries", "merging the same snapshot twice changes nothing"},
	} {
		if !strings.Contains(c.in, c.text) {
			t.Errorf("%s: output lacks %q", c.why, c.text)
		}
	}
}

func TestCommandLine(t *testing.T) {
	clitest.Conventions(t, run, "extra")
}
