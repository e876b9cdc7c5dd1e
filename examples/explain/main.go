// Explain says which AMI each instance type gets from a set of AMI selector
// terms, and why the others get none: the images the terms find and refuse,
// the AMI of every instance type, grouped by AMI, and for each type no AMI
// can run, the conflicting requirement per AMI and the fix.
//
//	go run ./examples/explain -alias al2@latest -types g5g.xlarge,m6g.large,m5.large
//	go run ./examples/explain -name 'team-base-al2023-*' -owner self
//	go run ./examples/explain -terms ec2nodeclass.yaml -types-file types.txt
//	go run ./examples/explain -alias al2023@latest -min-age 168h -nodes ami-0abc=4,ami-0def=2
//	go run ./examples/explain -alias al2023@latest -min-age 168h -o json
//	go run ./examples/explain -alias bottlerocket@latest -types m5.large,c7g.xlarge -explain m5.large
//	go run ./examples/explain -terms ec2nodeclass.yaml -nodeclass ec2nodeclass.yaml -types m5.large
//	go run ./examples/explain -live -region us-west-2 -alias bottlerocket@latest
//
// Without -live it answers from the fake EC2's embedded catalog (package
// ec2fake); with -live it asks the account of the default AWS credential
// chain. Run it with -h for the flags.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/internal/ec2nodeclass"
)

const defaultK8s = "1.32"

func main() { cli.Main("explain", run) }

// options are the command line, validated.
type options struct {
	terms      []amiselect.Term
	termSource string   // where the terms came from, for messages
	types      []string // nil: every instance type
	typeSource string
	k8s        string
	// rollout is -min-age, -now (the instant deprecation and age are
	// judged at) and -nodes (the images nodes run, for the drift plan).
	rollout cli.Rollout
	// estimate is how nodes launch, for the capacity table: -family,
	// -nodeclass; explainType is -explain.
	estimate    launchOptions
	capacity    bool
	explainType string
	offerings   bool // -offerings
	live        cli.Live
	// format is -o: "table" (the default) or "json".
	format string
}

// launchOptions are the flags that say how nodes launch: the AMI family
// whose boot software they run (zero: each AMI's own), and the
// EC2NodeClass whose kubelet settings, volumes and instance-store policy
// they take (nil: the family's defaults).
type launchOptions struct {
	family    compat.AMIFamily
	nodeClass *ec2nodeclass.EC2NodeClass
	source    string // -nodeclass FILE, for messages
}

// run is the whole program; out receives the explanation, or the help text
// for -h. It returns a *cli.UsageError for a bad command line.
func run(ctx context.Context, out io.Writer, args []string) error {
	opts, help, err := parseFlags(out, args)
	if help || err != nil {
		return err
	}
	if !opts.live.Enabled {
		b, err := cli.Offline(ec2fake.Options{})
		if err != nil {
			return err
		}
		return explain(ctx, out, b, cli.OfflineSource+" (account "+b.AccountID()+"); use -live for a real account", opts)
	}
	ctx, cancel := opts.live.Context(ctx)
	defer cancel()
	client, source, err := opts.live.EC2(ctx)
	if err != nil {
		return err
	}
	return opts.live.Err(ctx, explain(ctx, out, client, source, opts))
}

