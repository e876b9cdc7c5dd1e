package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/offerings"
)

// regionOfferings is the region's offerings, loaded once per run for
// -offerings: its zones, the types each offers, its capacity reservations
// and the types not sold as spot.
type regionOfferings struct {
	region offerings.Region
	err    error
	loaded bool
}

// offerings summarizes, for -offerings, where the NodePool's types that a
// selected AMI runs can launch: per zone and capacity type the NodePool's
// requirements admit, how many offerings can launch now and why the
// others cannot, as offerings.Candidates judges them for a controller
// that has seen no failure yet.
func (c *checker) offerings(ctx context.Context, np *nodePool, m amiselect.Mapping) *cli.Offerings {
	if !c.opts.offerings {
		return nil
	}
	if err := c.loadRegion(ctx); err != nil {
		return &cli.Offerings{Unknown: err.Error()}
	}
	r := c.offered.region
	r.InstanceTypes = nil
	for _, g := range m.Groups {
		for _, it := range g.InstanceTypes {
			r.InstanceTypes = append(r.InstanceTypes, it.Name)
		}
	}
	reqs, err := compat.NewRequirements(np.Requirements...)
	if err != nil {
		return nil // DecodeNodePool validated them
	}
	at := c.opts.rollout.Now
	if at.IsZero() {
		at = time.Now()
	}
	o, err := cli.SummarizeOfferings(r, nil, at, reqs)
	if err != nil {
		return &cli.Offerings{Unknown: err.Error()}
	}
	return &o
}

func (c *checker) loadRegion(ctx context.Context) error {
	if c.offered.loaded {
		return c.offered.err
	}
	c.offered.loaded = true
	api, ok := c.client.(offerings.RegionAPI)
	if !ok {
		c.offered.err = fmt.Errorf("the EC2 client cannot describe zones, offerings and reservations")
		return c.offered.err
	}
	r, err := offerings.Load(ctx, api, offerings.LoadOptions{})
	if err == nil {
		r.NoSpot, err = offerings.LoadNoSpot(ctx, c.client, nil)
	}
	if err == nil && !c.opts.live.Enabled && c.region != "" && r.Name != c.region {
		err = fmt.Errorf("the embedded zone catalog has no region %s (it has %s); use -live", c.region, strings.Join(ec2fake.CatalogRegions(), ", "))
	}
	c.offered.region, c.offered.err = r, err
	return err
}

// writeOfferings writes a NodePool's offerings under its pair.
func writeOfferings(b *strings.Builder, o *cli.Offerings) {
	if o.Unknown != "" {
		fmt.Fprintf(b, "  offerings (-offerings): not known: %s\n", o.Unknown)
		return
	}
	fmt.Fprintf(b, "  offerings of its %d types some AMI runs, in %s, per zone and capacity type it allows (-offerings): available/total\n", o.InstanceTypes, o.Region)
	cli.WriteOfferings(b, *o, "    ")
}
