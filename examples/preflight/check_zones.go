package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/compat"
)

// A cluster's Karpenter launches in its own region: it builds offerings
// for the zones DescribeInstanceTypeOfferings lists there
// (aws/karpenter-provider-aws bde00654, pkg/providers/instancetype/
// instancetype.go L302-351) and gives every instance type one offering
// per such zone (offering/base_resolver.go L89). A NodePool that requires
// zones of another region matches no offering in them: if all its zones
// are elsewhere, it launches nothing, and pods that need it stay pending.
// This file checks the zone names NodePools require against the region
// the cluster runs in (-region, or -live's) and, without one, against
// each other.

// zoneKey is the label of a node's zone, which NodePools require.
const zoneKey = "topology.kubernetes.io/zone"

// zoneRegion returns the region of an availability, local or wavelength
// zone name: us-east-1a, us-west-2-lax-1a and us-east-1-wl1-bos-wlz-1 are
// all us-east-1's or us-west-2's. ok is false for what is not a zone name
// (a zone ID such as use1-az1, a placeholder).
func zoneRegion(zone string) (region string, ok bool) {
	parts := strings.Split(zone, "-")
	if len(parts) < 3 || len(parts[0]) != 2 || !lowerLetters(parts[0]) {
		return "", false
	}
	for i := 1; i < len(parts); i++ {
		p := parts[i]
		digits := len(p) - len(strings.TrimLeft(p, "0123456789"))
		if digits == 0 {
			if !lowerLetters(p) {
				return "", false
			}
			continue
		}
		region = strings.Join(parts[:i], "-") + "-" + p[:digits]
		letter := p[digits:]
		last := i == len(parts)-1
		switch {
		case i < 2:
			return "", false
		case last && len(letter) == 1 && lowerLetters(letter): // us-east-1a
			return region, true
		case !last && letter == "": // us-west-2-lax-1a
			return region, true
		}
		return "", false
	}
	return "", false
}

func lowerLetters(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz") == ""
}

// poolRegions are the regions of the zones a NodePool requires (In), with
// the zones of each; placeholders filled in and names that are not zone
// names are left out.
func poolRegions(np *nodePool) map[string][]string {
	out := map[string][]string{}
	for _, r := range np.Requirements {
		if r.Key != zoneKey || r.Operator != compat.In {
			continue
		}
		for _, z := range r.Values {
			if region, ok := zoneRegion(z); ok && !np.filled.has(z) {
				out[region] = append(out[region], z)
			}
		}
	}
	return out
}

// zones reports NodePools that require zones of another region than the
// cluster's, when preflight knows it, and otherwise than the NodePools
// applied with them.
func (c *checker) zones(u *unit, pools []*nodePool) {
	regions := make(map[*nodePool]map[string][]string, len(pools))
	for _, np := range pools {
		if r := poolRegions(np); len(r) > 0 {
			regions[np] = r
		}
	}
	for _, np := range pools {
		mine := regions[np]
		if len(mine) == 0 {
			continue
		}
		if c.region != "" {
			c.againstRegion(np, mine)
			continue
		}
		c.againstSiblings(u, np, pools, regions)
	}
}

// againstRegion reports the zones of np outside the cluster's region: an
// error when none of its zones is in it, since it then launches nothing.
func (c *checker) againstRegion(np *nodePool, mine map[string][]string) {
	var outside []string
	for _, r := range slices.Sorted(maps.Keys(mine)) {
		if r != c.region {
			outside = append(outside, mine[r]...)
		}
	}
	if len(outside) == 0 {
		return
	}
	sev, what := SevWarning, "Karpenter never launches there, so those zones get no nodes"
	if len(mine[c.region]) == 0 {
		sev, what = SevError, "Karpenter offers instance types only in its own region's zones, so the NodePool launches nothing and pods that need it stay pending"
	}
	c.out.add(Finding{Severity: sev, Code: codeZoneRegion, Where: np.doc.at(np.doc.lineOf(zoneLine)), Subjects: []string{"NodePool " + np.Name},
		Message: fmt.Sprintf("the NodePool requires zones of another region than the cluster's, %s (%s): %s; %s", c.region, c.regionFrom, strings.Join(outside, ", "), what),
		Fix:     fmt.Sprintf("require zones of %s (%sa, %sb...) in %s, or give -region the cluster's region if it is not %s", c.region, c.region, c.region, zoneKey, c.region)})
}

// againstSiblings reports the regions of np's zones that no NodePool
// linked with it requires, and a NodePool whose zones span regions.
func (c *checker) againstSiblings(u *unit, np *nodePool, pools []*nodePool, regions map[*nodePool]map[string][]string) {
	mine := regions[np]
	others := map[string][]string{} // region: the NodePools that require its zones
	for _, q := range pools {
		if q == np || !u.linked(np.doc.file, q.doc.file) {
			continue
		}
		for r := range regions[q] {
			others[r] = append(others[r], q.Name)
		}
	}
	var alone []string
	for _, r := range slices.Sorted(maps.Keys(mine)) {
		if len(others) > 0 && len(others[r]) == 0 {
			alone = append(alone, fmt.Sprintf("%s (%s)", r, strings.Join(mine[r], ", ")))
		}
	}
	switch {
	case len(alone) > 0:
		var theirs []string
		for _, r := range slices.Sorted(maps.Keys(others)) {
			slices.Sort(others[r])
			theirs = append(theirs, fmt.Sprintf("%s (NodePool %s)", r, strings.Join(slices.Compact(others[r]), ", ")))
		}
		c.out.add(Finding{Severity: SevWarning, Code: codeZoneRegion, Where: np.doc.at(np.doc.lineOf(zoneLine)), Subjects: []string{"NodePool " + np.Name},
			Message: fmt.Sprintf("the NodePool requires zones of %s, and the NodePools applied with it zones of %s: a cluster's Karpenter launches only in its own region's zones, so the NodePools of one of them launch nothing there", strings.Join(alone, ", "), strings.Join(theirs, ", ")),
			Fix:     fmt.Sprintf("require the zones of the cluster's region in %s; -region names it, and preflight then checks every NodePool against it", zoneKey)})
	case len(mine) > 1 && len(others) == 0:
		var all []string
		for _, r := range slices.Sorted(maps.Keys(mine)) {
			all = append(all, fmt.Sprintf("%s (%s)", r, strings.Join(mine[r], ", ")))
		}
		c.out.add(Finding{Severity: SevWarning, Code: codeZoneRegion, Where: np.doc.at(np.doc.lineOf(zoneLine)), Subjects: []string{"NodePool " + np.Name},
			Message: fmt.Sprintf("the NodePool requires zones of %d regions, %s: a cluster's Karpenter launches only in its own region's zones, so those of the others get no nodes", len(mine), strings.Join(all, "; ")),
			Fix:     fmt.Sprintf("require only the zones of the cluster's region in %s; -region names it, and preflight then checks against it", zoneKey)})
	}
}

func zoneLine(l string) bool { return strings.Contains(l, zoneKey) }