// parseFlags reads args. For -h it writes the usage to out and returns help
// true.
func parseFlags(out io.Writer, args []string) (opts options, help bool, err error) {
	fs := command.FlagSet()
	alias := fs.String("alias", "", "select the public EKS AMIs of an `alias`, family@version: al2, al2023, bottlerocket, windows2019,\n"+
		"windows2022 or windows2025, @latest or a release (al2023@v20250403, bottlerocket@1.49.0)")
	name := fs.String("name", "", "select images whose name matches `pattern` (* any run of characters, ? zero or one)")
	id := fs.String("id", "", "select one image by `ami-id`")
	owner := fs.String("owner", "", "with -name or -tag: the `owner`, an account ID, self or amazon (default: self and amazon)")
	tags := tagFlags{}
	fs.Var(tags, "tag", "with or without -name: select images carrying tag `key=value` (value * for any); repeatable")
	termsFile := fs.String("terms", "", "read the selector terms from `file`: YAML or JSON, a list of terms\n"+
		"([{alias: ...}] or [{name: ..., owner: ...}, {tags: {...}}, {id: ...}]), an object with\n"+
		"amiSelectorTerms, or a whole EC2NodeClass; instead of -alias, -name, -id, -owner and -tag")
	typeList := fs.String("types", "", "the instance types to place, comma-separated `names` (default: every instance type)")
	typeFile := fs.String("types-file", "", "read the instance types from `file`, one per line (# comments); instead of -types")
	k8s := fs.String("k8s", defaultK8s, "Kubernetes minor `version` for -alias")
	family := fs.String("family", "", "estimate capacity under AMI `family` AL2, AL2023, Bottlerocket, Windows2019, Windows2022 or\n"+
		"Windows2025 (default: each AMI's own; a custom AMI's is -nodeclass's spec.amiFamily, else Custom)")
	nodeClass := fs.String("nodeclass", "", "estimate capacity as the EC2NodeClass in `file` launches nodes: its spec.kubelet,\n"+
		"blockDeviceMappings, instanceStorePolicy and amiFamily (its terms are read with -terms)")
	capacityTable := fs.Bool("capacity", false, "print the capacity table for every mapped type (default: only when -types or -types-file names them)")
	explainType := fs.String("explain", "", "explain the capacity estimate of instance `type` term by term, with each term's source and citation")
	offeringsFlag := fs.Bool("offerings", false, "print the mapped types' offerings per zone and capacity type (the region's zones, the types each\n"+
		"zone offers, its capacity reservations) and why any cannot launch; with -live it needs\n"+cli.OfferingsNeeds)
	var rollout cli.Rollout
	rollout.Register(fs)
	var live cli.Live
	live.Register(fs, "ec2:DescribeImages and ec2:DescribeInstanceTypes")
	format := fs.String("o", "table", "output `format`: table, or json (the selection, the rollout and drift plan, the mapping and the\n"+
		"capacity table as data)")

	if help, err := command.Parse(fs, out, args); help || err != nil {
		return options{}, help, err
	}
	set := cli.Set(fs)

	opts = options{k8s: *k8s, live: live, rollout: rollout, capacity: *capacityTable, explainType: *explainType, offerings: *offeringsFlag, format: *format}
	if opts.format != "table" && opts.format != "json" {
		return options{}, false, cli.Usagef("-o %q: use table or json", opts.format)
	}
	if err := opts.rollout.Parse(set); err != nil {
		return options{}, false, err
	}
	if opts.estimate, err = launchFromFlags(set, *family, *nodeClass); err != nil {
		return options{}, false, err
	}
	if opts.terms, opts.termSource, err = termsFromFlags(set, *alias, *name, *id, *owner, tags, *termsFile); err != nil {
		return options{}, false, err
	}
	if _, err := amiselect.Queries(opts.terms, amiselect.QueryOptions{KubernetesVersion: opts.k8s}); err != nil {
		return options{}, false, cli.Usagef("%s: %w", opts.termFlags(), err)
	}

	switch {
	case set["types"] && set["types-file"]:
		return options{}, false, cli.Usagef("-types and -types-file both given; use one")
	case set["types"]:
		if opts.types, err = parseTypeList(*typeList); err != nil {
			return options{}, false, cli.Usagef("-types %q: %w", *typeList, err)
		}
		opts.typeSource = "-types"
	case set["types-file"]:
		data, err := os.ReadFile(*typeFile)
		if err != nil {
			return options{}, false, cli.Usagef("-types-file: %w", err)
		}
		if opts.types, err = parseTypeFile(data); err != nil {
			return options{}, false, cli.Usagef("-types-file %s: %w", *typeFile, err)
		}
		opts.typeSource = "-types-file " + *typeFile
	}
	if set["explain"] {
		if _, err := compat.ParseInstanceTypeName(opts.explainType); err != nil {
			return options{}, false, cli.Usagef("-explain %q: %w", opts.explainType, err)
		}
		if opts.types != nil && !slices.Contains(opts.types, opts.explainType) {
			return options{}, false, cli.Usagef("-explain %q is not among the types of %s; add it there, or explain one of them", opts.explainType, opts.typeSource)
		}
	}
	if err := live.Check(set); err != nil {
		return options{}, false, err
	}
	return opts, false, nil
}

// launchFromFlags reads -family and -nodeclass.
func launchFromFlags(set map[string]bool, family, file string) (launchOptions, error) {
	var l launchOptions
	if set["family"] {
		f, err := compat.ParseAMIFamily(family)
		if err != nil {
			return l, cli.Usagef("-family %q: %w", family, err)
		}
		if f == compat.Custom {
			return l, cli.Usagef("-family Custom: a Custom AMI boots its own way, so there is no family rule to estimate by; name the family its boot software is, such as AL2023")
		}
		l.family = f
	}
	if set["nodeclass"] {
		data, err := os.ReadFile(file)
		if err != nil {
			return l, cli.Usagef("-nodeclass: %w", err)
		}
		nc, err := ec2nodeclass.Decode(data)
		if err != nil {
			return l, cli.Usagef("-nodeclass %s: %w", file, err)
		}
		l.nodeClass, l.source = &nc, "-nodeclass "+file
	}
	return l, nil
}

