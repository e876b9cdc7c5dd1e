package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/examples/internal/cli/clitest"
	"github.com/ec2select/ec2select/internal/golden"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/ec2fake"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func runArgs(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), &out, args)
	return out.String(), err
}

// Each scenario runs against the fake catalog and is checked whole against
// its golden file, and for the lines it exists to show.
func TestScenarios(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		golden string
		args   []string
		want   []string
	}{
		{
			// The Packer family of karpenter-provider-aws #7652: the images
			// still building, deprecated, disabled or with a malformed date
			// are found and refused, each with its reason.
			golden: "name-owner-self.golden",
			args:   []string{"-name", "team-base-al2023-*", "-owner", "self"},
			want: []string{
				"Selected: 2 AMIs; 4 images found but not selected",
				ec2fake.ImageTeamBasePending + "  team-base-al2023-20250401  pending    not-available: state is \"pending\"",
				ec2fake.ImageTeamBaseDeprecated + "  team-base-al2023-20250315  available  superseded: " + ec2fake.ImageTeamBaseDeprecated + " is deprecated and " + ec2fake.ImageTeamBaseAvailable + " is not",
				ec2fake.ImageTeamBaseMalformedDate + "  team-base-al2023-broken    available  invalid-creation-date:",
				ec2fake.ImageTeamBaseDisabled + "  team-base-al2023-20250201  disabled   not-available",
				"Which AMI each instance type gets: 1364 mapped, 0 without one",
				"mac1.metal  compat: instance type mac1.metal",
				"note: a custom AMI states only its architecture, so 78 types with a GPU or accelerator map here",
			},
		},
		{
			// g5g: arm64 with an NVIDIA GPU, for which AL2 has no AMI.
			golden: "al2-g5g.golden",
			args:   []string{"-alias", "al2@latest", "-types", "g5g.xlarge,m6g.large,m5.large"},
			want: []string{
				"Which AMI each instance type gets: 2 mapped, 1 without one",
				"amazon-eks-arm64-node-1.32-v20251209 (AL2 arm64 standard): 1 type\n    m6g.large\n",
				"amazon-eks-node-1.32-v20251209 (AL2 amd64 standard): 1 type\n    m5.large\n",
				"    ami-043768762e42f2342 (al2 amd64 nvidia)\n      kubernetes.io/arch: instance In [arm64], AMI In [amd64]: no value satisfies both\n",
				"karpenter.k8s.aws/instance-gpu-count: instance In [1], AMI DoesNotExist",
				"fix: no arm64 NVIDIA AMI in family al2; use bottlerocket or al2023",
				// Every AL2 release of the changelog (the full catalog).
				"superseded: ami-0b3e7f0f004783408 is a newer release (v20251209 over v20241225)",
				// Types named with -types get the estimate table; AL2's
				// bootstrap.sh reads eni-max-pods.txt (m5.large 29) and
				// reserves 11 × 29 + 255 MiB and 70m (amazon-eks-ami
				// 0ab84280 templates/al2/runtime/bootstrap.sh).
				"  m5.large   AL2     2    7704Mi  heuristic    29    family rule  70m           674Mi            1930m            7030Mi              29                0.096 USD/h\n",
			},
		},
		{
			// Problem 1: a custom amd64 AMI and only arm64 types.
			golden: "custom-amd64-arm64-types.golden",
			args:   []string{"-id", ec2fake.ImageTeamBaseAvailable, "-types", "m6g.large,c7g.2xlarge,t4g.small,g5g.xlarge"},
			want: []string{
				"Which AMI each instance type gets: 0 mapped, 4 without one",
				"Nothing maps: none of 4 instance types can run any of 1 AMI.",
				"kubernetes.io/arch  4 of 4  arm64     amd64",
				"fix: add kubernetes.io/arch In [amd64] to the NodePool requirements, or select an AMI built for arm64",
				"  m6g.large, c7g.2xlarge, t4g.small, g5g.xlarge\n    " + ec2fake.ImageTeamBaseAvailable + " (custom amd64)\n      kubernetes.io/arch: instance In [arm64], AMI In [amd64]",
			},
		},
		{
			golden: "terms-yaml.golden",
			args:   []string{"-terms", "testdata/ec2nodeclass.yaml", "-types-file", "testdata/types.txt"},
			want: []string{
				"0  {name: team-base-al2023-*, owner: self}",
				"1  {tags: {image-family: team-base-al2023, team: platform}}",
				"Instance types: 6 (from -types-file testdata/types.txt)",
				"    m6g.large, g5g.xlarge\n",
				"    m5.large, m7i-flex.large, g5.xlarge, g4ad.8xlarge\n",
			},
		},
		{
			golden: "terms-json-bottlerocket.golden",
			args:   []string{"-terms", "testdata/terms.json", "-types", "g5g.xlarge,inf2.xlarge,g4ad.8xlarge,m5.large"},
			want: []string{
				"0  {alias: bottlerocket@latest}",
				"bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.61.0-e8b6abbb (Bottlerocket arm64 nvidia): 1 type\n    g5g.xlarge\n",
				"(Bottlerocket amd64 neuron): 1 type\n    inf2.xlarge\n",
				"fix: no amd64 amd GPU AMI in family bottlerocket; no EKS AMI family publishes one, so keep these types out with karpenter.k8s.aws/instance-gpu-manufacturer NotIn [amd]",
			},
		},
		{
			// Safe rollouts: a week's soak holds v20260714 back while
			// v20260625 serves, one line per held-back image with when it
			// comes of age, and the next change as Select will make it;
			// the drift plan for the nodes running today says which drift,
			// why, to what and when: a canary on the held-back release
			// keeps running, nodes two releases behind are told both moves.
			golden: "soak-drift.golden",
			args: []string{"-alias", "al2023@latest", "-k8s", "1.32", "-min-age", "168h", "-now", "2026-07-16T00:00:00Z",
				"-nodes", "ami-0b315b27118709bc2=4,ami-0b3122f71186d8752=6,ami-07d0ab3cf32682b0c=2,ami-0000000000000dead=1,ami-0aa06077113319855=1",
				"-types", "m5.large,g5g.xlarge"},
			want: []string{
				"ami-0aa06077113319855  amazon-eks-node-al2023-x86_64-standard-1.32-v20260714  available  held-back: ami-0aa06077113319855 was created 2026-07-14T16:30:21Z, less than MinAge (168h0m0s) before now; it comes of age at 2026-07-21T16:30:21Z, and ami-0b3122f71186d8752 serves until then",
				"Rollout (-min-age 168h0m0s): 5 images held back",
				"  ami-0aa06077113319855  amazon-eks-node-al2023-x86_64-standard-1.32-v20260714  2026-07-21T16:30:21Z  ami-0b3122f71186d8752\n",
				"Next change: 2026-07-21T16:30:21Z, when ami-0aa06077113319855 replaces ami-0b3122f71186d8752 (amd64 standard)",
				"Drift plan for the images nodes run (-nodes): 3 of 5 images drift, 7 of 14 nodes",
				"ami-0000000000000dead  -                                                      1      yes     deregistered     -                      EC2 does not describe it",
				"ami-07d0ab3cf32682b0c  amazon-eks-node-al2023-x86_64-standard-1.31-v20260318  2      yes     release-changed  ami-0b3122f71186d8752  the alias \"al2023@latest\" selects Kubernetes 1.32 images; this one is for Kubernetes 1.31",
				"ami-0aa06077113319855  amazon-eks-node-al2023-x86_64-standard-1.32-v20260714  1      no      held-back        -                      keeps running: held back until 2026-07-21T16:30:21Z",
				"ami-0b3122f71186d8752  amazon-eks-node-al2023-x86_64-standard-1.32-v20260625  6      no      none             ami-0aa06077113319855  selected until 2026-07-21T16:30:21Z",
				"ami-0b315b27118709bc2  amazon-eks-node-al2023-x86_64-standard-1.32-v20260610  4      yes     superseded       ami-0b3122f71186d8752  ami-0b3122f71186d8752 is a newer release (v20260625 over v20260610)",
				"its nodes move to ami-0b3122f71186d8752 now and to ami-0aa06077113319855 at 2026-07-21T16:30:21Z",
			},
		},
		{
			// -nodes without counts: the summary says so, not "0 of 0".
			golden: "soak-no-counts.golden",
			args: []string{"-alias", "al2023@latest", "-k8s", "1.32", "-min-age", "168h", "-now", "2026-07-16T00:00:00Z",
				"-nodes", "ami-0b315b27118709bc2,ami-0b3122f71186d8752", "-types", "m5.large"},
			want: []string{"Drift plan for the images nodes run (-nodes): 1 of 2 images drift; no node counts given"},
		},
		{
			// Where the mapped types can launch in us-east-1 (ec2fake's
			// zone catalog, EC2's own offerings per zone): not in a zone
			// that does not offer them, not as spot when the type is not
			// sold as spot, not in a zone the account has not opted in to.
			golden: "offerings.golden",
			args:   []string{"-alias", "al2023@latest", "-now", "2026-11-01T12:00:00Z", "-types", "m7i.large,m7g.large,t3.micro,p5.48xlarge,u7i-6tb.112xlarge", "-offerings"},
			want: []string{
				"Offerings of the 5 mapped instance types in us-east-1, per zone and capacity type (-offerings): available/total",
				"us-east-1-chi-2a         use1-chi2-az1      0/5   0/5        -         zone-not-opted-in: spot 5, on-demand 5",
				"us-east-1a               use1-az2           4/5   5/5        -         spot-not-offered: spot 1 (u7i-6tb.112xlarge)",
				"us-east-1e               use1-az3           1/5   1/5        -         not-offered: spot 4, on-demand 4 (m7g.large, m7i.large, t3.micro, …)",
			},
		},
		{
			// Custom images built from AL2023 (amiFamily AL2023: nodeadm
			// boots them) under the EC2NodeClass's kubelet settings: its
			// maxPods replaces nodeadm's figure while nodeadm reserves
			// memory by its own (amazon-eks-ami 81fec2e8 nodeadm/internal/
			// kubelet/config.go:274-288); RAID0 puts ephemeral storage on
			// m5d's instance store (karpenter-provider-aws v1.14.1
			// pkg/providers/instancetype/types.go:371-375).
			golden: "capacity-nodeclass.golden",
			args: []string{"-terms", "testdata/nodeclass-al2023.yaml", "-nodeclass", "testdata/nodeclass-al2023.yaml",
				"-types", "m5.large,m5d.large", "-explain", "m5d.large"},
			want: []string{
				"kubelet settings and volumes from -nodeclass testdata/nodeclass-al2023.yaml",
				"  m5.large   AL2023  2    7704Mi  heuristic    110   user kubelet config  170m          874Mi            1830m            6830Mi              110               0.096 USD/h\n",
				"The estimate of m5d.large, term by term (-explain):\n  m5d.large under AL2023\n",
				"ephemeral-storage capacity 75000000000: RAID0 of the instance store: 75 GB",
				"memory kube-reserved 574Mi: nodeadm: 11 × 29 max pods + 255 MiB (its own figure, not the user's maxPods)",
				"warning: m5d.large: the kubelet admits 110 pods but the VPC CNI can address 27",
			},
		},
		{
			// -family for a custom AMI, and -explain of a type no AMI runs.
			golden: "capacity-family.golden",
			args:   []string{"-id", ec2fake.ImageTeamBaseAvailable, "-family", "bottlerocket", "-types", "m5.large,m6g.large", "-explain", "m6g.large"},
			want: []string{
				"  m5.large  Bottlerocket  2    7704Mi  heuristic    29    family rule  70m           674Mi            1930m            7030Mi              29                0.096 USD/h\n",
				"m6g.large gets no AMI (above), so no node of it launches: nothing to estimate",
			},
		},
		{
			golden: "no-ami.golden",
			args:   []string{"-id", "ami-0123456789abcdef0", "-types", "m5.large"},
			want:   []string{"Selected: 0 AMIs", "fix: the selector terms select no AMI; check the image IDs"},
		},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			t.Parallel()
			out, err := runArgs(t, tc.args...)
			if err != nil {
				t.Fatalf("run(%q) = %v", tc.args, err)
			}
			golden.Check(t, filepath.Join("testdata", tc.golden), []byte(out), *update)
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("run(%q) output lacks %q", tc.args, want)
				}
			}
		})
	}
}

