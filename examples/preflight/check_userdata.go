package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
	"github.com/ec2select/ec2select/weighting"
)

// amiFamily reports userData written for another OS than the one the
// selected AMIs run: Karpenter writes (or, for Custom, passes on) the
// userData of spec.amiFamily, or of the alias, whatever image the terms
// select, and each OS's boot agent reads only its own format
// (bootstrap.sh on AL2, nodeadm on AL2023, TOML settings on Bottlerocket,
// PowerShell on Windows), so a node of another OS never joins. The AMI's
// OS is what its name says (amiselect); a custom AMI's is unknown, and
// not judged. It returns whether it reported a mismatch.
func (c *checker) amiFamily(nc *nodeClass, sel amiselect.Selection) (mismatch bool) {
	if nc.familyFilled() {
		return false
	}
	family := nc.Family()
	for _, a := range sel.AMIs {
		if a.Family == "" || a.Family == compat.Custom || sameOS(a.Family, family) {
			continue
		}
		if family == compat.Custom {
			continue // judged by linting the userData as the AMI's family
		}
		c.out.add(Finding{Severity: SevError, Code: codeAMIFamily, Where: nc.at, Subjects: []string{"EC2NodeClass " + nc.Name},
			Message: fmt.Sprintf("Karpenter writes %s userData (%s), but spec.amiSelectorTerms select %s (%s), a %s image, whose boot agent does not read it, so its nodes never join", family, familySource(nc), a.ID, a.Name, a.Family),
			Fix:     fmt.Sprintf("select %s images (alias %s@latest), or set spec.amiFamily to %s and write its userData", family, strings.ToLower(string(family)), a.Family)})
		return true
	}
	return false
}

// sameOS reports whether an AMI of family a boots userData of family f.
// The three Windows versions share the boot script.
func sameOS(a, f compat.AMIFamily) bool {
	windows := func(x compat.AMIFamily) bool { return strings.HasPrefix(string(x), "Windows") }
	return a == f || windows(a) && windows(f)
}

func familySource(nc *nodeClass) string {
	if nc.AMIFamily != "" {
		return "spec.amiFamily " + nc.AMIFamily
	}
	return "the alias " + nc.Alias()
}

// lintFamily is the family whose boot path reads the node's userData:
// the class's, or for Custom, which Karpenter passes through unchanged,
// the family of the selected AMIs when their names tell it (one family
// for all), since that is the OS that boots.
func lintFamily(nc *nodeClass, amis []amiselect.AMI) compat.AMIFamily {
	family := nc.Family()
	if family != compat.Custom {
		return family
	}
	var seen compat.AMIFamily
	for _, a := range amis {
		if a.Family == "" || a.Family == compat.Custom {
			return compat.Custom
		}
		if seen != "" && seen != a.Family {
			return compat.Custom
		}
		seen = a.Family
	}
	if seen == "" {
		return compat.Custom
	}
	return seen
}

// shellLike reports whether userData is a shell script or MIME
// multipart, as AL2 and AL2023 take, rather than TOML.
func shellLike(ud string) bool {
	t := strings.TrimSpace(ud)
	return strings.HasPrefix(t, "#!") || strings.HasPrefix(t, "MIME-Version:") || strings.HasPrefix(t, "Content-Type:")
}

// al2Markers are what an AL2 kubelet recipe writes that AL2023 does not
// have (amazon-eks-ami: AL2 at 0ab84280, AL2023 at 81fec2e8):
// /etc/eks/bootstrap.sh (templates/al2/runtime/bootstrap.sh; AL2023 joins
// with nodeadm), AL2's kubelet config file (bootstrap.sh L487; nodeadm
// writes /etc/kubernetes/kubelet/config.json, nodeadm/internal/kubelet/
// config.go L32-34), and KUBELET_EXTRA_ARGS, which AL2's kubelet.service
// passes to the kubelet (L17) and AL2023's does not (it passes
// $NODEADM_KUBELET_ARGS).
var al2Markers = []string{"/etc/eks/bootstrap.sh", "/etc/kubernetes/kubelet/kubelet-config.json", "KUBELET_EXTRA_ARGS"}

