// Command flexpriority shows problem 4 (karpenter-provider-aws #7751):
// "prefer c7i-flex and m7i-flex, fall back to anything" cannot be written as
// instance-family In ["c7i-flex", "*"]. A weighting.Policy states it once,
// ranks the catalog by it, and expands it into two disjoint NodePools made
// from the NodePool the user already runs, which keep its other fields.
package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/weighting"
)

func main() { cli.Main(command.Name, run) }

var command = cli.Command{Name: "flexpriority", Usage: `Usage: go run ./examples/flexpriority

It shows problem 4 (karpenter-provider-aws #7751): "prefer c7i-flex and
m7i-flex, fall back to anything" cannot be written as instance-family In
["c7i-flex", "*"]. A weighting.Policy states it once, ranks the catalog by
it, and expands it into two disjoint NodePools made from the NodePool the
user already runs, which keep its other fields.
`}

// run parses args (only -h) and runs the demonstration.
func run(ctx context.Context, w io.Writer, args []string) error {
	if help, err := command.Parse(command.FlagSet(), w, args); help || err != nil {
		return err
	}
	return demo(ctx, w)
}

// baseNodePool is the NodePool a user already runs, status and all; the
// tiers' NodePools are made from it.
const baseNodePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
  annotations: {example.com/owner: platform-team}
spec:
  limits: {cpu: 1000, memory: 1000Gi}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
    budgets: [{nodes: 10%}]
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: 720h
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
status: {nodes: 3}
`

// prices are us-east-1 on-demand prices (USD per hour) for a few types;
// within a tier, priced types come first, cheapest first, then the rest by
// name.
var prices = map[string]float64{
	"c7i-flex.large": 0.08479, "m7i-flex.large": 0.09576, "m7i.large": 0.1008, "m7i.xlarge": 0.2016,
}

func demo(ctx context.Context, w io.Writer) error {
	fmt.Fprintln(w, `Problem 4, karpenter-provider-aws #7751: to prefer flex types and fall back to anything, a user
wrote instance-family In ["c7i-flex", "*"]. Karpenter rejects it: "*" is not a label value and there
are no wildcards, so users hand-list families or hand-write two weighted NodePools.`)

	_, err := compat.NewRequirements(compat.Requirement{
		Key: compat.LabelInstanceFamily, Operator: compat.In, Values: []string{"c7i-flex", "*"},
	})
	fmt.Fprintf(w, "\n1. compat.NewRequirements, which checks values as Karpenter does:\n    %v\n", err)

	// The types no EKS node runs on (Mac) are left out.
	catalog, _, err := compat.LoadInstanceTypes(ctx, ec2fake.NewWithCatalog(ec2fake.Options{}), nil)
	if err != nil {
		return err
	}
	policy := weighting.Policy{Tiers: []weighting.Tier{
		{Name: "flex", Weight: 100, Families: []string{"c7i-flex", "m7i-flex"}},
		{Name: "rest", Weight: 1, Families: []string{"*"}},
	}}
	ranking, err := policy.Rank(catalog, weighting.RankOptions{
		Price: func(name string) (float64, bool) { p, ok := prices[name]; return p, ok },
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n2. weighting.Policy {flex: 100, [c7i-flex m7i-flex]}, {rest: 1, [*]} over %d catalog types:\n", len(catalog))
	for _, rt := range ranking.Tiers {
		fmt.Fprintf(w, "    %-4s weight %3d: %3d types, first %s\n", rt.Tier.Name, rt.Tier.Weight, len(rt.InstanceTypes), names(rt.InstanceTypes, 4))
	}
	fmt.Fprintf(w, "    unranked: %d\n", len(ranking.Unranked))
	for _, name := range []string{"m7i-flex.2xlarge", "m7i.large"} {
		fmt.Fprintf(w, "    %s\n", ranking.Explain(name))
	}

	base, err := weighting.DecodeNodePool([]byte(baseNodePool))
	if err != nil {
		return err
	}
	pools, err := policy.NodePools(catalog, base)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\n3. policy.NodePools from the base NodePool below, in the order Karpenter tries them;")
	fmt.Fprintln(w, "   each keeps the base's limits, disruption, annotations and expiry:")
	fmt.Fprint(w, baseNodePool)
	for _, np := range weighting.Order(pools) {
		y, err := np.EncodeYAML()
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "---\n%s", y)
	}
	if err := disjoint(w, pools, catalog); err != nil {
		return err
	}

	fmt.Fprintln(w, "\n4. weighting.Fallback, the tier a provisioner tries next:")
	for _, c := range []struct {
		when      string
		available func(string) bool
	}{
		{"all capacity available", nil},
		{"no flex capacity", func(name string) bool { return !strings.Contains(name, "-flex.") }},
	} {
		next, ok := weighting.Fallback(ranking, c.available)
		if !ok {
			return fmt.Errorf("no tier has capacity with %s", c.when)
		}
		fmt.Fprintf(w, "    %-22s → %s, %d types, first %s\n", c.when, next.Tier.Name, len(next.InstanceTypes), names(next.InstanceTypes, 3))
	}
	return nil
}

// disjoint counts, over the catalog, the types each NodePool alone admits
// and those that several or none admit, evaluating the NodePools'
// requirements against each type as Karpenter does.
func disjoint(w io.Writer, pools []weighting.NodePool, catalog []compat.InstanceType) error {
	reqs := make([]compat.Requirements, len(pools))
	for i, np := range pools {
		var err error
		if reqs[i], err = compat.NewRequirements(np.Requirements...); err != nil {
			return err
		}
	}
	only := map[string]int{}
	several, none := 0, 0
	for _, it := range catalog {
		var admitted []string
		for i, np := range pools {
			// The capacity type comes from offerings, not from the type.
			if _, conflict := it.Conflict(reqs[i], compat.AllowUndefined(compat.LabelCapacityType)); !conflict {
				admitted = append(admitted, np.Name)
			}
		}
		switch len(admitted) {
		case 0:
			none++
		case 1:
			only[admitted[0]]++
		default:
			several++
		}
	}
	fmt.Fprintf(w, "Of the %d catalog types:", len(catalog))
	for _, np := range pools {
		fmt.Fprintf(w, " %d only in %s,", only[np.Name], np.Name)
	}
	fmt.Fprintf(w, " %d in several, %d in none.\n", several, none)
	return nil
}

func names(types []compat.InstanceType, n int) string {
	var s []string
	for _, it := range types[:min(n, len(types))] {
		s = append(s, it.Name)
	}
	return strings.Join(s, ", ")
}
