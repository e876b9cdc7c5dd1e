package ec2fake

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Subnet error codes (EC2 API reference, error codes).
const (
	CodeInvalidSubnetIDNotFound  = "InvalidSubnetID.NotFound"
	CodeInvalidSubnetIDMalformed = "InvalidSubnetID.Malformed"
)

// subnetIDPattern is a subnet ID: EC2's (subnet- and 8 or 17 hex digits)
// and the names test suites use, such as Karpenter's "subnet-test1".
var subnetIDPattern = regexp.MustCompile(`^subnet-[0-9A-Za-z]+$`)

const (
	tokenOpSubnets      byte = 's'
	maxSubnetResults         = 1000
	defaultSubnetVPC         = "vpc-0ec2fa4e0000000a1"
	defaultSubnetFreeIP      = 251 // a /24, less the five addresses AWS keeps
)

// PutSubnet adds s, or replaces the subnet with its ID. SubnetId and the
// zone (AvailabilityZone or AvailabilityZoneId, of a loaded zone) are
// required. Defaults: AvailableIpAddressCount 251 (a /24), State
// available, VpcId a fixed VPC, OwnerId the account, and the ARN.
// CreateFleet takes one address per instance it launches in the subnet
// and fails with InsufficientFreeAddressesInSubnet when none is left.
func (b *Backend) PutSubnet(s ec2types.Subnet) error {
	s = clone(s)
	id := aws.ToString(s.SubnetId)
	if !subnetIDPattern.MatchString(id) {
		return fmt.Errorf("ec2fake: PutSubnet: subnet ID %q is not subnet- followed by letters or digits", id)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.placeInZone(&s.AvailabilityZone, &s.AvailabilityZoneId); err != nil {
		return fmt.Errorf("ec2fake: PutSubnet: subnet %s: %w", id, err)
	}
	if s.AvailableIpAddressCount == nil {
		s.AvailableIpAddressCount = aws.Int32(defaultSubnetFreeIP)
	}
	if *s.AvailableIpAddressCount < 0 {
		return fmt.Errorf("ec2fake: PutSubnet: subnet %s: negative AvailableIpAddressCount", id)
	}
	setDefault(&s.State, ec2types.SubnetStateAvailable)
	if aws.ToString(s.VpcId) == "" {
		s.VpcId = aws.String(defaultSubnetVPC)
	}
	if aws.ToString(s.OwnerId) == "" {
		s.OwnerId = aws.String(b.accountID())
	}
	if s.SubnetArn == nil {
		s.SubnetArn = aws.String(fmt.Sprintf("arn:aws:ec2:%s:%s:subnet/%s", b.region(), *s.OwnerId, id))
	}
	i, found := slices.BinarySearchFunc(b.place.subnets, id, compareSubnetID)
	if found {
		b.place.subnets[i] = &s
	} else {
		b.place.subnets = slices.Insert(b.place.subnets, i, &s)
	}
	return nil
}

func compareSubnetID(s *ec2types.Subnet, id string) int { return strings.Compare(*s.SubnetId, id) }

// subnetByID returns the subnet, or nil; b.mu must be held.
func (b *Backend) subnetByID(id string) *ec2types.Subnet {
	i, ok := slices.BinarySearchFunc(b.place.subnets, id, compareSubnetID)
	if !ok {
		return nil
	}
	return b.place.subnets[i]
}

var subnetFilters = map[string]func(*ec2types.Subnet, valueSet) bool{
	"availability-zone":    func(s *ec2types.Subnet, vs valueSet) bool { return vs.optional(s.AvailabilityZone) },
	"availability-zone-id": func(s *ec2types.Subnet, vs valueSet) bool { return vs.optional(s.AvailabilityZoneId) },
	"available-ip-address-count": func(s *ec2types.Subnet, vs valueSet) bool {
		return s.AvailableIpAddressCount != nil && vs.any(strconv.Itoa(int(*s.AvailableIpAddressCount)))
	},
	"cidr-block":              func(s *ec2types.Subnet, vs valueSet) bool { return vs.optional(s.CidrBlock) },
	"default-for-az":          func(s *ec2types.Subnet, vs valueSet) bool { return vs.boolean(s.DefaultForAz) },
	"map-public-ip-on-launch": func(s *ec2types.Subnet, vs valueSet) bool { return vs.boolean(s.MapPublicIpOnLaunch) },
	"owner-id":                func(s *ec2types.Subnet, vs valueSet) bool { return vs.optional(s.OwnerId) },
	"state":                   func(s *ec2types.Subnet, vs valueSet) bool { return enum(vs, s.State) },
	"subnet-arn":              func(s *ec2types.Subnet, vs valueSet) bool { return vs.optional(s.SubnetArn) },
	"subnet-id":               func(s *ec2types.Subnet, vs valueSet) bool { return vs.optional(s.SubnetId) },
	"vpc-id":                  func(s *ec2types.Subnet, vs valueSet) bool { return vs.optional(s.VpcId) },
	"tag-key":                 func(s *ec2types.Subnet, vs valueSet) bool { return anyTagKey(s.Tags, vs) },
}

func lookupSubnetFilter(name string) (func(*ec2types.Subnet, valueSet) bool, bool) {
	if key, ok := strings.CutPrefix(name, "tag:"); ok && key != "" {
		return func(s *ec2types.Subnet, vs valueSet) bool { return tagValue(s.Tags, key, vs) }, true
	}
	m, ok := subnetFilters[name]
	return m, ok
}

func (b *Backend) describeSubnets(in *ec2.DescribeSubnetsInput) (*ec2.DescribeSubnetsOutput, *apiError) {
	limit, aerr := checkMaxResults(in.MaxResults, maxSubnetResults)
	if aerr != nil {
		return nil, aerr
	}
	filters, aerr := compileFilters(in.Filters, lookupSubnetFilter, nil)
	if aerr != nil {
		return nil, aerr
	}
	ids := sortedUnique(in.SubnetIds)
	fp := newFingerprinter(tokenOpSubnets)
	fp.filters(in.Filters)
	fp.strs("ids", ids)
	after, aerr := pageAfter(in.NextToken, tokenOpSubnets, fp.h, subnetIDPattern.MatchString)
	if aerr != nil {
		return nil, aerr
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	candidates, aerr := b.namedSubnets(ids)
	if aerr != nil {
		return nil, aerr
	}
	if aws.ToBool(in.DryRun) {
		return nil, &apiError{code: CodeDryRunOperation, message: dryRunMessage, status: http.StatusPreconditionFailed}
	}
	out := &ec2.DescribeSubnetsOutput{Subnets: []ec2types.Subnet{}}
	for _, s := range candidates {
		if (after != "" && *s.SubnetId <= after) || !matchAll(filters, s) {
			continue
		}
		if limit > 0 && len(out.Subnets) == limit {
			tok := encodeToken(tokenOpSubnets, fp.h, *out.Subnets[limit-1].SubnetId)
			out.NextToken = &tok
			break
		}
		out.Subnets = append(out.Subnets, clone(*s))
	}
	return out, nil
}

// namedSubnets returns the subnets the request names (all of them when it
// names none); b.mu must be held.
func (b *Backend) namedSubnets(ids []string) ([]*ec2types.Subnet, *apiError) {
	if len(ids) == 0 {
		return b.place.subnets, nil
	}
	out := make([]*ec2types.Subnet, 0, len(ids))
	for _, id := range ids {
		if !subnetIDPattern.MatchString(id) {
			return nil, newAPIError(CodeInvalidSubnetIDMalformed, "Invalid id: \"%s\" (expecting \"subnet-...\")", id)
		}
		s := b.subnetByID(id)
		if s == nil {
			return nil, newAPIError(CodeInvalidSubnetIDNotFound, "The subnet ID '%s' does not exist", id)
		}
		out = append(out, s)
	}
	return out, nil
}

// DescribeSubnets implements ec2.DescribeSubnetsAPIClient; see
// DescribeImages for errors and options.
func (b *Backend) DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpDescribeSubnets, in, b.describeSubnets)
	return result(OpDescribeSubnets, out, requestID, aerr, ctxErr)
}
