package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/offerings"
	"github.com/ec2select/ec2select/weighting"
)

// ec2API is what preflight asks EC2.
type ec2API interface {
	ec2.DescribeImagesAPIClient
	ec2.DescribeInstanceTypesAPIClient
}

// checker holds what every check needs.
type checker struct {
	client ec2API
	ssm    amiselect.SSMClient
	opts   options
	types  []compat.InstanceType
	report *Report
	out    *findings
	// classes holds each EC2NodeClass's AMIs, resolved once however many
	// NodePools name it, in classOrder.
	classes    map[*nodeClass]*classCheck
	classOrder []*nodeClass
	// book prices the NodePools' types (check_prices.go), built once.
	book *offerings.PriceBook
	// region is the cluster's region when preflight knows it (-region, or
	// -live's), and regionFrom where it comes from; "" when it does not.
	region, regionFrom string
	offered            regionOfferings // -offerings
}

// classCheck is what the checks of one EC2NodeClass found.
type classCheck struct {
	sel amiselect.Selection
	// known is false when the offline catalog cannot say what the terms
	// select (the finding says so), so that nothing downstream reports
	// the empty selection again.
	known bool
	// mismatch is set when the userData is for another OS than the
	// selected AMIs' (its finding says the nodes never join).
	mismatch bool
}

// check runs every check over m.
func check(ctx context.Context, client ec2API, ssm amiselect.SSMClient, source string, opts options, m manifests, out *findings) (Report, error) {
	return checkIn(ctx, client, ssm, source, opts.live.Region, "-region", opts, m, out)
}

// checkIn is check for a cluster in region, which from says where it
// comes from ("" when not known).
func checkIn(ctx context.Context, client ec2API, ssm amiselect.SSMClient, source, region, from string, opts options, m manifests, out *findings) (Report, error) {
	types, _, err := compat.LoadInstanceTypes(ctx, client, nil) // the others (mac, i386) run no EKS node
	if err != nil {
		return Report{}, err
	}
	r := &Report{Source: source, KubernetesVersion: opts.k8s, KarpenterVersion: opts.karpenter.String(), InstanceTypes: len(types), Skipped: m.skipped}
	c := &checker{client: client, ssm: ssm, opts: opts, types: types, report: r, out: out, classes: map[*nodeClass]*classCheck{}}
	c.region, c.regionFrom = region, from
	for _, u := range m.units {
		if err := c.unit(ctx, u); err != nil {
			return Report{}, err
		}
	}
	if err := c.rollout(ctx); err != nil {
		return Report{}, err
	}
	return *r, nil
}

