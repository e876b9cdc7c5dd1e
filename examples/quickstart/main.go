// Quickstart runs the whole ec2select flow against the fake EC2's embedded
// catalog, served over HTTP to a real *ec2.Client, and prints a table per
// step: resolve an AMI alias, convert the instance types, give each type
// its AMI, rank the types by weighted tiers, learn one node's memory, render
// the node's userData and lint it.
//
//	go run ./examples/quickstart [-alias bottlerocket@latest] [-k8s 1.36] [-family AL2023] [-policy 'flex=100:c7i-flex;rest=1:*']
//
// It needs no AWS account and no setup; run it with -h for the flags.
package main

import (
	"context"
	"io"
	"strings"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/weighting"
)

const (
	defaultAlias  = "bottlerocket@latest"
	defaultK8s    = "1.36"
	defaultPolicy = "flex=100:c7i-flex,m7i-flex;rest=1:*"
)

func main() { cli.Main("quickstart", run) }

// options are the command line, validated.
type options struct {
	alias      string
	k8s        string
	family     compat.AMIFamily // zero: the family of the AMI the demo node runs
	policy     weighting.Policy
	policyText string // as given, for messages
}

// run is the whole program; out receives the report, or the help text for
// -h. It returns a *cli.UsageError for a bad command line.
func run(ctx context.Context, out io.Writer, args []string) error {
	opts, help, err := parseFlags(out, args)
	if help || err != nil {
		return err
	}
	return quickstart(ctx, out, opts)
}

// parseFlags reads args. For -h it writes the usage to out and returns help
// true.
func parseFlags(out io.Writer, args []string) (opts options, help bool, err error) {
	fs := command.FlagSet()
	alias := fs.String("alias", defaultAlias,
		"AMI alias to resolve, `family@version`: family al2, al2023, bottlerocket, windows2019 or windows2022;\n"+
			"version latest or a release (v20250403 for al2 and al2023, 1.42.0 for bottlerocket)")
	k8s := fs.String("k8s", defaultK8s, "Kubernetes minor `version` the AMIs are built for (the catalog has 1.31 to 1.36)")
	family := fs.String("family", "",
		"userData `format`: AL2, AL2023, Bottlerocket or Windows (default: the family of the AMI the m5.large node runs)")
	policy := fs.String("policy", defaultPolicy, "weighted `tiers` to rank instance types by, in this grammar:\n"+indent(policyGrammar, "  ")+"\n ")

	if help, err := command.Parse(fs, out, args); help || err != nil {
		return options{}, help, err
	}

	opts = options{alias: *alias, k8s: *k8s, policyText: *policy}
	if _, err := amiselect.Queries([]amiselect.Term{{Alias: opts.alias}}, amiselect.QueryOptions{KubernetesVersion: opts.k8s}); err != nil {
		return options{}, false, cli.Usagef("-alias %q with -k8s %q: %w", opts.alias, opts.k8s, err)
	}
	if *family != "" {
		f, err := compat.ParseAMIFamily(*family)
		if err != nil {
			return options{}, false, cli.Usagef("-family %q: %w", *family, err)
		}
		if f == compat.Custom {
			return options{}, false, cli.Usagef("-family %q: Custom passes the user's own userData through, and the quickstart has none; use AL2, AL2023, Bottlerocket, Windows2019, Windows2022 or Windows2025", *family)
		}
		opts.family = f
	}
	if opts.policy, err = parsePolicy(*policy); err != nil {
		return options{}, false, cli.Usagef("-policy %q: %w", *policy, err)
	}
	return opts, false, nil
}

var command = cli.Command{Name: "quickstart", Usage: `Usage: go run ./examples/quickstart [flags]

Quickstart runs the whole ec2select flow against the embedded catalog of the
fake EC2 (package ec2fake), served over HTTP to a real *ec2.Client, and prints
a table per step:

  1. resolve an AMI alias to AMIs, and the images refused with the reason
  2. load the instance types (compat.LoadInstanceTypes, every page of
     DescribeInstanceTypes) and convert them
  3. give each instance type its AMI; explain the types no AMI can run
  4. rank the types by weighted tiers and generate Karpenter NodePools
  5. learn the memory an m5.large node really reports under its AMI
  6. render that node's userData, with a startup taint and labels
  7. lint the userData: the taints the kubelet will actually register

It needs no AWS account and no setup.
`}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
