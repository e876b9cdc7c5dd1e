package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ec2select/ec2select/amiselect"
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
		for _, h := range cc.sel.HeldBack() {
			row.HeldBack = append(row.HeldBack, HeldBack{h.AMI.ID, h.AMI.Name, h.EligibleAt.Format(time.RFC3339), h.Winner.ID, h.Reason()})
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
			if !plan.NextChange.IsZero() {
				row.NextChange = plan.NextChange.Format(time.RFC3339)
			}
		} else if h := cc.sel.HeldBack(); len(h) > 0 {
			row.NextChange = h[0].EligibleAt.Format(time.RFC3339)
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
	case amiselect.DriftUnmatched:
		return false
	case amiselect.DriftUnavailable:
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
	row := Drift{ImageID: d.ImageID, Name: d.Name, Nodes: d.Nodes, Drifts: d.Drifts, Reason: d.Reason.String(), Replacement: d.Replacement.ID, Detail: d.Detail}
	if !d.ReplacedAt.IsZero() {
		row.ReplacedAt = d.ReplacedAt.Format(time.RFC3339)
	}
	return row
}
