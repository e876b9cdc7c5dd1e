// Command pricesnapshot writes a price snapshot of one region from the live
// AWS APIs, in the format offerings.ReadPriceSnapshot loads, so that a
// region the embedded snapshot lacks (it holds Karpenter v1.14.1's tables:
// us-east-1, GovCloud and cn-north-1, Linux only) gets its own prices, for
// Windows too, and a cluster with no route to the Price List can use them
// offline:
//
//	go run ./examples/pricesnapshot -region eu-west-1 -os linux,windows -o eu-west-1.prices
//
// then, in the program that prices offerings:
//
//	f, _ := os.Open("eu-west-1.prices")
//	snap, err := offerings.ReadPriceSnapshot(f)
//	book := offerings.NewPriceBook(offerings.EmbeddedPriceSnapshot(), snap)
//
// It needs pricing:GetProducts and ec2:DescribeSpotPriceHistory, through
// the default credential chain. The Price List is asked at the endpoint
// offerings.PricingRegion chooses (us-east-1, eu-central-1, ap-south-1 or
// cn-northwest-1); -pricing-region picks another where an SCP denies it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/pricing"

	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/offerings"
)

func main() { cli.Main("pricesnapshot", run) }

var command = cli.Command{
	Name: "pricesnapshot",
	Usage: `usage: go run ./examples/pricesnapshot -region REGION [flags]

Writes REGION's on-demand list prices (GetProducts, with Karpenter's filters,
every page) and current spot prices (DescribeSpotPriceHistory) as a price
snapshot that offerings.ReadPriceSnapshot loads.
`,
}

type options struct {
	region, pricingRegion, pricingEndpoint, endpoint, out string
	os                                                    []offerings.OS
	dedicated                                             bool
	spotWindow, timeout                                   time.Duration
}

func parseFlags(w io.Writer, args []string) (options, bool, error) {
	fs := command.FlagSet()
	var o options
	fs.StringVar(&o.region, "region", "", "the `region` to price (default: AWS_REGION or the shared config's)")
	osList := fs.String("os", "linux", "comma-separated operating `systems`: linux, windows (Windows with the licence included)")
	fs.BoolVar(&o.dedicated, "dedicated", false, "also read dedicated-tenancy prices")
	fs.DurationVar(&o.spotWindow, "spot-window", 0, "read this much spot price history (up to 2160h, EC2's 90 days) instead of the current prices")
	fs.StringVar(&o.pricingRegion, "pricing-region", "", "ask the Price List in this `region` (default: the one offerings.PricingRegion chooses)")
	fs.StringVar(&o.pricingEndpoint, "pricing-endpoint", "", "send Price List requests to `url` (a test server, a proxy)")
	fs.StringVar(&o.endpoint, "endpoint", "", "send EC2 requests to `url` (a VPC endpoint, a test server)")
	fs.StringVar(&o.out, "o", "", "write the snapshot to `file` (default: standard output)")
	fs.DurationVar(&o.timeout, "timeout", cli.DefaultTimeout, "give up after `duration`")
	help, err := command.Parse(fs, w, args)
	if help || err != nil {
		return o, help, err
	}
	for _, s := range strings.Split(*osList, ",") {
		var v offerings.OS
		if err := v.UnmarshalText([]byte(strings.TrimSpace(s))); err != nil {
			return o, false, cli.Usagef("-os %q: %v", *osList, err)
		}
		o.os = append(o.os, v)
	}
	if o.timeout <= 0 {
		return o, false, cli.Usagef("-timeout %v: give a positive duration", o.timeout)
	}
	return o, false, nil
}

func run(ctx context.Context, w io.Writer, args []string) error {
	o, help, err := parseFlags(w, args)
	if help || err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	live := cli.Live{Enabled: true, Timeout: o.timeout, Region: o.region, Endpoint: o.endpoint}
	cfg, _, err := live.Config(ctx)
	if err != nil {
		return err
	}
	pricingRegion := o.pricingRegion
	if pricingRegion == "" {
		pricingRegion = offerings.PricingRegion(cfg.Region)
	}
	src := offerings.PriceSources{
		Pricing: pricing.NewFromConfig(cfg, func(p *pricing.Options) {
			p.Region = pricingRegion
			if o.pricingEndpoint != "" {
				p.BaseEndpoint = aws.String(o.pricingEndpoint)
			}
		}),
		EC2: ec2.NewFromConfig(cfg, func(e *ec2.Options) {
			if o.endpoint != "" {
				e.BaseEndpoint = aws.String(o.endpoint)
			}
		}),
	}
	snap, err := offerings.LoadPriceSnapshot(ctx, src, cfg.Region, offerings.PriceLoadOptions{OS: o.os, Dedicated: o.dedicated, SpotWindow: o.spotWindow})
	if err != nil {
		return live.Err(ctx, err)
	}
	if o.out == "" {
		_, err = snap.WriteTo(w)
		return err
	}
	f, err := os.Create(o.out)
	if err != nil {
		return cli.Inputf("-o: %v", err)
	}
	if _, err := snap.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	s := snap.Sources()[0]
	_, err = fmt.Fprintf(w, "%s: %d on-demand and %d spot prices of %s as of %s\n", o.out, s.OnDemand, s.Spot, s.Region, s.AsOf.Format(time.RFC3339))
	return err
}
