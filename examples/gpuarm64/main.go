// Command gpuarm64 shows problem 1's GPU case: g5g (arm64 with an NVIDIA
// T4G) has no Amazon Linux 2 GPU AMI, while AL2023 and Bottlerocket publish
// arm64 NVIDIA AMIs. amiselect maps g5g under each family and says why AL2
// cannot run it; AMD and Neuron types get the AMIs their devices need.
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

var command = cli.Command{Name: "gpuarm64", Usage: `Usage: go run ./examples/gpuarm64

It shows problem 1's GPU case: g5g (arm64 with an NVIDIA T4G) has no Amazon
Linux 2 GPU AMI, while AL2023 and Bottlerocket publish arm64 NVIDIA AMIs.
amiselect maps g5g under each family and says why AL2 cannot run it; AMD and
Neuron types get the AMIs their devices need.
`}

// run parses args (only -h) and runs the demonstration.
func run(ctx context.Context, w io.Writer, args []string) error {
	if help, err := command.Parse(command.FlagSet(), w, args); help || err != nil {
		return err
	}
	return demo(ctx, w)
}

const kubernetesVersion = "1.32"

func demo(ctx context.Context, w io.Writer) error {
	fmt.Fprintln(w, `Problem 1, GPU case: g5g is arm64 with an NVIDIA GPU, and Amazon Linux 2 publishes no arm64 GPU
AMI. Karpenter once launched g5g with AL2's x86_64 GPU AMI (karpenter-provider-aws #3217); now nothing
maps. AL2023 and Bottlerocket publish arm64 NVIDIA AMIs.`)

	backend := ec2fake.NewWithCatalog(ec2fake.Options{})
	types, err := cli.InstanceTypes(ctx, backend, "g5g.xlarge", "g4ad.8xlarge", "inf2.xlarge")
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, it := range types {
		fmt.Fprintf(w, "%-12s %s, %s\n", it.Name, it.Arch, accelerator(it))
	}
	g5g := types[:1]

	var bottlerocket []amiselect.AMI
	for _, alias := range []string{"al2@latest", "al2023@latest", "bottlerocket@latest"} {
		sel, err := amiselect.Resolve(ctx, backend, []amiselect.Term{{Alias: alias}},
			amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: kubernetesVersion}})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\n%s (Kubernetes %s) selects %s:\n", alias, kubernetesVersion, cli.AMIs(sel.AMIs))
		for _, a := range sel.AMIs {
			fmt.Fprintf(w, "  %-21s %-5s %-8s %s\n", a.ID, a.Arch, a.Variant, a.Name)
		}
		printMapping(w, amiselect.Map(g5g, sel.AMIs), sel.AMIs)
		if alias == "bottlerocket@latest" {
			bottlerocket = sel.AMIs
		}
	}

	// Karpenter's NVIDIA AMIs require only a GPU, of any make.
	karpenterNVIDIA := compat.MustRequirements(compat.Requirement{Key: compat.LabelInstanceGPUCount, Operator: compat.Exists})
	g4ad := types[1]
	fmt.Fprintf(w, "\nKarpenter's NVIDIA AMIs require %s: g4ad.8xlarge (AMD) satisfies it: %t.\n",
		karpenterNVIDIA, g4ad.Compatible(karpenterNVIDIA) == nil)
	fmt.Fprintf(w, "ec2select's (amiselect.NVIDIA) require %s: satisfies it: %t.\n",
		amiselect.NVIDIA.Requirements(), g4ad.Compatible(amiselect.NVIDIA.Requirements()) == nil)
	fmt.Fprintln(w, "\nOther accelerators under bottlerocket@latest:")
	printMapping(w, amiselect.Map(types[1:], bottlerocket), bottlerocket)
	return nil
}

func accelerator(it compat.InstanceType) string {
	switch {
	case it.HasGPU():
		return fmt.Sprintf("%d %s %s GPU", it.GPUCount, it.GPUManufacturer, it.GPUName)
	case it.HasAccelerator():
		return fmt.Sprintf("%d %s %s accelerator", it.AcceleratorCount, it.AcceleratorManufacturer, it.AcceleratorName)
	}
	return "no accelerator"
}

// printMapping prints the AMI each type maps to, or, for a type that maps
// to none, what keeps each AMI from running it and what would fix it.
func printMapping(w io.Writer, m amiselect.Mapping, amis []amiselect.AMI) {
	for _, g := range m.Groups {
		for _, it := range g.InstanceTypes {
			fmt.Fprintf(w, "  %-12s → %s %s\n", it.Name, g.AMI, g.AMI.Name)
		}
	}
	for _, u := range m.Unmapped {
		fmt.Fprintf(w, "  %-12s → no AMI\n", u.InstanceType.Name)
		for i, reason := range u.Reasons {
			var ie *compat.IncompatibleError
			if errors.As(reason, &ie) {
				fmt.Fprintf(w, "    %s needs %s; it has %s\n", amis[i], ie.Required, ie.Instance)
			}
		}
		fmt.Fprintf(w, "    fix: %s\n", u.Fix)
	}
}
