package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// DefaultTimeout bounds everything -live does unless -timeout says
// otherwise.
const DefaultTimeout = 30 * time.Second

// Live is the -live, -timeout, -region and -endpoint flags: whether to ask
// a real AWS account instead of the embedded catalog, and how. The AWS
// SDK's retryer and transport do not bound a call to an endpoint that
// accepts the connection and never answers, so the only bound is the
// context [Live.Context] returns; every call must be made with it.
type Live struct {
	Enabled  bool
	Timeout  time.Duration
	Region   string
	Endpoint string
	// RegionOffline, when set before [Live.Register], says what -region
	// means without -live, for a command that uses the region offline too
	// (preflight checks zone names against it); -region is then not
	// refused without -live.
	RegionOffline string
}

// Register adds the four flags to fs; needs says which permissions -live
// requires, for the help text.
func (l *Live) Register(fs *flag.FlagSet, needs string) {
	fs.BoolVar(&l.Enabled, "live", false, "ask a real AWS account (default credential chain: environment, shared config, SSO, IMDS)\n"+
		"instead of the fake EC2's embedded catalog; needs "+needs)
	fs.DurationVar(&l.Timeout, "timeout", DefaultTimeout, "with -live: give up after `duration` (everything -live does, together)")
	region := "with -live: the AWS `region` (default: AWS_REGION or the shared config's)"
	if l.RegionOffline != "" {
		region += ";\nwithout -live: " + l.RegionOffline
	}
	fs.StringVar(&l.Region, "region", "", region)
	fs.StringVar(&l.Endpoint, "endpoint", "", "with -live: send EC2 requests to `url` instead of the region's endpoint (a VPC endpoint, a test server)")
}

// Check refuses -timeout, -region (unless [Live.RegionOffline] says what
// it means) or -endpoint without -live, and a
// timeout that is not positive; set is [Set] of the flag set.
func (l Live) Check(set map[string]bool) error {
	for _, name := range []string{"timeout", "region", "endpoint"} {
		if set[name] && !l.Enabled && (name != "region" || l.RegionOffline == "") {
			return Usagef("-%s is only used with -live; add -live to ask AWS, or drop -%s", name, name)
		}
	}
	if l.Timeout <= 0 {
		return Usagef("-timeout %v: give a positive duration, such as 30s or 2m", l.Timeout)
	}
	return nil
}

// Context returns ctx bounded by -timeout.
func (l Live) Context(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, l.Timeout)
}

// Config loads the default credential chain's configuration with -region;
// ctx bounds loading it (which may ask IMDS). source describes it.
func (l Live) Config(ctx context.Context) (cfg aws.Config, source string, err error) {
	var opts []func(*config.LoadOptions) error
	if l.Region != "" {
		opts = append(opts, config.WithRegion(l.Region))
	}
	cfg, err = config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, "", l.Err(ctx, fmt.Errorf("-live: loading the AWS configuration: %w", err))
	}
	if cfg.Region == "" {
		return aws.Config{}, "", Usagef("-live: no AWS region; pass -region or set AWS_REGION")
	}
	source = "EC2 in " + cfg.Region + " (default credential chain)"
	if l.Endpoint != "" {
		source += " at " + l.Endpoint
	}
	return cfg, source, nil
}

// EC2 returns an EC2 client for [Live.Config], sending to -endpoint when
// it is set.
func (l Live) EC2(ctx context.Context) (*ec2.Client, string, error) {
	cfg, source, err := l.Config(ctx)
	if err != nil {
		return nil, "", err
	}
	return ec2.NewFromConfig(cfg, func(o *ec2.Options) {
		if l.Endpoint != "" {
			o.BaseEndpoint = aws.String(l.Endpoint)
		}
	}), source, nil
}

// Err explains err when ctx ran out of time: which bound was hit and what
// to change. Other errors are returned unchanged.
func (l Live) Err(ctx context.Context, err error) error {
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("-live: no answer within -timeout %v; check the network, the region and -endpoint, or raise -timeout: %w", l.Timeout, err)
}
