package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/userdata"
	"github.com/ec2select/ec2select/weighting"
)

// Severity: an error fails the check (exit status 1); a warning is printed
// and does not.
const (
	sevError   = "error"
	sevWarning = "warning"
)

// Report is everything preflight found; -o json prints it as is.
type Report struct {
	Source            string    `json:"source"`
	KubernetesVersion string    `json:"kubernetesVersion"`
	InstanceTypes     int       `json:"instanceTypes"`
	Pairs             []Pair    `json:"pairs"`
	Order             []Ordered `json:"nodePoolOrder"`
	Overlaps          []Overlap `json:"overlaps"`
	Findings          []Finding `json:"findings"`
	Ignored           []string  `json:"ignored,omitempty"`
	Errors            int       `json:"errors"`
	Warnings          int       `json:"warnings"`
}

// Pair is one NodePool with the EC2NodeClass its nodeClassRef names.
type Pair struct {
	NodePool      string         `json:"nodePool"`
	NodeClass     string         `json:"nodeClass"`
	AMIs          []AMIRow       `json:"amis"`
	Refused       []Refused      `json:"refused"`
	InstanceTypes int            `json:"instanceTypes"` // the NodePool allows
	CannotLaunch  []Unlaunchable `json:"cannotLaunch"`
	UserData      *UserData      `json:"userData,omitempty"`
}

type AMIRow struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Family        string   `json:"family"`
	Arch          string   `json:"arch"`
	Variant       string   `json:"variant"`
	InstanceTypes int      `json:"instanceTypes"`
	Examples      []string `json:"examples"`
}

type Refused struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Unlaunchable is a set of instance types with the same fix.
type Unlaunchable struct {
	Count    int      `json:"count"`
	Examples []string `json:"examples"`
	Fix      string   `json:"fix"`
}

type UserData struct {
	Family   string   `json:"family"`
	Verdict  string   `json:"verdict"`
	Reason   string   `json:"reason,omitempty"`
	Taints   []string `json:"taints"`
	Problems []string `json:"problems"`
}

type Ordered struct {
	NodePool string `json:"nodePool"`
	Weight   int32  `json:"weight"`
}

type Overlap struct {
	NodePools     [2]string `json:"nodePools"`
	InstanceTypes int       `json:"instanceTypes"`
	First         string    `json:"first"`
}

// Finding is one problem, with where it is and the fix. Problem is the
// number of the DESIGN problem it is (1 to 5), or 0.
type Finding struct {
	Severity string `json:"severity"`
	Problem  int    `json:"problem,omitempty"`
	Where    string `json:"where"`
	Message  string `json:"message"`
	Fix      string `json:"fix"`
	// Suggested is manifests that fix the finding, when preflight can
	// write them (problem 4's weighted NodePools).
	Suggested string `json:"suggested,omitempty"`
}

func newFinding(severity string, problem int, where, message, fix string) Finding {
	return Finding{Severity: severity, Problem: problem, Where: where, Message: message, Fix: fix}
}

// ec2API is what preflight asks EC2.
type ec2API interface {
	ec2.DescribeImagesAPIClient
	ec2.DescribeInstanceTypesAPIClient
}

// checker holds what every pair needs.
type checker struct {
	client ec2API
	ssm    amiselect.SSMClient
	k8s    string
	types  []compat.InstanceType
	report *Report
}

func (c *checker) find(f Finding) {
	c.report.Findings = append(c.report.Findings, f)
}

