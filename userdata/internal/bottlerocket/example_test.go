package bottlerocket_test

import (
	"fmt"

	"github.com/ec2select/ec2select/userdata/internal/bottlerocket"
)

func ExampleUnknownSetting() {
	settings := map[string]any{"kubernetes": map[string]any{"cluster-name": "c", "node-taint": "a"}}
	fmt.Println(bottlerocket.UnknownSetting(settings, settings["kubernetes"].(map[string]any)))
	fmt.Println(bottlerocket.TaintEntry("true", "NoSchedule"))
	// Output:
	// settings.kubernetes.node-taint
	// true:NoSchedule
}
