package capacity_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLightImport: importing capacity links neither userdata's linter
// (userdata and its internal parsers: the kubelet configuration type is
// userdata/nodeclass's, a package that imports neither) nor an SSM client (amiselect's SSM resolution stays out of
// what capacity imports), so that an autoscaler estimating capacity adds
// neither to its binary or its go.mod review (issue 42).
func TestLightImport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, forbidden := range forbiddenDeps {
		for _, d := range deps {
			if d == forbidden || strings.HasPrefix(d, forbidden+"/") && !allowedDeps[d] {
				t.Errorf("capacity links %s (through %s)", d, forbidden)
			}
		}
	}
	if len(deps) < 10 {
		t.Fatalf("go list -deps gave %d packages; the check is not looking", len(deps))
	}
}

// allowedDeps are the packages under a forbidden path that capacity may
// link: the EC2NodeClass settings, which the linter does not hold.
var allowedDeps = map[string]bool{
	"github.com/ec2select/ec2select/userdata/nodeclass": true,
}

var forbiddenDeps = []string{
	"github.com/ec2select/ec2select/userdata",
	"github.com/aws/aws-sdk-go-v2/service/ssm",
}