// unit checks the manifests applied together: each NodePool with the
// EC2NodeClass it names, each EC2NodeClass no NodePool names on its own,
// and the NodePools of each controller together.
func (c *checker) unit(ctx context.Context, u *unit) error {
	used := map[*nodeClass]bool{}
	byController := map[string][]*nodePool{}
	allowed := map[*nodePool][]compat.InstanceType{}
	for _, np := range u.pools {
		if len(np.wildcards) > 0 {
			c.wildcards(np)
			continue
		}
		gk := np.groupKind()
		byController[gk] = append(byController[gk], np)
		allowed[np] = c.allowed(np.known())
		subject := []string{"NodePool " + np.Name}
		switch gk {
		case groupKindEC2NodeClass:
		case groupKindAutoMode:
			c.out.add(Finding{Severity: SevNotice, Code: codeOtherController, Where: np.at, Subjects: subject,
				Message: fmt.Sprintf("the NodePool names the EKS Auto Mode NodeClass %q (eks.amazonaws.com), not an EC2NodeClass: EKS Auto Mode runs it, and self-managed Karpenter leaves it alone; preflight checks its requirements and order, not its node class", np.NodeClassRef.Name),
				Fix:     "none needed; to check it against Karpenter's AWS provider, point nodeClassRef at an EC2NodeClass (group karpenter.k8s.aws)"})
			continue
		default:
			c.out.add(Finding{Severity: SevNotice, Code: codeOtherController, Where: np.at, Subjects: subject,
				Message: fmt.Sprintf("the NodePool names a %s, which Karpenter's AWS provider does not manage (it takes karpenter.k8s.aws/EC2NodeClass only), so it leaves the NodePool alone", gk),
				Fix:     "for Karpenter's AWS provider, set nodeClassRef to group karpenter.k8s.aws, kind EC2NodeClass"})
			continue
		}
		classes := u.classesFor(np)
		if len(classes) == 0 {
			if !u.refusedFor(np) { // else its refusal is the finding
				c.missingClass(u, np)
			}
			continue
		}
		if len(classes) > 1 {
			c.alternatives(np, classes)
		}
		for _, nc := range classes {
			used[nc] = true
			cc, err := c.class(ctx, nc)
			if err != nil {
				return err
			}
			p := c.pair(ctx, np, nc, cc, allowed[np])
			if len(classes) > 1 {
				p.Alternative = nc.at
			}
			c.report.Pairs = append(c.report.Pairs, p)
		}
	}
	for _, nc := range u.classes {
		if used[nc] || u.named(nc) {
			continue
		}
		if u.namedByRefused(nc) {
			if _, err := c.class(ctx, nc); err != nil { // its NodePool's refusal is the finding
				return err
			}
			c.userData(nil, nc, c.classes[nc], c.classes[nc].sel.AMIs)
			continue
		}
		c.out.add(Finding{Severity: SevNotice, Code: codeUnusedNodeClass, Where: nc.at, Subjects: []string{"EC2NodeClass " + nc.Name},
			Message: fmt.Sprintf("no NodePool in %s names this EC2NodeClass; preflight checks its AMIs and userData on their own", u.name),
			Fix:     "pass the NodePools that use it too, to check the instance types they allow against its AMIs"})
		cc, err := c.class(ctx, nc)
		if err != nil {
			return err
		}
		c.userData(nil, nc, cc, cc.sel.AMIs)
	}
	for _, gk := range []string{groupKindEC2NodeClass, groupKindAutoMode} {
		c.pools(u, gk, byController[gk], allowed)
	}
	c.zones(u, u.pools)
	return nil
}

// class returns the EC2NodeClass's checks, running them the first time.
func (c *checker) class(ctx context.Context, nc *nodeClass) (*classCheck, error) {
	if cc, ok := c.classes[nc]; ok {
		return cc, nil
	}
	sel, reported, err := c.resolve(ctx, nc)
	if err != nil {
		return nil, err
	}
	cc := &classCheck{sel: sel, known: true}
	c.classes[nc] = cc
	c.classOrder = append(c.classOrder, nc)
	c.identities(nc)
	c.refused(nc, sel)
	if len(sel.AMIs) == 0 && !reported {
		if cc.known, err = c.noAMI(ctx, nc); err != nil {
			return nil, err
		}
	}
	cc.mismatch = c.amiFamily(nc, sel)
	return cc, nil
}

// allowed is the catalog's types that np's requirements admit. Keys an
// instance type does not define (capacity type, zone, the user's own
// labels) are left to the scheduler.
func (c *checker) allowed(np weighting.NodePool) []compat.InstanceType {
	reqs, err := compat.NewRequirements(np.Requirements...)
	if err != nil {
		return nil // DecodeNodePool validated them
	}
	lenient := compat.AllowUndefined(reqs.Keys()...)
	out := make([]compat.InstanceType, 0, len(c.types))
	for _, it := range c.types {
		if _, conflict := it.Conflict(reqs, lenient); !conflict {
			out = append(out, it)
		}
	}
	return out
}

