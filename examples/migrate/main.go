// Command migrate moves AL2 userData to AL2023 or Bottlerocket with
// userdata.Migrate, and shows the proof: what moved where, what was
// dropped or refused, and Lint on both sides registering the same taints,
// labels, max pods and kubelet configuration.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/userdata"

	_ "embed"
)

func main() { cli.Main(command.Name, run) }

var command = cli.Command{Name: "migrate", Args: "[FILE]", Usage: `Usage: go run ./examples/migrate [flags] [FILE]

It moves the AL2 userData in FILE (raw or base64; without FILE, an example
script that joins with taints, labels, max pods, an image GC edit of
bootstrap.sh and a sysctl) to AL2023 or Bottlerocket, and shows what moved
where, what was dropped or refused and why, and Lint's report on both sides.
It writes the migrated userData to -o, or after the report. Exit status: 0
migrated, 1 refused, 2 bad command line or unreadable file.
`}

//go:embed testdata/al2.sh
var example []byte

type options struct {
	to, out, cidr, endpoint, ca, required, k8s string
}

func run(ctx context.Context, w io.Writer, args []string) error {
	fs := command.FlagSet()
	var o options
	fs.StringVar(&o.to, "to", "al2023", "the target: al2023 or bottlerocket")
	fs.StringVar(&o.out, "o", "", "write the migrated userData to this file instead of after the report")
	fs.StringVar(&o.cidr, "cidr", "10.100.0.0/16", "the cluster's service CIDR, which nodeadm needs and AL2 userData may not say")
	fs.StringVar(&o.endpoint, "endpoint", "", "the API server endpoint, when the userData leaves it to bootstrap.sh's describe-cluster")
	fs.StringVar(&o.ca, "ca", "", "the cluster CA (base64), when the userData leaves it to bootstrap.sh's describe-cluster")
	fs.StringVar(&o.required, "required", "karpenter.sh/unregistered:NoExecute", "the taints the node must register, comma-separated (\"\" for none)")
	fs.StringVar(&o.k8s, "k8s", "", "the cluster's Kubernetes version (1.32); empty judges every release each family ships")
	if help, err := command.Parse(fs, w, args); help || err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return cli.Usagef("more than one file (%s); migrate takes one", strings.Join(fs.Args(), " "))
	}
	name, data := "the example AL2 userData (testdata/al2.sh)", example
	if fs.NArg() == 1 {
		var err error
		name = fs.Arg(0)
		if data, err = os.ReadFile(name); err != nil {
			return cli.Inputf("migrate: %v", err)
		}
	}
	opts, target, err := o.parse()
	if err != nil {
		return err
	}
	m, err := userdata.Migrate(data, target, opts)
	var me *userdata.MigrateError
	if err != nil && !errors.As(err, &me) {
		return cli.Inputf("migrate: %s: %v", name, err)
	}
	report(w, name, m)
	if err != nil {
		return fmt.Errorf("migrate: %s cannot move to %v; see Refused above", name, target)
	}
	if o.out != "" {
		if err := os.WriteFile(o.out, m.UserData, 0o644); err != nil {
			return fmt.Errorf("migrate: %v", err)
		}
		fmt.Fprintf(w, "\nWrote the %v userData to %s.\n", target, o.out)
		return ctx.Err()
	}
	fmt.Fprintf(w, "\nThe %v userData:\n%s", target, m.UserData)
	return ctx.Err()
}

// parse checks the flags.
func (o options) parse() (userdata.MigrateOptions, compat.AMIFamily, error) {
	opts := userdata.MigrateOptions{ClusterCIDR: o.cidr, APIServerEndpoint: o.endpoint, CABundle: o.ca, KubernetesVersion: o.k8s, Required: []userdata.Taint{}}
	var target compat.AMIFamily
	switch strings.ToLower(o.to) {
	case "al2023":
		target = compat.AL2023
	case "bottlerocket":
		target = compat.Bottlerocket
	default:
		return opts, target, cli.Usagef("-to %q: use al2023 or bottlerocket", o.to)
	}
	if o.required != "" {
		taints, err := userdata.ParseTaints(o.required)
		if err != nil {
			return opts, target, cli.Usagef("-required: %v", err)
		}
		opts.Required = taints
	}
	return opts, target, nil
}

// report writes what Migrate did.
func report(w io.Writer, name string, m userdata.Migration) {
	fmt.Fprintf(w, "AL2 userData: %s\nTarget: %v\n", name, m.Target)
	fmt.Fprintf(w, "\nLint of the AL2 userData:\n%s\n", indent(m.Before.String()))
	if len(m.Moved) > 0 {
		fmt.Fprintln(w, "\nMoved:")
		for _, mv := range m.Moved {
			fmt.Fprintf(w, "  %s%s → %s\n", where(mv.Part, mv.Line), mv.From, mv.To)
		}
	}
	for _, list := range []struct {
		title string
		items []userdata.Unmoved
	}{{"Dropped", m.Dropped}, {"Refused", m.Refused}} {
		if len(list.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", list.title)
		for _, u := range list.items {
			fmt.Fprintf(w, "  %s\n", u)
		}
	}
	for _, d := range m.Differences {
		fmt.Fprintf(w, "  differs: %s\n", d)
	}
	if m.After.Verdict == userdata.Joins && m.UserData != nil {
		fmt.Fprintf(w, "\nLint of the %v userData:\n%s\n", m.Target, indent(m.After.String()))
		fmt.Fprintln(w, "\nBoth register the same taints, labels, max pods and kubelet configuration.")
	}
}

func where(part string, line int) string {
	switch {
	case line > 0 && part != "":
		return fmt.Sprintf("part %s, line %d: ", part, line)
	case line > 0:
		return fmt.Sprintf("line %d: ", line)
	}
	return ""
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
