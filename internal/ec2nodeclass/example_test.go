package ec2nodeclass_test

import (
	"fmt"

	"github.com/ec2select/ec2select/internal/ec2nodeclass"
)

// amiFamily Custom with an alias, as the CRD allows: Karpenter passes the
// userData through, to the alias's AMIs.
func ExampleDecode() {
	c, err := ec2nodeclass.Decode([]byte(`
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: custom}
spec:
  amiFamily: Custom
  role: KarpenterNodeRole-prod
  amiSelectorTerms: [{alias: bottlerocket@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: prod}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: prod}}]
`))
	fmt.Println(c.Family(), c.Alias(), err)
	// Output:
	// Custom bottlerocket@latest <nil>
}
