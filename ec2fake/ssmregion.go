package ec2fake

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/ssm"
)

// defaultRegion is the region SSM answers for when the caller names none.
const defaultRegion = "us-east-1"

// region returns Options.Region, or defaultRegion.
func (b *Backend) region() string {
	if b.regionName == "" {
		return defaultRegion
	}
	return b.regionName
}

// regionOfOptions is the region an in-process caller asks for: the
// ssm.Options its option functions leave, starting from the backend's
// region, as *ssm.Client applies them per call.
func (b *Backend) regionOfOptions(optFns []func(*ssm.Options)) string {
	if len(optFns) == 0 {
		return b.region()
	}
	o := ssm.Options{Region: b.region()}
	for _, fn := range optFns {
		if fn != nil {
			fn(&o)
		}
	}
	if !regionPattern.MatchString(o.Region) {
		return b.region()
	}
	return o.Region
}

// credentialScope finds the region in a Signature Version 4 Authorization
// header: "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-west-2/ssm/aws4_request, ...".
var credentialScope = regexp.MustCompile(`Credential=[^/,\s]+/[0-9]{8}/([a-z0-9-]+)/ssm/aws4_request`)

var regionPattern = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)

// regionOfRequest is the region an HTTP caller signed its request for —
// boto3, the AWS CLI and a signing *ssm.Client all sign for the region they
// are configured with — or, for an unsigned request (NewSSMClient's
// anonymous credentials), the backend's region.
func (b *Backend) regionOfRequest(r *http.Request) string {
	if m := credentialScope.FindStringSubmatch(r.Header.Get("Authorization")); m != nil && regionPattern.MatchString(m[1]) {
		return m[1]
	}
	return b.region()
}

// partition is the ARN partition of a region.
func partition(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}

// parameterARN is a parameter's ARN as SSM writes it: public parameters
// carry no account ("arn:aws:ssm:us-west-2::parameter/aws/service/..."),
// the account's own do, and a name without a leading slash gets one
// ("flat" → "parameter/flat").
func parameterARN(region, account, name string, public bool) string {
	if public {
		account = ""
	}
	return "arn:" + partition(region) + ":ssm:" + region + ":" + account + ":parameter/" + strings.TrimPrefix(name, "/")
}
