package main

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/internal/cli"
)

// explanation is -o json: what the table output says, as data. The
// selection and the drift plan are amiselect's own JSON (reasons and
// variants as words, every held-back image with when it is selected, the
// changes to come); the rest are the tables' rows.
type explanation struct {
	Source            string               `json:"source"`
	Terms             []string             `json:"terms"`
	KubernetesVersion string               `json:"kubernetesVersion,omitempty"`
	Selection         amiselect.Selection  `json:"selection"`
	NotSelected       []notSelectedRow     `json:"notSelected"`
	Drift             *amiselect.DriftPlan `json:"drift,omitempty"`
	InstanceTypes     int                  `json:"instanceTypes"`
	Skipped           []skippedRow         `json:"skipped,omitempty"`
	Mapping           []groupRow           `json:"mapping"`
	Unmapped          []unmappedRow        `json:"unmapped,omitempty"`
	// NothingMaps is the fix when no instance type gets an AMI.
	NothingMaps string        `json:"nothingMaps,omitempty"`
	Capacity    []capacityRow `json:"capacity,omitempty"`
	Assumes     []string      `json:"assumes,omitempty"`
	// Explain is -explain TYPE's estimate, term by term.
	Explain string `json:"explain,omitempty"`
	// Offerings is -offerings' table.
	Offerings *cli.Offerings `json:"offerings,omitempty"`
}

// notSelectedRow is an image the terms find but do not select, in any
// state, and why.
type notSelectedRow struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	State string `json:"state"`
	Why   string `json:"why"`
}

type skippedRow struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// groupRow is one AMI and the instance types that get it.
type groupRow struct {
	AMI           string   `json:"ami"`
	Name          string   `json:"name"`
	Family        string   `json:"family"`
	Arch          string   `json:"arch"`
	Variant       string   `json:"variant"`
	InstanceTypes []string `json:"instanceTypes"`
}

// unmappedRow is instance types no AMI runs, for the same reasons.
type unmappedRow struct {
	InstanceTypes []string `json:"instanceTypes"`
	Why           []string `json:"why"`
	Fix           string   `json:"fix"`
}

func writeJSON(out io.Writer, source string, opts options, sel amiselect.Selection, passed []notSelected, plan amiselect.DriftPlan,
	types []compat.InstanceType, skipped []compat.SkippedType, m amiselect.Mapping, estimates []capacity.Estimate, offered cli.Offerings) error {
	x := explanation{Source: source, Selection: sel, InstanceTypes: len(types) + len(skipped), Mapping: []groupRow{}, NotSelected: []notSelectedRow{}}
	for _, t := range opts.terms {
		x.Terms = append(x.Terms, describeTerm(t))
		if t.Alias != "" {
			x.KubernetesVersion = opts.k8s
		}
	}
	for _, p := range passed {
		x.NotSelected = append(x.NotSelected, notSelectedRow{p.id, p.name, p.state, p.why})
	}
	if opts.rollout.Nodes != nil {
		x.Drift = &plan
	}
	for _, s := range skipped {
		x.Skipped = append(x.Skipped, skippedRow{s.Name, s.Err.Error()})
	}
	for _, g := range m.Groups {
		row := groupRow{AMI: g.AMI.ID, Name: g.AMI.Name, Family: g.AMI.Family.String(), Arch: g.AMI.Arch, Variant: g.AMI.Variant.String()}
		for _, it := range g.InstanceTypes {
			row.InstanceTypes = append(row.InstanceTypes, it.Name)
		}
		x.Mapping = append(x.Mapping, row)
	}
	if len(sel.AMIs) > 0 {
		for _, u := range groupUnmapped(m.Unmapped, sel.AMIs) {
			x.Unmapped = append(x.Unmapped, unmappedRow{u.names, trimmed(u.why), u.fix})
		}
	}
	var nothing *amiselect.NoCompatibleAMIError
	if errors.As(m.Err(), &nothing) && nothing.InstanceTypes > 0 {
		x.NothingMaps = nothing.Fix
	}
	if opts.capacity || opts.types != nil {
		x.Capacity, x.Assumes = capacityRows(estimates, newListPrices(opts.live.Region)), assumptions(estimates)
	}
	if opts.offerings {
		x.Offerings = &offered
	}
	if i := slices.IndexFunc(estimates, func(e capacity.Estimate) bool { return e.InstanceType == opts.explainType }); i >= 0 {
		x.Explain = estimates[i].Explain()
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(x)
}

// trimmed drops the indentation the table gives reasons.
func trimmed(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSpace(l)
	}
	return out
}
