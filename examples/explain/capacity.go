package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/internal/cli"
)

// estimateMapped estimates what the nodes of the mapped types have
// (package capacity), in the order of types: every mapped type for the
// table (-types, -types-file or -capacity), else only -explain's. Each
// type is estimated under the family of the AMI it gets, unless -family
// says otherwise (familyFor), with -nodeclass's kubelet settings.
func estimateMapped(m amiselect.Mapping, types []compat.InstanceType, opts options) ([]capacity.Estimate, error) {
	table := opts.capacity || opts.types != nil
	if !table && opts.explainType == "" {
		return nil, nil
	}
	amiOf := map[string]amiselect.AMI{}
	for _, g := range m.Groups {
		for _, it := range g.InstanceTypes {
			amiOf[it.Name] = g.AMI
		}
	}
	estimators := map[compat.AMIFamily]*capacity.Estimator{}
	var out []capacity.Estimate
	for _, it := range types {
		a, mapped := amiOf[it.Name]
		if !mapped || !table && it.Name != opts.explainType {
			continue
		}
		f := familyFor(a, opts.estimate)
		e := estimators[f]
		if e == nil {
			launch := capacity.Launch{Family: f}
			var err error
			if nc := opts.estimate.nodeClass; nc != nil {
				if launch, err = cli.Launch(*nc, f); err != nil {
					return nil, cli.Usagef("%s: %w", opts.estimate.source, err)
				}
			}
			if e, err = capacity.NewEstimator(launch, capacity.EstimateOptions{}); err != nil {
				return nil, cli.Usagef("%s under %s: %w", opts.estimate.source, f, err)
			}
			estimators[f] = e
		}
		out = append(out, e.Estimate(it))
	}
	return out, nil
}

// familyFor is the family whose boot software a node of the AMI runs:
// -family; else the AMI's own, read from its name; for a custom AMI,
// -nodeclass's spec.amiFamily when it names one; else Custom (the
// kubelet's defaults, which the estimate says it assumes).
func familyFor(a amiselect.AMI, l launchOptions) compat.AMIFamily {
	switch {
	case l.family != "":
		return l.family
	case a.Family != compat.Custom && a.Family != "":
		return a.Family
	case l.nodeClass != nil:
		if f := l.nodeClass.Family(); f != "" {
			return f
		}
	}
	return compat.Custom
}

// capacity writes the estimate table (when the types were named, or with
// -capacity), what the estimates assume, and -explain's every term.
func (r *report) capacity(opts options, estimates []capacity.Estimate) {
	if opts.capacity || opts.types != nil {
		r.capacityTable(opts, estimates)
	}
	if opts.explainType == "" {
		return
	}
	i := slices.IndexFunc(estimates, func(e capacity.Estimate) bool { return e.InstanceType == opts.explainType })
	if i < 0 {
		r.printf("\n%s gets no AMI (above), so no node of it launches: nothing to estimate\n", opts.explainType)
		return
	}
	r.printf("\nThe estimate of %s, term by term (-explain):\n", opts.explainType)
	for _, line := range strings.SplitAfter(strings.TrimSuffix(estimates[i].Explain(), "\n"), "\n") {
		r.printf("  %s", line)
	}
	r.printf("\n")
	r.printf("Its on-demand price, term by term:\n")
	for _, line := range strings.Split(newListPrices(opts.live.Region).price(estimates[i]).Explain(), "\n") {
		r.printf("  %s\n", line)
	}
}

func (r *report) capacityTable(opts options, estimates []capacity.Estimate) {
	from := ""
	if opts.estimate.source != "" {
		from = ", kubelet settings and volumes from " + opts.estimate.source
	}
	r.printf("\nWhat a node of each mapped type has (package capacity%s; -explain TYPE for every term): %s\n", from, count(len(estimates), "type"))
	if len(estimates) == 0 {
		return
	}
	prices := newListPrices(opts.live.Region)
	rows := [][]string{{"TYPE", "FAMILY", "CPU", "MEMORY", "MEMORY FROM", "PODS", "PODS FROM", "RESERVED CPU", "RESERVED MEMORY", "ALLOCATABLE CPU", "ALLOCATABLE MEMORY", "ALLOCATABLE PODS", "ON-DEMAND"}}
	for _, row := range capacityRows(estimates, prices) {
		rows = append(rows, []string{row.Type, row.Family, row.CPU, row.Memory, row.MemoryFrom, row.Pods, row.PodsFrom,
			row.ReservedCPU, row.ReservedMemory, row.AllocatableCPU, row.AllocatableMemory, row.AllocatablePods, row.OnDemand})
	}
	r.table(rows)
	for _, a := range assumptions(estimates) {
		r.printf("  assumes: %s\n", a)
	}
	r.printf("  ON-DEMAND: the list price in %s from the embedded price snapshot (offerings.EmbeddedPriceSnapshot: Karpenter v1.14.1's tables); unknown where it has none, never another region's\n", prices.region)
}

// capacityRow is one row of the capacity table, as printed.
type capacityRow struct {
	Type              string `json:"type"`
	Family            string `json:"family"`
	CPU               string `json:"cpu"`
	Memory            string `json:"memory"`
	MemoryFrom        string `json:"memoryFrom"`
	Pods              string `json:"pods"`
	PodsFrom          string `json:"podsFrom"`
	ReservedCPU       string `json:"reservedCPU"`
	ReservedMemory    string `json:"reservedMemory"`
	AllocatableCPU    string `json:"allocatableCPU"`
	AllocatableMemory string `json:"allocatableMemory"`
	AllocatablePods   string `json:"allocatablePods"`
	OnDemand          string `json:"onDemand"`
}

func capacityRows(estimates []capacity.Estimate, prices listPrices) []capacityRow {
	cpu := func(v int64) string { return capacity.FormatQuantity(capacity.ResourceCPU, v) }
	mem := func(v int64) string { return capacity.FormatQuantity(capacity.ResourceMemory, v) }
	var out []capacityRow
	for _, e := range estimates {
		memFrom, _ := e.Term(capacity.ResourceMemory, capacity.KindCapacity)
		taken := e.KubeReserved.Add(e.SystemReserved).Add(e.EvictionHard)
		out = append(out, capacityRow{e.InstanceType, e.Family.String(), cpu(e.Capacity.CPU), mem(e.Capacity.Memory), memFrom.Source.String(),
			capacity.FormatQuantity(capacity.ResourcePods, e.Capacity.Pods), e.MaxPods.Term.Source.String(),
			cpu(taken.CPU), mem(taken.Memory), cpu(e.Allocatable.CPU), mem(e.Allocatable.Memory), capacity.FormatQuantity(capacity.ResourcePods, e.Allocatable.Pods),
			prices.cell(e)})
	}
	return out
}

// assumptions lists what the estimates assume, once each, in order.
func assumptions(estimates []capacity.Estimate) []string {
	var out []string
	for _, e := range estimates {
		for _, u := range append(unknowns(e), e.Assumptions...) {
			if !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	return out
}

// unknowns says what each figure the estimate cannot know is, and why.
func unknowns(e capacity.Estimate) []string {
	var out []string
	for _, u := range e.Unknown {
		out = append(out, fmt.Sprintf("%s %s unknown (%s): %s", u.Resource, u.Kind, u.Reason, u.Detail))
	}
	return out
}
