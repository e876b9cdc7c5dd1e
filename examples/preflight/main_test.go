package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/examples/internal/cli/clitest"
	"github.com/ec2select/ec2select/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func runArgs(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := runWith(context.Background(), strings.NewReader(stdin), &out, args)
	return out.String(), err
}

// Each realistic manifest set is checked whole against its golden file,
// for its exit status, and for the findings it exists to show. The
// Karpenter behaviour each finding rests on is cited beside it.
func TestManifests(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"clean", []string{"testdata/clean.yaml"}, 0, []string{
			"Findings: 0 errors, 0 warnings, 0 notices",
			"skipped: testdata/clean.yaml:53: ConfigMap unrelated",
			"registers: karpenter.sh/unregistered:NoExecute (required), node.cilium.io/agent-not-ready=true:NoExecute (user)",
		}},
		{"weights", []string{"testdata/clean.yaml", "testdata/weights.yaml"}, 0, []string{
			"spot-first  50      karpenter.k8s.aws/EC2NodeClass\ngeneral     0       karpenter.k8s.aws/EC2NodeClass\nbatch       0 ",
			// batch is tainted: the pods general takes do not tolerate it.
			"Findings: 0 errors, 0 warnings, 0 notices",
		}},
		// Karpenter v1.14.1 leaves the types no AMI runs out of the
		// NodePool's offerings (amifamily.MapToInstanceTypes keeps only
		// the compatible ones), so amd64 pods still get nodes; arm64 pods
		// stay pending: a warning.
		{"archmismatch", []string{"testdata/archmismatch.yaml"}, 0, []string{
			"testdata/archmismatch.yaml:21 warning (problem 1) [cannot-launch]",
			"cannot launch: 185 (c7g.12xlarge",
			"fix: add kubernetes.io/arch In [amd64] to the NodePool requirements",
		}},
		// v1.14.1 maps a node to its AMI by the node's labels: no #7925.
		{"firstami", []string{"testdata/firstami.yaml"}, 0, []string{
			"ami-09e576e49f154f35d  bottlerocket-aws-k8s-1.36-nvidia-x86_64-v1.61.0-e8b6abbb  Bottlerocket  amd64  nvidia    1      g5.xlarge",
			"Findings: 0 errors, 0 warnings, 0 notices",
		}},
		{"firstami-v1.3", []string{"-karpenter", "v1.3.8", "testdata/firstami.yaml"}, 0, []string{
			"warning (problem 2) [first-ami]",
			"Karpenter v1.3.8 files the nodes of 3 instance types under the first selected AMI of their architecture",
			"2 amd64 types (m5.large, m5.xlarge) would be filed under ami-09e576e49f154f35d (bottlerocket amd64 nvidia)",
			"upgrade Karpenter to v1.4.0 or later",
		}},
		// Karpenter v1.14 needs only karpenter.sh/unregistered from the
		// kubelet: at registration it copies the NodeClaim's taints and
		// startup taints onto the node, unless the node is labelled
		// karpenter.sh/do-not-sync-taints=true (kubernetes-sigs/karpenter
		// v1.14.1, 6e7eab7a, pkg/controllers/nodeclaim/lifecycle/
		// registration.go L77-87 and L213-217). The =-form is why the
		// taint goes missing: one finding.
		{"startuptaint", []string{"testdata/startuptaint.yaml"}, 1, []string{
			"testdata/startuptaint.yaml:22 error (problem 3) [userdata]",
			"--kubelet-extra-args= is ignored by bootstrap.sh",
			"fix: /etc/eks/bootstrap.sh prod --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,example.com/agent-not-ready=true:NoExecute'",
			"the userData registers the label karpenter.sh/do-not-sync-taints=true, so Karpenter does not copy the NodePool's taints onto the node, and the kubelet does not register example.com/agent-not-ready=true:NoExecute",
			"Findings: 2 errors",
		}},
		{"flexwildcard", []string{"testdata/flexwildcard.yaml"}, 1, []string{
			"testdata/flexwildcard.yaml:29 error (problem 4) [wildcard]", `has the value "*"; Karpenter has no wildcards`,
			"fix: write the preference as weighted NodePools",
			"suggested NodePools, generated from the catalog:\n      apiVersion: karpenter.sh/v1\n      kind: NodePool\n      metadata:\n        name: flex-first-preferred\n",
			"        name: flex-first-fallback\n", "              operator: NotIn\n              values:\n              - c7i-flex\n        weight: 1\n",
		}},
		{"pending", []string{"testdata/pending.yaml"}, 1, []string{
			"refused: ami-0c0ffee0000000401 team-base-al2023-20250401: state is \"pending\"",
			"error (problem 5) [pending-ami]", "an image still being built (state pending)",
			"fix: select only released images",
		}},
		// amiFamily Custom with an alias is what the CRD allows and
		// karpenter-provider-aws v1.14.1 examples/v1/custom-family-with-
		// alias.yaml does; Karpenter then passes spec.userData unchanged
		// (pkg/apis/v1/ec2nodeclass.go L666-675), to whatever OS the AMIs
		// run.
		{"families", []string{"testdata/families.yaml"}, 1, []string{
			"NodePool br-custom × EC2NodeClass br-custom: the NodePool allows 22 instance types",
			"userData (Bottlerocket): joins",
			"[ami-os-mismatch]: EC2NodeClass br-shell: spec.amiFamily is Custom, so Karpenter passes spec.userData to the node unchanged, and the terms select Bottlerocket AMIs",
			"[ami-os-mismatch]: EC2NodeClass by-name: Karpenter writes AL2023 userData (spec.amiFamily AL2023), but spec.amiSelectorTerms select ami-05bcd88648216190f",
			"warning [al2-recipe]: EC2NodeClass al2-recipe: spec.userData is an AL2 kubelet recipe (it uses /etc/eks/bootstrap.sh)",
			"notice [userdata]: EC2NodeClass ubuntu: spec.amiFamily is Custom and spec.userData is empty: Karpenter writes no userData of its own for Custom (pkg/providers/amifamily/custom.go), so the AMI must join the cluster by itself",
			"Findings: 2 errors, 1 warning, 2 notices",
		}},
		// Karpenter tries NodePools by weight and gives a pod the first
		// that can run it (kubernetes-sigs/karpenter v1.14.1
		// pkg/controllers/provisioning/scheduling): same-weight NodePools
		// are a problem only when the same pods fit both.
		{"pools", []string{"testdata/pools.yaml"}, 0, []string{
			`warning [untainted-special-pool]: NodePool gpu: NodePool "gpu" allows only GPU or accelerator instance types`,
			`taint NodePool "gpu" (for example nvidia.com/gpu=true:NoSchedule)`,
			`warning [same-weight]: NodePool general-a, NodePool general-b: NodePools "general-b" and "general-a" can take the same pods`,
			"auto       50      eks.amazonaws.com/NodeClass",
			`notice [other-controller]: NodePool auto: the NodePool names the EKS Auto Mode NodeClass "default"`,
			"Findings: 0 errors, 2 warnings, 1 notice",
		}},
		{"legacy", []string{"testdata/legacy.yaml"}, 1, []string{
			"testdata/legacy.yaml:12 error [v1beta1-kubelet]: NodePool moved: spec.template.spec.kubelet is where karpenter.sh/v1beta1 kept kubelet settings",
			"fix: move the settings to spec.kubelet of the EC2NodeClass",
			`testdata/legacy.yaml:16 error [removed-api]: NodePool old: NodePool "old" is karpenter.sh/v1beta1`,
			// The catalog records the release, for other Kubernetes
			// versions: amazon-eks-ami 81fec2e8 CHANGELOG.md lists
			// v20250715's AMIs for 1.29 to 1.33 only.
			"notice [catalog-cannot-know]: EC2NodeClass pinned: the embedded catalog records al2023 release v20250715 for Kubernetes 1.29 to 1.33, not Kubernetes 1.36 (assumed: -k8s was not given",
			"fix: give -k8s the cluster's version, or run with -live",
		}},
		// Pinned releases resolve offline (the catalog's full history);
		// one the changelog does not record (amazon-eks-ami tag
		// v20250801, ec2fake/catalog/README.md) is a notice. Bottlerocket
		// nodes keep ephemeral storage on /dev/xvdb (karpenter-provider-aws
		// v1.14.1 pkg/providers/amifamily/bottlerocket.go:198-200).
		{"pinned", []string{"-k8s", "1.33", "testdata/pinned.yaml"}, 0, []string{
			"ami-0e48cad41abaf395c  amazon-eks-node-al2023-x86_64-standard-1.33-v20250715  AL2023  amd64  standard  10",
			"ami-01679a573435a99fb  bottlerocket-aws-k8s-1.33-x86_64-v1.39.1-fe9ebb75  Bottlerocket  amd64  standard  11",
			"capacity under Bottlerocket (spec.kubelet; ephemeral storage 100Gi)",
			"notice [catalog-cannot-know]: EC2NodeClass unrecorded: the embedded catalog has no al2023 release v20250801 for Kubernetes 1.33",
			"fix: run with -live (and -region)",
			"Findings: 0 errors, 0 warnings, 1 notice",
		}},
		// A week's soak and the nodes running today: per EC2NodeClass,
		// one line per image held back, with when it comes of age, the
		// drift of the images it accounts for (a canary on the held-back
		// release keeps running; nodes two releases behind are told both
		// moves) and the next change; an image no class knows drifts
		// whichever launched it.
		{"rollout", []string{"-k8s", "1.32", "-min-age", "168h", "-now", "2026-07-16T00:00:00Z",
			"-nodes", "ami-0b315b27118709bc2=4,ami-0b3122f71186d8752=6,ami-051b7ebcf19dd570b=2,ami-082c244df72624ec2=3,ami-0000000000000dead=1,ami-0c0ffee0000000301=2,ami-0aa06077113319855=1",
			"testdata/rollout.yaml"}, 0, []string{
			"held back: ami-0aa06077113319855 amazon-eks-node-al2023-x86_64-standard-1.32-v20260714 until 2026-07-21T16:30:21Z; ami-0b3122f71186d8752 serves meanwhile",
			"drift plan for the images nodes run (-nodes) that it accounts for: 2 of 4 images drift, 6 of 13 nodes",
			"ami-051b7ebcf19dd570b  amazon-eks-node-al2023-x86_64-standard-1.31-v20260625  2      yes     release-changed  ami-0b3122f71186d8752  the alias \"al2023@latest\" selects Kubernetes 1.32 images; this one is for Kubernetes 1.31",
			"ami-0aa06077113319855  amazon-eks-node-al2023-x86_64-standard-1.32-v20260714  1      no      held-back        -                      keeps running: held back until 2026-07-21T16:30:21Z",
			"ami-0b3122f71186d8752  amazon-eks-node-al2023-x86_64-standard-1.32-v20260625  6      no      none             ami-0aa06077113319855  selected until 2026-07-21T16:30:21Z",
			"its nodes move to ami-0b3122f71186d8752 now and to ami-0aa06077113319855 at 2026-07-21T16:30:21Z",
			"ami-082c244df72624ec2  bottlerocket-aws-k8s-1.32-x86_64-v1.60.0-01d97d54  3      yes     superseded  ami-0bd75fa01055c243b  ami-0bd75fa01055c243b is a newer release (v1.61.0 over v1.60.0)",
			"ami-0000000000000dead  -                          1      yes     deregistered  -            EC2 does not describe it",
			"ami-0c0ffee0000000301  team-base-al2023-20250301  2      yes     unmatched     -            it is available, but no EC2NodeClass checked selects or finds it",
			"next change: 2026-07-21T16:30:21Z, when ami-0aa06077113319855 replaces ami-0b3122f71186d8752 (amd64 standard)",
		}},
		// The soak alone, and nodes without counts: the summary says no
		// count was given rather than "0 of 0 nodes".
		{"rollout-no-counts", []string{"-k8s", "1.32", "-min-age", "168h", "-now", "2026-07-16T00:00:00Z",
			"-nodes", "ami-0b315b27118709bc2,ami-0b3122f71186d8752", "testdata/rollout.yaml"}, 0, []string{
			"drift plan for the images nodes run (-nodes) that it accounts for: 1 of 2 images drift; no node counts given",
			"next change: 2026-07-21T16:30:21Z, when ami-0aa06077113319855 replaces ami-0b3122f71186d8752 (amd64 standard)",
		}},
		// No type the NodePool allows holds a pod of 500 CPUs: the
		// largest have 384 vCPUs.
		{"pod-too-large", []string{"-pod", "cpu=500,memory=1Gi", "-daemons", "cpu=200m,memory=300Mi,pods=3", "testdata/clean.yaml"}, 0, []string{
			`warning [pod-too-large]: NodePool general: with EC2NodeClass "default", none of the 835 instance types the NodePool can launch holds one pod of cpu=500,memory=1Gi (-pod) beside the daemons' cpu=200m,memory=300Mi,pods=3`,
			"the closest, c8i.96xlarge, lacks cpu by 117330m (needs 500200m, allocatable 382870m; cpu capacity 384: the type's vCPUs)",
			"Findings: 0 errors, 1 warning, 0 notices",
		}},
		// Where a NodePool's types can launch (-offerings), per zone and
		// capacity type it allows: us-east-1e offers none of them, as
		// EC2 recorded it (ec2fake's zone catalog).
		{"offerings", []string{"-offerings", "-now", "2026-11-01T12:00:00Z", "testdata/offerings.yaml"}, 0, []string{
			"offerings of its 4 types some AMI runs, in us-east-1, per zone and capacity type it allows (-offerings): available/total",
			"us-east-1a  use1-az2  4/4   -          -",
			"us-east-1e  use1-az3  0/4   -          -         not-offered: spot 4 (m7g.large, m7g.xlarge, m7i.large, …)",
		}},
		// Each kind in its own file, checked together as a directory.
		{"partial", []string{"testdata/partial"}, 0, []string{
			"NodePool default × EC2NodeClass default: the NodePool allows 723 instance types",
			"Findings: 0 errors, 0 warnings, 0 notices",
		}},
		{"partial-nodepool", []string{"testdata/partial/nodepool.yaml"}, 0, []string{
			`notice [nodeclass-not-in-input]: NodePool default: EC2NodeClass "default", which the NodePool names, is not in testdata/partial/nodepool.yaml`,
		}},
		{"partial-nodeclass", []string{"testdata/partial/nodeclass.yaml"}, 0, []string{
			"notice [nodeclass-unused]: EC2NodeClass default: no NodePool in testdata/partial/nodeclass.yaml names this EC2NodeClass",
		}},
		// Issue 43. EC2 issues image IDs as ami- and 8 or 17 hex digits
		// (InvalidAMIID.Malformed otherwise); Karpenter v1.14.1 attaches
		// spec.role by its last segment but compares it with IAM's bare
		// name (aws/karpenter-provider-aws bde00654, pkg/providers/
		// instanceprofile/instanceprofile.go L168-173, pkg/controllers/
		// nodeclass/instanceprofile.go L77-82), and gives spec.instanceProfile
		// to EC2 as a name (pkg/providers/launchtemplate/types.go L113-115).
		{"identities", []string{"testdata/identities.yaml"}, 1, []string{
			`testdata/identities.yaml:13 warning [malformed-ami-id]: EC2NodeClass pinned: spec.amiSelectorTerms id "ami-1234" is not an ID EC2 can have issued`,
			`testdata/identities.yaml:10 warning [role-arn]: EC2NodeClass pinned: spec.role is an IAM role ARN`,
			"fix: write the role's name: role: KarpenterNodeRole-prod",
			"testdata/identities.yaml:24 error [instance-profile-arn]",
			"ami-0b315b27118709bc2",
		}},
		// Karpenter offers instance types only in its region's zones
		// (pkg/providers/instancetype/instancetype.go L302-351,
		// offering/base_resolver.go L89).
		{"zones", []string{"testdata/zones.yaml"}, 0, []string{
			"testdata/zones.yaml:58 warning [zone-region]: NodePool batch: the NodePool requires zones of eu-west-1 (eu-west-1a, eu-west-1b), and the NodePools applied with it zones of us-east-1 (NodePool on-demand, spot)",
			"Findings: 0 errors, 1 warning, 0 notices",
		}},
		{"zones-region", []string{"-region", "us-east-1", "testdata/zones.yaml"}, 1, []string{
			"testdata/zones.yaml:58 error [zone-region]: NodePool batch: the NodePool requires zones of another region than the cluster's, us-east-1 (-region): eu-west-1a, eu-west-1b",
			"Findings: 1 error, 0 warnings, 0 notices",
		}},
		// A collection of examples: NodePools paired with each alternative
		// EC2NodeClass of their name, a GPU NodePool that catches the
		// pods of a NodePool in another file, and a nodeClassRef typo,
		// which leaves the NodePool not ready (kubernetes-sigs/karpenter
		// v1.14.1 pkg/controllers/nodepool/readiness/controller.go L73-74).
		{"alternatives", []string{"testdata/alternatives"}, 0, []string{
			"NodePool gpu × EC2NodeClass default (the alternative at testdata/alternatives/nodeclass.yaml:5)",
			"NodePool gpu × EC2NodeClass default (the alternative at testdata/alternatives/nodeclass-bottlerocket.yaml:3)",
			`notice [nodeclass-alternatives]: NodePool general: EC2NodeClass "default" is defined in 2 files that are alternatives`,
			`warning [untainted-special-pool]: NodePool gpu: NodePool "gpu" allows only GPU or accelerator instance types`,
			`testdata/alternatives/batch.yaml:3 warning [nodeclass-near-miss]: NodePool batch: EC2NodeClass "defualt", which the NodePool names, is not in testdata/alternatives, but "default"`,
			"Findings: 0 errors, 2 warnings, 2 notices",
		}},
		// Filled in, the kubelet rule of the CRD (spec.kubelet
		// x-kubernetes-validations) still refuses the EC2NodeClass.
		{"placeholders", []string{"testdata/placeholders.yaml"}, 1, []string{
			"testdata/placeholders.yaml:17 error [refused]: EC2NodeClass templated: kubectl apply is refused (or Karpenter v1.14.1 cannot use it), even with its placeholders filled in: spec.kubelet: imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent",
			"notice [placeholder]: EC2NodeClass templated: the manifest holds placeholders to fill in (${AMI_FAMILY}, ${AMI_ID})",
			"notice [placeholder]: NodePool templated: the manifest holds placeholders to fill in (${INSTANCE_FAMILY}, ${AZ})",
		}},
		// al2@latest: AL2's AMIs end at Kubernetes 1.32; the blueprint's
		// cluster is 1.30. Without -k8s the finding says what it assumed.
		{"k8s-assumed", []string{"testdata/corpus/aws-samples/karpenter-blueprints/cluster/terraform/karpenter.yaml"}, 1, []string{
			"error [no-ami]: EC2NodeClass default: spec.amiSelectorTerms select no AMI for Kubernetes 1.36 (assumed: -k8s was not given, and 1.36 is the newest version preflight knows)",
			"fix: if the cluster runs Kubernetes 1.29 to 1.32, say so with -k8s (such as -k8s 1.32)",
		}},
		{"k8s-given", []string{"-k8s", "1.30", "testdata/corpus/aws-samples/karpenter-blueprints/cluster/terraform/karpenter.yaml"}, 1, []string{
			"Findings: 1 error, 0 warnings, 0 notices",
			"error [v1beta1-kubelet]",
		}},
		// Render's errors in the manifest's words; an AL2 script that runs
		// bootstrap.sh itself registers the node before Karpenter's part,
		// without karpenter.sh/unregistered (never Render's sentinel).
		{"rendering", []string{"-k8s", "1.32", "testdata/rendering.yaml"}, 1, []string{
			"EC2NodeClass bad-mime, NodePool general: Karpenter cannot write the node's userData: spec.userData looks like MIME but cannot be read",
			"EC2NodeClass second-join, NodePool legacy: spec.userData line 3: required taint karpenter.sh/unregistered:NoExecute missing",
			"notice [userdata-unresolved]: EC2NodeClass fetched, NodePool fetched: preflight cannot tell whether the node joins",
		}},
		{"malformed", []string{"testdata/nodepools-malformed.yaml"}, 1, []string{
			"testdata/nodepools-malformed.yaml:14 error [unreadable]: kubectl cannot read this YAML (line 14: did not find expected '-' indicator)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := runArgs(t, "", tc.args...)
			if got := cli.ExitCode(err); got != tc.code {
				t.Errorf("run(%q) = %v, exit %d; want exit %d", tc.args, err, got, tc.code)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), []byte(out), *update)
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("run(%q) output lacks %q", tc.args, want)
				}
			}
		})
	}
}

