package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/examples/internal/cli"
)

// rollout reports, with -min-age or -nodes, each EC2NodeClass's images
// held back by the soak time and its drift plan (amiselect.PlanDrift) for
// the images nodes run today. Nodes do not say which EC2NodeClass
// launched them, so each class's plan lists the running images it
// accounts for: those its terms select, supersede, hold back or refuse,
// and those of its alias's family that the alias no longer selects. The
// images no class accounts for drift whichever class launched them; they
// are listed once, apart.
func (c *checker) rollout(ctx context.Context) error {
	r := c.opts.rollout
	if r.MinAge == 0 && r.Nodes == nil {
		return nil
	}
	c.report.nodes = r.Nodes != nil
	claimed := map[string]bool{}
	var first []amiselect.ImageDrift
	for _, nc := range c.classOrder {
		cc := c.classes[nc]
		if !cc.known {
			continue // its finding says the catalog cannot know
		}
		row := NodeClassRollout{NodeClass: nc.Name, Where: nc.at}
		held := cc.sel.HeldBack()
		for _, h := range cli.HeldImages(held) {
			i := slices.IndexFunc(held, func(e amiselect.HeldBack) bool { return e.AMI.ID == h.ID })
			row.HeldBack = append(row.HeldBack, HeldBack{ID: h.ID, Name: h.Name, EligibleAt: h.EligibleAt.Format(time.RFC3339),
				SelectedAt: rfc3339(h.SelectedAt), Until: h.Until(), Serving: strings.Join(h.Serving, ", "), Reason: held[i].Reason()})
		}
		if changes := cc.sel.Changes(); len(changes) > 0 {
			row.NextChange = changes[0].At.Format(time.RFC3339)
			_, row.NextChangeWhat, _ = strings.Cut(cli.NextChanges(changes), ", when ")
		}
		if r.Nodes != nil {
			plan, err := amiselect.PlanDrift(ctx, c.client, cc.sel, r.Nodes)
			if err != nil {
				return fmt.Errorf("EC2NodeClass %q: planning drift for -nodes: %w", nc.Name, err)
			}
			if first == nil {
				first = plan.Images
			}
			for _, d := range plan.Images {
				if accounts(cc.sel, d) {
					claimed[d.ImageID] = true
					row.Drift = append(row.Drift, driftRow(d))
				}
			}
		}
		c.report.NodeClasses = append(c.report.NodeClasses, row)
	}
	if r.Nodes == nil {
		return nil
	}
	if first == nil { // no class could be checked: say what EC2 says of each image
		plan, err := amiselect.PlanDrift(ctx, c.client, amiselect.Selection{}, r.Nodes)
		if err != nil {
			return fmt.Errorf("planning drift for -nodes: %w", err)
		}
		first = plan.Images
	}
	for _, d := range first {
		if claimed[d.ImageID] {
			continue
		}
		if d.Reason == amiselect.DriftUnmatched {
			d.Detail = "it is available, but no EC2NodeClass checked selects or finds it"
		}
		// What replaces it is the launching EC2NodeClass's AMI, which
		// the plan cannot know.
		d.Replacement = amiselect.AMI{}
		c.report.Unclaimed = append(c.report.Unclaimed, driftRow(d))
	}
	return nil
}

// accounts reports whether the image of d is the selection's: selected,
// superseded, held back, deprecated, refused (found in a state that
// cannot launch), or an image of its alias's family for another release
// or Kubernetes version. The others (unmatched, and unavailable images
// its terms do not find) belong to another EC2NodeClass, or to none.
func accounts(sel amiselect.Selection, d amiselect.ImageDrift) bool {
	switch d.Reason {
	case amiselect.DriftUnmatched, amiselect.DriftDeregistered:
		return false
	case amiselect.DriftUnavailable, amiselect.DriftDisabled:
		for _, r := range sel.Rejected {
			if r.ImageID == d.ImageID {
				return true
			}
		}
		return false
	}
	return true
}

func driftRow(d amiselect.ImageDrift) Drift {
	return Drift{ImageID: d.ImageID, Name: d.Name, Nodes: d.Nodes, Drifts: d.Drifts, Reason: d.Reason.String(), Replacement: d.Replacement.ID,
		ReplacedAt: rfc3339(d.ReplacedAt), SelectedAt: rfc3339(d.SelectedAt), Detail: d.Detail}
}

// rfc3339 writes t, or "" for the zero time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}
