package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ec2select/ec2select/examples/internal/cli"
)

// placeholderCA stands in for the cluster's certificate authority, which
// the manifests do not carry and which no check depends on: a real,
// self-signed certificate (CN=kubernetes, Ed25519) whose key was thrown away.
const placeholderCA = `-----BEGIN CERTIFICATE-----
MIIBKzCB3qADAgECAgEBMAUGAytlcDAVMRMwEQYDVQQDDAprdWJlcm5ldGVzMB4X
DTI2MTEyMTA1MjY1MVoXDTM2MTExODA1MjY1MVowFTETMBEGA1UEAwwKa3ViZXJu
ZXRlczAqMAUGAytlcAMhAAFY1MNSfXodW083/zd72EiJnW3n9N/Rh9jjjatVM934
o1MwUTAdBgNVHQ4EFgQUD+3HBRzn17o959kDc+8vZDADlAUwHwYDVR0jBBgwFoAU
D+3HBRzn17o959kDc+8vZDADlAUwDwYDVR0TAQH/BAUwAwEB/zAFBgMrZXADQQCy
zcYr+524c4nNQNTFTzzx+PqO0r4sgcZSgs7Eh2J6b8AZuUbBX/uJvEJr6IRfpN1V
X/6Kh1/PD2k7j1xjtgAF
-----END CERTIFICATE-----
`