// check runs every check over m.
func check(ctx context.Context, client ec2API, ssm amiselect.SSMClient, source, k8s string, m manifests) (Report, error) {
	types, _, err := compat.LoadInstanceTypes(ctx, client, nil) // the others (mac, i386) run no EKS node
	if err != nil {
		return Report{}, err
	}
	r := &Report{Source: source, KubernetesVersion: k8s, InstanceTypes: len(types), Ignored: m.ignored}
	c := &checker{client: client, ssm: ssm, k8s: k8s, types: types, report: r}
	classes := map[string]nodeClass{}
	for _, nc := range m.classes {
		classes[nc.name] = nc
	}
	selections := map[string]amiselect.Selection{}
	allowed := map[string][]compat.InstanceType{}
	var decoded []weighting.NodePool
	for _, np := range m.pools {
		if len(np.wildcards) > 0 {
			c.wildcards(np)
			continue
		}
		decoded = append(decoded, np.NodePool)
		allowed[np.Name] = c.allowed(np.NodePool)
		nc, ok := classes[np.NodeClassRef.Name]
		if !ok {
			c.find(newFinding(sevError, 0, np.at, fmt.Sprintf("NodePool %q: nodeClassRef names EC2NodeClass %q, which is not in the input", np.Name, np.NodeClassRef.Name),
				"pass the file with that EC2NodeClass too, or correct spec.template.spec.nodeClassRef.name"))
			continue
		}
		sel, ok := selections[nc.name]
		if !ok {
			if sel, err = c.resolve(ctx, nc); err != nil {
				return Report{}, err
			}
			selections[nc.name] = sel
		}
		r.Pairs = append(r.Pairs, c.pair(np, nc, sel, allowed[np.Name]))
	}
	c.order(decoded, allowed)
	for _, f := range r.Findings {
		if f.Severity == sevError {
			r.Errors++
		} else {
			r.Warnings++
		}
	}
	return *r, nil
}

// checkTerms validates every class's terms, even one no NodePool uses yet.
func checkTerms(m manifests, k8s string) error {
	for _, nc := range m.classes {
		if _, err := amiselect.Queries(nc.terms, amiselect.QueryOptions{KubernetesVersion: k8s}); err != nil {
			return cli.Inputf("%s: EC2NodeClass %q: spec.amiSelectorTerms: %v", nc.at, nc.name, err)
		}
	}
	return nil
}

// wildcards reports problem 4: Karpenter refuses a NodePool with a wildcard
// value, so "prefer c7i-flex, then anything" needs weighted NodePools.
func (c *checker) wildcards(np nodePool) {
	suggested := c.tiers(np)
	for _, w := range np.wildcards {
		c.find(Finding{Severity: sevError, Problem: 4, Where: w.at,
			Message: fmt.Sprintf("NodePool %q: requirement %s has the value %q; Karpenter has no wildcards and rejects the NodePool", np.Name, w.key, w.value),
			Fix: "write the preference as weighted NodePools: one with weight 100 and the preferred values listed (e.g. instance-family In [c7i-flex]), " +
				"one with weight 1 and NotIn those values, so the fallback takes everything else; weighting.Policy.NodePools generates them from tiers such as flex=100:c7i-flex;rest=1:*",
			Suggested: suggested})
	}
}

// tiers turns an instance-family requirement such as In ["c7i-flex", "*"]
// into two weighted tiers, the listed families first, and expands them into
// NodePools against the catalog; "" when the NodePool does not fit that
// shape.
func (c *checker) tiers(np nodePool) string {
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

// allowed is the catalog's types that np's requirements admit. Keys an
// instance type does not define (capacity type, zone, the user's own
// labels) are left to the scheduler.
func (c *checker) allowed(np weighting.NodePool) []compat.InstanceType {
	reqs, err := compat.NewRequirements(np.Requirements...)
	if err != nil {
		return nil // DecodeNodePool validated them
	}
	lenient := compat.AllowUndefined(reqs.Keys()...)
	var out []compat.InstanceType
	for _, it := range c.types {
		if _, conflict := it.Conflict(reqs, lenient); !conflict {
			out = append(out, it)
		}
	}
	return out
}

func (c *checker) resolve(ctx context.Context, nc nodeClass) (amiselect.Selection, error) {
	opts := amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: c.k8s}, SSM: c.ssm}
	sel, err := amiselect.Resolve(ctx, c.client, nc.terms, opts)
	if err != nil {
		return amiselect.Selection{}, fmt.Errorf("EC2NodeClass %q: resolving spec.amiSelectorTerms: %w", nc.name, err)
	}
	// Resolve asks EC2 for available images only; what the terms also
	// match in other states is what a controller without that filter
	// would see (problem 5).
	wide, err := c.anyState(ctx, nc.terms, opts)
	if err != nil {
		return amiselect.Selection{}, fmt.Errorf("EC2NodeClass %q: %w", nc.name, err)
	}
	sel.Rejected = wide.Rejected
	return sel, nil
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

