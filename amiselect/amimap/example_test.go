package amimap_test

import (
	"fmt"
	"strings"

	"github.com/ec2select/ec2select/amiselect/amimap"
)

// What an autoscaler sees of a node group says which boot software its
// nodes run: an EKS amiType, an image name, a launch template's
// resolve:ssm: image ID.
func ExampleIdentifyAMIType() {
	for _, id := range []amimap.Identity{
		amimap.IdentifyAMIType("AL2023_ARM_64_NVIDIA"),
		amimap.IdentifyImageName("bottlerocket-aws-k8s-1.32-x86_64-v1.39.1-fe9ebb75"),
		amimap.IdentifySSMParameter("resolve:ssm:/aws/service/eks/optimized-ami/1.32/amazon-linux-2-gpu/recommended/image_id"),
		amimap.IdentifyAMIType("CUSTOM"),
	} {
		if id.Unknown != "" {
			fmt.Println("unknown:", id.Unknown)
			continue
		}
		fmt.Println(strings.TrimSpace(fmt.Sprintln(string(id.Family), id.Arch, id.Variants, id.KubernetesVersion, id.Release)))
	}
	// Output:
	// AL2023 arm64 [nvidia]
	// Bottlerocket amd64 [standard neuron] 1.32 v1.39.1
	// AL2 amd64 [nvidia neuron] 1.32
	// unknown: amiType CUSTOM: the node group's launch template names the image; identify it by its name or SSM parameter
}
