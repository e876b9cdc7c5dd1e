package amimap

import (
	"strings"
	"time"

	"github.com/ec2select/ec2select/compat"
)

// AMI is one selected image in the role of one requirement set. An image
// that serves two variants (AL2's accelerated image: NVIDIA and Neuron;
// Bottlerocket's x86_64 image: standard and Neuron) appears as two AMIs
// with the same ID.
type AMI struct {
	ID   string
	Name string
	// Arch is the Kubernetes architecture, "amd64" or "arm64".
	Arch    string
	Family  compat.AMIFamily
	Variant Variant
	// Created is the image's CreationDate, parsed, in UTC.
	Created time.Time
	// CreationDate is the image's CreationDate exactly as EC2 gave it
	// ("2025-04-03T16:40:40.000Z"): the string Karpenter's AMI keeps and
	// its tests compare. Created is the same instant.
	CreationDate string
	// Deprecated reports whether the image's DeprecationTime had passed
	// when it was selected.
	Deprecated bool
	// DeprecationTime is when EC2 deprecates the image, in UTC; zero when
	// it has none. amiselect's rule reads it to tell when the AMI will be
	// deprecated, which can come before a held-back image comes of age.
	DeprecationTime time.Time
	// Release is the family's release version as the image name spells
	// it: "v20250403" (AL2, AL2023), "v1.26.2" (Bottlerocket, without
	// its build commit), "2025.04.08" (Windows, as dated in the name).
	// Empty for a Custom AMI.
	Release string
	// Requirements are what an instance type must satisfy to run the
	// image: the variant's requirements (see [Variant.Requirements])
	// with kubernetes.io/arch In [Arch]; for Windows,
	// kubernetes.io/os In [windows] and node.kubernetes.io/windows-build
	// In [build] with the architecture; for a Custom AMI, only the
	// architecture.
	Requirements compat.Requirements
}

// String describes the AMI as "ami-0abc (al2023 amd64 nvidia)", and the
// zero AMI as "no AMI".
func (a AMI) String() string {
	if a.ID == "" && a.Name == "" {
		return "no AMI"
	}
	var b strings.Builder
	b.WriteString(a.ID)
	b.WriteString(" (")
	b.WriteString(familyName(a.Family))
	b.WriteByte(' ')
	b.WriteString(a.Arch)
	if a.Variant != Unspecified {
		b.WriteByte(' ')
		b.WriteString(a.Variant.String())
	}
	if a.Deprecated {
		b.WriteString(", deprecated")
	}
	b.WriteByte(')')
	return b.String()
}
