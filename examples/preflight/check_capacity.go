package main

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/userdata"
)

// capacity estimates what the nodes of the instance types the NodePool
// can launch (those a selected AMI runs) hold, under the family whose boot
// software they run and the kubelet configuration the userData hands the
// kubelet (spec.kubelet, and what custom userData overrides; spec.kubelet
// alone when the userData cannot be followed), with the root volume and
// instance-store policy of the EC2NodeClass (package capacity), and how
// many pods of the -pod size each holds beside the -daemons. It reports,
// as one finding, a NodePool none of whose types holds even one such pod;
// types that hold none while others do are counted, not reported: the
// scheduler simply does not pick them for those pods. Nothing is
// estimated for nodes that never join.
func (c *checker) capacity(np *nodePool, nc *nodeClass, cc *classCheck, m amiselect.Mapping, ud *UserData) *Capacity {
	var types []compat.InstanceType
	for _, g := range m.Groups {
		types = append(types, g.InstanceTypes...)
	}
	if len(types) == 0 || cc.mismatch || neverJoins(ud) || nc.familyFilled() {
		return nil // no node joins (its finding says so), or the family is a placeholder's to decide
	}
	family := lintFamily(nc, cc.sel.AMIs)
	out := &Capacity{Family: string(family), Pod: formatResources(c.opts.fit.Pod, false), Daemons: formatResources(c.opts.fit.Daemons, true), Kubelet: "spec.kubelet"}
	launch, err := cli.Launch(nc.EC2NodeClass, family)
	if ud != nil && ud.kubelet != nil {
		launch.Kubelet = *ud.kubelet
		if nc.HasUserData {
			out.Kubelet = "spec.kubelet and spec.userData"
		}
	}
	if ud != nil && family == compat.AL2023 {
		launch.MaxPodsExpression = c.maxPodsExpression(np, nc, ud)
	}
	var e *capacity.Estimator
	if err == nil {
		e, err = capacity.NewEstimator(launch, capacity.EstimateOptions{})
	}
	if err != nil {
		// The userData check reports the settings Render refuses; what
		// only the estimate refuses is said here.
		out.Unresolved = strings.TrimPrefix(err.Error(), "capacity: ")
		return out
	}
	estimates := e.EstimateAll(types)
	c.expressionFails(np, nc, ud, estimates)
	fit, err := capacity.CheckFit(estimates, c.opts.fit)
	if err != nil {
		out.Unresolved = strings.TrimPrefix(err.Error(), "capacity: ")
		return out
	}
	byName := map[string]compat.InstanceType{}
	for _, it := range types {
		byName[it.Name] = it
	}
	var judged []int // indices of the verdicts that could be judged
	var none []string
	for i, v := range fit.Verdicts {
		switch {
		case v.Unresolved != "":
			out.Unjudged++
			continue
		case v.Holds == 0:
			none = append(none, v.InstanceType)
		}
		judged = append(judged, i)
	}
	out.InstanceTypes, out.HoldNone = len(types), Examples{len(none), examples(none)}
	out.Prices = c.prices(types, family)
	out.Volume = volume(estimates)
	for _, est := range estimates {
		if len(est.Assumptions) > 0 && !slices.Contains(out.Assumes, est.Assumptions[0]) {
			out.Assumes = append(out.Assumes, est.Assumptions[0])
		}
	}
	if len(judged) == 0 {
		return out
	}
	size := func(i, j int) int {
		a, b := byName[fit.Verdicts[i].InstanceType], byName[fit.Verdicts[j].InstanceType]
		return cmp.Or(cmp.Compare(a.VCPU, b.VCPU), cmp.Compare(a.MemoryMiB, b.MemoryMiB), strings.Compare(a.Name, b.Name))
	}
	smallest := slices.MinFunc(judged, size)
	largest := slices.MaxFunc(judged, size)
	out.Smallest = typeFit(estimates[smallest], fit.Verdicts[smallest], c.opts.fit)
	out.Largest = typeFit(estimates[largest], fit.Verdicts[largest], c.opts.fit)
	if len(none) == len(judged) {
		c.tooLarge(np, nc, out, estimates, fit, judged)
	}
	return out
}

