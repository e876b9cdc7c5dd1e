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

	step1, step2 := section(t, got, "1. "), section(t, got, "2. ")
	step3, step4 := section(t, got, "3. "), section(t, got, "4. ")
	for _, c := range []struct{ in, text, why string }{
		{step1, "userdata.Lint:\n    taints: none\n", "bootstrap.sh drops the '=' form, so the kubelet registers no taint"},
		{step1, "line 2: error equals-form-ignored: --kubelet-extra-args= is ignored by bootstrap.sh", "Lint must name the '=' form and its line"},
		{step1, "fix: /etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=\"karpenter.sh/uninitialized:NoExecute\"'\n", "the fix must be the corrected line"},
		{step1, "error required-taint-missing: required taint karpenter.sh/uninitialized:NoExecute missing", "Lint must report the missing required taint"},
		{step2, "taints: karpenter.sh/uninitialized:NoExecute\n    problems: none\n", "the corrected script registers the taint and is clean"},
		{step3, "'--kubelet-extra-args' '--node-labels=example.com/team=ml --register-with-taints=example.com/team=ml:NoSchedule,karpenter.sh/uninitialized:NoExecute'", "Render passes one --kubelet-extra-args word with every taint"},
		{step3, "taints: example.com/team=ml:NoSchedule, karpenter.sh/uninitialized:NoExecute\n    labels: example.com/team=ml\n    problems: none", "what Render writes lints clean with every taint"},
		{step4, "userdata: Config.Labels: label \"example.com/team\": value \"ml' --pause-container-image 'evil\"", "Render refuses a quote in a label value"},
		{step4, "userdata: Config.Taints[0]: taint \"example.com/team=ml;reboot:NoSchedule\"", "Render refuses a ';' in a taint value"},
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