// resolve selects the class's AMIs; reported is set when terms that select
// nothing have had their finding.
func (c *checker) resolve(ctx context.Context, nc *nodeClass) (sel amiselect.Selection, reported bool, err error) {
	opts := amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: c.opts.k8s}, SSM: c.ssm, Select: c.opts.rollout.SelectOptions()}
	terms := selectable(nc)
	if len(terms) == 0 {
		return amiselect.Selection{}, true, nil // only placeholders and IDs EC2 never issues: their findings say so
	}
	if _, err := amiselect.Queries(terms, opts.Query); err != nil {
		c.unqueryable(nc, terms, err)
		return amiselect.Selection{}, true, nil
	}
	sel, err = amiselect.Resolve(ctx, c.client, terms, opts)
	if err != nil {
		return amiselect.Selection{}, false, fmt.Errorf("EC2NodeClass %q: resolving spec.amiSelectorTerms: %w", nc.Name, err)
	}
	// Resolve asks EC2 for available images only; what the terms also
	// match in other states is what a controller without that filter
	// would see (problem 5).
	wide, err := c.anyState(ctx, terms, opts)
	if err != nil {
		return amiselect.Selection{}, false, fmt.Errorf("EC2NodeClass %q: %w", nc.Name, err)
	}
	sel.Rejected = wide.Rejected
	return sel, false, nil
}

// anyState selects from every image the terms match, whatever its state.
func (c *checker) anyState(ctx context.Context, terms []amiselect.Term, opts amiselect.Options) (amiselect.Selection, error) {
	queries, err := amiselect.Queries(terms, opts.Query)
	if err != nil {
		return amiselect.Selection{}, err
	}
	seen := map[string]bool{}
	var images []ec2types.Image
	for _, q := range queries {
		q.Filters = slices.DeleteFunc(q.Filters, func(f ec2types.Filter) bool { return aws.ToString(f.Name) == "state" })
		q.IncludeDisabled = aws.Bool(true)
		pages := ec2.NewDescribeImagesPaginator(c.client, q, func(o *ec2.DescribeImagesPaginatorOptions) { o.StopOnDuplicateToken = true })
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				return amiselect.Selection{}, fmt.Errorf("describing the images the terms match in any state: %w", err)
			}
			for _, img := range page.Images {
				if id := aws.ToString(img.ImageId); !seen[id] {
					seen[id] = true
					images = append(images, img)
				}
			}
		}
	}
	return amiselect.Select(images, opts.Select), nil
}

// noAMI reports terms that select nothing, and returns whether that is
// known: against a real account it is, and so it is offline for an alias
// to a family's latest release, which the embedded catalog has for every
// Kubernetes version the family supports. A pinned release, an ID, a name,
// tags or an SSM parameter are the account's or a release the catalog may
// not list: only -live can tell.
func (c *checker) noAMI(ctx context.Context, nc *nodeClass) (bool, error) {
	subject := []string{"EC2NodeClass " + nc.Name}
	if c.opts.live.Enabled || latestAliasOnly(nc.AMISelectorTerms) {
		where := "the account and region, for " + c.k8sVersion()
		if !c.opts.live.Enabled {
			where = "any release the family publishes for " + c.k8sVersion()
		}
		c.out.add(Finding{Severity: SevError, Code: codeNoAMI, Where: nc.at, Subjects: subject,
			Message: fmt.Sprintf("spec.amiSelectorTerms select no AMI in %s, so no NodePool that uses the EC2NodeClass can launch a node", where),
			Fix:     "check the image IDs, names, owners and tags in spec.amiSelectorTerms, and for an alias that -k8s gives the cluster's version"})
		return true, nil
	}
	what := fmt.Sprintf("spec.amiSelectorTerms (%s) select nothing in the embedded catalog, which holds no account's images", describeTerms(nc.AMISelectorTerms))
	fix := "run with -live (and -region) to resolve the terms against the account"
	if alias := nc.Alias(); alias != "" {
		family, release, _ := strings.Cut(alias, "@")
		others, err := c.otherVersions(ctx, nc)
		if err != nil {
			return false, err
		}
		what = fmt.Sprintf("the embedded catalog has no %s release %s for %s; it holds every release the family's changelog records for Kubernetes %s, so whether %s exists beyond them only EC2 can say",
			family, release, c.k8sVersion(), versionRange(cli.OfflineKubernetesVersions()), alias)
		if len(others) > 0 {
			what = fmt.Sprintf("the embedded catalog records %s release %s for Kubernetes %s, not %s: on a cluster of Kubernetes %s the alias selects no AMI, and nothing launches; whether EC2 has one for %s only EC2 can say",
				family, release, versionRange(others), c.k8sVersion(), c.opts.k8s, c.opts.k8s)
			fix = fmt.Sprintf("give -k8s the cluster's version, or run with -live; for Kubernetes %s, pin a release published for it (or %s@latest)", c.opts.k8s, family)
		}
	}
	c.out.add(Finding{Severity: SevNotice, Code: codeCatalogLacks, Where: nc.at, Subjects: subject,
		Message: what + "; preflight checks the EC2NodeClass's userData, but not its AMIs or the instance types they run",
		Fix:     fix})
	return false, nil
}