// TestCorpus runs preflight over published manifests (testdata/corpus,
// each file with its source in its first line) as a directory, the way a
// repository is checked. Every finding of corpus.golden is judged against
// Karpenter v1.14.1's behaviour in testdata/corpus/JUDGEMENT.md; a change
// in the findings fails until the golden file and the judgement are
// updated together.
func TestCorpus(t *testing.T) {
	t.Parallel()
	out, err := runArgs(t, "", "-o", "json", "testdata/corpus")
	if cli.ExitCode(err) != 1 {
		t.Fatalf("run = %v (exit %d); want exit 1 for the corpus's errors", err, cli.ExitCode(err))
	}
	var r Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Files) < 40 {
		t.Errorf("the corpus has %d files; want at least 40", len(r.Files))
	}
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(f.Where + " " + string(f.Severity) + " " + f.Code + " " + strings.Join(f.Subjects, ", ") + "\n")
	}
	golden.Check(t, "testdata/corpus.golden", []byte(b.String()), *update)
	judged, err := os.ReadFile("testdata/corpus/JUDGEMENT.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		if !strings.Contains(string(judged), "`"+f.Where+" "+f.Code+"`") {
			t.Errorf("finding %s %s is not judged in testdata/corpus/JUDGEMENT.md", f.Where, f.Code)
		}
	}
}