// Without -types, the estimate table is printed only with -capacity, and
// then for every mapped type.
func TestCapacityFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		rows int
	}{
		{[]string{"-name", "team-base-al2023-*", "-owner", "self"}, 0},
		{[]string{"-name", "team-base-al2023-*", "-owner", "self", "-capacity"}, 1364},
	} {
		out, err := runArgs(t, tc.args...)
		if err != nil {
			t.Fatalf("run(%q) = %v", tc.args, err)
		}
		_, table, found := strings.Cut(out, "\nWhat a node of each mapped type has")
		if tc.rows == 0 {
			if found {
				t.Errorf("run(%q) printed the estimate table", tc.args)
			}
			continue
		}
		// The header line, the column titles, a row per type, the
		// Custom assumption, the note on the ON-DEMAND column.
		if got := strings.Count(table, "\n") - 4; got != tc.rows {
			t.Errorf("run(%q) printed %d estimate rows, want %d", tc.args, got, tc.rows)
		}
	}
}

// An alias in a real account finds every release AWS ever published; the
// ones superseded only by newer releases are cut to a few and counted.
func TestManyOlderReleases(t *testing.T) {
	t.Parallel()
	b := ec2fake.NewWithCatalog(ec2fake.Options{})
	const older = 12
	for i := range older {
		err := b.PutImage(ec2types.Image{
			ImageId:      aws.String(fmt.Sprintf("ami-0c0ffee00000a%04d", i)),
			Name:         aws.String(fmt.Sprintf("team-base-al2023-2024%02d01", i+1)),
			Architecture: ec2types.ArchitectureValuesX8664,
			CreationDate: aws.String(fmt.Sprintf("2024-%02d-01T09:30:00.000Z", i+1)),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	opts := options{
		terms:      []amiselect.Term{{Name: "team-base-al2023-*", Owner: "self"}},
		termSource: "-name, -owner",
		types:      []string{"m5.large"},
		typeSource: "-types",
		k8s:        defaultK8s,
	}
	var out bytes.Buffer
	if err := explain(context.Background(), &out, b, "a test backend", opts); err != nil {
		t.Fatal(err)
	}
	// 12 new releases + the catalog's 4 passed-over images of the family.
	for _, want := range []string{
		"Selected: 2 AMIs; 16 images found but not selected",
		fmt.Sprintf("  ... and %d more images superseded by newer releases\n", older-maxOlder),
		"team-base-al2023-20240101  available  superseded: " + ec2fake.ImageTeamBaseAvailable + " is newer: created 2025-03-01T09:30:00Z, after 2024-01-01T09:30:00Z",
		ec2fake.ImageTeamBasePending, // what is refused is always listed
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if got := strings.Count(out.String(), " is newer: created "); got != maxOlder {
		t.Errorf("%d images listed as superseded by newer releases, want %d", got, maxOlder)
	}
}

// TestJSON: -o json is the explanation as data. The selection decodes as
// an amiselect.Selection that tells what the table did (held-back images,
// the next change), the drift plan as an amiselect.DriftPlan; reasons and
// variants are words and no zero time is written.
func TestJSON(t *testing.T) {
	t.Parallel()
	out, err := runArgs(t, "-alias", "al2023@latest", "-k8s", "1.32", "-min-age", "168h", "-now", "2026-07-16T00:00:00Z",
		"-nodes", "ami-0b315b27118709bc2=4,ami-0b3122f71186d8752=6,ami-0aa06077113319855=1", "-types", "m5.large", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var x struct {
		Selection amiselect.Selection
		Drift     amiselect.DriftPlan
		Mapping   []groupRow
		Capacity  []capacityRow
	}
	if err := json.Unmarshal([]byte(out), &x); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var held []string
	for _, h := range x.Selection.HeldBack() {
		held = append(held, h.AMI.ID)
	}
	if len(held) != 5 || held[0] != "ami-0aa06077113319855" {
		t.Errorf("held back %v, want the five images of v20260714", held)
	}
	if c := x.Selection.Changes(); len(c) == 0 || c[0].To.ID != "ami-0aa06077113319855" || c[0].From.ID != "ami-0b3122f71186d8752" {
		t.Errorf("changes %v", c)
	}
	var reasons []string
	for _, d := range x.Drift.Images {
		reasons = append(reasons, d.ImageID+" "+d.Reason.String())
	}
	want := []string{"ami-0aa06077113319855 held-back", "ami-0b3122f71186d8752 none", "ami-0b315b27118709bc2 superseded"}
	if diff := cmp.Diff(want, reasons); diff != "" {
		t.Errorf("drift reasons (-want +got):\n%s", diff)
	}
	if len(x.Mapping) != 1 || len(x.Capacity) != 1 || x.Capacity[0].Type != "m5.large" {
		t.Errorf("mapping %v, capacity %v", x.Mapping, x.Capacity)
	}
	for _, bad := range []string{"0001-01-01", `"Reason": 1`, `"Variant": 1`} {
		if strings.Contains(out, bad) {
			t.Errorf("JSON has %s", bad)
		}
	}
	for _, good := range []string{`"Reason": "held-back"`, `"Variant": "standard"`, `"Detail": "keeps running: held back until 2026-07-21T16:30:21Z`} {
		if !strings.Contains(out, good) {
			t.Errorf("JSON lacks %s", good)
		}
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	out, err := runArgs(t, "-h")
	if err != nil {
		t.Fatalf("run(-h) = %v, want nil", err)
	}
	for _, flag := range []string{"-alias", "-name", "-id", "-owner", "-tag", "-terms", "-types", "-types-file", "-k8s", "-min-age", "-nodes", "-now", "-family", "-nodeclass", "-capacity", "-explain", "-live", "-region", "-o"} {
		if !strings.Contains(out, "\n  "+flag+" ") && !strings.Contains(out, "\n  "+flag+"\n") {
			t.Errorf("help does not document %s:\n%s", flag, out)
		}
	}
	golden.Check(t, filepath.Join("testdata", "help.golden"), []byte(out), *update)
}

func TestBadCommandLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	typo := file("typo.yaml", "- nmae: team-base-*\n")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"no selector terms", "-alias, -name, -id or -tag, or -terms FILE"}},
		{[]string{"-alias", "al2@latest", "-name", "x"}, []string{"-alias cannot be combined with -name"}},
		{[]string{"-terms", typo, "-id", "ami-0123"}, []string{"-terms and -id both given"}},
		{[]string{"-owner", "self"}, []string{`-owner "self" needs -name or -tag`}},
		{[]string{"-id", "ami-XYZ"}, []string{`-id "ami-XYZ"`, "ami-[0-9a-z]+"}},
		{[]string{"-alias", "al2@latest", "-min-age", "-1h"}, []string{"-min-age -1h0m0s is negative"}},
		{[]string{"-alias", "al2@latest", "-min-age", "7d"}, []string{"-min-age"}},
		{[]string{"-alias", "al2@latest", "-o", "yaml"}, []string{`-o "yaml": use table or json`}},
		{[]string{"-alias", "al2@latest", "-now", "2026-07-16"}, []string{`-now "2026-07-16" is not an RFC 3339 time`}},
		{[]string{"-alias", "al2@latest", "-nodes", "ami-0abc=3,i-0123"}, []string{`-nodes "ami-0abc=3,i-0123": entry 2: "i-0123" is not an AMI id`}},
		{[]string{"-alias", "al2@latest", "-nodes", "ami-0abc=three"}, []string{`entry 1: count "three" is not a number of nodes`}},
		{[]string{"-alias", "al2@latest", "-nodes", "ami-0abc=-1"}, []string{`count "-1"`}},
		{[]string{"-alias", "al2@latest", "-k8s", "1.33"}, []string{`-alias "al2@latest" -k8s "1.33"`, "use al2023 or bottlerocket"}},
		{[]string{"-alias", "al2023@latest", "-k8s", "v1.32"}, []string{`-k8s "v1.32"`, `drop the "v"`}},
		{[]string{"-tag", "team"}, []string{"-tag", "not key=value"}},
		{[]string{"-tag", "team=a", "-tag", "team=b"}, []string{`tag "team" given twice`}},
		{[]string{"-name", "x", "-owner", "bob"}, []string{`-name "x" -owner "bob"`, "User ID 'bob' is invalid"}},
		{[]string{"-alias", "al2@latest", "-types", "m5.large,,g5g.xlarge"}, []string{`-types "m5.large,,g5g.xlarge"`, "entry 2 is empty"}},
		{[]string{"-alias", "al2@latest", "-types", "m5"}, []string{`-types "m5"`, "family.size"}},
		{[]string{"-alias", "al2@latest", "-types", "m5.large,m5.huge"}, []string{"-types", "m5.huge", "check the names"}},
		{[]string{"-alias", "al2@latest", "-types", "m5.large", "-types-file", "x"}, []string{"-types and -types-file both given"}},
		{[]string{"-alias", "al2@latest", "-types-file", filepath.Join(dir, "missing.txt")}, []string{"-types-file", "missing.txt"}},
		{[]string{"-alias", "al2@latest", "-types-file", file("empty.txt", "# nothing\n\n")}, []string{"no instance types in it"}},
		{[]string{"-alias", "al2@latest", "-types-file", file("bad.txt", "m5.large\nm5 large\n")}, []string{"line 2", "one instance type per line"}},
		{[]string{"-terms", typo}, []string{"-terms " + typo, `unknown field "nmae"`}},
		{[]string{"-terms", file("dup.yaml", "- name: a\n  name: b\n")}, []string{"not valid YAML or JSON"}},
		{[]string{"-terms", file("empty.yaml", "[]\n")}, []string{"amiSelectorTerms is empty"}},
		{[]string{"-terms", file("other.yaml", "kind: NodePool\nspec: {}\n")}, []string{"no amiSelectorTerms"}},
		{[]string{"-terms", file("mixed.yaml", "- alias: al2@latest\n- name: x\n")}, []string{"-terms", "alias", "only term"}},
		{[]string{"-region", "us-east-1", "-alias", "al2@latest"}, []string{"-region", "only used with -live"}},
		{[]string{"-bogus"}, []string{"-bogus"}},
		{[]string{"-name", "team-*", "extra"}, []string{`unexpected argument "extra"`}},
		{[]string{"-alias", "al2@latest", "-family", "Custom"}, []string{"-family Custom", "name the family its boot software is"}},
		{[]string{"-alias", "al2@latest", "-family", "ubuntu"}, []string{`-family "ubuntu"`}},
		{[]string{"-alias", "al2@latest", "-nodeclass", filepath.Join(dir, "missing.yaml")}, []string{"-nodeclass", "missing.yaml"}},
		{[]string{"-alias", "al2@latest", "-nodeclass", "testdata/ec2nodeclass.yaml"}, []string{"-nodeclass testdata/ec2nodeclass.yaml", "spec.securityGroupSelectorTerms: is required"}},
		{[]string{"-alias", "al2@latest", "-explain", "m5"}, []string{`-explain "m5"`, "family.size"}},
		{[]string{"-alias", "al2@latest", "-types", "m5.large", "-explain", "c5.large"}, []string{`-explain "c5.large" is not among the types of -types`}},
		{[]string{"-alias", "al2@latest", "-explain", "m5.huge"}, []string{`-explain "m5.huge"`, "no such type"}},
		{[]string{"-alias", "bottlerocket@latest", "-types", "m5.large", "-nodeclass", file("ppc.yaml", "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: x}\nspec:\n  role: r\n  amiSelectorTerms: [{alias: bottlerocket@latest}]\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n  kubelet: {podsPerCore: 4}\n")},
			[]string{"-nodeclass", "under Bottlerocket", "PodsPerCore"}},
	} {
		_, err := runArgs(t, tc.args...)
		var ue *cli.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("run(%q) = %v, want a *cli.UsageError", tc.args, err)
			continue
		}
		if got := cli.ExitCode(err); got != 2 {
			t.Errorf("cli.ExitCode(run(%q)) = %d, want 2", tc.args, got)
		}
		for _, want := range tc.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("run(%q) = %q, want it to mention %q", tc.args, err, want)
			}
		}
	}
}

