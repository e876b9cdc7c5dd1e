// Preflight checks Karpenter EC2NodeClass and NodePool manifests before
// they are applied, as `kubectl apply` and Karpenter v1.14.1 would take
// them and for the five problems ec2select exists to solve: each manifest
// as the API server validates it with Karpenter's CRDs and as Karpenter's
// runtime validation does; for each NodePool and the EC2NodeClass its
// nodeClassRef names, the AMIs selected and refused, the instance types
// that cannot launch and the fix, the userData's verdict and the taints
// the kubelet will register; and the order Karpenter tries the NodePools
// in, with the NodePools that catch pods they were not meant for.
//
//	go run ./examples/preflight ec2nodeclass.yaml nodepools.yaml
//	go run ./examples/preflight path/to/repository
//	kubectl kustomize overlays/prod | go run ./examples/preflight -o json
//	go run ./examples/preflight -live -region us-west-2 -k8s 1.33 manifests/
//	go run ./examples/preflight -pod cpu=2,memory=8Gi -nodes ami-0abc=4,ami-0def -min-age 168h manifests/
//
// It needs no Kubernetes libraries and no cluster: manifests are read with
// ec2select's reader of kubectl's rules (internal/manifest) into
// weighting.NodePool and internal/ec2nodeclass's EC2NodeClass.
//
// The files:
//   - main.go: the command line, exit status and output;
//   - input.go, manifest.go: reading files, directories and documents,
//     and decoding them into units applied together;
//   - placeholder.go: manifests with placeholders, checked as if filled;
//   - check.go: each NodePool with its EC2NodeClass (AMIs, instance types);
//   - check_refs.go: pairing NodePools with EC2NodeClasses, near names and
//     alternative files;
//   - check_identity.go: AMI IDs, roles and instance profiles as AWS names
//     them;
//   - check_zones.go: zones against the cluster's region, or each other;
//   - check_assumptions.go: the Kubernetes version a finding assumed;
//   - check_words.go: the library's errors in the manifest's words;
//   - check_userdata.go: the userData, and version-specific bugs;
//   - check_pools.go: the NodePools of one controller together;
//   - check_capacity.go: what each NodePool's nodes hold (capacity);
//   - check_rollout.go: held-back images and the drift plan (-min-age,
//     -nodes);
//   - report.go, codes.go, table.go: findings and their output.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
)

// defaultPod is the -pod size when none is given: a small service's pod.
const defaultPod = "cpu=500m,memory=1Gi"

func main() { cli.Main(command.Name, run) }

var command = cli.Command{Name: "preflight", Args: "FILE|DIR|-...", Usage: `Usage: go run ./examples/preflight [flags] [FILE|DIR|-]...

Preflight reads Karpenter v1 EC2NodeClass (karpenter.k8s.aws/v1) and
NodePool (karpenter.sh/v1) manifests from multi-document YAML files, from
every .yaml and .yml file under a directory, or from standard input when
there are none or for "-", and reports:

  - what kubectl apply refuses, read as kubectl reads YAML and validated
    as the API server does with Karpenter v1.14.1's CRDs, and what
    Karpenter's runtime validation refuses;
  - for each NodePool and the EC2NodeClass its nodeClassRef names: the
    AMIs its amiSelectorTerms select, with the instance types each runs,
    the images found but refused (still pending, deprecated...), the
    instance types that no selected AMI can run, the userData's verdict
    (does the node join, with which taints), and how many pods of the
    -pod size the smallest and the largest of its types hold, from an
    estimate of their allocatable under the AMI family and spec.kubelet
    (package capacity);
  - with -min-age or -nodes, for each EC2NodeClass: the images a soak
    time holds back, and for the images nodes run today, whether their
    nodes drift, why, and to what;
  - the order Karpenter tries the NodePools in, NodePools that take the
    same pods at one weight, a GPU NodePool that catches every pod, and
    zones of another region than the cluster's (-region) or the other
    NodePools';
  - AMI IDs EC2 never issues, a role or instance profile given as an
    ARN, and a nodeClassRef that names no EC2NodeClass but a near name.

Files named together are applied together, and so are each directory's
files, but for files that define a resource twice between them: those are
alternatives, never applied together, and a directory that holds some is a
collection of examples, each file applied with the files its
nodeClassRefs lead to and from. A manifest refused for its placeholders
(<<NAME>>, ${NAME}) is checked as if each were filled in. A finding that
rests on the Kubernetes version says when -k8s was assumed.

Findings are errors (kubectl or Karpenter refuses, or nothing works),
warnings (it works, not as written) and notices (what preflight cannot
check, such as userData it cannot follow, or Karpenter does on purpose).
Without -live the embedded catalog of the fake EC2 answers (package
ec2fake): every EKS AMI release recorded in the projects' changelogs for
Kubernetes 1.29 to 1.36, so pinned releases resolve; what only an account
can say is a notice.

Exit status: 0 when no finding is at least as severe as -fail-on, 1 when
one is or AWS fails, 2 for a bad command line or a file that cannot be read.
`}

