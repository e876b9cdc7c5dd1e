package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/internal/editdistance"
)

// A NodePool names its EC2NodeClass by name (nodeClassRef), and Karpenter
// looks the name up exactly: while no EC2NodeClass of that name exists,
// the NodePool's NodeClassReady condition is false (NodeClassNotFound,
// kubernetes-sigs/karpenter v1.14.1 6e7eab7a, pkg/controllers/nodepool/
// readiness/controller.go L73-74), and the provisioner leaves a NodePool
// that is not ready out (pkg/controllers/provisioning/provisioner.go
// L280). This file pairs each NodePool with the EC2NodeClasses of its
// unit applied together with it.

// classesFor returns the EC2NodeClasses np's nodeClassRef names among
// those applied together with it: one, or one per alternative file.
func (u *unit) classesFor(np *nodePool) []*nodeClass {
	var out []*nodeClass
	for _, nc := range u.classes {
		if nc.Name == np.NodeClassRef.Name && u.together(nc.doc.file, np.doc.file) {
			out = append(out, nc)
		}
	}
	return out
}

// refusedFor reports whether the EC2NodeClass np names was found, applied
// together with it, but refused: that refusal is the finding.
func (u *unit) refusedFor(np *nodePool) bool {
	return slices.ContainsFunc(u.refused, func(r ref) bool {
		return r.name == np.NodeClassRef.Name && u.together(r.file, np.doc.file)
	})
}

// named reports whether a NodePool applied together with nc names it (a
// NodePool with a wildcard names it without being paired).
func (u *unit) named(nc *nodeClass) bool {
	return slices.ContainsFunc(u.pools, func(p *nodePool) bool {
		return p.groupKind() == groupKindEC2NodeClass && p.NodeClassRef.Name == nc.Name && u.together(p.doc.file, nc.doc.file)
	})
}

// namedByRefused reports whether a refused NodePool applied together with
// nc names it: nc is not unused, and the NodePool's refusal is the
// finding.
func (u *unit) namedByRefused(nc *nodeClass) bool {
	return slices.ContainsFunc(u.refusedRefs, func(r ref) bool {
		return r.name == nc.Name && u.together(r.file, nc.doc.file)
	})
}

// missingClass reports a NodePool whose EC2NodeClass is not among the
// manifests applied with it: a warning when one applied with it has a
// near name (a typo Karpenter would not forgive), else a notice that
// says where the name is, if in an alternative file.
func (c *checker) missingClass(u *unit, np *nodePool) {
	subject := []string{"NodePool " + np.Name}
	name := np.NodeClassRef.Name
	if near := u.nearClass(np); near != nil {
		c.out.add(Finding{Severity: SevWarning, Code: codeNearMissRef, Where: np.at, Subjects: subject,
			Message: fmt.Sprintf("EC2NodeClass %q, which the NodePool names, is not in %s, but %q (%s) is: Karpenter looks the name up exactly, so while no EC2NodeClass %q exists the NodePool is not ready (NodeClassNotFound) and launches nothing", name, u.name, near.Name, near.at, name),
			Fix:     fmt.Sprintf("set spec.template.spec.nodeClassRef.name to %q, or rename the EC2NodeClass to %q", near.Name, name)})
		return
	}
	where := fmt.Sprintf("is not in %s", u.name)
	if files := u.apartFiles(np, name); len(files) > 0 {
		what := "an alternative"
		if len(files) > 1 {
			what = "alternatives"
		}
		where = fmt.Sprintf("is defined only in %s, %s to %s (each defines a resource %s defines too, so they are never applied together)", listed(files), what, np.doc.file, np.doc.file)
	}
	c.out.add(Finding{Severity: SevNotice, Code: codeNoNodeClass, Where: np.at, Subjects: subject,
		Message: fmt.Sprintf("EC2NodeClass %q, which the NodePool names, %s; preflight checks the NodePool's requirements and order, but not its AMIs or userData", name, where),
		Fix:     "pass the file with that EC2NodeClass too to check them together"})
}

// apartFiles are the files that define the EC2NodeClass name but are not
// applied together with np.
func (u *unit) apartFiles(np *nodePool, name string) []string {
	var files []string
	for _, nc := range u.classes {
		if nc.Name == name && !slices.Contains(files, nc.doc.file) {
			files = append(files, nc.doc.file)
		}
	}
	return files
}

// nearClass returns the EC2NodeClass applied together with np whose name
// is nearest the one np names, when it is near enough to be a typo: the
// same but for case or separators, or within two edits of a name of five
// or more characters. Ties go to the name that sorts first.
func (u *unit) nearClass(np *nodePool) *nodeClass {
	var best *nodeClass
	bestDistance := 0
	for _, nc := range u.classes {
		if !u.together(nc.doc.file, np.doc.file) {
			continue
		}
		d, ok := nameDistance(np.NodeClassRef.Name, nc.Name)
		if !ok {
			continue
		}
		if best == nil || cmp.Or(cmp.Compare(d, bestDistance), strings.Compare(nc.Name, best.Name)) < 0 {
			best, bestDistance = nc, d
		}
	}
	return best
}

// nameDistance is how far apart two names are, and whether they are near
// enough for one to be a typo of the other.
func nameDistance(ref, name string) (int, bool) {
	if ref == name {
		return 0, false // the same name: not a near miss
	}
	if plainName(ref) == plainName(name) {
		return 0, true
	}
	d := editdistance.Levenshtein(ref, name)
	return d, d <= 2 && min(len(ref), len(name)) >= 5
}

// plainName is a name in lower case without separators.
func plainName(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// alternatives notes that np names an EC2NodeClass defined in several
// files that are alternatives: preflight pairs it with each.
func (c *checker) alternatives(np *nodePool, classes []*nodeClass) {
	places := make([]string, len(classes))
	for i, nc := range classes {
		places[i] = nc.at
	}
	c.out.add(Finding{Severity: SevNotice, Code: codeAlternatives, Where: np.at, Subjects: []string{"NodePool " + np.Name},
		Message: fmt.Sprintf("EC2NodeClass %q is defined in %s that are alternatives (each defines a resource another defines too, so they are not applied together): %s; preflight pairs the NodePool with each, as if its file were the one applied", np.NodeClassRef.Name, cli.Count(len(classes), "file"), strings.Join(places, ", ")),
		Fix:     "none needed if the files are alternatives; if they are meant to be applied together, give each EC2NodeClass its own name"})
}