// CI reads -o json: findings with codes and problem numbers, [] for an
// empty list, and an error as JSON too.
func TestJSON(t *testing.T) {
	t.Parallel()
	out, err := runArgs(t, "", "-o", "json", "testdata/archmismatch.yaml", "testdata/flexwildcard.yaml")
	if cli.ExitCode(err) != 1 {
		t.Fatalf("run = %v, want exit 1", err)
	}
	var r Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	var codes []string
	for _, f := range r.Findings {
		codes = append(codes, f.Code)
	}
	if r.Errors != 1 || r.Warnings != 1 || strings.Join(codes, " ") != "wildcard cannot-launch nodeclass-unused" {
		t.Errorf("errors %d, warnings %d, codes %v; want 1, 1, [wildcard cannot-launch nodeclass-unused]", r.Errors, r.Warnings, codes)
	}
	clean, err := runArgs(t, "", "-o", "json", "testdata/partial/nodeclass.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, empty := range []string{`"pairs": []`, `"nodePoolOrder": []`, `"overlaps": []`, `"skipped": []`} {
		if !strings.Contains(clean, empty) {
			t.Errorf("JSON lacks %s:\n%s", empty, clean)
		}
	}
	// The rollout and capacity lists too, with -nodes and without.
	for _, args := range [][]string{{"-o", "json", "testdata/clean.yaml"}, {"-o", "json", "-k8s", "1.32", "-nodes", "ami-0000000000000dead", "-pod", "cpu=1000", "testdata/rollout.yaml"}} {
		out, err := runArgs(t, "", args...)
		if err != nil && cli.ExitCode(err) != 1 {
			t.Fatalf("run(%q) = %v", args, err)
		}
		for _, want := range []string{`"nodeClasses": [`, `"unclaimedImages": [`, `"assumes": []`, `"short": [`, `"examples": [`} {
			if !strings.Contains(out, want) {
				t.Errorf("run(%q): JSON lacks %s", args, want)
			}
		}
		if strings.Contains(out, "null") {
			t.Errorf("run(%q): JSON has a null:\n%s", args, out)
		}
	}
	bad, err := runArgs(t, "", "-o", "json", "testdata/missing.yaml")
	var e struct{ Error string }
	if cli.ExitCode(err) != 2 || json.Unmarshal([]byte(bad), &e) != nil || !strings.Contains(e.Error, "missing.yaml") {
		t.Errorf("a missing file with -o json = %v, %q; want exit 2 and {\"error\": ...}", err, bad)
	}
}

