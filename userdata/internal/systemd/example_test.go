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

func ExampleParseUnit() {
	ds, err := systemd.ParseUnit("[Service]\nEnvironment='KUBELET_EXTRA_ARGS=--v=2'\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s.%s on line %d: %s\n", ds[0].Section, ds[0].Key, ds[0].Line, ds[0].Value)
	// Output: Service.Environment on line 2: 'KUBELET_EXTRA_ARGS=--v=2'
}