// otherVersions are the Kubernetes versions, besides -k8s, for which the
// embedded catalog has images of the class's alias.
func (c *checker) otherVersions(ctx context.Context, nc *nodeClass) ([]string, error) {
	var out []string
	for _, k := range cli.OfflineKubernetesVersions() {
		if k == c.opts.k8s {
			continue
		}
		opts := amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: k}}
		if _, err := amiselect.Queries(nc.AMISelectorTerms, opts.Query); err != nil {
			continue // the family does not run this version (al2 after 1.32)
		}
		sel, err := amiselect.Resolve(ctx, c.client, nc.AMISelectorTerms, opts)
		if err != nil {
			return nil, fmt.Errorf("EC2NodeClass %q: resolving spec.amiSelectorTerms for Kubernetes %s: %w", nc.Name, k, err)
		}
		if len(sel.AMIs) > 0 {
			out = append(out, k)
		}
	}
	return out, nil
}

// versionRange writes versions, in order, as "1.29 to 1.33" when they
// follow each other, else as a list.
func versionRange(versions []string) string {
	if len(versions) == 1 {
		return versions[0]
	}
	minor := func(v string) int {
		_, m, _ := strings.Cut(v, ".")
		n, _ := strconv.Atoi(m)
		return n
	}
	last := len(versions) - 1
	for i := 1; i <= last; i++ {
		if minor(versions[i]) != minor(versions[i-1])+1 || last == 1 {
			return strings.Join(versions[:last], ", ") + " and " + versions[last]
		}
	}
	return versions[0] + " to " + versions[last]
}

func latestAliasOnly(terms []amiselect.Term) bool {
	for _, t := range terms {
		if !strings.HasSuffix(t.Alias, "@latest") {
			return false
		}
	}
	return len(terms) > 0
}

func describeTerms(terms []amiselect.Term) string {
	var parts []string
	for _, t := range terms {
		switch {
		case t.Alias != "":
			parts = append(parts, "alias "+t.Alias)
		case t.ID != "":
			parts = append(parts, "id "+t.ID)
		case t.SSMParameter != "":
			parts = append(parts, "ssmParameter "+t.SSMParameter)
		case t.Name != "":
			parts = append(parts, "name "+t.Name)
		default:
			parts = append(parts, "tags")
		}
	}
	return strings.Join(parts, ", ")
}

// refused notes the images the terms found and refused; a pending one is
// problem 5: Karpenter releases without the state filter select it.
func (c *checker) refused(nc *nodeClass, sel amiselect.Selection) {
	for _, r := range sel.Rejected {
		if r.Kind == amiselect.NotAvailable && strings.Contains(r.Reason, `"pending"`) {
			c.out.add(Finding{Severity: SevError, Code: codePendingAMI, Problem: 5, Where: nc.at, Subjects: []string{"EC2NodeClass " + nc.Name},
				Message: fmt.Sprintf("spec.amiSelectorTerms match %s (%s), an image still being built (state pending); Karpenter releases that do not filter on state select it as the newest and drift every node to it (karpenter-provider-aws #7652)", r.ImageID, r.Name),
				Fix:     "select only released images: pin the term to an id or an exact name, or tag images when the build finishes and select by that tag"})
		}
	}
}

