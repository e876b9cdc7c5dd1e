package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/offerings"
)

// offeringsOf loads the region of client (its zones, the types each
// offers, its capacity reservations) and summarizes the offerings of the
// mapped instance types per zone and capacity type, as a launch would
// judge them at now, with no marks: a fresh controller's view.
func offeringsOf(ctx context.Context, client ec2API, m amiselect.Mapping, now time.Time) (cli.Offerings, error) {
	api, ok := client.(offerings.RegionAPI)
	if !ok {
		return cli.Offerings{}, fmt.Errorf("-offerings: the EC2 client cannot describe zones, offerings and reservations")
	}
	region, err := offerings.Load(ctx, api, offerings.LoadOptions{})
	if err != nil {
		return cli.Offerings{}, fmt.Errorf("-offerings: %w", err)
	}
	region.InstanceTypes = nil
	for _, g := range m.Groups {
		for _, it := range g.InstanceTypes {
			region.InstanceTypes = append(region.InstanceTypes, it.Name)
		}
	}
	if region.NoSpot, err = offerings.LoadNoSpot(ctx, client, region.InstanceTypes); err != nil {
		return cli.Offerings{}, fmt.Errorf("-offerings: %w", err)
	}
	return cli.SummarizeOfferings(region, nil, now, compat.Requirements{})
}

// offerings writes the summary.
func (r *report) offerings(o cli.Offerings) {
	r.printf("\nOfferings of the %s mapped instance types in %s, per zone and capacity type (-offerings): available/total\n", fmt.Sprint(o.InstanceTypes), o.Region)
	var b strings.Builder
	cli.WriteOfferings(&b, o, "  ")
	r.printf("%s", b.String())
}
