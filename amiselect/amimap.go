package amiselect

import (
	"github.com/ec2select/ec2select/amiselect/amimap"
	"github.com/ec2select/ec2select/compat"
)

// The AMI type, its variants and the rule that maps AMIs to instance types
// live in package amimap, which links no SSM client, so that package
// capacity can read them without one; these are the same types and
// functions under their amiselect names.
type (
	// AMI is amimap.AMI.
	AMI = amimap.AMI
	// Variant is amimap.Variant.
	Variant = amimap.Variant
	// Candidate is amimap.Candidate.
	Candidate = amimap.Candidate
	// Mapping is amimap.Mapping.
	Mapping = amimap.Mapping
	// Group is amimap.Group.
	Group = amimap.Group
	// Unmapped is amimap.Unmapped.
	Unmapped = amimap.Unmapped
	// LaunchGroup is amimap.LaunchGroup.
	LaunchGroup = amimap.LaunchGroup
	// NoCompatibleAMIError is amimap.NoCompatibleAMIError.
	NoCompatibleAMIError = amimap.NoCompatibleAMIError
	// AMIConflict is amimap.AMIConflict.
	AMIConflict = amimap.AMIConflict
)

// The variants.
const (
	Unspecified = amimap.Unspecified
	Standard    = amimap.Standard
	NVIDIA      = amimap.NVIDIA
	Neuron      = amimap.Neuron
)

// Choose is amimap.Choose: the first AMI, in selection order, whose
// requirements c satisfies strictly; -1 when none.
func Choose(c Candidate, amis []AMI) int { return amimap.Choose(c, amis) }

// Map is amimap.Map: exactly one AMI per instance type.
func Map(instanceTypes []compat.InstanceType, amis []AMI) Mapping {
	return amimap.Map(instanceTypes, amis)
}

// recognized and recognize are amimap's name recognizer, as Select and
// the drift plan read it.
type recognized struct {
	family   compat.AMIFamily
	variants [2]Variant
	n        int
	release  string
}

func recognize(image, arch string) recognized {
	r := amimap.Recognize(image, arch)
	if r.Unknown != "" {
		return recognized{family: compat.Custom}
	}
	out := recognized{family: r.Family, release: r.Release}
	out.n = copy(out.variants[:], r.Variants)
	return out
}