func (c *checker) pair(ctx context.Context, np *nodePool, nc *nodeClass, cc *classCheck, allowed []compat.InstanceType) Pair {
	p := Pair{NodePool: np.Name, NodeClass: nc.Name, InstanceTypes: len(allowed)}
	for _, r := range cc.sel.Rejected {
		p.Refused = append(p.Refused, Refused{r.ImageID, r.Name, r.Reason})
	}
	if !cc.known || len(cc.sel.AMIs) == 0 {
		p.UserData = c.userData(np, nc, cc, cc.sel.AMIs)
		return p
	}
	m := amiselect.Map(allowed, cc.sel.AMIs)
	for _, g := range m.Groups {
		names := make([]string, len(g.InstanceTypes))
		for i, it := range g.InstanceTypes {
			names[i] = it.Name
		}
		p.AMIs = append(p.AMIs, AMIRow{g.AMI.ID, g.AMI.Name, string(g.AMI.Family), g.AMI.Arch, g.AMI.Variant.String(), len(names), examples(names)})
	}
	c.unmapped(&p, np, nc, allowed, m, cc.sel.AMIs)
	c.firstAMI(np, nc, cc.sel.AMIs, m)
	p.UserData = c.userData(np, nc, cc, booted(m))
	p.Capacity = c.capacity(np, nc, cc, m, p.UserData)
	p.Offerings = c.offerings(ctx, np, m)
	return p
}

