package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/examples/internal/cli/clitest"
	"github.com/ec2select/ec2select/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func runArgs(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := runWith(context.Background(), strings.NewReader(stdin), &out, args)
	return out.String(), err
}

// Each realistic manifest set is checked whole against its golden file,
// for its exit status, and for the finding and fix it exists to show.
func TestManifests(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files []string
		code  int
		want  []string
	}{
		{"clean", []string{"clean.yaml"}, 0, []string{
			"Findings: 0 errors",
			"skipped: testdata/clean.yaml:53: ConfigMap unrelated",
			"registers: karpenter.sh/unregistered:NoExecute (required), node.cilium.io/agent-not-ready=true:NoExecute (user)",
		}},
		{"weights", []string{"clean.yaml", "weights.yaml"}, 0, []string{
			"spot-first  50\ngeneral     0\nbatch       0\n",
			"overlap: general and batch both allow",
			`NodePools "general" and "batch" both allow`, "give the one to try first a higher spec.weight",
		}},
		{"archmismatch", []string{"archmismatch.yaml"}, 1, []string{
			"testdata/archmismatch.yaml:15 error (problem 1)",
			"cannot launch: 185 (c7g.12xlarge",
			"fix: add kubernetes.io/arch In [amd64] to the NodePool requirements",
		}},
		{"firstami", []string{"firstami.yaml"}, 0, []string{
			"ami-05062e2492117c9a0  bottlerocket-aws-k8s-1.36-nvidia-x86_64-v1.61.0-9a3f5d07  Bottlerocket  amd64  nvidia    1      g5.xlarge",
			"bottlerocket-aws-k8s-1.36-x86_64-v1.61.0-9a3f5d07         Bottlerocket  amd64  standard  2      m5.large, m5.xlarge",
			"warning (problem 2)", "3 instance types run another AMI than the first selected",
			"2 amd64 types (m5.large, m5.xlarge) would be filed under ami-05062e2492117c9a0 (bottlerocket amd64 nvidia); 1 arm64 type (m6g.large) would be filed under",
			"cannot see which controller release runs",
		}},
		// Karpenter v1.14 needs only karpenter.sh/unregistered from the
		// kubelet: at registration it copies the NodeClaim's taints and
		// startup taints onto the node, unless the node is labelled
		// karpenter.sh/do-not-sync-taints=true (kubernetes-sigs/karpenter
		// v1.14.1, 6e7eab7a, pkg/controllers/nodeclaim/lifecycle/
		// registration.go L77-87 and L213-217). So the NodePool "legacy"
		// misses only that taint; "legacy-nosync", whose userData sets the
		// label, misses its startup taint.
		{"startuptaint", []string{"startuptaint.yaml"}, 1, []string{
			"testdata/startuptaint.yaml:16 error (problem 3)",
			"--kubelet-extra-args= is ignored by bootstrap.sh",
			"fix: /etc/eks/bootstrap.sh prod --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,example.com/agent-not-ready=true:NoExecute'",
			`NodePool "legacy" × EC2NodeClass "al2-custom": spec.userData line 3: required taint karpenter.sh/unregistered:NoExecute missing`,
			`NodePool "legacy-nosync" × EC2NodeClass "al2-custom-nosync": the userData registers the label karpenter.sh/do-not-sync-taints=true, so Karpenter does not copy the NodePool's taints onto the node, and the kubelet does not register example.com/agent-not-ready=true:NoExecute`,
			"Findings: 3 errors",
		}},
		{"flexwildcard", []string{"flexwildcard.yaml"}, 1, []string{
			"testdata/flexwildcard.yaml:23 error (problem 4)", `has the value "*"; Karpenter has no wildcards`,
			"fix: write the preference as weighted NodePools",
			"suggested NodePools, generated from the catalog:\n      apiVersion: karpenter.sh/v1\n      kind: NodePool\n      metadata:\n        name: flex-first-preferred\n",
			"        name: flex-first-fallback\n", "              operator: NotIn\n              values:\n              - c7i-flex\n        weight: 1\n",
		}},
		{"pending", []string{"pending.yaml"}, 1, []string{
			"refused: ami-0c0ffee0000000401 team-base-al2023-20250401: state is \"pending\"",
			"error (problem 5)", "an image still being built (state pending)",
			"fix: select only released images",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var args []string
			for _, f := range tc.files {
				args = append(args, filepath.Join("testdata", f))
			}
			out, err := runArgs(t, "", args...)
			if got := cli.ExitCode(err); got != tc.code {
				t.Errorf("run(%q) = %v, exit %d; want exit %d", args, err, got, tc.code)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), []byte(out), *update)
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("run(%q) output lacks %q", args, want)
				}
			}
		})
	}
}

