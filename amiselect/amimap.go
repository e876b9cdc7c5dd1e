package amiselect

import (
	"github.com/ec2select/ec2select/amiselect/amimap"
	"github.com/ec2select/ec2select/amiselect/internal/eksname"
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

// recognized and recognize are the name recognizer amimap reads names
// with (eksname.Recognize), as Select and the drift plan read it: without
// amimap.Recognize's Identity, which allocates, for every image.
type recognized struct {
	family   compat.AMIFamily
	variants [2]Variant
	n        int
	release  string
}

func recognize(image, arch string) recognized {
	r := eksname.Recognize(image, arch)
	return recognized{family: r.Family, variants: [2]Variant{Variant(r.Variants[0]), Variant(r.Variants[1])}, n: r.N, release: r.Release}
}