// al2Recipe returns the first AL2 marker userData has, or "".
func al2Recipe(ud string) string {
	for _, m := range al2Markers {
		if strings.Contains(ud, m) {
			return m
		}
	}
	return ""
}

// userData renders the NodePool's taints into the EC2NodeClass's userData
// as Karpenter would (for Custom it adds nothing), and lints the result:
// the node must join, and the taints the kubelet really registers must
// include those Karpenter needs at registration (see requiredTaints;
// problem 3). np is nil for an EC2NodeClass no NodePool names. booted are
// the images its nodes boot: the AMIs its NodePool's types map to, or every
// selected AMI.
func (c *checker) userData(np *nodePool, nc *nodeClass, cc *classCheck, booted []amiselect.AMI) *UserData {
	family := lintFamily(nc, cc.sel.AMIs)
	if nc.familyFilled() {
		return &UserData{Family: "", Verdict: "not checked", Reason: "spec.amiFamily is a placeholder, and its value decides which userData Karpenter writes"}
	}
	where := nc.at
	subject := []string{"EC2NodeClass " + nc.Name}
	if np != nil {
		subject = append(subject, "NodePool "+np.Name)
	}
	if marker := al2Recipe(nc.UserData); nc.Family() == compat.AL2023 && marker != "" {
		// One root cause, one finding: the linter cannot follow the
		// recipe either, and would report that too.
		c.out.add(Finding{Severity: SevWarning, Code: codeAL2Recipe, Where: nc.userDataAt(lineOf(nc.UserData, marker)), Subjects: []string{"EC2NodeClass " + nc.Name},
			Message: fmt.Sprintf("spec.userData is an AL2 kubelet recipe (it uses %s), and the node runs AL2023, which has no such thing: the node joins through nodeadm and Karpenter's NodeConfig, and the kubelet settings the recipe makes never apply", marker),
			Fix:     "put kubelet settings in spec.kubelet, or in a NodeConfig part of spec.userData (apiVersion: node.eks.aws/v1alpha1, kind: NodeConfig, spec.kubelet.config and flags)"})
		return &UserData{Family: string(family), Verdict: "not checked", Reason: "an AL2 recipe under AL2023"}
	}
	if family == compat.Bottlerocket && nc.Family() != compat.Bottlerocket && shellLike(nc.UserData) {
		c.out.add(Finding{Severity: SevError, Code: codeAMIFamily, Where: nc.userDataAt(1), Subjects: []string{"EC2NodeClass " + nc.Name},
			Message: fmt.Sprintf("spec.amiFamily is %s, so Karpenter passes spec.userData to the node unchanged, and the terms select Bottlerocket AMIs, which read only TOML settings from userData; this userData is a shell script (or MIME with one), so the node never joins", nc.Family()),
			Fix:     "write Bottlerocket TOML settings ([settings.kubernetes] ...), or select AMIs of the OS the script is for (an al2023 or al2 alias)"})
		return &UserData{Family: string(family), Verdict: "never joins", Reason: "shell userData on a Bottlerocket AMI"}
	}
	if nc.Family() == compat.Custom && strings.TrimSpace(nc.UserData) == "" {
		// A custom AMI may join by itself; whether it does is not in the
		// manifest (userdata.Lint says Unresolved, with this reason).
		c.out.add(Finding{Severity: SevNotice, Code: codeUserData, Where: nc.at, Subjects: []string{"EC2NodeClass " + nc.Name},
			Message: "spec.amiFamily is Custom and spec.userData is empty: Karpenter writes no userData of its own for Custom (pkg/providers/amifamily/custom.go), so the AMI must join the cluster by itself, registering karpenter.sh/unregistered:NoExecute",
			Fix:     "nothing, if the AMI joins by itself; otherwise write the userData that joins the node as the AMI expects (its bootstrap command with the cluster's name, endpoint and CA, and --register-with-taints=karpenter.sh/unregistered:NoExecute), or set the AMI's own family"})
		return &UserData{Family: string(family), Verdict: "cannot tell", Reason: "Custom with no userData: the AMI must join by itself"}
	}
	cfg := nc.config()
	required := requiredTaints()
	cfg.RequiredTaints = required
	if np != nil && nc.Family() != compat.Custom {
		cfg.Taints, cfg.StartupTaints = np.Taints, np.StartupTaints
	}
	u := &UserData{Family: string(family)}
	var report userdata.Report
	var err error
	if family != nc.Family() {
		// Custom on a known OS: the userData is passed through as is.
		report, err = userdata.Lint(family, cfg.CustomUserData, required)
	} else {
		report, err = renderAndLint(family, cfg, required)
	}
	if err != nil && strings.Contains(err.Error(), "settings model does not have") {
		// ec2select's model of Bottlerocket's settings is not complete
		// yet (issue 23): what it does not know is not known to be wrong.
		u.Verdict, u.Reason = "not checked", inManifestTerms(err)
		c.out.add(Finding{Severity: SevNotice, Code: codeUnchecked, Where: where, Subjects: subject,
			Message: "preflight's model of Bottlerocket's settings cannot check this userData: " + inManifestTerms(err),
			Fix:     "check the setting's name against Bottlerocket's settings reference for the release the AMIs run"})
		return u
	}
	if err != nil {
		u.Verdict, u.Reason = "not rendered", inManifestTerms(err)
		c.out.add(Finding{Severity: SevError, Code: codeUserData, Where: where, Subjects: subject,
			Message: "Karpenter cannot write the node's userData: " + inManifestTerms(err),
			Fix:     "correct spec.userData or spec.kubelet as the message says"})
		return u
	}
	if np != nil {
		c.unsynced(np, nc, report)
	}
	return c.verdict(u, subject, nc, report, booted)
}

