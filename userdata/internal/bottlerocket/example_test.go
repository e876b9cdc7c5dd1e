package bottlerocket_test

import (
	"fmt"

	"github.com/ec2select/ec2select/userdata/internal/bottlerocket"
)

func ExampleCheck() {
	settings, _ := bottlerocket.ReadUserData([]byte(`
[settings.kubernetes]
cluster-name = 'c'
node-taint = 'a'
[settings.kubelet-device-plugins.nvidia]
device-sharing-strategy = 'time-slicing'
`))
	for _, f := range bottlerocket.Check(settings) {
		fmt.Printf("%s: %s (%s), near %q\n", f.Key(), f.Kind, f.Detail, f.Near)
	}
	// Output:
	// settings.kubelet-device-plugins: variant (aws-k8s-*-nvidia), near ""
	// settings.kubernetes.node-taint: unknown (KubernetesSettingsV1), near "node-taints"
}

func ExampleClassify() {
	for _, argv := range [][]string{
		{"apiclient", "ephemeral-storage", "init"},
		{"apiclient", "set", "motd=hello"},
		{"apiclient", "set", "kubernetes.node-taints.dedicated=gpu:NoSchedule"},
		{"apiclient", "apply", "s3://bucket/settings.toml"},
		{"echo", "hello"},
	} {
		effect, _ := bottlerocket.Classify(argv)
		fmt.Println(effect)
	}
	// Output:
	// harmless
	// harmless
	// changes-node
	// cannot-tell
	// refused
}
