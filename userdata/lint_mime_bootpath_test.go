package userdata_test

import (
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// TestBootPathMIMEPerFamily (issue 43): each family's MIME is read as its
// consumer reads it. AL2's scripts are read by cloud-init, with Python's
// lenient email parser (cloudinit/user_data.py convert_string →
// util.message_from_string → email.message_from_string; CPython
// Lib/email/feedparser.py _parsegen: a line that is not a header ends the
// header block and starts the body, "MissingHeaderBodySeparatorDefect").
// AL2023's NodeConfigs are read by nodeadm with Go's net/mail and
// mime/multipart, which refuse the same layouts
// (awslabs/amazon-eks-ami@81fec2e8 nodeadm/internal/configprovider/mime.go
// L19-31, L37-43, L76-89). ran: cloud-init 22.4.2's convert_string and
// handlers walk on each AL2 document (the script part is found, with its
// body from "#!/bin/bash" on); Go's mail.ReadMessage and
// multipart.Reader.NextPart on each AL2023 one (an error).
func TestBootPathMIMEPerFamily(t *testing.T) {
	script := "#!/bin/bash\n" + join(withRequired) + "\n"
	noBlank := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"==B==\"\n--==B==\nContent-Type: text/x-shellscript\n\n" + script + "--==B==--\n"
	tight := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"==B==\"\n\n--==B==\nContent-Type: text/x-shellscript\n" + script + "--==B==--\n"
	nodeConfig := "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: c\n    apiServerEndpoint: " + endpoint + "\n    certificateAuthority: " + ca + "\n    cidr: 10.100.0.0/16\n  kubelet:\n    config:\n      registerWithTaints: [{key: karpenter.sh/unregistered, effect: NoExecute}]\n"
	runRows(t, []row{
		{
			name:     "AL2: no empty line between the top-level headers and the first delimiter",
			family:   compat.AL2,
			userData: noBlank,
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			name:     "AL2: a part's Content-Type line followed directly by #!/bin/bash",
			family:   compat.AL2,
			userData: tight,
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// Python 3's headerRE takes ":x" for a header with no name and
			// drops it; Python 2.7's needs a name, so the line starts the
			// body: the two read different parts.
			name:     "AL2: a header line without a name reads differently in Python 2.7 and 3",
			family:   compat.AL2,
			userData: strings.Replace(tight, "Content-Type: text/x-shellscript\n", "Content-Type: text/x-shellscript\n:x\n\n", 1),
			want:     outcome{Verdict: userdata.Unresolved},
			anyPlace: true,
		},
		{
			name:     "AL2023: no empty line between the top-level headers and the first delimiter",
			family:   compat.AL2023,
			userData: strings.Replace(noBlank, "Content-Type: text/x-shellscript\n\n"+script, "Content-Type: application/node.eks.aws\n\n"+nodeConfig, 1),
			want:     outcome{Verdict: userdata.NeverJoins},
			lineAt:   "MIME-Version",
		},
		{
			name:   "AL2023: a part's Content-Type line followed directly by #!/bin/bash",
			family: compat.AL2023,
			userData: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"==B==\"\n\n--==B==\nContent-Type: text/x-shellscript\n#!/bin/bash\necho hi\n" +
				"--==B==\nContent-Type: application/node.eks.aws\n\n" + nodeConfig + "--==B==--\n",
			want: outcome{Verdict: userdata.NeverJoins},
		},
		{
			// Go's multipart.Reader wraps the EOF of a body without a
			// closing delimiter ("multipart: NextPart: EOF"), and nodeadm
			// compares err == io.EOF (mime.go L38): nodeadm fails. cloud-init
			// reads the same document ("CloseBoundaryNotFoundDefect").
			name:     "AL2023: no closing delimiter",
			family:   compat.AL2023,
			userData: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"==B==\"\n\n--==B==\nContent-Type: application/node.eks.aws\n\n" + nodeConfig,
			want:     outcome{Verdict: userdata.NeverJoins},
		},
	})
}