// writeTable prints the report for a person: per pair, then the NodePool
// order, then every finding with its fix, most severe first.
func writeTable(w io.Writer, r Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Source: %s\nKubernetes %s, Karpenter %s; %d instance types\n", r.Source, r.KubernetesVersion, r.KarpenterVersion, r.InstanceTypes)
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "skipped: %s (not an EC2NodeClass or NodePool)\n", s)
	}
	for _, p := range r.Pairs {
		writePair(&b, p)
	}
	writeRollout(&b, r)
	if len(r.Order) > 0 {
		b.WriteString("\nNodePool order (each controller tries its NodePools top to bottom):\n")
		rows := [][]string{{"NODEPOOL", "WEIGHT", "CONTROLLER"}}
		for _, o := range r.Order {
			rows = append(rows, []string{o.NodePool, fmt.Sprint(o.Weight), o.Controller})
		}
		table(&b, rows)
		for _, o := range r.Overlaps {
			fmt.Fprintf(&b, "  overlap: %s and %s can take the same pods on %d instance types; %s is tried first\n", o.NodePools[0], o.NodePools[1], o.InstanceTypes, o.First)
		}
	}
	writeMigrations(&b, r.Migrations)
	fmt.Fprintf(&b, "\nFindings: %s, %s, %s\n", cli.Count(r.Errors, "error"), cli.Count(r.Warnings, "warning"), cli.Count(r.Notices, "notice"))
	for _, f := range r.Findings {
		tag := string(f.Severity)
		if f.Problem > 0 {
			tag = fmt.Sprintf("%s (problem %d)", f.Severity, f.Problem)
		}
		about := ""
		if len(f.Subjects) > 0 {
			about = strings.Join(f.Subjects, ", ") + ": "
		}
		fmt.Fprintf(&b, "- %s %s [%s]: %s%s\n    fix: %s\n", f.Where, tag, f.Code, about, f.Message, f.Fix)
		if f.Suggested != "" {
			fmt.Fprintf(&b, "    suggested NodePools, generated from the catalog:\n%s", indent(f.Suggested, "      "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writePair(b *strings.Builder, p Pair) {
	class := p.NodeClass
	if p.Alternative != "" {
		class += " (the alternative at " + p.Alternative + ")"
	}
	fmt.Fprintf(b, "\nNodePool %s × EC2NodeClass %s: the NodePool allows %d instance types\n", p.NodePool, class, p.InstanceTypes)
	rows := [][]string{{"  AMI", "NAME", "FAMILY", "ARCH", "VARIANT", "TYPES", "E.G."}}
	for _, a := range p.AMIs {
		rows = append(rows, []string{"  " + a.ID, a.Name, a.Family, a.Arch, a.Variant, fmt.Sprint(a.InstanceTypes), more(a.Examples, a.InstanceTypes)})
	}
	if len(p.AMIs) == 0 {
		b.WriteString("  no AMI runs any of them\n")
	} else {
		table(b, rows)
	}
	for _, r := range p.Refused {
		fmt.Fprintf(b, "  refused: %s %s: %s\n", r.ID, r.Name, r.Reason)
	}
	for _, u := range p.CannotLaunch {
		fmt.Fprintf(b, "  cannot launch: %d (%s)\n    fix: %s\n", u.Count, more(u.Examples, u.Count), u.Fix)
	}
	if u := p.UserData; u != nil {
		fmt.Fprintf(b, "  userData (%s): %s", u.Family, u.Verdict)
		if u.Reason != "" {
			fmt.Fprintf(b, ": %s", u.Reason)
		}
		b.WriteString("\n")
		if len(u.Taints) > 0 {
			fmt.Fprintf(b, "    registers: %s\n", strings.Join(u.Taints, ", "))
		}
		for _, p := range u.Problems {
			fmt.Fprintf(b, "    %s\n", p)
		}
	}
	if c := p.Capacity; c != nil {
		writeCapacity(b, c)
	}
	if o := p.Offerings; o != nil {
		writeOfferings(b, o)
	}
}

// writeCapacity writes how many pods of the -pod size the NodePool's
// smallest and largest instance types hold.
func writeCapacity(b *strings.Builder, c *Capacity) {
	if c.Unresolved != "" {
		fmt.Fprintf(b, "  capacity (%s): not estimated: %s\n", c.Family, c.Unresolved)
		return
	}
	judged := c.InstanceTypes - c.Unjudged
	fmt.Fprintf(b, "  capacity under %s (%s; ephemeral storage %s), pods of %s", c.Family, c.Kubelet, c.Volume, c.Pod)
	if c.Daemons != "" {
		fmt.Fprintf(b, " beside daemons of %s", c.Daemons)
	}
	fmt.Fprintf(b, ": %d of %s hold one\n", judged-c.HoldNone.Count, cli.Count(judged, "instance type"))
	rows := [][]string{{"    SIZE", "TYPE", "CPU", "MEMORY", "PODS", "MAX PODS FROM", "HOLDS", "LIMITED BY"}}
	for _, t := range []struct {
		size string
		fit  *TypeFit
	}{{"smallest", c.Smallest}, {"largest", c.Largest}} {
		if f := t.fit; f != nil {
			rows = append(rows, []string{"    " + t.size, f.InstanceType, f.CPU, f.Memory, fmt.Sprint(f.Pods), f.MaxPodsFrom, fmt.Sprint(f.Holds), f.LimitedBy})
		}
	}
	if len(rows) > 1 {
		table(b, rows)
	}
	for _, f := range []*TypeFit{c.Smallest, c.Largest} {
		if f != nil && len(f.Short) > 0 {
			fmt.Fprintf(b, "    %s lacks %s\n", f.InstanceType, strings.Join(f.Short, " and "))
		}
		if c.Smallest == c.Largest {
			break
		}
	}
	if c.HoldNone.Count > 0 {
		fmt.Fprintf(b, "    hold none: %d (%s)\n", c.HoldNone.Count, more(c.HoldNone.Examples, c.HoldNone.Count))
	}
	if c.Unjudged > 0 {
		fmt.Fprintf(b, "    not judged: %s whose pods capacity the estimate cannot know\n", cli.Count(c.Unjudged, "instance type"))
	}
	for _, a := range c.Assumes {
		fmt.Fprintf(b, "    assumes: %s\n", a)
	}
	if p := c.Prices; p != nil {
		names := make([]string, len(p.Cheapest))
		for i, t := range p.Cheapest {
			names[i] = t.String()
		}
		fmt.Fprintf(b, "    cheapest on demand in %s (%s; %s): %s", p.Region, p.RegionFrom, p.Source, strings.Join(names, ", "))
		if len(names) == 0 {
			b.WriteString("none priced")
		}
		if p.Unpriced > 0 {
			fmt.Fprintf(b, "; %s unpriced (unknown, never another region's price)", cli.Count(p.Unpriced, "type"))
		}
		b.WriteString("\n")
	}
}

// writeRollout writes, with -min-age or -nodes, each EC2NodeClass's
// held-back images and drift plan, then the running images no
// EC2NodeClass accounts for.
func writeRollout(b *strings.Builder, r Report) {
	for _, n := range r.NodeClasses {
		fmt.Fprintf(b, "\nEC2NodeClass %s (%s): rollout\n", n.NodeClass, n.Where)
		if len(n.HeldBack) == 0 {
			b.WriteString("  held back: none\n")
		}
		for _, h := range n.HeldBack {
			fmt.Fprintf(b, "  held back: %s %s until %s; %s serves meanwhile\n", h.ID, h.Name, h.Until, h.Serving)
		}
		if r.nodes {
			writeDrift(b, "  drift plan for the images nodes run (-nodes) that it accounts for", n.Drift)
		}
		if n.NextChange != "" {
			fmt.Fprintf(b, "  next change: %s, when %s\n", n.NextChange, n.NextChangeWhat)
		}
	}
	if len(r.Unclaimed) > 0 {
		writeDrift(b, "\nImages nodes run (-nodes) that no EC2NodeClass checked selects or finds, so their nodes drift whichever launched them", r.Unclaimed)
	}
}

func writeDrift(b *strings.Builder, title string, drift []Drift) {
	images, nodes, driftImages, driftNodes := 0, 0, 0, 0
	for _, d := range drift {
		images, nodes = images+1, nodes+d.Nodes
		if d.Drifts {
			driftImages, driftNodes = driftImages+1, driftNodes+d.Nodes
		}
	}
	fmt.Fprintf(b, "%s: %s\n", title, cli.DriftCounts(images, driftImages, nodes, driftNodes))
	if len(drift) == 0 {
		return
	}
	rows := [][]string{{"    IMAGE", "NAME", "NODES", "DRIFTS", "REASON", "REPLACED BY", "WHY"}}
	for _, d := range drift {
		drifts, by, name, count := "no", d.Replacement, d.Name, fmt.Sprint(d.Nodes)
		if d.Drifts {
			drifts = "yes"
		}
		if by == "" {
			by = "-"
		}
		if name == "" {
			name = "-"
		}
		if d.Nodes == 0 { // not counted
			count = "-"
		}
		rows = append(rows, []string{"    " + d.ImageID, name, count, drifts, d.Reason, by, d.Detail})
	}
	table(b, rows)
}

func table(b *strings.Builder, rows [][]string) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

// more is the example names of a set of n, and how many it leaves out.
func more(names []string, n int) string {
	s := strings.Join(names, ", ")
	if n > len(names) {
		s += fmt.Sprintf(" and %d more", n-len(names))
	}
	return s
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" && l != "\n" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}
