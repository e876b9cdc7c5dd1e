package kubelet_test

import (
	"fmt"

	"github.com/ec2select/ec2select/userdata/internal/kubelet"
)

func ExampleParseArgs() {
	flags, exit, _, _ := kubelet.ParseArgs([]string{"--node-labels=a=b", "--register-with-taints", "k:NoExecute"}, kubelet.ReleasesCurrent)
	fmt.Println(flags, exit == "")
	_, exit, _, bad := kubelet.ParseArgs([]string{"--cgroups-per-qos", "false"}, kubelet.ReleasesCurrent)
	fmt.Println(bad, exit)
	// Output:
	// [{node-labels a=b} {register-with-taints k:NoExecute}] true
	// 1 the kubelet gets the stray argument "false" ("unknown command"); a bool flag takes its value as --flag=false, and values with spaces need quotes
}