func (c *checker) pair(np nodePool, nc nodeClass, sel amiselect.Selection, allowed []compat.InstanceType) Pair {
	p := Pair{NodePool: np.Name, NodeClass: nc.name, InstanceTypes: len(allowed)}
	where := fmt.Sprintf("NodePool %q × EC2NodeClass %q", np.Name, nc.name)
	c.refused(&p, nc, sel)
	if len(sel.AMIs) == 0 {
		c.find(newFinding(sevError, 0, nc.at, where+": the AMI selector terms select no AMI, so no node can launch",
			"check the image IDs, names, owners and tags in spec.amiSelectorTerms against the account and region (-k8s "+c.k8s+" for an alias)"))
	}
	m := amiselect.Map(allowed, sel.AMIs)
	for _, g := range m.Groups {
		var names []string
		for _, it := range g.InstanceTypes {
			names = append(names, it.Name)
		}
		p.AMIs = append(p.AMIs, AMIRow{g.AMI.ID, g.AMI.Name, string(g.AMI.Family), g.AMI.Arch, g.AMI.Variant.String(), len(names), examples(names)})
	}
	c.unmapped(&p, where, np, m)
	c.firstAMI(where, np, sel.AMIs, m)
	p.UserData = c.userData(where, np, nc)
	return p
}

// refused lists the images the terms found and refused; a pending one is
// problem 5: Karpenter releases without the state filter select it.
func (c *checker) refused(p *Pair, nc nodeClass, sel amiselect.Selection) {
	for _, r := range sel.Rejected {
		p.Refused = append(p.Refused, Refused{r.ImageID, r.Name, r.Reason})
		if r.Kind == amiselect.NotAvailable && strings.Contains(r.Reason, `"pending"`) {
			c.find(newFinding(sevError, 5, nc.at,
				fmt.Sprintf("EC2NodeClass %q: spec.amiSelectorTerms match %s (%s), an image still being built (state pending); Karpenter releases that do not filter on state select it as the newest and drift every node to it (karpenter-provider-aws #7652)", nc.name, r.ImageID, r.Name),
				"select only released images: pin the term to an id or an exact name, or tag images when the build finishes and select by that tag"))
		}
	}
}

