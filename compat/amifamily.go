package compat

import (
	"fmt"
	"strings"
)

// AMIFamily is the operating system image an AMI was built from. It decides
// how a node boots (the format of its userData, see package userdata) and
// which AMIs an alias selects (package amiselect). Values are spelled as
// Karpenter's EC2NodeClass spec.amiFamily spells them; the lowercase
// spelling is the family's alias name ("al2023@latest").
//
// The zero value is no family: [AMIFamily.Valid] reports false for it, and
// the packages that take a family reject it. An AMI whose name follows none
// of the families' naming is [Custom], not the zero value.
type AMIFamily string

// The AMI families.
const (
	AL2          AMIFamily = "AL2"          // Amazon Linux 2: /etc/eks/bootstrap.sh
	AL2023       AMIFamily = "AL2023"       // Amazon Linux 2023: nodeadm NodeConfig
	Bottlerocket AMIFamily = "Bottlerocket" // Bottlerocket: TOML settings
	Windows2019  AMIFamily = "Windows2019"  // Windows Server 2019: Start-EKSBootstrap.ps1
	Windows2022  AMIFamily = "Windows2022"  // Windows Server 2022: Start-EKSBootstrap.ps1
	Windows2025  AMIFamily = "Windows2025"  // Windows Server 2025: Start-EKSBootstrap.ps1
	Custom       AMIFamily = "Custom"       // an image of the user's own: only its architecture is known
)

// AMIFamilies lists every family, in the order Karpenter's amiFamily enum
// lists them.
func AMIFamilies() []AMIFamily {
	return []AMIFamily{AL2, AL2023, Bottlerocket, Custom, Windows2019, Windows2022, Windows2025}
}

// ParseAMIFamily reads a family name, ignoring case, so both Karpenter's
// amiFamily ("AL2023") and an alias's family ("al2023") are accepted.
func ParseAMIFamily(s string) (AMIFamily, error) {
	for _, f := range AMIFamilies() {
		if strings.EqualFold(string(f), s) {
			return f, nil
		}
	}
	return "", fmt.Errorf("compat: unknown AMI family %q; use AL2, AL2023, Bottlerocket, Windows2019, Windows2022, Windows2025 or Custom", s)
}

// Valid reports whether f is one of the families.
func (f AMIFamily) Valid() bool {
	switch f {
	case AL2, AL2023, Bottlerocket, Windows2019, Windows2022, Windows2025, Custom:
		return true
	}
	return false
}

// String returns the family's name as Karpenter's amiFamily spells it.
func (f AMIFamily) String() string {
	if f == "" {
		return "AMIFamily()"
	}
	return string(f)
}

// Alias returns the family's name in an amiSelectorTerms alias ("al2023"),
// or "" for Custom and the zero value, which have no alias.
func (f AMIFamily) Alias() string {
	if f == Custom || !f.Valid() {
		return ""
	}
	return strings.ToLower(string(f))
}

// IsWindows reports whether f is one of the Windows Server families, which
// share one boot script.
func (f AMIFamily) IsWindows() bool {
	return f == Windows2019 || f == Windows2022 || f == Windows2025
}

// WindowsBuild returns the node.kubernetes.io/windows-build label value of
// nodes of a Windows family, or "" for any other family.
func (f AMIFamily) WindowsBuild() string {
	switch f {
	case Windows2019:
		return WindowsBuild2019
	case Windows2022:
		return WindowsBuild2022
	case Windows2025:
		return WindowsBuild2025
	}
	return ""
}
