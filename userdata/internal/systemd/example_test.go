package systemd_test

import (
	"fmt"

	"github.com/ec2select/ec2select/userdata/internal/systemd"
)

// The drop-in bootstrap.sh writes, then the split of $KUBELET_EXTRA_ARGS
// in ExecStart: quotes group and are removed.
func ExampleSplit() {
	env, _, _ := systemd.Environment(`'KUBELET_EXTRA_ARGS=--register-with-taints "k:NoSchedule"'`)
	words, _ := systemd.Split(env["KUBELET_EXTRA_ARGS"], false, true)
	fmt.Printf("%q\n", words)
	// Output: ["--register-with-taints" "k:NoSchedule"]
}
