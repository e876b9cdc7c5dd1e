package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/examples/internal/cli"
)

// Some findings hold only for the cluster's Kubernetes version: an alias
// selects the images published for it, and a family stops at a version
// (AL2 at 1.32). When -k8s is not given, preflight assumes the newest
// version it knows, which a new cluster gets; a finding that rests on the
// version says which it assumed, and its fix names -k8s.

// newestK8s is the Kubernetes version preflight assumes without -k8s: the
// newest the embedded catalog records releases for.
func newestK8s() string {
	v := cli.OfflineKubernetesVersions()
	return v[len(v)-1]
}

// k8sVersion names the Kubernetes version a finding was judged for, and
// whether it was given or assumed.
func (c *checker) k8sVersion() string {
	if c.opts.k8sGiven {
		return fmt.Sprintf("Kubernetes %s (-k8s)", c.opts.k8s)
	}
	return fmt.Sprintf("Kubernetes %s (assumed: -k8s was not given, and %s is the newest version preflight knows)", c.opts.k8s, c.opts.k8s)
}

// queryVersions are the Kubernetes versions preflight knows, besides
// -k8s, for which the terms can be resolved at all (a family's aliases
// stop at its last version).
func (c *checker) queryVersions(terms []amiselect.Term) []string {
	var out []string
	for _, k := range cli.OfflineKubernetesVersions() {
		if k == c.opts.k8s {
			continue
		}
		if _, err := amiselect.Queries(terms, amiselect.QueryOptions{KubernetesVersion: k}); err == nil {
			out = append(out, k)
		}
	}
	return out
}

// unqueryable reports terms amiselect cannot query for -k8s: an alias
// release it cannot parse, or a family that has no AMIs for the version.
// Karpenter's resolution fails too, and no NodePool that uses the
// EC2NodeClass launches a node.
func (c *checker) unqueryable(nc *nodeClass, terms []amiselect.Term, err error) {
	msg := fmt.Sprintf("spec.amiSelectorTerms select no AMI for %s: %s", c.k8sVersion(), termError(err))
	fix := "correct the terms; an alias is family@latest or family@<release>, such as al2023@v20250715 or bottlerocket@v1.39.1"
	if others := c.queryVersions(terms); len(others) > 0 {
		msg += fmt.Sprintf("; of the versions preflight knows, the terms can select AMIs for Kubernetes %s", versionRange(others))
		fix = fmt.Sprintf("if the cluster runs Kubernetes %s, say so with -k8s (such as -k8s %s); otherwise select AMIs published for Kubernetes %s", versionRange(others), others[len(others)-1], c.opts.k8s)
	}
	c.out.add(Finding{Severity: SevError, Code: codeNoAMI, Where: nc.at, Subjects: []string{"EC2NodeClass " + nc.Name}, Message: msg, Fix: fix})
}

// termNumber is how amiselect names a term in its errors.
var termNumber = regexp.MustCompile(`^term ([0-9]+): `)

// termError is an amiselect error about a term, in the manifest's words:
// "spec.amiSelectorTerms[0]: ..." rather than "amiselect: term 0: ...".
func termError(err error) string {
	s := strings.TrimPrefix(err.Error(), "amiselect: ")
	return termNumber.ReplaceAllString(s, "spec.amiSelectorTerms[$1]: ")
}
