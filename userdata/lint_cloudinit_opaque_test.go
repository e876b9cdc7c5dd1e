package userdata

import (
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
)

// TestOpaqueAfterOwnCall: when a script calls the join itself and then
// does something the linter cannot follow, the Unresolved reason names the
// call (on the script's own line) and the fix says where the call
// belongs; it never advises calling the join directly, which the script
// does. karpenter-blueprints' ebs-dynamic-resize (529b88cf,
// blueprints/dynamic-disk-ebs-volume/ebs-dynamic-resize.yaml) runs
// "/usr/bin/nodeadm init" and then "exit 0" in a branch decided at boot:
// its reason used to blame the exit alone and ask for a direct nodeadm
// call (an exit no longer stops an AL2023 script's walk, since nodeadm's
// own units run either way: the AL2023 case here uses eval). Without a
// call before it, the construct's reason is unchanged.
func TestOpaqueAfterOwnCall(t *testing.T) {
	nodeConfigDoc := "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: my-cluster\n" +
		"    apiServerEndpoint: https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com\n    certificateAuthority: " + testCA() + "\n    cidr: 10.100.0.0/16\n"
	al2023 := func(script string) string {
		return "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/x-shellscript; charset=\"us-ascii\"\n\n" +
			script + "\n--//\nContent-Type: application/node.eks.aws\n\n" + nodeConfigDoc + "\n--//--\n"
	}
	tests := []struct {
		name       string
		family     compat.AMIFamily
		userData   string
		wantReason string
		wantFix    string
	}{
		{"AL2023: nodeadm, then eval", compat.AL2023,
			al2023("#!/bin/bash\nif [ -e /dev/nvme1n1 ]; then\n  /usr/bin/nodeadm init\nfi\neval \"$EXTRA\"\n"),
			"this script calls nodeadm itself (its line 3), and then comes eval, source or '.'",
			"remove the script's nodeadm calls; nodeadm runs from its own systemd units, after the scripts"},
		{"AL2: bootstrap.sh, then eval", compat.AL2,
			"#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster\neval \"$EXTRA\"\n",
			"this script calls bootstrap.sh itself (its line 2), and then comes eval, source or '.'",
			"make the bootstrap.sh call the script's last command, after everything the linter must follow"},
		{"AL2023, no call before: nodeadm runs from its units", compat.AL2023,
			al2023("#!/bin/bash\neval \"$EXTRA\"\n"),
			"eval, source or '.': runs text the walker cannot read: the linter cannot follow it, and it may call nodeadm or start the kubelet",
			"write out the commands it runs, so the linter can follow them; nodeadm itself runs from its own systemd units, after the scripts"},
		{"no call before: the construct's own reason", compat.AL2,
			"#!/bin/bash\neval \"$EXTRA\"\n/etc/eks/bootstrap.sh my-cluster\n",
			"eval, source or '.': runs text the walker cannot read: the linter cannot follow it, and it may call bootstrap.sh or start the kubelet",
			"call bootstrap.sh directly, with literal arguments, from the script itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustLint(t, tt.family, []byte(tt.userData), nil)
			if r.Verdict != Unresolved || !strings.HasPrefix(r.Reason, tt.wantReason) {
				t.Fatalf("verdict %v, reason %q; want Unresolved, %q...", r.Verdict, r.Reason, tt.wantReason)
			}
			for _, p := range r.Problems {
				if p.Code == CodeUnresolved && p.Fix != tt.wantFix {
					t.Errorf("fix %q, want %q", p.Fix, tt.wantFix)
				}
			}
		})
	}
}
