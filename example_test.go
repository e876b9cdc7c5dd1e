package ec2select_test

import (
	"context"
	"fmt"

	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// The flow in miniature, against the fake EC2 and its embedded catalog:
// resolve an AMI alias, load a few instance types, and give each type
// the one AMI it can run, or say why there is none.
func Example() {
	ctx := context.Background()
	ec2 := ec2fake.NewWithCatalog(ec2fake.Options{}) // or a real *ec2.Client

	sel, err := amiselect.Resolve(ctx, ec2, []amiselect.Term{{Alias: "al2023@latest"}},
		amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: "1.32"}})
	if err != nil {
		fmt.Println(err)
		return
	}

	names := []string{"m7i-flex.large", "m6g.large", "g5g.xlarge", "g6f.xlarge", "inf2.xlarge", "g4ad.8xlarge"}
	in := &awsec2.DescribeInstanceTypesInput{}
	for _, n := range names {
		in.InstanceTypes = append(in.InstanceTypes, ec2types.InstanceType(n))
	}
	types, _, err := compat.LoadInstanceTypes(ctx, ec2, in) // every page, converted
	if err != nil {
		fmt.Println(err)
		return
	}

	m := amiselect.Map(types, sel.AMIs)
	for _, name := range names {
		if ami, ok := m.AMIFor(name); ok {
			fmt.Printf("%-14s %s\n", name, ami.Name)
		}
	}
	for _, u := range m.Unmapped {
		fmt.Printf("%-14s no AMI: %s\n", u.InstanceType.Name, u.Fix)
	}
	// Output:
	// m7i-flex.large amazon-eks-node-al2023-x86_64-standard-1.32-v20260714
	// m6g.large      amazon-eks-node-al2023-arm64-standard-1.32-v20260714
	// g5g.xlarge     amazon-eks-node-al2023-arm64-nvidia-1.32-v20260714
	// g6f.xlarge     amazon-eks-node-al2023-x86_64-nvidia-1.32-v20260714
	// inf2.xlarge    amazon-eks-node-al2023-x86_64-neuron-1.32-v20260714
	// g4ad.8xlarge   no AMI: no amd64 amd GPU AMI in family al2023; no EKS AMI family publishes one, so keep these types out with karpenter.k8s.aws/instance-gpu-manufacturer NotIn [amd]
}