// unmapped groups the types no selected AMI can run by their fix.
func (c *checker) unmapped(p *Pair, where string, np nodePool, m amiselect.Mapping) {
	byFix := map[string][]string{}
	for _, u := range m.Unmapped {
		byFix[u.Fix] = append(byFix[u.Fix], u.InstanceType.Name)
	}
	fixes := make([]string, 0, len(byFix))
	for f := range byFix {
		fixes = append(fixes, f)
	}
	sort.Slice(fixes, func(i, j int) bool {
		if a, b := len(byFix[fixes[i]]), len(byFix[fixes[j]]); a != b {
			return a > b
		}
		return fixes[i] < fixes[j]
	})
	for _, f := range fixes {
		names := byFix[f]
		p.CannotLaunch = append(p.CannotLaunch, Unlaunchable{len(names), examples(names), f})
		problem := 0
		if strings.Contains(f, compat.LabelArch) {
			problem = 1
		}
		c.find(newFinding(sevError, problem, np.at,
			fmt.Sprintf("%s: %s the NodePool allows cannot launch: no selected AMI runs %s (%s)", where, cli.Count(len(names), "instance type"), pronoun(len(names)), listed(names)),
			f))
	}
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// firstAMI warns of problem 2 (karpenter-provider-aws #7925): a controller
// that takes the first selected AMI of a node's architecture, instead of
// mapping strictly by the node's labels, files these nodes under an AMI
// they do not run and never learns their capacity.
func (c *checker) firstAMI(where string, np nodePool, amis []amiselect.AMI, m amiselect.Mapping) {
	first := map[string]amiselect.AMI{}
	for _, a := range amis {
		if _, ok := first[a.Arch]; !ok {
			first[a.Arch] = a
		}
	}
	trapped := map[string][]string{} // by architecture
	for _, g := range m.Groups {
		if f := first[g.AMI.Arch]; f.ID != g.AMI.ID || f.Variant != g.AMI.Variant {
			for _, it := range g.InstanceTypes {
				trapped[g.AMI.Arch] = append(trapped[g.AMI.Arch], it.Name)
			}
		}
	}
	var parts []string
	n := 0
	for _, arch := range []string{compat.ArchAMD64, compat.ArchARM64} {
		names := trapped[arch]
		if len(names) == 0 {
			continue
		}
		sort.Strings(names)
		n += len(names)
		parts = append(parts, fmt.Sprintf("%s (%s) would be filed under %s", cli.Count(len(names), arch+" type"), listed(names), first[arch]))
	}
	if n == 0 {
		return
	}
	c.find(newFinding(sevWarning, 2, np.at,
		fmt.Sprintf("%s: %s run another AMI than the first selected for their architecture; a controller that takes the first AMI (karpenter-provider-aws #7925) files their nodes under it and never learns their real memory: %s",
			where, cli.Count(n, "instance type"), strings.Join(parts, "; ")),
		"preflight shows the AMI each type really gets (above) but cannot see which controller release runs or what its capacity cache holds; "+
			"run a provider that maps by the node's labels (capacity.Cache.Observe does), or keep GPU and non-GPU types in separate NodePools with EC2NodeClasses that select only their variant"))
}

// userData renders the NodePool's taints into the EC2NodeClass's userData
// as Karpenter would (for Custom it adds nothing), and lints the result:
// the taints the kubelet really registers must include those Karpenter
// needs at registration (see requiredTaints; problem 3).
func (c *checker) userData(where string, np nodePool, nc nodeClass) *UserData {
	cfg := nc.cfg
	cfg.ClusterName, cfg.APIServerEndpoint, cfg.ClusterCIDR = "preflight", "https://preflight.example.eks.amazonaws.com", "10.100.0.0/16"
	cfg.CABundle = base64.StdEncoding.EncodeToString([]byte(placeholderCA))
	required := requiredTaints(np.NodePool)
	cfg.RequiredTaints = required
	if nc.family != compat.Custom {
		cfg.Taints, cfg.StartupTaints = np.Taints, np.StartupTaints
	}
	u := &UserData{Family: string(nc.family)}
	data, err := userdata.Render(nc.family, cfg)
	var report userdata.Report
	var le *userdata.LintError
	switch {
	case errors.As(err, &le):
		report = le.Report
	case err != nil:
		u.Verdict = "not rendered"
		u.Reason = err.Error()
		c.find(newFinding(sevError, 0, nc.at, where+": the userData cannot be rendered: "+err.Error(), "correct spec.userData, spec.kubelet or the NodePool's taints as the message says"))
		return u
	default:
		if report, err = userdata.Lint(nc.family, data, required); err != nil {
			u.Verdict, u.Reason = "not linted", err.Error()
			c.find(newFinding(sevError, 0, np.at, where+": "+err.Error(), "correct the NodePool's taints"))
			return u
		}
	}
	c.unsynced(where, np, nc, report)
	return c.verdict(u, where, nc, report)
}

func (c *checker) verdict(u *UserData, where string, nc nodeClass, report userdata.Report) *UserData {
	u.Verdict, u.Reason = report.Verdict.String(), report.Reason
	for _, t := range report.Taints {
		u.Taints = append(u.Taints, fmt.Sprintf("%s (%s)", t.Taint, t.Source))
	}
	for _, p := range report.Problems {
		u.Problems = append(u.Problems, p.String())
		if p.Severity != userdata.SeverityError {
			continue
		}
		problem := 0
		if p.Code == userdata.CodeEqualsForm || p.Code == userdata.CodeRequiredTaintMissing {
			problem = 3
		}
		at := nc.at
		if nc.userDataLine > 0 && p.Line > 0 && p.Part == "" {
			at = fmt.Sprintf("%s:%d", nc.at[:strings.LastIndex(nc.at, ":")], nc.userDataLine+p.Line-1)
		}
		c.find(newFinding(sevError, problem, at, fmt.Sprintf("%s: spec.userData line %d: %s", where, p.Line, p.Message), p.Fix))
	}
	if report.Verdict != userdata.Joins && !report.HasErrors() {
		c.find(newFinding(sevError, 3, nc.at, fmt.Sprintf("%s: the node %s: %s", where, report.Verdict, report.Reason),
			"make spec.userData's boot path one the analysis can follow, or let the AMI family's own userData join the node"))
	}
	return u
}

// requiredTaints are the taints the kubelet itself must register for
// Karpenter (v1.14) to register the node safely: karpenter.sh/unregistered,
// which holds pods off until Karpenter has copied the NodePool's taints and
// startup taints onto the node (see syncedTaints for when it does not).
func requiredTaints(weighting.NodePool) []userdata.Taint {
	return []userdata.Taint{userdata.UnregisteredTaint()}
}

// unsynced reports the NodePool taints the node lacks when its kubelet
// registers the label karpenter.sh/do-not-sync-taints=true: Karpenter then
// leaves the node's taints alone, so they must all come from the userData.
func (c *checker) unsynced(where string, np nodePool, nc nodeClass, report userdata.Report) {
	if report.Verdict != userdata.Joins || report.Labels[doNotSyncTaints] != "true" {
		return
	}
	has := map[string]bool{}
	for _, t := range report.Taints {
		has[t.Key+":"+string(t.Effect)] = true
	}
	for _, t := range append(append([]userdata.Taint(nil), np.StartupTaints...), np.Taints...) {
		if !has[t.Key+":"+string(t.Effect)] {
			c.find(newFinding(sevError, 3, nc.at,
				fmt.Sprintf("%s: the userData registers the label %s=true, so Karpenter does not copy the NodePool's taints onto the node, and the kubelet does not register %s", where, doNotSyncTaints, t),
				fmt.Sprintf("add %s to the kubelet's --register-with-taints in spec.userData, or drop the %s label", t, doNotSyncTaints)))
		}
	}
}

// doNotSyncTaints is the node label that stops Karpenter copying a
// NodeClaim's taints onto its node at registration.
const doNotSyncTaints = "karpenter.sh/do-not-sync-taints"

// order reports Karpenter's NodePool order and the NodePools that offer
// the same instance types; at equal weight the order is by name, which is
// rarely what the user meant.
func (c *checker) order(pools []weighting.NodePool, allowed map[string][]compat.InstanceType) {
	ordered := weighting.Order(pools)
	for _, np := range ordered {
		c.report.Order = append(c.report.Order, Ordered{np.Name, np.Weight})
	}
	for i, a := range ordered {
		names := map[string]bool{}
		for _, it := range allowed[a.Name] {
			names[it.Name] = true
		}
		for _, b := range ordered[i+1:] {
			n := 0
			for _, it := range allowed[b.Name] {
				if names[it.Name] {
					n++
				}
			}
			if n == 0 {
				continue
			}
			c.report.Overlaps = append(c.report.Overlaps, Overlap{[2]string{a.Name, b.Name}, n, a.Name})
			if a.Weight == b.Weight {
				c.find(newFinding(sevWarning, 0, "NodePools "+a.Name+", "+b.Name,
					fmt.Sprintf("NodePools %q and %q both allow %s at the same weight %d; Karpenter tries %q first only because its name sorts later", a.Name, b.Name, cli.Count(n, "instance type"), a.Weight, a.Name),
					"give the one to try first a higher spec.weight, or make their requirements disjoint (NotIn)"))
			}
		}
	}
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
