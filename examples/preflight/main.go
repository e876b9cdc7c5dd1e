// Preflight checks Karpenter EC2NodeClass and NodePool manifests before
// they are applied, for the five problems ec2select exists to solve: for
// each NodePool and the EC2NodeClass its nodeClassRef names, the AMIs
// selected and refused, the instance types that cannot launch and the fix,
// the userData's verdict and the taints the kubelet will register, and the
// order Karpenter tries the NodePools in.
//
//	go run ./examples/preflight ec2nodeclass.yaml nodepools.yaml
//	kubectl kustomize overlays/prod | go run ./examples/preflight -o json
//	go run ./examples/preflight -live -region us-west-2 -k8s 1.33 nodeclass.yaml nodepool.yaml
//
// It needs no Kubernetes libraries and no cluster: manifests are decoded
// into small local structs (EC2NodeClass) and weighting.NodePool.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
)

const defaultK8s = "1.36"

func main() { cli.Main(command.Name, run) }

var command = cli.Command{Name: "preflight", Args: "FILE...", Usage: `Usage: go run ./examples/preflight [flags] [FILE|-]...

Preflight reads Karpenter v1 EC2NodeClass (karpenter.k8s.aws/v1) and
NodePool (karpenter.sh/v1) manifests from multi-document YAML files, or
from standard input when there are none or for "-", and reports for each
NodePool and the EC2NodeClass its nodeClassRef names:

  - the AMIs its amiSelectorTerms select, with the instance types each runs,
    and the images found but refused (still pending, deprecated...);
  - the instance types the NodePool allows that no selected AMI can run,
    and the requirement that fixes it;
  - the userData's verdict (does the node join) and the taints the kubelet
    registers, against karpenter.sh/unregistered and the NodePool's
    startup taints and taints;
  - where NodePools allow the same instance types, and the order Karpenter
    tries them in.

Other kinds of resource in the input are listed and skipped. Without -live
the embedded catalog of the fake EC2 answers (package ec2fake).

Exit status: 0 when no problem is found (warnings are printed), 1 when one
is or AWS fails, 2 for a bad command line or input (file and line named).
`}

// options are the command line, validated.
type options struct {
	files  []string
	k8s    string
	format string
	live   cli.Live
}

func run(ctx context.Context, w io.Writer, args []string) error {
	return runWith(ctx, os.Stdin, w, args)
}

// runWith is run reading standard input from stdin.
func runWith(ctx context.Context, stdin io.Reader, w io.Writer, args []string) error {
	opts, help, err := parseFlags(w, args)
	if help || err != nil {
		return err
	}
	inputs, err := readInputs(stdin, opts.files)
	if err != nil {
		return err
	}
	m, err := readManifests(inputs)
	if err != nil {
		return err
	}
	if err := checkTerms(m, opts.k8s); err != nil {
		return err
	}
	if len(m.pools) == 0 {
		return cli.Inputf("no karpenter.sh/v1 NodePool in %s; preflight checks each NodePool with the EC2NodeClass it names, so pass the NodePool manifests too", inputNames(opts.files))
	}
	report, err := checkWith(ctx, opts, m)
	if err != nil {
		return err
	}
	if err := write(w, opts.format, report); err != nil {
		return err
	}
	if report.Errors > 0 {
		return fmt.Errorf("%s found", cli.Count(report.Errors, "problem"))
	}
	return nil
}

func parseFlags(w io.Writer, args []string) (opts options, help bool, err error) {
	fs := command.FlagSet()
	fs.StringVar(&opts.k8s, "k8s", defaultK8s, "the cluster's Kubernetes minor `version`, for alias terms")
	fs.StringVar(&opts.format, "o", "table", "output `format`: table, or json for CI")
	opts.live.Register(fs, "ec2:DescribeImages, ec2:DescribeInstanceTypes and, for ssmParameter terms, ssm:GetParameter")
	if help, err := command.Parse(fs, w, args); help || err != nil {
		return options{}, help, err
	}
	if opts.format != "table" && opts.format != "json" {
		return options{}, false, cli.Usagef("-o %q: use table or json", opts.format)
	}
	if _, err := amiselect.Queries([]amiselect.Term{{Alias: "al2023@latest"}}, amiselect.QueryOptions{KubernetesVersion: opts.k8s}); err != nil {
		return options{}, false, cli.Usagef("-k8s %q: %w", opts.k8s, err)
	}
	if err := opts.live.Check(cli.Set(fs)); err != nil {
		return options{}, false, err
	}
	opts.files = fs.Args()
	return opts, false, nil
}

// readInputs reads every file ("-" or none: stdin) and splits it into
// documents.
func readInputs(stdin io.Reader, files []string) ([]document, error) {
	if len(files) == 0 {
		files = []string{"-"}
	}
	var docs []document
	for _, f := range files {
		var data []byte
		var err error
		name := f
		if f == "-" {
			name = "<stdin>"
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(f)
		}
		if err != nil {
			return nil, cli.Inputf("reading %s: %v; name a manifest file, or - for standard input", name, err)
		}
		docs = append(docs, splitDocuments(name, data)...)
	}
	return docs, nil
}

// checkWith runs the checks against the embedded catalog, or with -live
// against AWS, every call bounded by -timeout.
func checkWith(ctx context.Context, opts options, m manifests) (Report, error) {
	if !opts.live.Enabled {
		b := ec2fake.NewWithCatalog(ec2fake.Options{})
		return check(ctx, b, b, "the fake EC2's embedded catalog; use -live for a real account", opts.k8s, m)
	}
	ctx, cancel := opts.live.Context(ctx)
	defer cancel()
	cfg, source, err := opts.live.Config(ctx)
	if err != nil {
		return Report{}, err
	}
	client, _, err := opts.live.EC2(ctx)
	if err != nil {
		return Report{}, err
	}
	var ssmClient amiselect.SSMClient = ssm.NewFromConfig(cfg, func(o *ssm.Options) {
		if opts.live.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.live.Endpoint)
		}
	})
	r, err := check(ctx, client, ssmClient, source, opts.k8s, m)
	return r, opts.live.Err(ctx, err)
}

func write(w io.Writer, format string, r Report) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return writeTable(w, r)
}

func inputNames(files []string) string {
	if len(files) == 0 {
		return "standard input"
	}
	return strings.Join(files, ", ")
}
