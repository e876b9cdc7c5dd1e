package ec2fake

import "github.com/aws/aws-sdk-go-v2/service/ec2"

// clonePlacementInput deep-copies the inputs of the placement operations
// for the call log; any other value is returned as it is.
func clonePlacementInput(v any) any {
	switch in := v.(type) {
	case *ec2.DescribeAvailabilityZonesInput:
		c := clone(*in)
		return &c
	case *ec2.DescribeInstanceTypeOfferingsInput:
		c := clone(*in)
		return &c
	case *ec2.DescribeCapacityReservationsInput:
		c := clone(*in)
		return &c
	case *ec2.DescribeSubnetsInput:
		c := clone(*in)
		return &c
	case *ec2.CreateFleetInput:
		c := clone(*in)
		return &c
	}
	return v
}