// renderAndLint renders the userData as Karpenter would and lints it.
// Render refuses custom userData whose effect the linter cannot follow
// with a *userdata.LintError whose report has the verdict Unresolved and
// its reason (and a CodeUnresolved problem, said once by verdict).
func renderAndLint(family compat.AMIFamily, cfg userdata.Config, required []userdata.Taint) (userdata.Report, error) {
	data, err := userdata.Render(family, cfg)
	var le *userdata.LintError
	switch {
	case errors.As(err, &le):
		return le.Report, nil
	case err != nil && len(cfg.CustomUserData) > 0 && strings.Contains(err.Error(), "cannot tell"):
		return userdata.Report{Verdict: userdata.Unresolved, Reason: inManifestTerms(err)}, nil
	case err != nil:
		return userdata.Report{}, err
	}
	return userdata.Lint(family, data, required)
}

func (nc *nodeClass) config() userdata.Config {
	cfg := userdata.Config{Kubelet: nc.Kubelet, InstanceStorePolicy: nc.InstanceStorePolicy}
	cfg.ClusterName, cfg.APIServerEndpoint, cfg.ClusterCIDR = "preflight", "https://preflight.example.eks.amazonaws.com", "10.100.0.0/16"
	cfg.CABundle = base64.StdEncoding.EncodeToString([]byte(placeholderCA))
	if nc.HasUserData {
		cfg.CustomUserData = []byte(nc.UserData)
	}
	return cfg
}

// lineOf is the 1-based line of text that first contains s.
func lineOf(text, s string) int {
	i := strings.Index(text, s)
	if i < 0 {
		return 0
	}
	return 1 + strings.Count(text[:i], "\n")
}

// userDataAt is the file line of the userData's line n (1-based), or of
// the class when the userData is not a block scalar.
func (nc *nodeClass) userDataAt(n int) string {
	if nc.userDataLine == 0 {
		return nc.at
	}
	if n < 1 {
		n = 1
	}
	return fmt.Sprintf("%s:%d", nc.doc.file, nc.userDataLine+n-1)
}