// unmapped reports the types no selected AMI runs, by what Karpenter
// v1.14.1 does with them, which is not always what ec2select does:
//   - types whose architecture or GPU no selected AMI's requirements admit:
//     Karpenter leaves them out of the NodePool's offerings too, so pods
//     that need them stay pending (a warning; problem 1 for the
//     architecture), and nothing launching at all is an error;
//   - types the AMI's family does not support (a1 under AL2023): Karpenter
//     has no such rule (its AL2023 AMIs require an architecture and a
//     variant only), so it may launch them, and the nodes never join (a
//     warning);
//   - GPUs and accelerators no selected variant has drivers for (AMD,
//     Habana, Qualcomm): Karpenter matches its NVIDIA and Neuron variants
//     by GPU or accelerator count alone (pkg/providers/amifamily/types.go
//     L86-99), so it may launch them on an AMI without their drivers, and
//     when no variant of their architecture matches, it leaves them out; in
//     both cases without a word (a notice).
func (c *checker) unmapped(p *Pair, np *nodePool, nc *nodeClass, allowed []compat.InstanceType, m amiselect.Mapping, amis []amiselect.AMI) {
	where := fmt.Sprintf("with EC2NodeClass %q", nc.Name)
	subject := []string{"NodePool " + np.Name}
	if len(allowed) == 0 {
		c.out.add(Finding{Severity: SevError, Code: codeNothingLaunches, Where: np.at, Subjects: subject,
			Message: fmt.Sprintf("the NodePool's requirements admit no instance type of %s, so it launches nothing", c.report.Source),
			Fix:     "loosen spec.template.spec.requirements (a family or size that does not exist?)"})
		return
	}
	byFix := map[string][]compat.InstanceType{}
	var fixes []string
	var unsupported, wrongDriver, skipped []string
	for _, u := range m.Unmapped {
		it := u.InstanceType
		switch {
		case excludedBySupport(it, amis):
			unsupported = append(unsupported, it.Name)
		case (it.HasGPU() || it.HasAccelerator()) && karpenterVariant(it, amis):
			wrongDriver = append(wrongDriver, it.Name)
		case it.HasGPU() || it.HasAccelerator():
			skipped = append(skipped, it.Name)
		}
		if _, ok := byFix[u.Fix]; !ok {
			fixes = append(fixes, u.Fix)
		}
		byFix[u.Fix] = append(byFix[u.Fix], it)
	}
	sort.SliceStable(fixes, func(i, j int) bool { return len(byFix[fixes[i]]) > len(byFix[fixes[j]]) })
	for _, f := range fixes {
		names := typeNames(byFix[f])
		p.CannotLaunch = append(p.CannotLaunch, Unlaunchable{len(names), examples(names), f})
	}
	if len(m.Groups) == 0 {
		c.out.add(Finding{Severity: SevError, Code: codeNothingLaunches, Problem: archProblem(fixes[0]), Where: np.at, Subjects: subject,
			Message: fmt.Sprintf("%s, none of the %s the NodePool allows runs a selected AMI, so it launches nothing: %s", where, cli.Count(len(allowed), "instance type"), describeAMIs(m)),
			Fix:     fixes[0]})
		return
	}
	special := map[string]bool{}
	for _, n := range slices.Concat(unsupported, wrongDriver, skipped) {
		special[n] = true
	}
	for _, f := range fixes {
		var names []string
		for _, it := range byFix[f] {
			if !special[it.Name] {
				names = append(names, it.Name)
			}
		}
		if len(names) == 0 {
			continue
		}
		c.out.add(Finding{Severity: SevWarning, Code: codeCannotLaunch, Problem: archProblem(f), Where: np.at, Subjects: subject,
			Message: fmt.Sprintf("%s, %s the NodePool allows cannot launch, since no selected AMI runs %s (%s): Karpenter leaves them out of the NodePool's offerings too, so pods that need them stay pending", where, cli.Count(len(names), "instance type"), pronoun(len(names)), listed(names)),
			Fix:     f})
	}
	if len(unsupported) > 0 {
		reason := amis[0].Family.Support().Reason
		c.out.add(Finding{Severity: SevWarning, Code: codeCannotLaunch, Where: np.at, Subjects: subject,
			Message: fmt.Sprintf("%s, %s the NodePool allows cannot run the selected AMIs (%s): %s. Karpenter v1.14.1 does not know it (its AMIs require an architecture and a GPU variant only), so it may launch them, and their nodes never join", where, cli.Count(len(unsupported), "instance type"), listed(unsupported), reason),
			Fix:     fmt.Sprintf("keep them out with %s NotIn [%s] in the NodePool requirements", compat.LabelInstanceFamily, strings.Join(families(unsupported), ", "))})
	}
	if len(wrongDriver) > 0 {
		c.out.add(Finding{Severity: SevNotice, Code: codeCannotLaunch, Where: np.at, Subjects: subject,
			Message: fmt.Sprintf("%s, %s the NodePool allows have GPUs or accelerators no selected AMI has drivers for (%s); Karpenter v1.14.1 matches its NVIDIA and Neuron AMIs by GPU or accelerator count alone, so it may launch them on one of those, where their devices are unusable", where, cli.Count(len(wrongDriver), "instance type"), listed(wrongDriver)),
			Fix:     "none needed unless pods ask for their devices (amd.com/gpu, habana.ai/gaudi...); then select an AMI with their drivers, or keep them out with karpenter.k8s.aws/instance-gpu-manufacturer or instance-accelerator-manufacturer NotIn [...]"})
	}
	if len(skipped) > 0 {
		c.out.add(Finding{Severity: SevNotice, Code: codeCannotLaunch, Where: np.at, Subjects: subject,
			Message: fmt.Sprintf("%s, %s the NodePool allows have GPUs or accelerators no selected AMI variant serves (%s); Karpenter leaves them out of the NodePool's offerings without a word", where, cli.Count(len(skipped), "instance type"), listed(skipped)),
			Fix:     "none needed, unless you meant to run them: then select an AMI variant that serves them (the family's NVIDIA or Neuron AMIs)"})
	}
}

// excludedBySupport reports whether the family of the selected AMIs of
// it's architecture excludes it (compat.AMIFamily.Support).
func excludedBySupport(it compat.InstanceType, amis []amiselect.AMI) bool {
	for _, a := range amis {
		if a.Arch == it.Arch && slices.Contains(a.Family.Support().Excluded, it.Family) {
			return true
		}
	}
	return false
}

// karpenterVariant reports whether Karpenter v1.14.1 would map it to one
// of the AMIs by its variant requirements, which count GPUs and
// accelerators without asking whose they are: NVIDIA needs
// instance-gpu-count, Neuron instance-accelerator-count.
func karpenterVariant(it compat.InstanceType, amis []amiselect.AMI) bool {
	for _, a := range amis {
		if a.Arch != it.Arch {
			continue
		}
		if a.Variant == amiselect.NVIDIA && it.HasGPU() || a.Variant == amiselect.Neuron && it.HasAccelerator() {
			return true
		}
	}
	return false
}

