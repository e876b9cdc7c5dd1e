package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/internal/cli"
)

// ec2API is what explain asks of EC2.
type ec2API interface {
	ec2.DescribeImagesAPIClient
	ec2.DescribeInstanceTypesAPIClient
}

// lineWidth is where lists of instance type names wrap.
const lineWidth = 100

func explain(ctx context.Context, out io.Writer, client ec2API, source string, opts options) error {
	aopts := amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: opts.k8s}, Select: opts.rollout.SelectOptions()}
	sel, err := amiselect.Resolve(ctx, client, opts.terms, aopts)
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode() {
		case "InvalidAMIID.NotFound", "InvalidAMIID.Malformed", "InvalidUserID.Malformed":
			// EC2's own verdict on the terms: the flags or file are wrong.
			return cli.Usagef("%s: %s; check the IDs and owners, and the region", opts.termFlags(), apiErr.ErrorMessage())
		}
	}
	if err != nil {
		return err
	}
	passedOver, err := passedOver(ctx, client, opts.terms, aopts, sel)
	if err != nil {
		return err
	}
	var plan amiselect.DriftPlan
	if opts.rollout.Nodes != nil {
		if plan, err = amiselect.PlanDrift(ctx, client, sel, opts.rollout.Nodes); err != nil {
			return err
		}
	}
	types, skipped, err := compat.LoadInstanceTypes(ctx, client, typesInput(opts.types))
	if errors.As(err, &apiErr) && apiErr.ErrorCode() == "InvalidInstanceType" {
		return cli.Usagef("%s: %s; check the names, and that the region offers them", opts.typeSource, apiErr.ErrorMessage())
	}
	if err != nil {
		return err
	}
	order(types, skipped, opts.types)
	if t := opts.explainType; t != "" && !slices.ContainsFunc(types, func(it compat.InstanceType) bool { return it.Name == t }) {
		return cli.Usagef("-explain %q: the instance types EC2 describes have no such type that an EKS node runs on; check the name and the region", t)
	}
	m := amiselect.Map(types, sel.AMIs)
	estimates, err := estimateMapped(m, types, opts)
	if err != nil {
		return err
	}
	var offered cli.Offerings
	if opts.offerings {
		at := opts.rollout.Now // -now, else the clock
		if at.IsZero() {
			at = time.Now()
		}
		if offered, err = offeringsOf(ctx, client, m, at); err != nil {
			return err
		}
	}

	if opts.format == "json" {
		return writeJSON(out, source, opts, sel, passedOver, plan, types, skipped, m, estimates, offered)
	}
	r := &report{w: out}
	r.printf("Source: %s\n", source)
	r.terms(opts)
	r.images(sel, passedOver)
	if opts.rollout.MinAge > 0 || opts.rollout.Nodes != nil {
		r.rollout(sel, opts)
	}
	if opts.rollout.Nodes != nil {
		r.drift(plan)
	}
	r.instanceTypes(opts, types, skipped)
	r.mapping(m, sel.AMIs)
	r.capacity(opts, estimates)
	if opts.offerings {
		r.offerings(offered)
	}
	return r.err
}

// notSelected is an image the terms find that is not among the AMIs, and
// why.
type notSelected struct {
	id, name, state, why string
	older                bool // superseded only by a newer release
}

// maxOlder is how many images superseded by newer releases are listed; a
// real account's alias finds every release AWS ever published.
const maxOlder = 8

