package eksname

import (
	"testing"

	"github.com/ec2select/ec2select/compat"
)

// Select reads every image's name with Recognize, so it must not
// allocate (a version that went through amimap.Recognize's Identity cost
// Select of 10,000 images 17,000 allocations).
func TestRecognizeAllocatesNothing(t *testing.T) {
	for _, c := range []struct{ name, arch string }{
		{"amazon-eks-node-al2023-x86_64-nvidia-1.32-v20250403", compat.ArchAMD64},
		{"amazon-eks-gpu-node-1.32-v20250403", compat.ArchAMD64},
		{"bottlerocket-aws-k8s-1.32-x86_64-v1.36.0-0123abcd", compat.ArchAMD64},
		{"Windows_Server-2022-English-Core-EKS_Optimized-1.32-2025.04.08", compat.ArchAMD64},
		{"team-base-07", compat.ArchARM64},
	} {
		var r Recognized
		if n := testing.AllocsPerRun(100, func() { r = Recognize(c.name, c.arch) }); n != 0 {
			t.Errorf("Recognize(%q) allocates %v times", c.name, n)
		}
		if r.Family == "" {
			t.Errorf("Recognize(%q) has no family", c.name)
		}
	}
}