// tooLarge reports that no type the NodePool launches holds one pod of the
// -pod size, naming the type that comes closest and what it lacks.
func (c *checker) tooLarge(np *nodePool, nc *nodeClass, out *Capacity, estimates []capacity.Estimate, fit capacity.Fit, judged []int) {
	closest := slices.MinFunc(judged, func(i, j int) int {
		a, b := fit.Verdicts[i], fit.Verdicts[j]
		return cmp.Or(cmp.Compare(len(a.Short), len(b.Short)), cmp.Compare(shortShare(a), shortShare(b)), strings.Compare(a.InstanceType, b.InstanceType))
	})
	v := fit.Verdicts[closest]
	var lacks []string
	for _, s := range v.Short {
		lacks = append(lacks, shortfall(s))
	}
	daemons := ""
	if out.Daemons != "" {
		daemons = " beside the daemons' " + out.Daemons
	}
	c.out.add(Finding{Severity: SevWarning, Code: codePodTooLarge, Where: np.at, Subjects: []string{"NodePool " + np.Name},
		Message: fmt.Sprintf("with EC2NodeClass %q, none of the %s the NodePool can launch holds one pod of %s (-pod)%s, by an estimate of their allocatable under %s: the closest, %s, lacks %s; such pods stay pending",
			nc.Name, cli.Count(len(judged), "instance type"), out.Pod, daemons, out.Family, v.InstanceType, strings.Join(lacks, " and ")),
		Fix: "allow larger instance types in spec.template.spec.requirements, or reserve less in spec.kubelet; if this NodePool is not meant for pods this size, give preflight their size with -pod"})
}

// volume says where the estimates' ephemeral storage is: the volume's
// size, and the instance store's RAID0 where types use one.
func volume(estimates []capacity.Estimate) string {
	var size string
	raid := false
	for _, est := range estimates {
		t, _ := est.Term(capacity.ResourceEphemeralStorage, capacity.KindCapacity)
		if strings.HasPrefix(t.Rule, "RAID0") {
			raid = true
		} else if size == "" {
			size = capacity.FormatQuantity(capacity.ResourceEphemeralStorage, t.Amount)
		}
	}
	switch {
	case !raid:
		return size
	case size == "":
		return "a RAID0 of the instance store"
	}
	return size + ", or a RAID0 of the instance store on types that have one"
}

// neverJoins reports whether the userData check found that no node joins,
// or could not write the userData at all.
func neverJoins(ud *UserData) bool {
	if ud == nil {
		return false
	}
	switch ud.Verdict {
	case userdata.NeverJoins.String(), "never joins", "not rendered":
		return true
	}
	return false
}

// shortShare is how far a verdict misses, as the largest share of a
// resource it lacks, in thousandths.
func shortShare(v capacity.Verdict) int64 {
	var worst int64
	for _, s := range v.Short {
		if s.Need > 0 {
			worst = max(worst, s.By*1000/s.Need)
		}
	}
	return worst
}

// shortfall says what one resource lacks and the term that makes it
// short, without the term's citation.
func shortfall(s capacity.Shortfall) string {
	q := func(v int64) string { return capacity.FormatQuantity(s.Resource, v) }
	return fmt.Sprintf("%s by %s (needs %s, allocatable %s; %s %s %s: %s)",
		s.Resource, q(s.By), q(s.Need), q(s.Allocatable), s.Cause.Resource, s.Cause.Kind, capacity.FormatQuantity(s.Cause.Resource, s.Cause.Amount), s.Cause.Rule)
}

// typeFit is one type's row: its allocatable, where its max pods come
// from, how many pods it holds and what limits them.
func typeFit(est capacity.Estimate, v capacity.Verdict, req capacity.FitRequest) *TypeFit {
	a := est.Allocatable
	t := &TypeFit{
		InstanceType: est.InstanceType,
		CPU:          capacity.FormatQuantity(capacity.ResourceCPU, a.CPU),
		Memory:       capacity.FormatQuantity(capacity.ResourceMemory, a.Memory),
		Pods:         a.Pods,
		MaxPodsFrom:  est.MaxPods.Term.Source.String(),
		Holds:        v.Holds,
		LimitedBy:    limitedBy(a, req).String(),
	}
	for _, s := range v.Short {
		t.Short = append(t.Short, shortfall(s))
	}
	return t
}

// limitedBy is the resource that runs out first as pods of req are added
// beside the daemons: the one with the fewest pods' worth left, the first
// in resource order on a tie.
func limitedBy(alloc capacity.Quantities, req capacity.FitRequest) capacity.Resource {
	pod := req.Pod.With(capacity.ResourcePods, 1)
	best, fewest := capacity.ResourcePods, int64(math.MaxInt64)
	for _, rk := range resourceKeys {
		left := alloc.Get(rk.r) - req.Daemons.Get(rk.r)
		n := int64(-1) // not even the daemons fit
		switch {
		case left >= 0 && pod.Get(rk.r) == 0:
			continue // no pod takes any
		case left >= 0:
			n = left / pod.Get(rk.r)
		}
		if n < fewest {
			best, fewest = rk.r, n
		}
	}
	return best
}

type resourceKey struct {
	key string
	r   capacity.Resource
}

// resourceKeys are the keys -pod and -daemons take, in output order.
var resourceKeys = []resourceKey{{"cpu", capacity.ResourceCPU}, {"memory", capacity.ResourceMemory}, {"ephemeral-storage", capacity.ResourceEphemeralStorage}, {"pods", capacity.ResourcePods}}

