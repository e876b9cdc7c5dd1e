package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/examples/internal/cli/clitest"
	"github.com/ec2select/ec2select/internal/golden"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func runArgs(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), &out, args)
	return out.String(), err
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"default.golden", nil},
		{"al2-graviton.golden", []string{"-alias", "al2@latest", "-k8s", "1.31", "-policy", "graviton=50:*g;rest=1:*"}},
		{"family-al2023.golden", []string{"-family", "al2023"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			t.Parallel()
			out, err := runArgs(t, tc.args...)
			if err != nil {
				t.Fatalf("run(%q) = %v", tc.args, err)
			}
			golden.Check(t, filepath.Join("testdata", tc.golden), []byte(out), *update)
		})
	}
}

// The facts the default report exists to show, checked apart from the
// golden file so that refreshing it cannot silently drop them.
func TestDefaultReport(t *testing.T) {
	t.Parallel()
	out, err := runArgs(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"1. AMIs: alias bottlerocket@latest for Kubernetes 1.36 selects 4 AMIs (5 variants); 0 images refused",
		"compat.LoadInstanceTypes, 1366 types; 1364 converted", // every page: EC2 pages by 100
		"cheapest effective price first within a tier",
		"c7i-flex.large (us-east-1b spot 0.016566)", // ec2fake's spot walk at the fake's own clock
		"offerings known (the embedded snapshot, then GetProducts and DescribeSpotPriceHistory read live",
		"mac1.metal  compat: instance type mac1.metal: architectures [x86_64_mac] are not supported",
		"g4ad.xlarge, g4ad.2xlarge, g4ad.4xlarge, ... (+2)  no amd64 amd GPU AMI in family bottlerocket",
		"default-flex  100     karpenter.k8s.aws/instance-family In [c7i-flex m7i-flex]",
		"default-rest  1       karpenter.k8s.aws/instance-family NotIn [c7i-flex m7i-flex]",
		"m5.large  ami-023d83e40900bc9ca  8192         7764",
		"6. userData: Bottlerocket (the family of ami-023d83e40900bc9ca)",
		"'node.cilium.io/agent-not-ready' = ['true:NoExecute']",
		"karpenter.sh/unregistered                            NoExecute   required (Karpenter)",
		"node.cilium.io/agent-not-ready=true                  NoExecute   startup taint",
		"node.cloudprovider.kubernetes.io/uninitialized=true  NoSchedule  the kubelet itself (--cloud-provider=external)",
		"problems: none",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// Nothing that changes between runs: no server address.
	if strings.Contains(out, "127.0.0.1") {
		t.Error("output contains the fake server's address")
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"-h", "-help", "--help"} {
		out, err := runArgs(t, arg)
		if err != nil {
			t.Fatalf("run(%s) = %v, want nil", arg, err)
		}
		for _, want := range []string{
			"Usage: go run ./examples/quickstart [flags]",
			"-alias family@version", `(default "bottlerocket@latest")`,
			"-k8s version", `(default "1.36")`,
			"-family format", "AL2, AL2023, Bottlerocket or Windows",
			"-policy tiers", `policy  = tier { ";" tier }`, `tier    = name "=" weight ":" pattern { "," pattern }`,
			`(default "flex=100:c7i-flex,m7i-flex;rest=1:*")`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("run(%s) output lacks %q:\n%s", arg, want, out)
			}
		}
	}
	out, _ := runArgs(t, "-h")
	golden.Check(t, filepath.Join("testdata", "help.golden"), []byte(out), *update)
}

func TestBadFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string // substrings of the error
	}{
		{[]string{"-alias", "bottlerocket"}, []string{`-alias "bottlerocket"`, "not family@version", `"al2023@latest"`}},
		{[]string{"-alias", "ubuntu@latest"}, []string{`-alias "ubuntu@latest"`}},
		{[]string{"-k8s", "v1.32"}, []string{`-k8s "v1.32"`, `drop the "v"`}},
		{[]string{"-alias", "al2@latest", "-k8s", "1.33"}, []string{`-alias "al2@latest" with -k8s "1.33"`, "use al2023 or bottlerocket"}},
		{[]string{"-family", "ubuntu"}, []string{`-family "ubuntu"`, "use AL2, AL2023, Bottlerocket, Windows"}},
		{[]string{"-family", "custom"}, []string{`-family "custom"`, "use AL2, AL2023, Bottlerocket, Windows2019, Windows2022 or Windows2025"}},
		{[]string{"-policy", ""}, []string{`-policy ""`, "write at least one tier"}},
		{[]string{"-policy", "flex:c7i-flex"}, []string{`-policy "flex:c7i-flex"`, "no '='", "name=weight:pattern"}},
		{[]string{"-policy", "flex=100"}, []string{"no ':' after the weight"}},
		{[]string{"-policy", "flex=high:c7i-flex"}, []string{`weight "high" is not a whole number`, "1 to 100"}},
		{[]string{"-policy", "flex=100:c7i-flex;rest=100:*"}, []string{`-policy`, "weight 100"}},
		{[]string{"-policy", "flex=101:c7i-flex"}, []string{`-policy`, "1 to 100"}},
		{[]string{"-policy", "flex=100:C7I-flex"}, []string{"upper-case"}},
		{[]string{"-policy", "flex=100:c7i-flx;rest=1:*"}, []string{`-policy "flex=100:c7i-flx;rest=1:*" does not fit the catalog`, `tier "flex"`, "match no instance type"}},
		{[]string{"-bogus"}, []string{"-bogus", "-h"}},
		{[]string{"extra"}, []string{`unexpected argument "extra"`}},
	} {
		_, err := runArgs(t, tc.args...)
		var ue *cli.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("run(%q) = %v, want a *cli.UsageError", tc.args, err)
			continue
		}
		if got := cli.ExitCode(err); got != 2 {
			t.Errorf("cli.ExitCode(run(%q)) = %d, want 2", tc.args, got)
		}
		for _, want := range tc.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("run(%q) = %q, want it to mention %q", tc.args, err, want)
			}
		}
	}
}

// A valid command line that the catalog cannot serve is a failure (exit
// status 1), not a usage error, and prints no half report.
func TestCatalogLacksVersion(t *testing.T) {
	t.Parallel()
	out, err := runArgs(t, "-k8s", "1.30")
	if err == nil || cli.ExitCode(err) != 1 {
		t.Fatalf("run(-k8s 1.30) = %v (exit %d), want a failure with exit status 1", err, cli.ExitCode(err))
	}
	if !strings.Contains(err.Error(), "1.31 to 1.36") {
		t.Errorf("error %q does not say which versions the catalog has", err)
	}
	if out != "" {
		t.Errorf("run(-k8s 1.30) printed a half report:\n%s", out)
	}
}

// A policy is checked against the catalog only at step 4; its error is
// still a usage error, and steps 1-3 are not printed before it.
func TestPolicyMatchingNothing(t *testing.T) {
	t.Parallel()
	out, err := runArgs(t, "-policy", "flex=100:c7i-flx;rest=1:*")
	if cli.ExitCode(err) != 2 || !strings.Contains(fmt.Sprint(err), `tier "flex"`) {
		t.Fatalf("run(-policy with a typo) = %v (exit %d), want a usage error naming the tier", err, cli.ExitCode(err))
	}
	if out != "" {
		t.Errorf("run(-policy with a typo) printed a half report:\n%s", out)
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("step 1: boom"), 1},
		{cli.Usagef("-k8s: bad"), 2},
	} {
		if got := cli.ExitCode(tc.err); got != tc.want {
			t.Errorf("cli.ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	t.Parallel()
	p, err := parsePolicy(" flex = 100 : c7i-flex , m7i-flex ; rest=1:* ")
	if err != nil {
		t.Fatal(err)
	}
	type tier struct {
		Name     string
		Weight   int32
		Families []string
	}
	var got []tier
	for _, t := range p.Tiers {
		got = append(got, tier{t.Name, t.Weight, t.Families})
	}
	want := []tier{{"flex", 100, []string{"c7i-flex", "m7i-flex"}}, {"rest", 1, []string{"*"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parsePolicy mismatch (-want +got):\n%s", diff)
	}
}

func TestCommandLine(t *testing.T) {
	clitest.Conventions(t, run, "extra")
}