// CI reads -o json: the same findings, each with its problem number.
func TestJSON(t *testing.T) {
	t.Parallel()
	out, err := runArgs(t, "", "-o", "json", "testdata/archmismatch.yaml", "testdata/flexwildcard.yaml")
	if cli.ExitCode(err) != 1 {
		t.Fatalf("run = %v, want exit 1", err)
	}
	var r Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	var problems []int
	for _, f := range r.Findings {
		problems = append(problems, f.Problem)
	}
	if r.Errors != 2 || len(problems) != 2 || problems[0] != 1 || problems[1] != 4 {
		t.Errorf("errors %d, problems %v; want 2 errors, problems [1 4]", r.Errors, problems)
	}
	if len(r.Pairs) != 1 || r.Pairs[0].CannotLaunch[0].Count != 185 {
		t.Errorf("pairs %+v, want one with 185 types that cannot launch", r.Pairs)
	}
}

// Manifests piped in are named <stdin>.
func TestStdin(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/flexwildcard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := runArgs(t, string(data))
	if cli.ExitCode(err) != 1 || !strings.Contains(out, "<stdin>:23 error (problem 4)") {
		t.Errorf("run with stdin = %v:\n%s", err, out)
	}
}

// Input preflight cannot read exits 2, naming the file and line and the fix.
func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	class := "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: c}\nspec:\n"
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"malformed YAML", "testdata/nodepools-malformed.yaml", []string{"testdata/nodepools-malformed.yaml:14: ", "did not find expected '-' indicator", "fix the YAML"}},
		{"second document malformed", file("two.yaml", "kind: ConfigMap\napiVersion: v1\n---\n"+class+"  amiSelectorTerms: [\n"), []string{"two.yaml:8: ", "fix the YAML"}},
		{"term typo", file("typo.yaml", "# c\n"+class+"  amiSelectorTerms:\n  - nmae: team-*\n"), []string{"typo.yaml:3: ", `EC2NodeClass "c": spec.amiSelectorTerms[0]`, `unknown field "nmae"`}},
		{"kubelet typo", file("kubelet.yaml", class+"  amiSelectorTerms: [{alias: al2023@latest}]\n  kubelet: {maxPod: 3}\n"), []string{"kubelet.yaml:2: ", "spec.kubelet", `unknown field "maxPod"`}},
		{"old apiVersion", file("beta.yaml", "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: p}\n"), []string{"beta.yaml:1: ", `apiVersion "karpenter.sh/v1beta1"`, "karpenter.sh/v1"}},
		{"no family", file("nofamily.yaml", class+"  amiSelectorTerms: [{name: x}]\n"), []string{"no spec.amiFamily", "Custom"}},
		{"bad term", file("badterm.yaml", class+"  amiFamily: AL2023\n  amiSelectorTerms: [{alias: al2023@latest}, {name: x}]\n"), []string{"badterm.yaml:2: ", "spec.amiSelectorTerms"}},
		{"invalid NodePool", file("weight.yaml", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  weight: 500\n  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: c}, requirements: []}}\n"), []string{"weight.yaml:2: ", "weight"}},
		{"defined twice", "testdata/archmismatch.yaml testdata/pending.yaml", []string{"testdata/pending.yaml:4: EC2NodeClass \"team-base\" is already defined at testdata/archmismatch.yaml:4"}},
		{"no NodePool", file("classes.yaml", class+"  amiSelectorTerms: [{alias: al2023@latest}]\n"), []string{"no karpenter.sh/v1 NodePool in ", "classes.yaml", "pass the NodePool manifests too"}},
		{"missing file", filepath.Join(dir, "missing.yaml"), []string{"missing.yaml", "name a manifest file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runArgs(t, "", strings.Fields(tc.path)...)
			if got := cli.ExitCode(err); got != 2 {
				t.Fatalf("run(%s) = %v, exit %d; want exit 2", tc.path, err, got)
			}
			if out != "" {
				t.Errorf("run(%s) printed a report:\n%s", tc.path, out)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("run(%s) = %q, want it to mention %q", tc.path, err, want)
				}
			}
		})
	}
}

// A server that accepts the connection and never answers makes -live fail
// within -timeout: the SDK's own retryer and transport do not bound it.
func TestLiveTimeout(t *testing.T) {
	url := clitest.HangingAWS(t)
	start := time.Now()
	out, err := runArgs(t, "", "-live", "-timeout", "300ms", "-endpoint", url, "testdata/clean.yaml")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("run took %v with -timeout 300ms", took)
	}
	if cli.ExitCode(err) != 1 || !strings.Contains(err.Error(), "no answer within -timeout 300ms") {
		t.Errorf("run = %v (exit %d), want a timeout naming -timeout, exit 1", err, cli.ExitCode(err))
	}
	if out != "" {
		t.Errorf("run printed a half report:\n%s", out)
	}
}

func TestCommandLine(t *testing.T) {
	t.Parallel()
	clitest.Conventions(t, run, "extra")
	for _, args := range [][]string{{"-o", "yaml"}, {"-timeout", "1s"}, {"-live", "-timeout", "0s"}, {"-k8s", "v1.32"}} {
		if _, err := runArgs(t, "", args...); cli.ExitCode(err) != 2 {
			t.Errorf("run(%q) = %v, want exit 2", args, err)
		}
	}
}
