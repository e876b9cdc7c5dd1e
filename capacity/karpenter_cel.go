package capacity

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/quantity"
	"github.com/ec2select/ec2select/userdata/nodeclass"
)

// This file follows an alpha feature: Karpenter's NodeClassCEL
// expressions in kubeReserved and systemReserved (aws/karpenter-provider-aws
// 6e13b3e0, #9326, merged after v1.14.1 and off by default). It may have
// to change as that feature does.

const citeKarpenterResolve = "aws/karpenter-provider-aws 6e13b3e0 pkg/cel/environment.go:296-341 (values that parse as quantities pass through; the rest are evaluated), :365-389 (cpu in millicores rounded up to 10m, memory in MiB rounded up to 16Mi, ephemeral-storage in GiB), pkg/providers/amifamily/resolver.go:458-510 (max_pods is the scheduler's pods capacity)"

// reservedMaps are the two kubelet maps whose values may be expressions,
// with the field names Launch.Kubelet gives them.
var reservedMaps = [2]string{"KubeReserved", "SystemReserved"}

// splitExpressions returns l.Kubelet with each NodeClassCEL expression of
// KubeReserved and SystemReserved replaced by "0" (so that Validate still
// checks its key), and the expressions compiled, by map and key. Without
// Launch.NodeClassCEL it returns l.Kubelet unchanged.
func splitExpressions(l Launch) (nodeclass.Kubelet, [2]map[string]Expression, error) {
	var exprs [2]map[string]Expression
	k := l.Kubelet
	if !l.NodeClassCEL {
		return k, exprs, nil
	}
	for i, m := range []*map[string]string{&k.KubeReserved, &k.SystemReserved} {
		static := maps.Clone(*m)
		for _, key := range slices.Sorted(maps.Keys(*m)) {
			v := (*m)[key]
			if _, err := quantity.Parse(v); err == nil {
				continue
			}
			x, err := ParseKarpenterExpression(v)
			if err != nil {
				return k, exprs, &InputError{Field: fmt.Sprintf("Launch.Kubelet.%s[%q]", reservedMaps[i], key), Err: err}
			}
			if exprs[i] == nil {
				exprs[i] = map[string]Expression{}
			}
			exprs[i][key], static[key] = x, "0"
		}
		*m = static
	}
	return k, exprs, nil
}

// expressions puts the expressions in place of the "0" splitExpressions
// left; pid, which estimates do not cover, is dropped.
func (u *userKubelet) expressions(exprs [2]map[string]Expression) {
	for i, res := range []*reservation{&u.kubeReserved, &u.systemReserved} {
		for key, x := range exprs[i] {
			if r, ok := reservedResource(key); ok {
				res.amounts[r], res.exprs[r], res.text[r] = nil, &x, x.String()
			}
		}
	}
}

func reservedResource(key string) (Resource, bool) {
	for _, r := range []Resource{ResourceCPU, ResourceMemory, ResourceEphemeralStorage} {
		if r.String() == key {
			return r, true
		}
	}
	return 0, false
}

// expressionTerm evaluates the expression of field (KubeReserved or
// SystemReserved) for r on it as Karpenter does, and returns the term it
// writes, or why it cannot be known: Karpenter marks the EC2NodeClass not
// ready when an expression fails or is negative for any type
// (pkg/controllers/nodeclass/validation.go:188-203), so nodes launch with
// no such figure.
func (e *Estimator) expressionTerm(it compat.InstanceType, kind Kind, r Resource, x *Expression) (Term, *Unknown) {
	field := reservedMaps[0]
	if kind == KindSystemReserved {
		field = reservedMaps[1]
	}
	input := fmt.Sprintf("Launch.Kubelet.%s[%q]", field, r)
	unknown := func(reason Reason, detail, fix string) (Term, *Unknown) {
		return Term{}, &Unknown{Resource: r, Kind: kind, Reason: reason, Input: input, Detail: detail, Fix: fix}
	}
	vars, ok := e.karpenterVars(it)
	if !ok {
		return unknown(ReasonNoInterfaceFacts, "Karpenter's NodeClassCEL variables default_enis, ips_per_eni and max_pods need interface facts, and "+noFacts(it), fixFacts)
	}
	v, err := x.Eval(vars)
	if err == nil && v < 0 {
		err = fmt.Errorf("it gives %d for %s, and Karpenter refuses a negative reservation", v, it.Name)
	}
	amount, text, fits := karpenterQuantity(r, v)
	switch {
	case err != nil:
		return unknown(ReasonExpression, fmt.Sprintf("%v; Karpenter then marks the EC2NodeClass not ready and launches no node (alpha NodeClassCEL)", err),
			"change the expression to give a number of 0 or more for every instance type")
	case !fits:
		return unknown(ReasonExpression, fmt.Sprintf("it gives %d for %s, beyond what a quantity of %s holds (alpha NodeClassCEL)", v, it.Name, r), "give a smaller amount")
	}
	return Term{Resource: r, Kind: kind, Amount: amount, Source: SourceUser,
		Rule:     fmt.Sprintf("%s %s %q gives %d for %s, written as %s (Karpenter's alpha NodeClassCEL)", lowerFirst(field), r, x.String(), v, it.Name, text),
		Citation: citeKarpenterCEL + "; " + citeKarpenterResolve + "; " + e.userCitation()}, nil
}

// karpenterVars are the variables Karpenter binds for it
// (pkg/providers/instancetype/types.go:256-280 and resolver.go:458-510):
// the published vCPUs and memory, the default card's interfaces and
// addresses, and its own pods capacity; ok false without interface facts.
func (e *Estimator) karpenterVars(it compat.InstanceType) (Variables, bool) {
	enis, ipv4, _, ok := eniFacts(it, false)
	if !ok {
		return Variables{}, false
	}
	pods, _, _ := e.karpenterPods(it, e.launch.Network.ReservedENIs)
	return Variables{VCPUs: int64(it.VCPU), MemoryMiB: it.MemoryMiB, DefaultENIs: enis, IPsPerENI: ipv4, MaxPods: pods, InstanceType: it.Name}, true
}

// karpenterQuantity is formatResourceResult: the result as the quantity
// Karpenter writes, and that quantity in r's unit; fits false when it is
// beyond int64 there.
func karpenterQuantity(r Resource, v int64) (int64, string, bool) {
	switch r {
	case ResourceCPU:
		m := roundUpTo(v, 10)
		return m, fmt.Sprintf("%dm", m), true
	case ResourceMemory:
		m := roundUpTo(v, 16)
		return m * mib, fmt.Sprintf("%dMi", m), m <= math.MaxInt64/mib
	}
	return v * gib, fmt.Sprintf("%dGi", v), v <= math.MaxInt64/gib
}

// roundUpTo is Karpenter's: up to a multiple of g, leaving multiples and
// values within g of the largest int64 alone.
func roundUpTo(v, g int64) int64 {
	if v <= 0 || v%g == 0 || v > math.MaxInt64-g {
		return v
	}
	return (v/g + 1) * g
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}
