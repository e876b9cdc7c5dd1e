package nodeadm_test

import (
	"fmt"

	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
)

func ExampleMerge() {
	a, _ := nodeadm.Decode([]byte("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registerWithTaints: [{key: a, effect: NoSchedule}]\n    flags: [--node-labels=x=y]\n"))
	b, _ := nodeadm.Decode([]byte("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registerWithTaints: []\n    flags: [--v=2]\n"))
	m := nodeadm.Merge([]*nodeadm.Doc{a, b})
	fmt.Println(m.Config["registerWithTaints"], m.Flags, m.TaintDoc == b)
	// Output:
	// [] [--node-labels=x=y --v=2] true
}