// passedOver lists the images the terms match but Resolve does not
// select, and why. The selection itself says why for every image Resolve
// saw: Rejected with Select's reason, Superseded with the winner and
// Superseded.Reason. Images that are not "available" (still being built,
// failed, disabled) Resolve never sees, by design; one more request per
// query asks for exactly those, so the pending image of #7652 shows up
// with the reason it waits.
func passedOver(ctx context.Context, client ec2.DescribeImagesAPIClient, terms []amiselect.Term, opts amiselect.Options, sel amiselect.Selection) ([]notSelected, error) {
	var out []notSelected
	for _, rej := range sel.Rejected {
		out = append(out, notSelected{id: rej.ImageID, name: rej.Name, state: "available", why: rej.Kind.String() + ": " + rej.Reason})
	}
	seen := map[string]bool{}
	for _, h := range sel.HeldBack() {
		if seen[h.AMI.ID] { // an image serving two variants waits in both
			continue
		}
		seen[h.AMI.ID] = true
		out = append(out, notSelected{id: h.AMI.ID, name: h.AMI.Name, state: "available", why: "held-back: " + h.Reason()})
	}
	for _, s := range sel.Superseded() {
		if seen[s.AMI.ID] { // an image serving two variants lost both
			continue
		}
		seen[s.AMI.ID] = true
		out = append(out, notSelected{
			id: s.AMI.ID, name: s.AMI.Name, state: "available",
			why:   "superseded: " + s.Reason(),
			older: !s.AMI.Deprecated && s.AMI.Created.Before(s.Winner.Created),
		})
	}
	hidden, err := notAvailable(ctx, client, terms, opts)
	if err != nil {
		return nil, err
	}
	for _, rej := range amiselect.Select(hidden, opts.Select).Rejected {
		state := ""
		if i := slices.IndexFunc(hidden, func(img ec2types.Image) bool { return aws.ToString(img.ImageId) == rej.ImageID }); i >= 0 {
			state = string(hidden[i].State)
		}
		out = append(out, notSelected{id: rej.ImageID, name: rej.Name, state: state, why: rej.Kind.String() + ": " + rej.Reason})
	}
	slices.SortFunc(out, func(a, b notSelected) int {
		return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.id, b.id))
	})
	return out, nil
}

// notAvailable describes the images the terms match in every state but
// "available", including disabled ones: the ones Resolve's requests leave
// out.
func notAvailable(ctx context.Context, client ec2.DescribeImagesAPIClient, terms []amiselect.Term, opts amiselect.Options) ([]ec2types.Image, error) {
	queries, err := amiselect.Queries(terms, opts.Query)
	if err != nil {
		return nil, err
	}
	var states []string
	for _, st := range ec2types.ImageStateAvailable.Values() {
		if st != ec2types.ImageStateAvailable {
			states = append(states, string(st))
		}
	}
	seen := map[string]bool{}
	var images []ec2types.Image
	for _, q := range queries {
		for i, f := range q.Filters {
			if aws.ToString(f.Name) == "state" {
				q.Filters[i].Values = states
			}
		}
		q.IncludeDisabled = aws.Bool(true)
		pager := ec2.NewDescribeImagesPaginator(client, q, func(o *ec2.DescribeImagesPaginatorOptions) { o.StopOnDuplicateToken = true })
		for pager.HasMorePages() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				return nil, fmt.Errorf("describing the images the terms match that are not available: %w", err)
			}
			for _, img := range page.Images {
				if id := aws.ToString(img.ImageId); !seen[id] {
					seen[id] = true
					images = append(images, img)
				}
			}
		}
	}
	return images, nil
}

// typesInput asks for the named instance types, or every one when names
// is nil.
func typesInput(names []string) *ec2.DescribeInstanceTypesInput {
	if names == nil {
		return nil
	}
	in := &ec2.DescribeInstanceTypesInput{}
	for _, n := range names {
		in.InstanceTypes = append(in.InstanceTypes, ec2types.InstanceType(n))
	}
	return in
}

// order sorts the instance types and skipped ones in the order names
// gives, or the types by family and size when names is nil (the skipped
// ones stay in name order).
func order(types []compat.InstanceType, skipped []compat.SkippedType, names []string) {
	if names != nil {
		pos := func(name string) int { return slices.Index(names, name) }
		slices.SortFunc(types, func(a, b compat.InstanceType) int { return cmp.Compare(pos(a.Name), pos(b.Name)) })
		slices.SortFunc(skipped, func(a, b compat.SkippedType) int { return cmp.Compare(pos(a.Name), pos(b.Name)) })
		return
	}
	slices.SortFunc(types, func(a, b compat.InstanceType) int {
		return cmp.Or(strings.Compare(a.Family, b.Family), cmp.Compare(a.VCPU, b.VCPU),
			cmp.Compare(a.MemoryMiB, b.MemoryMiB), strings.Compare(a.Name, b.Name))
	})
}

