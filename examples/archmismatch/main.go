// Command archmismatch shows problem 1 (karpenter-provider-aws #7211): a
// custom amd64-only AMI with a NodePool that leaves the architecture open.
// amiselect maps every amd64 type, and when only arm64 types are offered it
// says why nothing maps and which NodePool requirement fixes it.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
)

func main() { cli.Main(command.Name, run) }

var command = cli.Command{Name: "archmismatch", Usage: `Usage: go run ./examples/archmismatch

It shows problem 1 (karpenter-provider-aws #7211): a custom amd64-only AMI
with a NodePool that leaves the architecture open. amiselect maps every
amd64 type, and when only arm64 types are offered it says why nothing maps
and which NodePool requirement fixes it.
`}

// run parses args (only -h) and runs the demonstration.
func run(ctx context.Context, w io.Writer, args []string) error {
	if help, err := command.Parse(command.FlagSet(), w, args); help || err != nil {
		return err
	}
	return demo(ctx, w)
}

func demo(ctx context.Context, w io.Writer) error {
	fmt.Fprintln(w, `Problem 1, karpenter-provider-aws #7211: an EC2NodeClass pins a custom amd64-only AMI and the
NodePool leaves the architecture open. When only arm64 types are left, Karpenter fails with "no instance
types satisfy requirements of amis" and does not say which requirement is missing.`)

	backend := ec2fake.NewWithCatalog(ec2fake.Options{})
	term := amiselect.Term{Name: "team-base-al2023-20250301", Owner: "self"}
	sel, err := amiselect.Resolve(ctx, backend, []amiselect.Term{term}, amiselect.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nAMI selector: name %q, owner %s\n", term.Name, term.Owner)
	for _, a := range sel.AMIs {
		fmt.Fprintf(w, "  %s requires %s\n", a, a.Requirements)
	}

	all, skipped, err := compat.LoadInstanceTypes(ctx, backend, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n1. An unconstrained NodePool offers the whole catalog, %d types\n", len(all)+len(skipped))
	for _, s := range skipped {
		fmt.Fprintf(w, "  skipped:  %s\n", s.Err)
	}
	printMapping(w, amiselect.Map(all, sel.AMIs))

	pod := compat.MustRequirements(compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchARM64}})
	arm64 := admitted(all, pod)
	fmt.Fprintf(w, "\n2. A pod with nodeSelector kubernetes.io/arch: arm64 leaves only the %d arm64 types:\n", len(arm64))
	var noAMI *amiselect.NoCompatibleAMIError
	if !errors.As(amiselect.Map(arm64, sel.AMIs).Err(), &noAMI) || len(noAMI.AMIs) == 0 {
		return errors.New("arm64 types mapped to an amd64 AMI")
	}
	fmt.Fprintf(w, "  Mapping.Err():\n    %v\n", noAMI)

	// The fix is the AMI's own requirement on the key the error names.
	conflict := noAMI.AMIs[0]
	fix, _ := conflict.AMI.Requirements.Get(conflict.Key)
	nodePool, err := compat.NewRequirements(fix...)
	if err != nil {
		return err
	}
	offered := admitted(all, nodePool)
	fmt.Fprintf(w, "\n3. With the suggested requirement %s the NodePool offers %d of the %d types\n", nodePool, len(offered), len(all))
	printMapping(w, amiselect.Map(offered, sel.AMIs))
	return nil
}

// admitted returns the types that satisfy reqs, as a scheduler filters them.
func admitted(types []compat.InstanceType, reqs compat.Requirements) []compat.InstanceType {
	var out []compat.InstanceType
	for _, it := range types {
		if _, conflict := it.Conflict(reqs); !conflict {
			out = append(out, it)
		}
	}
	return out
}

func printMapping(w io.Writer, m amiselect.Mapping) {
	for _, g := range m.Groups {
		fmt.Fprintf(w, "  mapped:   %d types to %s, archs %s\n", len(g.InstanceTypes), g.AMI, archs(g.InstanceTypes))
	}
	if len(m.Unmapped) == 0 {
		fmt.Fprintln(w, "  unmapped: none")
		return
	}
	var types []compat.InstanceType
	for _, u := range m.Unmapped {
		types = append(types, u.InstanceType)
	}
	u := m.Unmapped[0]
	fmt.Fprintf(w, "  unmapped: %d types, archs %s; the first:\n    %v\n", len(types), archs(types), u.Reasons[0])
}

func archs(types []compat.InstanceType) string {
	n := map[string]int{}
	for _, it := range types {
		n[it.Arch]++
	}
	return fmt.Sprintf("amd64 %d, arm64 %d", n[compat.ArchAMD64], n[compat.ArchARM64])
}
