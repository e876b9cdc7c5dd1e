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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/weighting"
)

const (
	defaultAlias  = "bottlerocket@latest"
	defaultK8s    = "1.36"
	defaultPolicy = "flex=100:c7i-flex,m7i-flex;rest=1:*"
)

func main() {
	if err := run(context.Background(), os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(exitCode(err))
	}
}

// exitCode is the exit status for err: 0 for none, 2 for a bad command
// line, 1 for anything else.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	}
	return 1
}

// options are the command line, validated.
type options struct {
	alias      string
	k8s        string
	family     compat.AMIFamily // zero: the family of the AMI the demo node runs
	policy     weighting.Policy
	policyText string // as given, for messages
}

// usageError is a bad command line; main exits with status 2 for it.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() + " (run with -h for help)" }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// run is the whole program; out receives the report, or the help text for
// -h. It returns a *usageError for a bad command line.
func run(ctx context.Context, out io.Writer, args []string) error {
	opts, help, err := parseFlags(args)
	if err != nil {
		return err
	}
	if help != "" {
		_, err := io.WriteString(out, help)
		return err
	}
	return quickstart(ctx, out, opts)
}

// parseFlags reads args. For -h it returns the help text instead.
func parseFlags(args []string) (opts options, help string, err error) {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, help is returned as text
	alias := fs.String("alias", defaultAlias,
		"AMI alias to resolve, `family@version`: family al2, al2023, bottlerocket, windows2019 or windows2022;\n"+
			"version latest or a release (v20250403 for al2 and al2023, 1.42.0 for bottlerocket)")
	k8s := fs.String("k8s", defaultK8s, "Kubernetes minor `version` the AMIs are built for (the catalog has 1.31 to 1.36)")
	family := fs.String("family", "",
		"userData `format`: AL2, AL2023, Bottlerocket or Windows (default: the family of the AMI the m5.large node runs)")
	policy := fs.String("policy", defaultPolicy, "weighted `tiers` to rank instance types by, in this grammar:\n"+indent(policyGrammar, "  ")+"\n ")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return options{}, usage(fs), nil
		}
		return options{}, "", &usageError{err}
	}
	if fs.NArg() > 0 {
		return options{}, "", usagef("unexpected argument %q; quickstart takes only flags", fs.Arg(0))
	}

	opts = options{alias: *alias, k8s: *k8s, policyText: *policy}
	if _, err := amiselect.Queries([]amiselect.Term{{Alias: opts.alias}}, amiselect.QueryOptions{KubernetesVersion: opts.k8s}); err != nil {
		return options{}, "", usagef("-alias %q with -k8s %q: %w", opts.alias, opts.k8s, err)
	}
	if *family != "" {
		f, err := compat.ParseAMIFamily(*family)
		if err != nil {
			return options{}, "", usagef("-family %q: %w", *family, err)
		}
		if f == compat.Custom {
			return options{}, "", usagef("-family %q: Custom passes the user's own userData through, and the quickstart has none; use AL2, AL2023, Bottlerocket, Windows2019, Windows2022 or Windows2025", *family)
		}
		opts.family = f
	}
	if opts.policy, err = parsePolicy(*policy); err != nil {
		return options{}, "", usagef("-policy %q: %w", *policy, err)
	}
	return opts, "", nil
}

func usage(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString(`Usage: go run ./examples/quickstart [flags]

Quickstart runs the whole ec2select flow against the embedded catalog of the
fake EC2 (package ec2fake), served over HTTP to a real *ec2.Client, and prints
a table per step:

  1. resolve an AMI alias to AMIs, and the images refused with the reason
  2. fetch the instance types (DescribeInstanceTypes) and convert them
  3. give each instance type its AMI; explain the types no AMI can run
  4. rank the types by weighted tiers and generate Karpenter NodePools
  5. learn the memory an m5.large node really reports under its AMI
  6. render that node's userData, with a startup taint and labels
  7. lint the userData: the taints the kubelet will actually register

It needs no AWS account and no setup.

Flags:
`)
	fs.SetOutput(&b)
	fs.PrintDefaults()
	return b.String()
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
