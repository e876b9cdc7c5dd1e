package amimap

import (
	"sync"

	"github.com/ec2select/ec2select/compat"
)

// Candidate is what [Choose] compares with each AMI: an instance type's
// facts (a *[compat.InstanceType]) when planning a launch, or a running
// node's requirements ([compat.FromNodeLabels] of its labels) when asking
// which AMI it should have got. Both answer Conflict the same way for the
// same node, which is what lets the two questions share one rule.
type Candidate interface {
	Conflict(in compat.Requirements, opts ...compat.Option) (key string, conflict bool)
}

// Choose returns the index of the AMI a node described by c launches with,
// or -1 when none can run it: the first of amis, in their order (for a
// [Selection], newest-available first), whose requirements c satisfies
// strictly, with no leniency for keys c leaves undefined, and whose family
// runs it (compat.AMIFamily.Support: AL2023 AMIs never take a1). This is the one
// rule that decides an instance type's AMI: [Map] applies it to every
// type, and a capacity learner applies it to a node's labels, so what is
// learned is filed under the AMI the next launch will use
// (karpenter-provider-aws #7925).
func Choose(c Candidate, amis []AMI) int {
	for j := range amis {
		if runs(c, &amis[j]) {
			return j
		}
	}
	return -1
}

// runs reports whether a can run c: its requirements and its family's
// support both admit c.
func runs(c Candidate, a *AMI) bool {
	if _, conflict := c.Conflict(a.Requirements); conflict {
		return false
	}
	if s, ok := supportOf(a.Family); ok {
		_, conflict := c.Conflict(s)
		return !conflict
	}
	return true
}

// familyExclusions holds, for every family that excludes instance types,
// the exclusion as a requirement; built once, read-only after.
var familyExclusions = sync.OnceValue(func() map[compat.AMIFamily]compat.Requirements {
	out := map[compat.AMIFamily]compat.Requirements{}
	for _, f := range compat.AMIFamilies() {
		if s := f.Support(); len(s.Excluded) > 0 {
			out[f] = s.Requirements()
		}
	}
	return out
})

// supportOf returns the requirement f's exclusions state, if any.
func supportOf(f compat.AMIFamily) (compat.Requirements, bool) {
	r, ok := familyExclusions()[f]
	return r, ok
}
