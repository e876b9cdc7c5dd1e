package amiselect

import "github.com/ec2select/ec2select/compat"

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
// strictly, with no leniency for keys c leaves undefined. This is the one
// rule that decides an instance type's AMI: [Map] applies it to every
// type, and a capacity learner applies it to a node's labels, so what is
// learned is filed under the AMI the next launch will use
// (karpenter-provider-aws #7925).
func Choose(c Candidate, amis []AMI) int {
	for j := range amis {
		if _, conflict := c.Conflict(amis[j].Requirements); !conflict {
			return j
		}
	}
	return -1
}