func TestParseTermsFile(t *testing.T) {
	t.Parallel()
	want := []amiselect.Term{
		{Name: "team-base-*", Owner: "self"},
		{Tags: map[string]string{"team": "platform"}},
		{ID: "ami-0123"},
	}
	for name, doc := range map[string]string{
		"yaml list":   "- name: team-base-*\n  owner: self\n- tags:\n    team: platform\n- id: ami-0123\n",
		"json list":   `[{"name": "team-base-*", "owner": "self"}, {"tags": {"team": "platform"}}, {"id": "ami-0123"}]`,
		"flow yaml":   "[{name: team-base-*, owner: self}, {tags: {team: platform}}, {id: ami-0123}]",
		"object":      "amiSelectorTerms:\n- {name: team-base-*, owner: self}\n- tags: {team: platform}\n- id: ami-0123\n",
		"nodeclass":   "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nspec:\n  role: r\n  amiSelectorTerms:\n  - {name: team-base-*, owner: self}\n  - {tags: {team: platform}}\n  - {id: ami-0123}\n",
		"json object": `{"spec": {"amiSelectorTerms": [{"name": "team-base-*", "owner": "self"}, {"tags": {"team": "platform"}}, {"id": "ami-0123"}]}}`,
	} {
		got, err := parseTermsFile([]byte(doc))
		if err != nil {
			t.Errorf("%s: parseTermsFile = %v", name, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: parseTermsFile mismatch (-want +got):\n%s", name, diff)
		}
	}

	for name, doc := range map[string]string{
		"not yaml":     "- name: [unclosed\n",
		"scalar":       "hello\n",
		"tag not text": "- tags: {enabled: true}\n",
		"null":         "null\n",
		"ssmParameter": "- ssmParameter: /aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id\n",
	} {
		if got, err := parseTermsFile([]byte(doc)); err == nil {
			t.Errorf("%s: parseTermsFile(%q) = %v, want an error", name, doc, got)
		}
	}
}

func TestParseTypes(t *testing.T) {
	t.Parallel()
	got, err := parseTypeList(" m5.large, g5g.xlarge ,m5.large")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"m5.large", "g5g.xlarge"}, got); diff != "" {
		t.Errorf("parseTypeList mismatch (-want +got):\n%s", diff)
	}
	got, err = parseTypeFile([]byte("# comment\nm5.large\n\n  g5g.xlarge  \n# m6g.large\nm5.large\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"m5.large", "g5g.xlarge"}, got); diff != "" {
		t.Errorf("parseTypeFile mismatch (-want +got):\n%s", diff)
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("describing instance types: boom"), 1},
		{cli.Usagef("-types: bad"), 2},
	} {
		if got := cli.ExitCode(tc.err); got != tc.want {
			t.Errorf("cli.ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestCommandLine(t *testing.T) {
	clitest.Conventions(t, run, "extra")
}

// A server that accepts the connection and never answers must not hang
// -live: the SDK's retryer and transport do not bound it, -timeout does.
func TestLiveTimeout(t *testing.T) {
	url := clitest.HangingAWS(t)
	start := time.Now()
	_, err := runArgs(t, "-live", "-timeout", "300ms", "-endpoint", url, "-alias", "al2023@latest")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("run took %v with -timeout 300ms", took)
	}
	if cli.ExitCode(err) != 1 || !strings.Contains(fmt.Sprint(err), "no answer within -timeout 300ms") {
		t.Errorf("run = %v (exit %d), want a timeout naming -timeout, exit 1", err, cli.ExitCode(err))
	}
}
