package userdata

import (
	"fmt"
	"iter"
	"maps"
	"strings"
)

// Family is the boot agent an AMI runs, which decides the format of its
// userData. The zero value is not a family; [Render] and [Lint] reject it.
type Family int

// The AMI families. Their userData formats are described in the package
// documentation.
const (
	AL2          Family = iota + 1 // Amazon Linux 2: /etc/eks/bootstrap.sh in a MIME multipart script
	AL2023                         // Amazon Linux 2023: nodeadm NodeConfig in MIME multipart
	Bottlerocket                   // Bottlerocket: TOML settings
	Windows                        // Windows: a <powershell> block calling Start-EKSBootstrap.ps1
	Custom                         // a custom AMI: the user's data, passed through and linted
)

var familyNames = map[Family]string{
	AL2:          "AL2",
	AL2023:       "AL2023",
	Bottlerocket: "Bottlerocket",
	Windows:      "Windows",
	Custom:       "Custom",
}

// String returns the family's name as Karpenter's amiFamily spells it
// ("AL2", "AL2023", "Bottlerocket", "Windows", "Custom").
func (f Family) String() string {
	if name, ok := familyNames[f]; ok {
		return name
	}
	return fmt.Sprintf("Family(%d)", int(f))
}

func (f Family) valid() bool {
	_, ok := familyNames[f]
	return ok
}

// ParseFamily reads a family name, ignoring case. It accepts the names
// [Family.String] returns and Karpenter's Windows2019, Windows2022 and
// Windows2025, which share one userData format.
func ParseFamily(s string) (Family, error) {
	l := strings.ToLower(s)
	for f, name := range familyNames {
		if strings.ToLower(name) == l {
			return f, nil
		}
	}
	switch l {
	case "windows2019", "windows2022", "windows2025":
		return Windows, nil
	}
	return 0, fmt.Errorf("userdata: unknown AMI family %q; use AL2, AL2023, Bottlerocket, Windows or Custom", s)
}

func mapsKeys[V any](m map[string]V) iter.Seq[string] { return maps.Keys(m) }