// families are the instance families of names, in order, once each.
func families(names []string) []string {
	var out []string
	for _, n := range names {
		f, _, _ := strings.Cut(n, ".")
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func describeAMIs(m amiselect.Mapping) string {
	if err := m.Err(); err != nil {
		return strings.TrimPrefix(err.Error(), "amiselect: ")
	}
	return ""
}

func archProblem(fix string) int {
	if strings.Contains(fix, compat.LabelArch) {
		return 1
	}
	return 0
}

// allAccelerated reports whether every type has a GPU or an accelerator.
func allAccelerated(types []compat.InstanceType) bool {
	for _, it := range types {
		if !it.HasGPU() && !it.HasAccelerator() {
			return false
		}
	}
	return len(types) > 0
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// wildcards reports problem 4: Karpenter refuses a NodePool with a wildcard
// value, so "prefer c7i-flex, then anything" needs weighted NodePools.
func (c *checker) wildcards(np *nodePool) {
	suggested := c.tiers(np)
	for _, w := range np.wildcards {
		c.out.add(Finding{Severity: SevError, Code: codeWildcard, Problem: 4, Where: w.at, Subjects: []string{"NodePool " + np.Name},
			Message: fmt.Sprintf("requirement %s has the value %q; Karpenter has no wildcards and refuses the NodePool", w.key, w.value),
			Fix: "write the preference as weighted NodePools: one with weight 100 and the preferred values listed (e.g. instance-family In [c7i-flex]), " +
				"one with weight 1 and NotIn those values, so the fallback takes everything else; weighting.Policy.NodePools generates them from tiers such as flex=100:c7i-flex;rest=1:*",
			Suggested: suggested})
	}
}

// tiers turns an instance-family requirement such as In ["c7i-flex", "*"]
// into two weighted tiers, the listed families first, and expands them into
// NodePools against the catalog; "" when the NodePool does not fit that
// shape.
func (c *checker) tiers(np *nodePool) string {
	if np.base == nil || len(np.wildcards) != 1 || np.wildcards[0].key != compat.LabelInstanceFamily {
		return ""
	}
	var preferred []string
	for _, v := range np.values {
		if !strings.ContainsAny(v, "*?") {
			preferred = append(preferred, v)
		}
	}
	if len(preferred) == 0 {
		return ""
	}
	policy := weighting.Policy{Tiers: []weighting.Tier{
		{Name: "preferred", Weight: 100, Families: preferred},
		{Name: "fallback", Weight: 1, Families: []string{np.wildcards[0].value}},
	}}
	base := *np.base
	base.Weight = 0
	pools, err := policy.NodePools(c.types, base)
	if err != nil {
		return ""
	}
	var docs []string
	for _, p := range pools {
		out, err := p.EncodeYAML()
		if err != nil {
			return ""
		}
		docs = append(docs, string(out))
	}
	return strings.Join(docs, "---\n")
}

// maxExamples is how many instance type names a row or finding lists.
const maxExamples = 4

// examples is the first few names, for the report's rows.
func examples(names []string) []string {
	if len(names) <= maxExamples {
		return names
	}
	return names[:maxExamples:maxExamples]
}

// listed is names for a line of text: the first few and how many more.
func listed(names []string) string {
	s := strings.Join(examples(names), ", ")
	if n := len(names) - maxExamples; n > 0 {
		s += fmt.Sprintf(" and %d more", n)
	}
	return s
}

// booted are the images a NodePool's new nodes boot: the AMI of each group
// of its mapping. The selection behind the mapping already holds back the
// images -min-age soaks, so the scoped userData problems (arisesOn) and the
// capacity estimates judge the same images a launch would use.
func booted(m amiselect.Mapping) []amiselect.AMI {
	out := make([]amiselect.AMI, len(m.Groups))
	for i, g := range m.Groups {
		out[i] = g.AMI
	}
	return out
}
