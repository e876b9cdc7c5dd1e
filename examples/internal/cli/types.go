package cli

import (
	"cmp"
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/compat"
)

// InstanceTypes loads the named instance types with compat.LoadInstanceTypes,
// in the order named. A type no EKS node runs on is an error, as is a name
// EC2 does not know.
func InstanceTypes(ctx context.Context, client ec2.DescribeInstanceTypesAPIClient, names ...string) ([]compat.InstanceType, error) {
	in := &ec2.DescribeInstanceTypesInput{}
	for _, n := range names {
		in.InstanceTypes = append(in.InstanceTypes, ec2types.InstanceType(n))
	}
	types, skipped, err := compat.LoadInstanceTypes(ctx, client, in)
	if err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		return nil, skipped[0].Err
	}
	slices.SortFunc(types, func(a, b compat.InstanceType) int {
		return cmp.Compare(slices.Index(names, a.Name), slices.Index(names, b.Name))
	})
	return types, nil
}