func (c *checker) verdict(u *UserData, subject []string, nc *nodeClass, report userdata.Report, booted []amiselect.AMI) *UserData {
	u.Verdict, u.Reason = report.Verdict.String(), report.Reason
	if report.Verdict == userdata.Joins {
		user := report.UserKubelet()
		u.kubelet = &user
		u.maxPodsExpression = report.MaxPodsExpression
	}
	for _, t := range report.Taints {
		u.Taints = append(u.Taints, fmt.Sprintf("%s (%s)", t.Taint, t.Source))
	}
	for _, p := range report.Problems {
		u.Problems = append(u.Problems, p.String())
		if p.Code == userdata.CodeUnresolved || p.Cause != "" {
			// Said once: below, or by the finding of its cause (an =-form
			// option dropping the taint it carries, whose fix restores
			// it). Every independent problem is a finding of its own.
			continue
		}
		if !arisesOn(p.AMIs, booted) {
			continue // a setting every image the nodes boot has
		}
		sev, problem := SevError, 0
		if p.Severity != userdata.SeverityError {
			sev = SevWarning
		}
		if p.Code == userdata.CodeEqualsForm || p.Code == userdata.CodeRequiredTaintMissing {
			problem = 3
		}
		at := nc.at
		if p.Line > 0 && p.Part == "" {
			at = nc.userDataAt(p.Line)
		}
		c.out.add(Finding{Severity: sev, Code: codeUserData, Problem: problem, Where: at, Subjects: subject,
			Message: fmt.Sprintf("spec.userData line %d: %s", p.Line, p.Message), Fix: p.Fix})
	}
	otherErrors := slices.ContainsFunc(report.Problems, func(p userdata.Problem) bool {
		return p.Severity == userdata.SeverityError && p.Code != userdata.CodeUnresolved
	})
	switch {
	case report.Verdict == userdata.Unresolved && !otherErrors:
		c.unresolved(subject, nc, report)
	case report.Verdict != userdata.Joins && !report.HasErrors():
		c.out.add(Finding{Severity: SevError, Code: codeUserData, Problem: 3, Where: nc.at, Subjects: subject,
			Message: fmt.Sprintf("the node %s: %s", report.Verdict, report.Reason),
			Fix:     "make spec.userData's boot path one the analysis can follow, or let the AMI family's own userData join the node"})
	}
	return u
}

// unresolved reports userData whose effect preflight cannot follow: what
// it cannot know is not a problem of the manifest, so it is a notice with
// the reason, unless -strict-userdata makes it a warning, for CI that
// wants every userData checked.
func (c *checker) unresolved(subject []string, nc *nodeClass, report userdata.Report) {
	sev, fix := SevNotice, "check this userData on a test node"
	if c.opts.strictUserData {
		sev = SevWarning
	}
	for _, p := range report.Problems {
		if p.Code == userdata.CodeUnresolved && p.Fix != "" {
			fix = "to let preflight follow it, " + p.Fix + "; or " + fix
			break
		}
	}
	c.out.add(Finding{Severity: sev, Code: codeUnresolved, Where: nc.userDataAt(report.Line), Subjects: subject,
		Message: "preflight cannot tell whether the node joins, or which taints it registers: " + report.Reason,
		Fix:     fix})
}

// arisesOn reports whether a problem scoped to some AMIs of the family
// arises on any of the images the nodes boot. An unscoped problem, no
// known image, or an image whose release is not known counts as arising:
// what cannot be shown not to break is reported.
func arisesOn(s userdata.AMIScope, booted []amiselect.AMI) bool {
	if !s.Scoped() || len(booted) == 0 {
		return true
	}
	for _, a := range booted {
		if s.ExceptVariant != "" && a.Variant.String() != s.ExceptVariant {
			return true
		}
		if s.Before != "" && !releaseAtLeast(a.Release, s.Before) {
			return true
		}
	}
	return false
}

// releaseAtLeast reports whether a Bottlerocket release ("v1.46.0") is
// known to be min ("1.44.0") or later.
func releaseAtLeast(release, min string) bool {
	r, ok := semver(strings.TrimPrefix(release, "v"))
	m, okMin := semver(strings.TrimPrefix(min, "v"))
	if !ok || !okMin {
		return false
	}
	return slices.Compare(r, m) >= 0
}

// semver reads "major.minor.patch".
func semver(v string) ([]int, bool) {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return nil, false
	}
	out := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// requiredTaints are the taints the kubelet itself must register for
// Karpenter (v1.14) to register the node safely: karpenter.sh/unregistered,
// which holds pods off until Karpenter has copied the NodePool's taints and
// startup taints onto the node (see unsynced for when it does not).
func requiredTaints() []userdata.Taint {
	return []userdata.Taint{userdata.UnregisteredTaint()}
}

