package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/weighting"
)

// pools checks the NodePools one controller runs, together: the order it
// tries them in (weighting.Order, Karpenter's), NodePools that serve the
// same pods at one weight, and an accelerated NodePool that catches
// ordinary pods.
func (c *checker) pools(u *unit, controller string, pools []*nodePool, allowed map[*nodePool][]compat.InstanceType) {
	if len(pools) == 0 {
		return
	}
	ordered := order(pools)
	for _, np := range ordered {
		c.report.Order = append(c.report.Order, Ordered{np.Name, np.Weight, controller})
	}
	for i, a := range ordered {
		for _, b := range ordered[i+1:] {
			if u.linked(a.doc.file, b.doc.file) {
				c.overlap(a, b, allowed)
			}
		}
	}
	c.catchAll(u, ordered, allowed)
}

// order is pools in Karpenter's order (weighting.Order). NodePools of
// one name (in alternative files) are told apart by weight, and those of
// one name and weight keep their order, as weighting.Order keeps it.
func order(pools []*nodePool) []*nodePool {
	plain := make([]weighting.NodePool, len(pools))
	for i, p := range pools {
		plain[i] = p.NodePool
	}
	used := make([]bool, len(pools))
	out := make([]*nodePool, 0, len(pools))
	for _, p := range weighting.Order(plain) {
		for i, q := range pools {
			if !used[i] && q.Name == p.Name && q.Weight == p.Weight {
				used[i] = true
				out = append(out, q)
				break
			}
		}
	}
	return out
}

// overlap reports two NodePools that Karpenter could both use for the same
// pod: they admit common instance types, their other requirements and
// labels (capacity type, zone, the user's own labels) can hold at once,
// and they have the same taints, so the same pods tolerate both. At equal
// weight, Karpenter then tries them in reverse order of name, which is
// rarely what was meant.
func (c *checker) overlap(a, b *nodePool, allowed map[*nodePool][]compat.InstanceType) {
	names := map[string]bool{}
	for _, it := range allowed[a] {
		names[it.Name] = true
	}
	n := 0
	for _, it := range allowed[b] {
		if names[it.Name] {
			n++
		}
	}
	if n == 0 || !slices.Equal(taintsOf(a.NodePool), taintsOf(b.NodePool)) || !compatible(a.NodePool, b.NodePool) {
		return
	}
	c.report.Overlaps = append(c.report.Overlaps, Overlap{[2]string{a.Name, b.Name}, n, a.Name})
	if a.Weight != b.Weight {
		return
	}
	c.out.add(Finding{Severity: SevWarning, Code: codeSameWeight, Where: b.at, Subjects: []string{"NodePool " + a.Name, "NodePool " + b.Name},
		Message: fmt.Sprintf("NodePools %q and %q can take the same pods (%s in common, the same taints, requirements and labels that can hold together) at the same weight %d; Karpenter tries %q first only because its name sorts later", a.Name, b.Name, cli.Count(n, "instance type"), a.Weight, a.Name),
		Fix:     "give the one to try first a higher spec.weight, or tell them apart (disjoint requirements, a taint, a label pods select)"})
}

// compatible reports whether some node could satisfy both NodePools'
// requirements and carry both's labels: a label is an In requirement on
// its key.
func compatible(a, b weighting.NodePool) bool {
	ra, errA := compat.NewRequirements(withLabels(a)...)
	rb, errB := compat.NewRequirements(withLabels(b)...)
	if errA != nil || errB != nil {
		return true
	}
	keys := append(ra.Keys(), rb.Keys()...)
	return ra.Compatible(rb, compat.AllowUndefined(keys...)) == nil
}

func withLabels(np weighting.NodePool) []compat.Requirement {
	reqs := slices.Clone(np.Requirements)
	for _, k := range slices.Sorted(maps.Keys(np.Labels)) {
		reqs = append(reqs, compat.Requirement{Key: k, Operator: compat.In, Values: []string{np.Labels[k]}})
	}
	return reqs
}

// catchAll reports a NodePool that allows only GPU or accelerator instance
// types, keeps no pod off with a taint, and that Karpenter tries before a
// NodePool of ordinary types: Karpenter gives a pod the first NodePool, in
// order, that can run it, so every pod that fits its nodes lands there,
// not only those that asked for an accelerator. Labels do not keep pods
// off (a pod with no node selector fits any), so they do not count.
func (c *checker) catchAll(u *unit, ordered []*nodePool, allowed map[*nodePool][]compat.InstanceType) {
	for i, p := range ordered {
		if !allAccelerated(allowed[p]) || len(taintsOf(p.NodePool)) > 0 {
			continue
		}
		for _, q := range ordered[i+1:] {
			if !u.linked(p.doc.file, q.doc.file) || allAccelerated(allowed[q]) || len(allowed[q]) == 0 {
				continue
			}
			c.out.add(Finding{Severity: SevWarning, Code: codeCatchAll, Where: p.at, Subjects: []string{"NodePool " + p.Name},
				Message: fmt.Sprintf("NodePool %q allows only GPU or accelerator instance types (%s) and has no NoSchedule taint, and Karpenter tries it before %q (weight %d against %d): every pod that fits its nodes gets one, not only the pods that ask for a GPU",
					p.Name, listed(typeNames(allowed[p])), q.Name, p.Weight, q.Weight),
				Fix: fmt.Sprintf("taint NodePool %q (for example nvidia.com/gpu=true:NoSchedule) and give its pods the toleration, or give it a lower spec.weight than %q", p.Name, q.Name)})
			break
		}
	}
}

func typeNames(types []compat.InstanceType) []string {
	names := make([]string, len(types))
	for i, it := range types {
		names[i] = it.Name
	}
	return names
}