// parseResources reads -pod or -daemons: comma-separated key=quantity,
// keys cpu, memory and ephemeral-storage, and for -daemons pods (how many
// daemon pods every node runs). An empty string is nothing.
func parseResources(s string, pods bool) (capacity.Quantities, error) {
	var q capacity.Quantities
	if strings.TrimSpace(s) == "" {
		return q, nil
	}
	seen := map[string]bool{}
	for i, f := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		j := slices.IndexFunc(resourceKeys, func(rk resourceKey) bool { return rk.key == k })
		switch {
		case !ok:
			return q, fmt.Errorf("entry %d: %q is not key=quantity; write e.g. cpu=500m,memory=1Gi", i+1, f)
		case j < 0 || !pods && k == "pods":
			keys := "cpu, memory or ephemeral-storage"
			if pods {
				keys = "cpu, memory, ephemeral-storage or pods"
			}
			return q, fmt.Errorf("entry %d: %q is not a resource; use %s", i+1, k, keys)
		case seen[k]:
			return q, fmt.Errorf("entry %d: %s is given twice; give each resource once", i+1, k)
		}
		seen[k] = true
		n, err := capacity.ParseQuantity(resourceKeys[j].r, v)
		if err != nil {
			return q, fmt.Errorf("entry %d: %s", i+1, strings.TrimPrefix(err.Error(), "capacity: "))
		}
		q = q.With(resourceKeys[j].r, n)
	}
	return q, nil
}

// formatResources writes q as parseResources reads it, leaving out what is
// zero; "" for nothing.
func formatResources(q capacity.Quantities, pods bool) string {
	var parts []string
	for _, rk := range resourceKeys {
		if v := q.Get(rk.r); v != 0 && (pods || rk.r != capacity.ResourcePods) {
			parts = append(parts, rk.key+"="+capacity.FormatQuantity(rk.r, v))
		}
	}
	return strings.Join(parts, ",")
}

// codeMaxPodsExpression: warning, nodeadm cannot use the userData's
// maxPodsExpression for some or all types and keeps its standard max pods
// there (amazon-eks-ami 81fec2e8 nodeadm/internal/kubelet/eni_max_pods.go:61-73).
const codeMaxPodsExpression = "max-pods-expression"

// maxPodsExpression is the userData's maxPodsExpression when it compiles
// as nodeadm compiles it; one that does not is reported, and the estimate
// goes on as nodeadm does, without it.
func (c *checker) maxPodsExpression(np *nodePool, nc *nodeClass, ud *UserData) string {
	if ud.maxPodsExpression == "" {
		return ""
	}
	_, err := capacity.ParseMaxPodsExpression(ud.maxPodsExpression)
	var xe *capacity.ExpressionError
	if !errors.As(err, &xe) {
		return ud.maxPodsExpression
	}
	c.out.add(Finding{Severity: SevWarning, Code: codeMaxPodsExpression, Where: nc.userDataAt(lineOf(nc.UserData, "maxPodsExpression")), Subjects: []string{"EC2NodeClass " + nc.Name, "NodePool " + np.Name},
		Message: fmt.Sprintf("nodeadm cannot compile spec.kubelet.maxPodsExpression %q (at %d:%d: %s): it logs the error and every node keeps nodeadm's standard max pods", xe.Expression, xe.Line, xe.Column, xe.Reason),
		Fix:     "correct the expression: CEL over the ints default_enis, ips_per_eni and max_pods, with no functions beyond CEL's standard ones (nodeadm/doc/examples.md)"})
	return ""
}

// expressionFails reports the types for which nodeadm gives up on the
// maxPodsExpression (an evaluation error or a result it refuses).
func (c *checker) expressionFails(np *nodePool, nc *nodeClass, ud *UserData, estimates []capacity.Estimate) {
	var failed []string
	first := ""
	for _, est := range estimates {
		for _, w := range est.Warnings {
			if strings.Contains(w, "Failed to evaluate custom expression") {
				failed = append(failed, est.InstanceType)
				first = cmp.Or(first, w)
			}
		}
	}
	if len(failed) == 0 {
		return
	}
	c.out.add(Finding{Severity: SevWarning, Code: codeMaxPodsExpression, Where: nc.userDataAt(lineOf(nc.UserData, "maxPodsExpression")), Subjects: []string{"EC2NodeClass " + nc.Name, "NodePool " + np.Name},
		Message: fmt.Sprintf("nodeadm cannot use spec.kubelet.maxPodsExpression for %d of the %s the NodePool can launch, and keeps its standard max pods for them; the first, %s", len(failed), cli.Count(len(estimates), "instance type"), first),
		Fix:     "make the expression give a whole number from 1 to 2147483647 for every instance type"})
}