// options are the command line, validated.
type options struct {
	args []string
	k8s  string
	// k8sGiven says whether -k8s was given; without it, k8s is assumed.
	k8sGiven bool
	// strictUserData makes userData preflight cannot follow a warning.
	strictUserData bool
	format         string
	failOn         Severity
	karpenter      version
	live           cli.Live
	rollout        cli.Rollout
	// fit is what every node must hold: one pod of the -pod size beside
	// the -daemons; podText and daemonsText are the flags as given.
	fit                  capacity.FitRequest
	podText, daemonsText string
	// migrateTo is the family -migrate-to names (AL2023 or Bottlerocket),
	// or "" for none.
	migrateTo compat.AMIFamily
	offerings bool // -offerings
}

func run(ctx context.Context, w io.Writer, args []string) error {
	return runWith(ctx, os.Stdin, w, args)
}

// runWith is run reading standard input from stdin. With -o json, an
// error is printed as JSON too.
func runWith(ctx context.Context, stdin io.Reader, w io.Writer, args []string) error {
	opts, help, err := parseFlags(w, args)
	if help {
		return err
	}
	if err == nil {
		err = preflight(ctx, stdin, w, opts)
	}
	if err != nil && opts.format == "json" && cli.ExitCode(err) == 2 {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Error string `json:"error"`
		}{err.Error()})
	}
	return err
}

func preflight(ctx context.Context, stdin io.Reader, w io.Writer, opts options) error {
	inputs, err := readInputs(stdin, opts.args)
	if err != nil {
		return err
	}
	out := &findings{}
	m := readManifests(inputs, out)
	report, err := checkWith(ctx, opts, m, out)
	if err != nil {
		return err
	}
	if opts.migrateTo != "" {
		if report.Migrations, err = migrations(m, opts.migrateTo); err != nil {
			return err
		}
	}
	for _, in := range inputs {
		report.Files = append(report.Files, in.name)
	}
	report.Findings = out.sorted()
	report.count()
	report.nonNil()
	if err := write(w, opts.format, report); err != nil {
		return err
	}
	if n := report.failing(opts.failOn); n > 0 && opts.failOn != "" {
		return fmt.Errorf("%s at or above -fail-on %s", cli.Count(n, "finding"), opts.failOn)
	}
	return nil
}

