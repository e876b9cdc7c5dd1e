package userdata_test

import (
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// TestBootPathAL2023Scripts (issue 39): what a script beside nodeadm may
// do on AL2023. Scripts run in cloud-final, before nodeadm-run.service
// (awslabs/amazon-eks-ami@81fec2e8 templates/al2023/runtime/rootfs/etc/
// systemd/system/nodeadm-run.service); nodeadm-config.service has already
// configured the node. An exit in a branch can only skip what follows it,
// which the analysis takes as possibly running anyway. A bare "nodeadm
// init" reads the default config source, imds://user-data
// (nodeadm/internal/cli/options.go DefaultConfigSources), the NodeConfig
// nodeadm's units read (nodeadm-run.service adds file:///etc/eks/nodeadm.d/,
// which the AMI creates empty: provisioners/install-nodeadm.sh L63), so it
// starts the same kubelet earlier (cmd/nodeadm/init/init.go: config, then
// run phase).
func TestBootPathAL2023Scripts(t *testing.T) {
	nodeConfig := "Content-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: c\n    apiServerEndpoint: " + endpoint + "\n    certificateAuthority: " + ca + "\n    cidr: 10.100.0.0/16\n  kubelet:\n    config:\n      registerWithTaints: [{key: karpenter.sh/unregistered, effect: NoExecute}]\n"
	runRows(t, []row{
		{
			name:     "an exit in a branch of a script beside nodeadm",
			family:   compat.AL2023,
			userData: mime(shellPart("", "#!/bin/bash\nif [ -e /etc/skip ]; then exit 0; fi\necho tuned > /etc/motd\n"), nodeConfig),
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			name:     "a script that runs nodeadm init as nodeadm's units do",
			family:   compat.AL2023,
			userData: mime(shellPart("", "#!/bin/bash\nset -e\n/usr/bin/nodeadm init\n"), nodeConfig),
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			name:     "a script that runs nodeadm init with another config source",
			family:   compat.AL2023,
			userData: mime(shellPart("", "#!/bin/bash\nnodeadm init --config-source file:///tmp/other.yaml\n"), nodeConfig),
			want:     outcome{Verdict: userdata.Unresolved},
			anyPlace: true,
		},
	})
}