// -fail-on picks the least severe finding that fails the run.
func TestFailOn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		failOn string
		code   int
	}{{"error", 0}, {"warning", 1}, {"notice", 1}, {"none", 0}} {
		_, err := runArgs(t, "", "-fail-on", tc.failOn, "testdata/pools.yaml")
		if got := cli.ExitCode(err); got != tc.code {
			t.Errorf("-fail-on %s: exit %d (%v); want %d", tc.failOn, got, err, tc.code)
		}
	}
	if _, err := runArgs(t, "", "-fail-on", "notice", "testdata/clean.yaml"); err != nil {
		t.Errorf("-fail-on notice on clean manifests = %v", err)
	}
}

// userData preflight cannot follow is a notice, so -fail-on warning passes
// it; -strict-userdata makes it a warning that fails the run.
func TestStrictUserData(t *testing.T) {
	t.Parallel()
	const file = "testdata/corpus/aws-samples/eks-workshop-v2/manifests/modules/aiml/inferentia/nodepool/nodepool.yaml"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-fail-on", "warning", file}, 0, "notice [userdata-unresolved]"},
		{[]string{"-fail-on", "warning", "-strict-userdata", file}, 1, "warning [userdata-unresolved]"},
	} {
		out, err := runArgs(t, "", tc.args...)
		if got := cli.ExitCode(err); got != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("run(%q) = exit %d, want %d and %q:\n%s", tc.args, got, tc.code, tc.want, out)
		}
	}
}

