package userdata_test

// Rows for facts found late by running nodeadm itself (see
// /work/notes/i11-corpus.md); met by the implementation since.

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

func TestBootPathNodeadmPending(t *testing.T) {
	runRows(t, []row{
		{
			// ParseMultipart returns the first decoding error
			// (configprovider/mime.go L62-65), so one NodeConfig part that
			// does not decode (node.eks.aws/v1 is not a registered version;
			// bridge/decode.go L26-28 wraps ErrNodeConfigDecodingFailure)
			// drops every user-data NodeConfig; the chain tolerates the
			// error (chain.go L44-46) and is left with none (L53-55). Ran
			// (nodeadm's own ParseMaybeMultipart and provider chain at
			// 81fec2e8): "failed to decode node config, no kind "NodeConfig"
			// is registered for version "node.eks.aws/v1"", then "no config
			// in chain"; the same for kind: NodeConfiguration.
			name:   "one NodeConfig part that does not decode drops them all",
			family: compat.AL2023,
			userData: mime(
				nodeConfigPart(nodeConfig(karpenterKubelet)),
				nodeConfigPart("---\napiVersion: node.eks.aws/v1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 110\n"),
			),
			want:     outcome{Verdict: userdata.NeverJoins},
			anyPlace: true,
		},
		{
			// nodeadm-run.service@81fec2e8 L6, L11 runs after cloud-final
			// with --config-source imds://user-data --config-source
			// file:///etc/eks/nodeadm.d/, merging that directory's
			// NodeConfigs after the user data's (chain.go L26-56,
			// file.go L47-...). A script that writes one there changes the
			// taints in a way the user data alone does not show.
			name:   "shell part writing a NodeConfig into /etc/eks/nodeadm.d",
			family: compat.AL2023,
			userData: mime(
				nodeConfigPart(nodeConfig(karpenterKubelet)),
				shellPart("", "#!/bin/bash\nmkdir -p /etc/eks/nodeadm.d\naws s3 cp s3://my-bucket/taints.yaml /etc/eks/nodeadm.d/99-taints.yaml\n"),
			),
			want:       outcome{Verdict: userdata.Unresolved, Part: "part-002"},
			lineAt:     "aws s3 cp",
			alsoLineAt: "mkdir -p /etc/eks/nodeadm.d",
		},
	})
}

// TestBootPathRenderAL2023FailsClosed: custom parts that break or bypass
// nodeadm's reading of Render's NodeConfig. One NodeConfig part that does not
// decode makes nodeadm drop every user-data NodeConfig, Render's included
// (nodeadm/internal/configprovider/mime.go@81fec2e8 L62-65, chain.go
// L44-46); a script writing into /etc/eks/nodeadm.d adds NodeConfig that
// nodeadm-run merges after the user data (nodeadm-run.service L6, L11).
func TestBootPathRenderAL2023FailsClosedPending(t *testing.T) {
	cases := []struct {
		name, custom, lineAt, construct string
	}{
		{"NodeConfig with an unregistered apiVersion",
			mime(nodeConfigPart("---\napiVersion: node.eks.aws/v1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 110\n")),
			"apiVersion: node.eks.aws/v1\n", `node\.eks\.aws/v1\b|apiVersion|decode`},
		{"script writing into /etc/eks/nodeadm.d",
			"#!/bin/bash\ncat > /etc/eks/nodeadm.d/99-extra.yaml <<'EOF'\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n      - --register-with-taints=spot=true:NoSchedule\nEOF\n",
			"cat > /etc/eks/nodeadm.d", `nodeadm\.d`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := userdata.Render(compat.AL2023, renderConfig(c.custom))
			if err == nil {
				t.Fatalf("Render accepted it; output:\n%s", decoded(out))
			}
			msg := err.Error()
			if line := lineOf(c.custom, c.lineAt); !strings.Contains(msg, fmt.Sprintf("line %d", line)) {
				t.Errorf("error %q does not name line %d", msg, line)
			}
			if !regexp.MustCompile(`(?i)` + c.construct).MatchString(msg) {
				t.Errorf("error %q does not name the construct %s", msg, c.construct)
			}
		})
	}
}
