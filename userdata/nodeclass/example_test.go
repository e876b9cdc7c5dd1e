package nodeclass_test

import (
	"fmt"

	"github.com/ec2select/ec2select/userdata/nodeclass"
)

// The kubelet refuses to start with these, so Validate refuses them too,
// naming the field, the value and the fix.
func ExampleKubelet_Validate() {
	maxPods := int32(-1)
	for _, k := range []nodeclass.Kubelet{
		{MaxPods: &maxPods},
		{KubeReserved: map[string]string{"gpu": "1"}},
		{EvictionSoft: map[string]string{"memory.available": "500Mi"}},
		{SystemReserved: map[string]string{"memory": "100Mi"}},
	} {
		fmt.Println(k.Validate())
	}
	// Output:
	// userdata: Config.Kubelet.MaxPods is -1; it must be at least 0; use 0 or more (leave it unset for the default)
	// userdata: Config.Kubelet.KubeReserved["gpu"] is a resource the kubelet cannot reserve; it reserves only cpu, ephemeral-storage, memory, pid; remove the key
	// userdata: Config.Kubelet.EvictionSoft["memory.available"] has no grace period, and the kubelet refuses a soft threshold without one; set EvictionSoftGracePeriod["memory.available"]
	// <nil>
}
