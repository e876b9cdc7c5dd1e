package compat

// Support is what an AMI family's documentation says about the instance
// types its AMIs run, beyond the architecture and accelerators an AMI's
// requirements already state. The zero Support excludes nothing.
type Support struct {
	Family AMIFamily
	// Excluded lists the instance families (the
	// karpenter.k8s.aws/instance-family values) the family's AMIs do not
	// run, sorted.
	Excluded []string
	// Reason says why, naming the family and the instances.
	Reason string
	// Source is the documentation that says so.
	Source string
}

// Support returns what f's documentation excludes. Only AL2023 excludes
// anything: A1, whose Graviton (first generation) processor lacks the
// ARMv8.2 with Cryptography Extension that every AL2023 arm64 package is
// built for. AL2 and Bottlerocket run A1 (EKS launched arm64 support on
// A1 with AL2; eksctl-io/eksctl#3848 runs an a1.medium Bottlerocket node
// group), and the Windows families run on x86_64 only, which their AMIs'
// requirements already say. Custom AMIs are the user's: nothing is known.
func (f AMIFamily) Support() Support {
	if f == AL2023 {
		return Support{
			Family:   AL2023,
			Excluded: []string{"a1"},
			Reason:   "AL2023 does not support a1 instances: its arm64 packages need a Graviton2 or later processor (ARMv8.2 with the Cryptography Extension)",
			Source:   "https://docs.aws.amazon.com/linux/al2023/ug/system-requirements.html",
		}
	}
	return Support{Family: f}
}

// Requirements states the exclusion as a requirement an instance type (or
// a node, from its labels) must satisfy: instance-family NotIn Excluded.
// It is empty when nothing is excluded. A node without the
// instance-family label satisfies it, as NotIn accepts a missing label.
func (s Support) Requirements() Requirements {
	if len(s.Excluded) == 0 {
		return Requirements{}
	}
	return MustRequirements(Requirement{Key: LabelInstanceFamily, Operator: NotIn, Values: s.Excluded})
}
