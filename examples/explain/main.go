// Explain says which AMI each instance type gets from a set of AMI selector
// terms, and why the others get none: the images the terms find and refuse,
// the AMI of every instance type, grouped by AMI, and for each type no AMI
// can run, the conflicting requirement per AMI and the fix.
//
//	go run ./examples/explain -alias al2@latest -types g5g.xlarge,m6g.large,m5.large
//	go run ./examples/explain -name 'team-base-al2023-*' -owner self
//	go run ./examples/explain -terms ec2nodeclass.yaml -types-file types.txt
//	go run ./examples/explain -alias al2023@latest -min-age 168h -nodes ami-0abc=4,ami-0def=2
//	go run ./examples/explain -live -region us-west-2 -alias bottlerocket@latest
//
// Without -live it answers from the fake EC2's embedded catalog (package
// ec2fake); with -live it asks the account of the default AWS credential
// chain. Run it with -h for the flags.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
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
	// minAge is the soak time (-min-age); now, when set (-now), the
	// instant deprecation and age are judged at instead of the clock's.
	minAge time.Duration
	now    time.Time
	// nodes are the images nodes run (-nodes), for the drift plan; nil
	// for none.
	nodes []amiselect.Running
	live  cli.Live
}

// selectOptions are the options -min-age and -now give Select.
func (o options) selectOptions() amiselect.SelectOptions {
	so := amiselect.SelectOptions{MinAge: o.minAge}
	if !o.now.IsZero() {
		at := o.now
		so.Now = func() time.Time { return at }
	}
	return so
}

// run is the whole program; out receives the explanation, or the help text
// for -h. It returns a *cli.UsageError for a bad command line.
func run(ctx context.Context, out io.Writer, args []string) error {
	opts, help, err := parseFlags(out, args)
	if help || err != nil {
		return err
	}
	if !opts.live.Enabled {
		b := ec2fake.NewWithCatalog(ec2fake.Options{})
		return explain(ctx, out, b, "the fake EC2's embedded catalog (account "+b.AccountID()+"); use -live for a real account", opts)
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
	minAge := fs.Duration("min-age", 0, "soak time: a new image waits until it is `duration` old (e.g. 168h) while an older one of its\n"+
		"role serves; the images held back are listed with when each comes of age (default: none)")
	nodes := fs.String("nodes", "", "the images nodes run today, comma-separated `ami-id[=count]`: show for each whether its\n"+
		"nodes drift under the selection, why, and to what")
	now := fs.String("now", "", "judge deprecation and age at `time` (RFC 3339, e.g. 2026-07-16T00:00:00Z) instead of now")
	var live cli.Live
	live.Register(fs, "ec2:DescribeImages and ec2:DescribeInstanceTypes")

	if help, err := command.Parse(fs, out, args); help || err != nil {
		return options{}, help, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	opts = options{k8s: *k8s, live: live, minAge: *minAge}
	if *minAge < 0 {
		return options{}, false, cli.Usagef("-min-age %v is negative; give a soak time of 0 or more, such as 168h", *minAge)
	}
	if set["now"] {
		if opts.now, err = time.Parse(time.RFC3339, *now); err != nil {
			return options{}, false, cli.Usagef("-now %q is not an RFC 3339 time; write e.g. 2026-07-16T00:00:00Z", *now)
		}
	}
	if set["nodes"] {
		if opts.nodes, err = parseNodes(*nodes); err != nil {
			return options{}, false, cli.Usagef("-nodes %q: %w", *nodes, err)
		}
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
	if err := live.Check(set); err != nil {
		return options{}, false, err
	}
	return opts, false, nil
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

// parseNodes reads -nodes: comma-separated image ids, each optionally
// with "=count", the number of nodes running it.
func parseNodes(s string) ([]amiselect.Running, error) {
	var out []amiselect.Running
	for i, f := range strings.Split(s, ",") {
		id, count, counted := strings.Cut(strings.TrimSpace(f), "=")
		r := amiselect.Running{ImageID: id}
		// The id rule is the one amiSelectorTerms ids follow.
		if _, err := amiselect.Queries([]amiselect.Term{{ID: id}}, amiselect.QueryOptions{}); err != nil {
			return nil, fmt.Errorf("entry %d: %q is not an AMI id; write ami-id or ami-id=count, as in ami-0abc=3,ami-0def", i+1, id)
		}
		if counted {
			n, err := strconv.Atoi(count)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("entry %d: count %q is not a number of nodes; write %s=3, or %s without a count", i+1, count, id, id)
			}
			r.Nodes = n
		}
		out = append(out, r)
	}
	return out, nil
}

var command = cli.Command{Name: "explain", Usage: `Usage: go run ./examples/explain (-alias A | -name P [-owner O] [-tag K=V]... | -id I | -terms FILE) [flags]

Explain resolves AMI selector terms the way an EC2NodeClass's amiSelectorTerms
are resolved, then prints which AMI each instance type gets, grouped by AMI,
and for each type that gets none, why: the requirement each AMI conflicts on
and the change that would fix it. It also lists the images the terms find but
do not select (still pending, deprecated, superseded, held back by -min-age,
malformed) and why, and with -nodes, the drift plan: for each image nodes run
today, whether its nodes are replaced, why, by what, and when the next held-back
image comes of age.

-id and a -name/-tag term may be combined (each is one term); -alias must be
alone. Without -live the fake EC2's embedded catalog answers: AL2, AL2023,
Bottlerocket and Windows AMIs for Kubernetes 1.31 to 1.36 (AL2 ends at
1.32), the custom "team-base-al2023-*" images of account 111122223333
(owner self), and 1364 instance types.

Exit status: 0 when the explanation is printed, whether or not every type
gets an AMI; 1 when EC2 fails; 2 for a bad command line.
`}
