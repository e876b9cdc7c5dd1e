package userdata_test

// The boot-path fidelity corpus (issue 11): table rows built from realistic
// userData, each pinned to the upstream file and line that decides it, run
// against the public API only. The sources were read at these commits:
//
//	canonical/cloud-init     22.4.2 (Debian 12's package, also run), 19.3 (AL2), 04eacd06e (main)
//	awslabs/amazon-eks-ami   0ab84280 (last tree with AL2), 81fec2e8 (nodeadm)
//	kubernetes/kubernetes    c579a327 (search index snapshot; functions named, not lines)
//
// Facts carry over, code does not: nothing here is copied from those trees.

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
	"github.com/google/go-cmp/cmp"
)

// outcome is the part of a Report a corpus row pins: the verdict, where it
// is decided (a marker substring whose first line is the expected line) and
// for Joins the registered taints as "key=value:Effect/source".
type outcome struct {
	Verdict userdata.Verdict
	Line    int
	Part    string
	Taints  []string
}

// row is one corpus entry. want.Line is filled from lineAt: the 1-based line
// of the first occurrence of lineAt in userData ("" means 0). orUnresolved
// marks rows whose certain answer needs modelling the corpus does not
// demand: Unresolved (at any line) is accepted too, but never a different
// certain verdict. anyPlace leaves line and part unchecked where the deciding
// place is the whole userData rather than one line of it.
type row struct {
	name         string
	family       compat.AMIFamily
	userData     string
	required     []userdata.Taint
	want         outcome
	lineAt       string
	orUnresolved bool
	anyPlace     bool
	// alsoLineAt is a second acceptable line, where the unknowable value
	// is made on one line and used on another: either is "the line that
	// stops the analysis".
	alsoLineAt string
}

func sourceName(s userdata.TaintSource) string {
	switch s {
	case userdata.SourceUser:
		return "user"
	case userdata.SourceRequired:
		return "required"
	case userdata.SourceKubelet:
		return "kubelet"
	}
	return fmt.Sprintf("source(%d)", int(s))
}

// outcomeOf is the adapter from the implementation's Report to what a row
// pins. Taints are sorted so a row does not depend on the report's order.
func outcomeOf(r userdata.Report) outcome {
	o := outcome{Verdict: r.Verdict}
	if r.Verdict != userdata.Joins {
		o.Line, o.Part = r.Line, r.Part
	}
	for _, t := range r.Taints {
		o.Taints = append(o.Taints, t.Taint.String()+"/"+sourceName(t.Source))
	}
	slices.Sort(o.Taints)
	return o
}

func lineOf(text, marker string) int {
	if marker == "" {
		return 0
	}
	i := strings.Index(text, marker)
	if i < 0 {
		panic(fmt.Sprintf("corpus row bug: marker %q not in userData", marker))
	}
	return strings.Count(text[:i], "\n") + 1
}

func runRows(t *testing.T, rows []row) {
	t.Helper()
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			required := r.required
			if required == nil {
				required = []userdata.Taint{userdata.UnregisteredTaint()}
			}
			rep, err := userdata.Lint(r.family, []byte(r.userData), required)
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			got := outcomeOf(rep)
			want := r.want
			want.Line = lineOf(r.userData, r.lineAt)
			if r.alsoLineAt != "" && got.Line == lineOf(r.userData, r.alsoLineAt) {
				want.Line = got.Line
			}
			if r.anyPlace {
				want.Line, want.Part = got.Line, got.Part
			}
			slices.Sort(want.Taints)
			if r.orUnresolved && got.Verdict == userdata.Unresolved {
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Lint verdict (-want +got):\n%s\nreason: %s", diff, rep.Reason)
			}
			if got.Verdict != userdata.Joins && rep.Reason == "" {
				t.Errorf("verdict %v without a reason", got.Verdict)
			}
		})
	}
}

// The kubelet's own taint under --cloud-provider=external, which both
// bootstrap.sh (templates/al2/runtime/bootstrap.sh@0ab84280 L542) and nodeadm
// (nodeadm/internal/kubelet/config.go@81fec2e8 L258) set; the kubelet adds it
// in initialNode (kubernetes pkg/kubelet/kubelet_node_status.go,
// `if kl.externalCloudProvider { ... TaintExternalCloudProvider ... }`).
const (
	kubeletTaint = "node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule/kubelet"
	unregistered = "karpenter.sh/unregistered:NoExecute/required"
)

// ca is a CA bundle that base64 -d accepts (bootstrap.sh L410 pipes it
// through base64 -d under errexit and pipefail).
var ca = base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUEc2lMA==\n-----END CERTIFICATE-----\n"))

const endpoint = "https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com"

// mime builds a multipart/mixed userData as people write it: MIME-Version,
// a quoted boundary, each part with its own headers, a closing boundary.
func mime(parts ...string) string {
	var b strings.Builder
	b.WriteString("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"==MYBOUNDARY==\"\n\n")
	for _, p := range parts {
		b.WriteString("--==MYBOUNDARY==\n" + p + "\n")
	}
	b.WriteString("--==MYBOUNDARY==--\n")
	return b.String()
}

// shellPart is a text/x-shellscript part; name "" leaves it unnamed.
func shellPart(name, body string) string {
	h := "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n"
	if name != "" {
		h += "Content-Disposition: attachment; filename=\"" + name + "\"\n"
	}
	return h + "\n" + body
}

// join is the bootstrap.sh call most AL2 userData carries, with the given
// --kubelet-extra-args value ("" leaves the option out).
func join(extra string) string {
	s := "/etc/eks/bootstrap.sh my-cluster --b64-cluster-ca '" + ca + "' --apiserver-endpoint '" + endpoint + "'"
	if extra != "" {
		s += " --kubelet-extra-args '" + extra + "'"
	}
	return s
}

const withRequired = "--register-with-taints=karpenter.sh/unregistered:NoExecute"