// report writes the explanation to w, remembering the first write error.
type report struct {
	w   io.Writer
	err error
}

func (r *report) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.w.Write(p)
	r.err = err
	return n, err
}

func (r *report) printf(format string, args ...any) {
	fmt.Fprintf(r, format, args...)
}

// table writes rows as aligned columns, indented by two spaces.
func (r *report) table(rows [][]string) {
	tw := tabwriter.NewWriter(r, 0, 0, 2, ' ', 0)
	for _, row := range rows {
		fmt.Fprintln(tw, "  "+strings.Join(row, "\t"))
	}
	tw.Flush()
}

// names writes a list of names, wrapped, after indent.
func (r *report) names(indent string, names []string) {
	line := indent
	for i, n := range names {
		if i < len(names)-1 {
			n += ","
		}
		if line != indent && len(line)+1+len(n) > lineWidth {
			r.printf("%s\n", line)
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += n
	}
	r.printf("%s\n", line)
}

func (r *report) terms(opts options) {
	k8s := ""
	if slices.ContainsFunc(opts.terms, func(t amiselect.Term) bool { return t.Alias != "" }) {
		k8s = ", Kubernetes " + opts.k8s
	}
	r.printf("\nSelector terms (from %s%s):\n", opts.termSource, k8s)
	rows := make([][]string, len(opts.terms))
	for i, t := range opts.terms {
		rows[i] = []string{strconv.Itoa(i), describeTerm(t)}
	}
	r.table(rows)
}

func (r *report) images(sel amiselect.Selection, passed []notSelected) {
	r.printf("\nSelected: %s; %s found but not selected\n", cli.AMIs(sel.AMIs), cli.Count(len(passed), "image"))
	if len(sel.AMIs) > 0 {
		rows := [][]string{{"AMI", "NAME", "FAMILY", "ARCH", "VARIANT", "CREATED"}}
		for _, a := range sel.AMIs {
			created := a.Created.Format("2006-01-02 15:04")
			if a.Deprecated {
				created += " (deprecated)"
			}
			rows = append(rows, []string{a.ID, a.Name, a.Family.String(), a.Arch, a.Variant.String(), created})
		}
		r.table(rows)
	}
	if len(passed) > 0 {
		if len(sel.AMIs) > 0 {
			r.printf("\n")
		}
		rows := [][]string{{"NOT SELECTED", "NAME", "STATE", "WHY"}}
		older := 0
		for _, p := range passed {
			if p.older {
				if older++; older > maxOlder {
					continue
				}
			}
			rows = append(rows, []string{p.id, p.name, p.state, p.why})
		}
		r.table(rows)
		if older > maxOlder {
			r.printf("  ... and %d more images superseded by newer releases\n", older-maxOlder)
		}
	}
}

// rollout writes, with -min-age or -nodes, one line per image the soak
// holds back with when it comes of age and is selected, then the next
// change the selection makes on its own (amiselect's Changes: what Select
// will answer then).
func (r *report) rollout(sel amiselect.Selection, opts options) {
	held := cli.HeldImages(sel.HeldBack())
	r.printf("\nRollout (-min-age %v): %s held back\n", opts.rollout.MinAge, cli.Count(len(held), "image"))
	if len(held) > 0 {
		rows := [][]string{{"HELD BACK", "NAME", "UNTIL", "SERVING MEANWHILE"}}
		for _, h := range held {
			rows = append(rows, []string{h.ID, h.Name, h.Until(), strings.Join(h.Serving, ", ")})
		}
		r.table(rows)
	}
	if next := cli.NextChanges(sel.Changes()); next != "" {
		r.printf("  Next change: %s\n", next)
		return
	}
	r.printf("  Next change: none scheduled; the selection changes when an image is published, deprecated or withdrawn\n")
}

// drift writes the drift plan: per image nodes run, whether its nodes
// drift, why, to what and when.
func (r *report) drift(p amiselect.DriftPlan) {
	images, nodes, driftImages, driftNodes := 0, 0, 0, 0
	for _, d := range p.Images {
		images, nodes = images+1, nodes+d.Nodes
		if d.Drifts {
			driftImages, driftNodes = driftImages+1, driftNodes+d.Nodes
		}
	}
	r.printf("\nDrift plan for the images nodes run (-nodes): %s\n", cli.DriftCounts(images, driftImages, nodes, driftNodes))
	rows := [][]string{{"IMAGE", "NAME", "NODES", "DRIFTS", "REASON", "REPLACED BY", "WHY"}}
	for _, d := range p.Images {
		drifts, by, name := "no", d.Replacement.ID, d.Name
		if d.Drifts {
			drifts = "yes"
		}
		if by == "" {
			by = "-"
		}
		if name == "" {
			name = "-"
		}
		nodes := strconv.Itoa(d.Nodes)
		if d.Nodes == 0 { // not counted
			nodes = "-"
		}
		rows = append(rows, []string{d.ImageID, name, nodes, drifts, d.Reason.String(), by, d.Detail})
	}
	r.table(rows)
}

func (r *report) instanceTypes(opts options, types []compat.InstanceType, skipped []compat.SkippedType) {
	from := "all that DescribeInstanceTypes returns"
	if opts.typeSource != "" {
		from = "from " + opts.typeSource
	}
	r.printf("\nInstance types: %d (%s)", len(types)+len(skipped), from)
	if len(skipped) == 0 {
		r.printf("\n")
		return
	}
	r.printf("; %d no EKS node runs on\n", len(skipped))
	rows := [][]string{{"SKIPPED", "REASON"}}
	for _, s := range skipped {
		rows = append(rows, []string{s.Name, s.Err.Error()})
	}
	r.table(rows)
}

func (r *report) mapping(m amiselect.Mapping, amis []amiselect.AMI) {
	mapped := 0
	for _, g := range m.Groups {
		mapped += len(g.InstanceTypes)
	}
	r.printf("\nWhich AMI each instance type gets: %d mapped, %d without one\n", mapped, len(m.Unmapped))
	for _, g := range m.Groups {
		r.printf("  %s %s (%s %s %s): %s\n", g.AMI.ID, g.AMI.Name, g.AMI.Family, g.AMI.Arch, g.AMI.Variant, count(len(g.InstanceTypes), "type"))
		names := make([]string, len(g.InstanceTypes))
		for i, it := range g.InstanceTypes {
			names[i] = it.Name
		}
		r.names("    ", names)
		if accel := accelerated(g); g.AMI.Family == compat.Custom && len(accel) > 0 {
			r.printf("    note: a custom AMI states only its architecture, so %s with a GPU or accelerator map here\n"+
				"    too (%s);\n    if it lacks their drivers, select GPU AMIs in a separate EC2NodeClass\n",
				count(len(accel), "type"), examples(accel))
		}
	}

	var nothing *amiselect.NoCompatibleAMIError
	if errors.As(m.Err(), &nothing) && nothing.InstanceTypes > 0 {
		r.printf("\nNothing maps: none of %s can run any of %s.\n", count(nothing.InstanceTypes, "instance type"), count(len(nothing.AMIs), "AMI"))
		if len(nothing.AMIs) > 0 {
			rows := [][]string{{"AMI", "CONFLICTS ON", "TYPES", "INSTANCE", "AMI REQUIRES"}}
			for _, c := range nothing.AMIs {
				rows = append(rows, []string{c.AMI.String(), c.Key, fmt.Sprintf("%d of %d", c.Conflicting, nothing.InstanceTypes),
					strings.Join(c.Instance, " or "), c.Required})
			}
			r.table(rows)
		}
		if len(nothing.AMIs) == 0 {
			// amiselect's fix names its own API; say it in the command's terms.
			r.printf("  fix: the selector terms select no AMI; check the image IDs, names, owners and tags against\n" +
				"  the account and region (the images listed above were found but not selected, with the reason)\n")
		} else {
			r.printf("  fix: %s\n", nothing.Fix)
		}
	}

	if len(m.Unmapped) == 0 || len(amis) == 0 {
		return // without AMIs there is nothing to explain per type
	}
	r.printf("\nWhy each of them gets no AMI (types with the same reasons together):\n")
	for _, u := range groupUnmapped(m.Unmapped, amis) {
		r.printf("\n")
		r.names("  ", u.names)
		for _, why := range u.why {
			r.printf("    %s\n", why)
		}
		r.printf("    fix: %s\n", u.fix)
	}
}

// accelerated lists the group's types that have a GPU or an accelerator.
func accelerated(g amiselect.Group) []string {
	var names []string
	for _, it := range g.InstanceTypes {
		if it.HasGPU() || it.HasAccelerator() {
			names = append(names, it.Name)
		}
	}
	return names
}

// unmappedGroup is the instance types that no AMI can run for the same
// reasons.
type unmappedGroup struct {
	names []string
	why   []string // per AMI: the AMI, then a line per conflicting key
	fix   string
}

// groupUnmapped gathers the unmapped types whose reasons, per AMI, read
// the same, in order of their first type.
func groupUnmapped(unmapped []amiselect.Unmapped, amis []amiselect.AMI) []unmappedGroup {
	var groups []unmappedGroup
	for _, u := range unmapped {
		var why []string
		for i, reason := range u.Reasons {
			why = append(why, amiReason(reason, amis, i)...)
		}
		i := slices.IndexFunc(groups, func(g unmappedGroup) bool { return g.fix == u.Fix && slices.Equal(g.why, why) })
		if i < 0 {
			groups = append(groups, unmappedGroup{why: why, fix: u.Fix})
			i = len(groups) - 1
		}
		groups[i].names = append(groups[i].names, u.InstanceType.Name)
	}
	return groups
}

// amiReason states, without the instance type's name, why a type cannot
// run the i-th AMI: the AMI, then each conflicting key with both sides and
// compat's reason, one per line.
func amiReason(reason error, amis []amiselect.AMI, i int) []string {
	var lines []string
	if i < len(amis) {
		lines = append(lines, amis[i].String())
	}
	conflicts := incompatibilities(reason)
	if len(conflicts) == 0 {
		return append(lines, "  "+reason.Error())
	}
	for _, c := range conflicts {
		lines = append(lines, fmt.Sprintf("  %s: instance %s, AMI %s: %s", c.Key, side(c.Instance), side(c.Required), c.Reason))
	}
	return lines
}

// incompatibilities finds every *compat.IncompatibleError in err, through
// wrapping and errors.Join.
func incompatibilities(err error) []*compat.IncompatibleError {
	switch e := err.(type) {
	case nil:
		return nil
	case *compat.IncompatibleError:
		return []*compat.IncompatibleError{e}
	case interface{ Unwrap() []error }:
		var out []*compat.IncompatibleError
		for _, inner := range e.Unwrap() {
			out = append(out, incompatibilities(inner)...)
		}
		return out
	}
	return incompatibilities(errors.Unwrap(err))
}

// side writes one side of a conflict without its key.
func side(r compat.Requirement) string {
	if r.Operator == "" {
		return "undefined"
	}
	return strings.TrimPrefix(r.String(), r.Key+" ")
}

// examples lists the first three names and how many more there are.
func examples(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, ... (+%d)", strings.Join(names[:3], ", "), len(names)-3)
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