func parseFlags(w io.Writer, args []string) (opts options, help bool, err error) {
	fs := command.FlagSet()
	fs.StringVar(&opts.k8s, "k8s", newestK8s(), "the cluster's Kubernetes minor `version`, for alias terms; findings that rest on it say when it was assumed")
	fs.StringVar(&opts.format, "o", "table", "output `format`: table, or json for CI")
	failOn := fs.String("fail-on", "error", "the least severe finding that fails the run (exit status 1): error, warning, notice or none")
	karpenter := fs.String("karpenter", "v1.14.1", "the Karpenter `version` the cluster runs, for warnings about bugs of some releases (the manifests are validated against v1.14.1's CRDs whatever it says)")
	fs.StringVar(&opts.podText, "pod", defaultPod, "the `requests` of one pod, cpu=…,memory=…[,ephemeral-storage=…], as Kubernetes quantities: each NodePool\n"+
		"says how many fit its smallest and largest instance types, and warns when none holds one")
	fs.StringVar(&opts.daemonsText, "daemons", "", "what the DaemonSets' pods on every node request together, and how many they are: `requests` such as\n"+
		"cpu=200m,memory=300Mi,pods=3 (default: nothing)")
	migrateTo := fs.String("migrate-to", "", "write each AL2 EC2NodeClass's spec.userData for this `family`, al2023 or bottlerocket, with\n"+
		"what moved where, what was dropped and what cannot move, proven by Lint on both sides (userdata.Migrate)")
	fs.BoolVar(&opts.strictUserData, "strict-userdata", false, "report userData whose effect preflight cannot follow as a warning, not a notice\n(for CI that must check every userData: -fail-on warning then fails on it)")
	opts.rollout.Register(fs)
	fs.BoolVar(&opts.offerings, "offerings", false, "per NodePool, where its instance types can launch: per zone and capacity type it allows, how\n"+
		"many offerings can launch now and why the others cannot (the region's zones, the types each zone\n"+
		"offers, its capacity reservations); with -live it needs "+cli.OfferingsNeeds)
	opts.live.RegionOffline = "the cluster's region, which the zones NodePools require are checked against\n(default: none; the NodePools' zones are checked against each other's)"
	opts.live.Register(fs, "ec2:DescribeImages, ec2:DescribeInstanceTypes and, for ssmParameter terms, ssm:GetParameter")
	// -o is read before parsing ends, so that a bad flag is JSON too.
	for i, a := range args {
		if (a == "-o" || a == "--o") && i+1 < len(args) {
			opts.format = args[i+1]
		}
	}
	if help, err := command.Parse(fs, w, args); help || err != nil {
		return opts, help, err
	}
	if opts.format != "table" && opts.format != "json" {
		return opts, false, cli.Usagef("-o %q: use table or json", opts.format)
	}
	switch s := Severity(*failOn); s {
	case SevError, SevWarning, SevNotice:
		opts.failOn = s
	case "none":
		opts.failOn = ""
	default:
		return opts, false, cli.Usagef("-fail-on %q: use error, warning, notice or none", *failOn)
	}
	switch strings.ToLower(*migrateTo) {
	case "":
	case "al2023":
		opts.migrateTo = compat.AL2023
	case "bottlerocket":
		opts.migrateTo = compat.Bottlerocket
	default:
		return opts, false, cli.Usagef("-migrate-to %q: use al2023 or bottlerocket", *migrateTo)
	}
	if opts.karpenter, err = parseVersion(*karpenter); err != nil {
		return opts, false, cli.Usagef("-karpenter %q: %v", *karpenter, err)
	}
	if _, err := amiselect.Queries([]amiselect.Term{{Alias: "al2023@latest"}}, amiselect.QueryOptions{KubernetesVersion: opts.k8s}); err != nil {
		return opts, false, cli.Usagef("-k8s %q: %w", opts.k8s, err)
	}
	if opts.fit.Pod, err = parseResources(opts.podText, false); err != nil {
		return opts, false, cli.Usagef("-pod %q: %w", opts.podText, err)
	}
	if opts.fit.Daemons, err = parseResources(opts.daemonsText, true); err != nil {
		return opts, false, cli.Usagef("-daemons %q: %w", opts.daemonsText, err)
	}
	if err := opts.rollout.Parse(cli.Set(fs)); err != nil {
		return opts, false, err
	}
	if err := opts.live.Check(cli.Set(fs)); err != nil {
		return opts, false, err
	}
	if r := opts.live.Region; r != "" && !regionName.MatchString(r) {
		return opts, false, cli.Usagef("-region %q: write a region name such as us-east-1", r)
	}
	opts.k8sGiven = cli.Set(fs)["k8s"]
	opts.args = fs.Args()
	return opts, false, nil
}

// regionName is an AWS region's name (us-east-1, us-gov-west-1,
// ap-southeast-5).
var regionName = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)

// version is a Karpenter release, major and minor.
type version struct{ major, minor, patch int }

func parseVersion(s string) (version, error) {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) != 3 {
		return version{}, errors.New("write a release such as v1.14.1")
	}
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return version{}, errors.New("write a release such as v1.14.1")
		}
		v[i] = n
	}
	if v[0] != 1 {
		return version{}, errors.New("preflight knows Karpenter v1 releases only")
	}
	return version{v[0], v[1], v[2]}, nil
}

func (v version) String() string { return fmt.Sprintf("v%d.%d.%d", v.major, v.minor, v.patch) }

// hasFirstAMIBug reports whether the release files a node's capacity under
// the first AMI of its architecture (#7925): v1.1.0 to v1.3.x.
func (v version) hasFirstAMIBug() bool { return v.major == 1 && v.minor >= 1 && v.minor < 4 }

// checkWith runs the checks against the embedded catalog, or with -live
// against AWS, every call bounded by -timeout.
func checkWith(ctx context.Context, opts options, m manifests, out *findings) (Report, error) {
	if !opts.live.Enabled {
		var fo ec2fake.Options
		if opts.offerings && slices.Contains(ec2fake.CatalogRegions(), opts.live.Region) {
			fo.Region = opts.live.Region // -offerings shows that region's zone catalog
		}
		b, err := cli.Offline(fo)
		if err != nil {
			return Report{}, err
		}
		return check(ctx, b, b, cli.OfflineSource+" (use -live for a real account)", opts, m, out)
	}
	ctx, cancel := opts.live.Context(ctx)
	defer cancel()
	cfg, source, err := opts.live.Config(ctx)
	if err != nil {
		return Report{}, err
	}
	client, _, err := opts.live.EC2(ctx)
	if err != nil {
		return Report{}, err
	}
	var ssmClient amiselect.SSMClient = ssm.NewFromConfig(cfg, func(o *ssm.Options) {
		if opts.live.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.live.Endpoint)
		}
	})
	from := "-region"
	if opts.live.Region == "" {
		from = "the region -live uses: AWS_REGION or the shared config's"
	}
	r, err := checkIn(ctx, client, ssmClient, source, cfg.Region, from, opts, m, out)
	return r, opts.live.Err(ctx, err)
}

func write(w io.Writer, format string, r Report) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return writeTable(w, r)
}
