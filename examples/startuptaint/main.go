// Command startuptaint shows problem 3: in custom AL2 userData,
// --kubelet-extra-args='--register-with-taints=...' is dropped by
// /etc/eks/bootstrap.sh, so the node registers without its startup taint.
// userdata.Lint finds it and gives the corrected line; userdata.Render
// writes the taint correctly and refuses input that could inject.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/userdata"
)

func main() { cli.Main(command.Name, run) }

var command = cli.Command{Name: "startuptaint", Usage: `Usage: go run ./examples/startuptaint

It shows problem 3: in custom AL2 userData,
--kubelet-extra-args='--register-with-taints=...' is dropped by
/etc/eks/bootstrap.sh, so the node registers without its startup taint.
userdata.Lint finds it and gives the corrected line; userdata.Render writes
the taint correctly and refuses input that could inject.
`}

// run parses args (only -h) and runs the demonstration.
func run(ctx context.Context, w io.Writer, args []string) error {
	if help, err := command.Parse(command.FlagSet(), w, args); help || err != nil {
		return err
	}
	return demo(ctx, w)
}

const broken = `#!/bin/bash
/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args='--register-with-taints="karpenter.sh/uninitialized:NoExecute"'
`

func demo(_ context.Context, w io.Writer) error {
	fmt.Fprintln(w, `Problem 3: custom AL2 userData passes --kubelet-extra-args='--register-with-taints=...' with '='.
/etc/eks/bootstrap.sh only accepts "--kubelet-extra-args VALUE" and drops the word silently, so the node
registers without its startup taint, and a controller that requires the taint (as Karpenter v1.0-v1.2
do for theirs) terminates it 15 minutes later.`)

	required := []userdata.Taint{{Key: "karpenter.sh/uninitialized", Effect: userdata.NoExecute}}
	fmt.Fprintf(w, "\nRequired taint: %s\n", userdata.FormatTaints(required))

	fmt.Fprintf(w, "\n1. The user's script:\n%s", indent(broken))
	report, err := userdata.Lint(compat.AL2, []byte(broken), required)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "userdata.Lint:\n%s", indent(report.String()+"\n"))

	// The fix Lint gives for the '=' form is the corrected line.
	fixed := broken
	for _, p := range report.Problems {
		if p.Code == userdata.CodeEqualsForm {
			lines := strings.Split(fixed, "\n")
			lines[p.Line-1] = p.Fix
			fixed = strings.Join(lines, "\n")
		}
	}
	fmt.Fprintf(w, "\n2. The script with Lint's corrected line:\n%s", indent(fixed))
	report, err = userdata.Lint(compat.AL2, []byte(fixed), required)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "userdata.Lint:\n%s", indent(report.String()+"\n"))

	cfg := userdata.Config{
		ClusterName:       "my-cluster",
		APIServerEndpoint: "https://ABCDEF0123456789.gr7.us-east-1.eks.amazonaws.com",
		CABundle:          "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=",
		Taints:            []userdata.Taint{{Key: "example.com/team", Value: "ml", Effect: userdata.NoSchedule}},
		Labels:            map[string]string{"example.com/team": "ml"},
		RequiredTaints:    required,
	}
	out, err := userdata.Render(compat.AL2, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\n3. userdata.Render(compat.AL2, cfg), the bootstrap lines:")
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "bootstrap.sh") || strings.HasPrefix(line, "  ") {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
	report, err = userdata.Lint(compat.AL2, out, required)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "userdata.Lint of the rendered userData:\n%s", indent(report.String()+"\n"))

	fmt.Fprintln(w, "\n4. Render refuses what could change the command:")
	label := cfg
	label.Labels = map[string]string{"example.com/team": "ml' --pause-container-image 'evil"}
	taint := cfg
	taint.Taints = []userdata.Taint{{Key: "example.com/team", Value: "ml;reboot", Effect: userdata.NoSchedule}}
	for _, bad := range []userdata.Config{label, taint} {
		if _, err := userdata.Render(compat.AL2, bad); err != nil {
			fmt.Fprintf(w, "    %v\n", err)
		} else {
			//lint:ignore ST1005 Render is the function it reports on
			return errors.New("Render accepted an injection attempt")
		}
	}
	return nil
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
}