// termFlags echoes the command line's selector terms, for messages: the
// -terms file, or the term flags with their values, and -k8s when an alias
// uses it.
func (o options) termFlags() string {
	if strings.HasPrefix(o.termSource, "-terms") {
		return o.termSource
	}
	var parts []string
	for _, t := range o.terms {
		for _, f := range []struct{ flag, value string }{{"-alias", t.Alias}, {"-id", t.ID}, {"-name", t.Name}, {"-owner", t.Owner}} {
			if f.value != "" {
				parts = append(parts, fmt.Sprintf("%s %q", f.flag, f.value))
			}
		}
		if len(t.Tags) > 0 {
			parts = append(parts, "-tag "+strings.ReplaceAll(tagFlags(t.Tags).String(), ",", " -tag "))
		}
		if t.Alias != "" {
			parts = append(parts, fmt.Sprintf("-k8s %q", o.k8s))
		}
	}
	return strings.Join(parts, " ")
}

// termsFromFlags builds the selector terms from the term flags or the
// -terms file, and says where they came from.
func termsFromFlags(set map[string]bool, alias, name, id, owner string, tags tagFlags, file string) ([]amiselect.Term, string, error) {
	var used []string
	for _, f := range []string{"alias", "id", "name", "owner", "tag"} {
		if set[f] {
			used = append(used, "-"+f)
		}
	}
	if set["terms"] {
		if len(used) > 0 {
			return nil, "", cli.Usagef("-terms and %s both given; put every term in the file, or use the flags alone", strings.Join(used, ", "))
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, "", cli.Usagef("-terms: %w", err)
		}
		terms, err := parseTermsFile(data)
		if err != nil {
			return nil, "", cli.Usagef("-terms %s: %w", file, err)
		}
		return terms, "-terms " + file, nil
	}

	source := strings.Join(used, ", ")
	switch {
	case len(used) == 0:
		return nil, "", cli.Usagef("no selector terms; give -alias, -name, -id or -tag, or -terms FILE")
	case set["alias"] && len(used) > 1:
		return nil, "", cli.Usagef("-alias cannot be combined with %s: an alias must be the only selector term", strings.Join(used[1:], ", "))
	case set["owner"] && !set["name"] && !set["tag"]:
		return nil, "", cli.Usagef("-owner %q needs -name or -tag: it narrows a name or tag term", owner)
	}
	var terms []amiselect.Term
	if set["alias"] {
		terms = append(terms, amiselect.Term{Alias: alias})
	}
	if set["id"] {
		terms = append(terms, amiselect.Term{ID: id})
	}
	if set["name"] || set["tag"] {
		t := amiselect.Term{Name: name, Owner: owner}
		if len(tags) > 0 {
			t.Tags = tags
		}
		terms = append(terms, t)
	}
	return terms, source, nil
}

var command = cli.Command{Name: "explain", Usage: `Usage: go run ./examples/explain (-alias A | -name P [-owner O] [-tag K=V]... | -id I | -terms FILE) [flags]

Explain resolves AMI selector terms the way an EC2NodeClass's amiSelectorTerms
are resolved, then prints which AMI each instance type gets, grouped by AMI,
and for each type that gets none, why: the requirement each AMI conflicts on
and the change that would fix it. It also lists the images the terms find but
do not select (still pending, deprecated, superseded, held back by -min-age,
malformed) and why; with -min-age, each held-back image with when it comes of
age, and the next change; and with -nodes, the drift plan: for each image nodes
run today, whether its nodes are replaced, why, by what and when. A node on a
held-back image keeps running until the image is selected; a node two releases
behind is told both moves. For the instance types named with -types or
-types-file (every mapped type with -capacity), it estimates what their nodes
have: capacity, what the kubelet reserves, allocatable, and where max pods and
memory come from, under each AMI's family or -family, with -nodeclass's
kubelet settings; -explain TYPE gives every term with its source.

-id and a -name/-tag term may be combined (each is one term); -alias must be
alone. Without -live the fake EC2's embedded catalog answers: every AL2,
AL2023 and Bottlerocket release the projects' changelogs record for
Kubernetes 1.29 to 1.36 (AL2 ends at 1.32), so pinned releases resolve;
Windows AMIs for each of those versions; the custom "team-base-al2023-*"
images of account 111122223333 (owner self); and 1364 instance types.

-o json writes the same as one JSON document: amiselect's Selection and
DriftPlan as they marshal (reasons and variants as words), and the mapping and
capacity rows.

Exit status: 0 when the explanation is printed, whether or not every type
gets an AMI; 1 when EC2 fails; 2 for a bad command line.
`}