// unsynced reports the NodePool taints the node lacks when its kubelet
// registers the label karpenter.sh/do-not-sync-taints=true: Karpenter then
// leaves the node's taints alone, so they must all come from the userData
// (kubernetes-sigs/karpenter v1.14.1, 6e7eab7a, pkg/controllers/nodeclaim/
// lifecycle/registration.go L77-87 and L213-217).
func (c *checker) unsynced(np *nodePool, nc *nodeClass, report userdata.Report) {
	if report.Verdict != userdata.Joins || report.Labels[doNotSyncTaints] != "true" {
		return
	}
	has := map[string]bool{}
	for _, t := range report.Taints {
		has[t.Key+":"+string(t.Effect)] = true
	}
	for _, t := range slices.Concat(np.StartupTaints, np.Taints) {
		if !has[t.Key+":"+string(t.Effect)] {
			c.out.add(Finding{Severity: SevError, Code: codeUnsyncedTaints, Problem: 3, Where: nc.at, Subjects: []string{"EC2NodeClass " + nc.Name, "NodePool " + np.Name},
				Message: fmt.Sprintf("the userData registers the label %s=true, so Karpenter does not copy the NodePool's taints onto the node, and the kubelet does not register %s", doNotSyncTaints, t),
				Fix:     fmt.Sprintf("add %s to the kubelet's --register-with-taints in spec.userData, or drop the %s label", t, doNotSyncTaints)})
		}
	}
}

// doNotSyncTaints is the node label that stops Karpenter copying a
// NodeClaim's taints onto its node at registration.
const doNotSyncTaints = "karpenter.sh/do-not-sync-taints"

// firstAMI warns of problem 2 (karpenter-provider-aws #7925), for the
// Karpenter releases that have it: from v1.1.0, which learns each type's
// memory from its nodes, to v1.3.x, which maps the node to an AMI by the
// NodeClaim's requirements (v1.3.8 pkg/providers/instancetype/
// instancetype.go L283-286) and so files nodes under the first AMI of
// their architecture. v1.4.0 maps by the node's labels
// (NewLabelRequirements(node.Labels), L286-289), as v1.14.1 does.
func (c *checker) firstAMI(np *nodePool, nc *nodeClass, amis []amiselect.AMI, m amiselect.Mapping) {
	if !c.opts.karpenter.hasFirstAMIBug() {
		return
	}
	first := map[string]amiselect.AMI{}
	for _, a := range amis {
		if _, ok := first[a.Arch]; !ok {
			first[a.Arch] = a
		}
	}
	trapped := map[string][]string{} // by architecture
	for _, g := range m.Groups {
		if f := first[g.AMI.Arch]; f.ID != g.AMI.ID || f.Variant != g.AMI.Variant {
			for _, it := range g.InstanceTypes {
				trapped[g.AMI.Arch] = append(trapped[g.AMI.Arch], it.Name)
			}
		}
	}
	var parts []string
	n := 0
	for _, arch := range []string{compat.ArchAMD64, compat.ArchARM64} {
		names := trapped[arch]
		if len(names) == 0 {
			continue
		}
		slices.Sort(names)
		n += len(names)
		parts = append(parts, fmt.Sprintf("%d %s types (%s) would be filed under %s", len(names), arch, listed(names), first[arch]))
	}
	if n == 0 {
		return
	}
	c.out.add(Finding{Severity: SevWarning, Code: codeFirstAMI, Problem: 2, Where: np.at, Subjects: []string{"NodePool " + np.Name, "EC2NodeClass " + nc.Name},
		Message: fmt.Sprintf("Karpenter %s files the nodes of %d instance types under the first selected AMI of their architecture, not the one they run, and so never learns their real memory (karpenter-provider-aws #7925): %s",
			c.opts.karpenter, n, strings.Join(parts, "; ")),
		Fix: "upgrade Karpenter to v1.4.0 or later, which maps a node by its labels, or keep GPU and non-GPU types in separate NodePools with EC2NodeClasses that select only their variant"})
}

// taintsOf are a NodePool's taints that keep pods off (NoSchedule and
// NoExecute), as key:effect.
func taintsOf(np weighting.NodePool) []string {
	var out []string
	for _, t := range np.Taints {
		if t.Effect == userdata.NoSchedule || t.Effect == userdata.NoExecute {
			out = append(out, t.Key+":"+string(t.Effect))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
