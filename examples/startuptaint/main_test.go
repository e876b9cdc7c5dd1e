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
	for _, c := range []struct{ in, text, why string }{
		{step1, "userdata.Lint:\n    verdict: joins\n    taints: node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule (added by the kubelet)\n", "bootstrap.sh drops the '=' form, so the node joins with only the kubelet's own taint"},
		{step1, "line 2: error equals-form-ignored: --kubelet-extra-args= is ignored by bootstrap.sh", "Lint must name the '=' form and its line"},
		{step1, "fix: /etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=\"karpenter.sh/uninitialized:NoExecute\"'\n", "the fix must be the corrected line"},
		{step1, "error required-taint-missing: required taint karpenter.sh/uninitialized:NoExecute missing", "Lint must report the missing required taint"},
		{step2, "taints: karpenter.sh/uninitialized:NoExecute, node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule (added by the kubelet)\n    problems: none\n", "the corrected script registers the taint and is clean"},
		{step3, "'--kubelet-extra-args' '--node-labels=example.com/team=ml --register-with-taints=example.com/team=ml:NoSchedule,karpenter.sh/uninitialized:NoExecute'", "Render passes one --kubelet-extra-args word with every taint"},
		{step3, "taints: example.com/team=ml:NoSchedule, karpenter.sh/uninitialized:NoExecute, node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule (added by the kubelet)\n    labels: example.com/team=ml\n    problems: none", "what Render writes lints clean with every taint"},
		{step4, "userdata: Config.Labels: label \"example.com/team\": value \"ml' --pause-container-image 'evil\"", "Render refuses a quote in a label value"},
		{step4, "userdata: Config.Taints[0]: taint \"example.com/team=ml;reboot:NoSchedule\"", "Render refuses a ';' in a taint value"},
	} {
		if !strings.Contains(c.in, c.text) {
			t.Errorf("%s: output lacks %q", c.why, c.text)
		}
	}
}

func TestCommandLine(t *testing.T) {
	clitest.Conventions(t, run, "extra")
}