// Manifests piped in are named <stdin>.
func TestStdin(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/flexwildcard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := runArgs(t, string(data))
	if cli.ExitCode(err) != 1 || !strings.Contains(out, "<stdin>:29 error (problem 4)") {
		t.Errorf("run with stdin = %v:\n%s", err, out)
	}
}

// What kubectl cannot read, or preflight cannot tell, is a finding; only a
// bad command line or a file that cannot be read at all exits 2.
func TestInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name, path string
		code       int
		want       string
	}{
		{"bad separator", file("sep.yaml", "kind: ConfigMap\napiVersion: v1\n--- nope\n"), 0, "notice [skipped-file]"},
		{"template", file("tmpl.yaml", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {{ .Values.name }}\n"), 0, "notice [template]"},
		{"not a karpenter file", file("x.yaml", "a: [\n"), 0, "notice [skipped-file]"},
		{"karpenter file broken", file("k.yaml", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: [\n"), 1, "k.yaml:3 error [unreadable]"},
		{"defined twice", file("twice.yaml", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: c}, requirements: []}}}\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec: {weight: 3, template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: c}, requirements: []}}}\n"), 0, `warning [defined-twice]: NodePool p: NodePool "p" is already defined at`},
		{"YAML 1.1", file("yes.yaml", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p, labels: {enabled: yes}}\nspec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: c}, requirements: []}}}\n"), 1, "metadata.labels[enabled]: is a boolean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runArgs(t, "", tc.path)
			if got := cli.ExitCode(err); got != tc.code {
				t.Fatalf("run(%s) = %v, exit %d; want %d\n%s", tc.path, err, got, tc.code, out)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("run(%s) output lacks %q:\n%s", tc.path, tc.want, out)
			}
		})
	}
	for _, args := range [][]string{{filepath.Join(dir, "missing.yaml")}, {"-k8s", "v1.32"}, {"-fail-on", "fatal"}, {"-karpenter", "v0.37.0"},
		{"-pod", "cpu=1,cpu=2"}, {"-pod", "pods=3"}, {"-daemons", "gpu=1"}, {"-pod", "memory=lots"}, {"-nodes", "i-0123"}, {"-min-age", "-1h"}, {"-now", "today"}} {
		out, err := runArgs(t, "", args...)
		if cli.ExitCode(err) != 2 || out != "" {
			t.Errorf("run(%q) = %v, exit %d, output %q; want exit 2 and no report", args, err, cli.ExitCode(err), out)
		}
	}
}

// A server that accepts the connection and never answers makes -live fail
// within -timeout: the SDK's own retryer and transport do not bound it.
func TestLiveTimeout(t *testing.T) {
	url := clitest.HangingAWS(t)
	start := time.Now()
	out, err := runArgs(t, "", "-live", "-timeout", "300ms", "-endpoint", url, "testdata/clean.yaml")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("run took %v with -timeout 300ms", took)
	}
	if cli.ExitCode(err) != 1 || !strings.Contains(err.Error(), "no answer within -timeout 300ms") {
		t.Errorf("run = %v (exit %d), want a timeout naming -timeout, exit 1", err, cli.ExitCode(err))
	}
	if out != "" {
		t.Errorf("run printed a half report:\n%s", out)
	}
}

func TestCommandLine(t *testing.T) {
	t.Parallel()
	clitest.Conventions(t, run, "extra")
	for _, args := range [][]string{{"-o", "yaml"}, {"-timeout", "1s"}, {"-live", "-timeout", "0s"}, {"-k8s", "v1.32"}} {
		if _, err := runArgs(t, "", args...); cli.ExitCode(err) != 2 {
			t.Errorf("run(%q) = %v, want exit 2", args, err)
		}
	}
}
