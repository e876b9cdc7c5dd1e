package amimap

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/compat"
)

// need is the kind of AMI an instance type can run: its architecture and
// what its accelerators demand.
type need struct {
	arch string
	kind string // "standard", "NVIDIA", "Neuron", or e.g. "amd GPU"
}

func needOf(t compat.InstanceType) need {
	n := need{arch: t.Arch, kind: "standard"}
	switch {
	case t.HasGPU() && t.GPUManufacturer == "nvidia":
		n.kind = "NVIDIA"
	case t.HasGPU():
		n.kind = orUnknown(t.GPUManufacturer) + " GPU"
	case t.HasAccelerator() && t.AcceleratorManufacturer == "aws":
		n.kind = "Neuron"
	case t.HasAccelerator():
		n.kind = orUnknown(t.AcceleratorManufacturer) + " accelerator"
	}
	return n
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// serves reports whether a could run a type with need n, as far as its
// architecture and variant tell.
func (a AMI) serves(n need) bool {
	if a.Arch != n.arch {
		return false
	}
	switch a.Variant {
	case Standard:
		return n.kind == "standard"
	case NVIDIA:
		return n.kind == "NVIDIA"
	case Neuron:
		return n.kind == "Neuron"
	}
	return true
}

// publishes reports whether a Linux family publishes an AMI for n, per the
// families' public AMI lists (see the package documentation).
func publishes(f compat.AMIFamily, n need) bool {
	switch f {
	case compat.AL2:
		if n.arch == compat.ArchARM64 {
			return n.kind == "standard"
		}
		return n.kind == "standard" || n.kind == "NVIDIA" || n.kind == "Neuron"
	case compat.AL2023, compat.Bottlerocket:
		if n.arch == compat.ArchARM64 {
			return n.kind == "standard" || n.kind == "NVIDIA"
		}
		return n.kind == "standard" || n.kind == "NVIDIA" || n.kind == "Neuron"
	}
	return false
}

// suggest proposes the change that would let types map to amis, or keep
// them out: an architecture requirement, the Windows OS requirement, or
// the family that publishes the missing AMI.
func suggest(types []compat.InstanceType, amis []AMI) string {
	if len(types) == 0 {
		return ""
	}
	if len(amis) == 0 {
		return "select at least one AMI: the amiSelectorTerms matched no available image of a known architecture; check each term's name, owner, tags or alias version (the rejected images say why each was refused)"
	}
	amiArchs := distinct(amis, func(a AMI) string { return a.Arch })
	typeArchs := distinct(types, func(t compat.InstanceType) string { return t.Arch })
	if !overlaps(amiArchs, typeArchs) {
		return "add " + compat.LabelArch + " In [" + strings.Join(amiArchs, " ") + "] to the NodePool requirements, or select an AMI built for " + strings.Join(typeArchs, " and ")
	}
	if fix := unsupportedFix(types, amis); fix != "" {
		return fix
	}
	allWindows := !slices.ContainsFunc(amis, func(a AMI) bool { return a.Family.WindowsBuild() == "" })
	if allWindows && slices.ContainsFunc(types, func(t compat.InstanceType) bool { return !slices.Contains(t.OS, compat.OSWindows) }) {
		return "the AMIs run Windows; add " + compat.LabelOS + " In [windows] to the NodePool requirements so that only Windows-capable instance types are offered"
	}

	family := amis[0].Family
	for _, a := range amis[1:] {
		if a.Family != family {
			family = compat.Custom
		}
	}
	scope := "among the selected AMIs"
	if family != compat.Custom {
		scope = "in family " + familyName(family)
	}
	var missing []need
	for _, t := range types {
		n := needOf(t)
		if !slices.ContainsFunc(amis, func(a AMI) bool { return a.serves(n) }) && !slices.Contains(missing, n) {
			missing = append(missing, n)
		}
	}
	slices.SortFunc(missing, func(a, b need) int {
		return cmp.Or(cmp.Compare(a.arch, b.arch), cmp.Compare(a.kind, b.kind))
	})
	var fixes []string
	for _, n := range missing {
		if family != compat.Custom && publishes(family, n) {
			fixes = append(fixes, "no "+n.arch+" "+n.kind+" AMI among the selected "+familyName(family)+" AMIs, though "+familyName(family)+
				" publishes one; check the alias version (a pinned release may predate it) and the images refused")
			continue
		}
		fix := "no " + n.arch + " " + n.kind + " AMI " + scope
		var use []string
		for _, f := range []compat.AMIFamily{compat.Bottlerocket, compat.AL2023, compat.AL2} {
			if f != family && publishes(f, n) {
				use = append(use, familyName(f))
			}
		}
		switch {
		case len(use) > 0:
			fix += "; use " + strings.Join(use, " or ")
		case strings.HasSuffix(n.kind, " GPU"):
			fix += "; no EKS AMI family publishes one, so keep these types out with " + compat.LabelInstanceGPUManufacturer + " NotIn [" + strings.TrimSuffix(n.kind, " GPU") + "]"
		default:
			fix += "; no EKS AMI family publishes one, so keep these types out of the NodePool"
		}
		fixes = append(fixes, fix)
	}
	if len(fixes) > 0 {
		return strings.Join(fixes, "; ")
	}
	return "add NodePool requirements that keep these instance types out, or select AMIs whose requirements they satisfy"
}

// distinct returns the sorted distinct values of key over xs.
func distinct[T any](xs []T, key func(T) string) []string {
	var out []string
	for _, x := range xs {
		if k := key(x); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func overlaps(a, b []string) bool {
	return slices.ContainsFunc(a, func(s string) bool { return slices.Contains(b, s) })
}

// unsupportedFix explains types that some AMI's requirements admit but
// whose family does not run them (AL2023 and a1): keep them out, or use
// a family that runs them. It returns "" when no such type is refused.
func unsupportedFix(types []compat.InstanceType, amis []AMI) string {
	for _, a := range amis {
		s, ok := supportOf(a.Family)
		if !ok {
			continue
		}
		var excluded []string
		var needs []need
		for i := range types {
			t := &types[i]
			if _, c := t.Conflict(a.Requirements); c {
				continue
			}
			if _, c := t.Conflict(s); c && !slices.Contains(excluded, t.Family) {
				excluded = append(excluded, t.Family)
				needs = append(needs, needOf(*t))
			}
		}
		if len(excluded) == 0 {
			continue
		}
		slices.Sort(excluded)
		fix := a.Family.Support().Reason + "; keep them out with " + compat.LabelInstanceFamily + " NotIn [" + strings.Join(excluded, " ") + "] in the NodePool requirements"
		var use []string
		for _, f := range []compat.AMIFamily{compat.Bottlerocket, compat.AL2023, compat.AL2} {
			if _, excludes := supportOf(f); f != a.Family && !excludes && !slices.ContainsFunc(needs, func(n need) bool { return !publishes(f, n) }) {
				use = append(use, familyName(f))
			}
		}
		if len(use) > 0 {
			fix += ", or select " + strings.Join(use, " or ") + " AMIs, which run them"
		}
		return fix
	}
	return ""
}
