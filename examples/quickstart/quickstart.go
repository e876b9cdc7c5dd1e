package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/offerings"
	"github.com/ec2select/ec2select/userdata"
	"github.com/ec2select/ec2select/weighting"
)

// The simulated node of step 5: the kubelet of an m5.large reports less
// memory than the 8 GiB EC2 publishes (the kernel and firmware keep some).
const (
	nodeInstanceType = "m5.large"
	nodeHostname     = "ip-10-0-1-23.ec2.internal"
	nodeMemoryKiB    = 7_950_336 // capacity.memory as the node reports it: 7950336Ki
)

// The demo cluster of step 6. demoCA is a real, self-signed certificate
// (CN=kubernetes, Ed25519) whose key was thrown away: valid PEM, trusted by
// nothing.
const (
	demoCluster  = "demo"
	demoEndpoint = "https://0123456789ABCDEF0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com"
	demoCA       = `-----BEGIN CERTIFICATE-----
MIIBKzCB3qADAgECAgEBMAUGAytlcDAVMRMwEQYDVQQDDAprdWJlcm5ldGVzMB4X
DTI2MTEyMTA1MjY1MVoXDTM2MTExODA1MjY1MVowFTETMBEGA1UEAwwKa3ViZXJu
ZXRlczAqMAUGAytlcAMhAAFY1MNSfXodW083/zd72EiJnW3n9N/Rh9jjjatVM934
o1MwUTAdBgNVHQ4EFgQUD+3HBRzn17o959kDc+8vZDADlAUwHwYDVR0jBBgwFoAU
D+3HBRzn17o959kDc+8vZDADlAUwDwYDVR0TAQH/BAUwAwEB/zAFBgMrZXADQQCy
zcYr+524c4nNQNTFTzzx+PqO0r4sgcZSgs7Eh2J6b8AZuUbBX/uJvEJr6IRfpN1V
X/6Kh1/PD2k7j1xjtgAF
-----END CERTIFICATE-----
`
	demoServiceCIDR = "10.100.0.0/16"
	demoClusterDNS  = "10.100.0.10"
)

// How much of long lists and long userData the report shows.
const (
	maxExamples      = 3  // instance type names per AMI, NodePool or tier
	maxUserDataLines = 32 // whole userData up to this many lines, else the first ones
)

// catalogDate is the fake's clock: the embedded catalog's date, so that
// the spot prices it serves (a walk in time) are the same on every run.
var catalogDate = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)

func quickstart(ctx context.Context, out io.Writer, opts options) error {
	backend := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return catalogDate }})
	srv := ec2fake.NewServer(backend)
	defer srv.Close()
	client := ec2fake.NewClient(srv.URL)

	// The report is written only once every step has succeeded: a failure
	// prints the error alone, not half a report.
	r := &report{}
	r.printf("ec2select quickstart: the fake EC2's catalog, over HTTP, through a real *ec2.Client\n")

	sel, err := amiselect.Resolve(ctx, client, []amiselect.Term{{Alias: opts.alias}},
		amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: opts.k8s}})
	if err != nil {
		return fmt.Errorf("step 1: %w", err)
	}
	if len(sel.AMIs) == 0 {
		return fmt.Errorf("step 1: %s for Kubernetes %s selects no AMI in the catalog, which has releases for Kubernetes 1.31 to 1.36; change -alias or -k8s", opts.alias, opts.k8s)
	}
	r.selection(opts, sel)

	types, skipped, err := compat.LoadInstanceTypes(ctx, client, nil)
	if err != nil {
		return fmt.Errorf("step 2: %w", err)
	}
	r.conversion(types, skipped)
	slices.SortFunc(types, bySize)

	m := amiselect.Map(types, sel.AMIs)
	if err := m.Err(); err != nil {
		return fmt.Errorf("step 3: %w", err)
	}
	r.mapping(m)

	var mapped []compat.InstanceType
	for _, g := range m.Groups {
		mapped = append(mapped, g.InstanceTypes...)
	}
	prices, err := effectivePrices(ctx, srv.URL, client, mapped)
	if err != nil {
		return fmt.Errorf("step 4: %w", err)
	}
	ranking, err := opts.policy.Rank(mapped, weighting.RankOptions{Price: offerings.CheapestByType(prices)})
	if err != nil {
		return fmt.Errorf("step 4: %w", err)
	}
	pools, err := opts.policy.NodePools(mapped, weighting.NodePool{Name: "default", NodeClassRef: weighting.NodeClassRef{Name: "default"}})
	if err != nil {
		// The policy is valid on its own (parseFlags checked), so this is
		// the policy against the catalog: a tier that admits nothing.
		return cli.Usagef("-policy %q does not fit the catalog: %w", opts.policyText, err)
	}
	r.ranking(ranking, pools, prices)

	node, err := r.capacity(m, sel.AMIs)
	if err != nil {
		return fmt.Errorf("step 5: %w", err)
	}

	family := opts.family
	if family == "" {
		if family = node.ami.Family; family == compat.Custom {
			err = fmt.Errorf("AMI %s is a custom image with no userData format of its own; pass -family", node.ami.ID)
			return fmt.Errorf("step 6: %w", err)
		}
	}
	cfg := demoConfig(nodePoolOf(ranking, pools, nodeInstanceType))
	data, err := userdata.Render(family, cfg)
	if err != nil {
		return fmt.Errorf("step 6: %w", err)
	}
	r.userData(family, opts.family != "", node.ami, data, cfg.CABundle)

	rep, err := userdata.Lint(family, data, cfg.Required())
	if err != nil {
		return fmt.Errorf("step 7: %w", err)
	}
	if len(rep.Problems) > 0 {
		return fmt.Errorf("step 7: userdata.Lint finds problems in what userdata.Render wrote, which is a bug in one of them:\n%s", rep)
	}
	r.lint(family, rep, cfg)
	_, err = out.Write(r.Bytes())
	return err
}

// bySize orders instance types as EC2's documentation lists them: by
// family, then smallest first.
func bySize(a, b compat.InstanceType) int {
	return cmp.Or(strings.Compare(a.Family, b.Family), cmp.Compare(a.VCPU, b.VCPU),
		cmp.Compare(a.MemoryMiB, b.MemoryMiB), strings.Compare(a.Name, b.Name))
}

// effectivePrices prices every offering of the mapped types in the fake's
// region: the embedded price snapshot, then the prices read live through a
// real *pricing.Client and *ec2.Client (on-demand with Karpenter's
// filters, the current spot prices), over the region's zones and
// offerings as offerings.Load reads them.
func effectivePrices(ctx context.Context, url string, client *ec2.Client, types []compat.InstanceType) ([]offerings.Price, error) {
	region, err := offerings.Load(ctx, client, offerings.LoadOptions{})
	if err != nil {
		return nil, err
	}
	names := make([]string, len(types))
	for i, it := range types {
		names[i] = it.Name
	}
	region.InstanceTypes = names
	live, err := offerings.LoadPriceSnapshot(ctx, offerings.PriceSources{Pricing: ec2fake.NewPricingClient(url), EC2: client}, region.Name, offerings.PriceLoadOptions{Now: func() time.Time { return catalogDate }})
	if err != nil {
		return nil, err
	}
	return offerings.NewPriceBook(offerings.EmbeddedPriceSnapshot(), live).PriceAll(region.Offerings(), offerings.PriceOptions{})
}

// demoConfig is the demo cluster's userData config for a node of the
// given NodePool: one startup taint (a CNI that is not ready yet), two
// labels, and Karpenter v1's required taint by default.
func demoConfig(nodePool string) userdata.Config {
	return userdata.Config{
		ClusterName:       demoCluster,
		APIServerEndpoint: demoEndpoint,
		CABundle:          base64.StdEncoding.EncodeToString([]byte(demoCA)),
		ClusterCIDR:       demoServiceCIDR,
		Kubelet:           userdata.KubeletConfig{ClusterDNS: []string{demoClusterDNS}},
		StartupTaints:     []userdata.Taint{{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: userdata.NoExecute}},
		Labels:            map[string]string{"example.com/team": "platform", compat.LabelNodePool: nodePool},
	}
}

// nodePoolOf names the NodePool whose tier holds the instance type.
func nodePoolOf(ranking weighting.Ranking, pools []weighting.NodePool, name string) string {
	for i, t := range ranking.Tiers {
		if slices.ContainsFunc(t.InstanceTypes, func(it compat.InstanceType) bool { return it.Name == name }) && i < len(pools) {
			return pools[i].Name
		}
	}
	return "default"
}

// report collects the steps' tables.
type report struct {
	bytes.Buffer
}

func (r *report) printf(format string, args ...any) {
	fmt.Fprintf(r, format, args...)
}

// title starts a step.
func (r *report) title(format string, args ...any) {
	r.printf("\n"+format+"\n", args...)
}

// table writes rows as aligned columns, indented by two spaces.
func (r *report) table(rows [][]string) {
	tw := tabwriter.NewWriter(r, 0, 0, 2, ' ', 0)
	for _, row := range rows {
		fmt.Fprintln(tw, "  "+strings.Join(row, "\t"))
	}
	tw.Flush()
}

func (r *report) selection(opts options, sel amiselect.Selection) {
	r.title("1. AMIs: alias %s for Kubernetes %s selects %s; %s refused", opts.alias, opts.k8s, cli.AMIs(sel.AMIs), cli.Count(len(sel.Rejected), "image"))
	rows := [][]string{{"AMI", "NAME", "ARCH", "VARIANT", "CREATED"}}
	for _, a := range sel.AMIs {
		rows = append(rows, []string{a.ID, a.Name, a.Arch, a.Variant.String(), a.Created.Format("2006-01-02 15:04")})
	}
	r.table(rows)
	if len(sel.Rejected) == 0 {
		r.printf("  refused: none\n")
		return
	}
	rows = [][]string{{"REFUSED", "NAME", "KIND", "REASON"}}
	for _, rej := range sel.Rejected {
		rows = append(rows, []string{rej.ImageID, rej.Name, rej.Kind.String(), rej.Reason})
	}
	r.table(rows)
}

// conversion reports the instance types converted, and those no EKS node
// can run on.
func (r *report) conversion(types []compat.InstanceType, skipped []compat.SkippedType) {
	archs := map[string]int{}
	for _, it := range types {
		archs[it.Arch]++
	}
	r.title("2. Instance types: compat.LoadInstanceTypes, %d types; %d converted (amd64 %d, arm64 %d), %d skipped",
		len(types)+len(skipped), len(types), archs[compat.ArchAMD64], archs[compat.ArchARM64], len(skipped))
	if len(skipped) > 0 {
		failed := [][]string{{"SKIPPED", "REASON"}}
		for _, s := range skipped {
			failed = append(failed, []string{s.Name, s.Err.Error()})
		}
		r.table(failed)
	}
}

func (r *report) mapping(m amiselect.Mapping) {
	n := 0
	for _, g := range m.Groups {
		n += len(g.InstanceTypes)
	}
	r.title("3. Mapping: one AMI per instance type (%d mapped, %d unmapped)", n, len(m.Unmapped))
	rows := [][]string{{"AMI", "FAMILY", "ARCH", "VARIANT", "TYPES", "FOR EXAMPLE"}}
	for _, g := range m.Groups {
		names := make([]string, len(g.InstanceTypes))
		for i, it := range g.InstanceTypes {
			names[i] = it.Name
		}
		rows = append(rows, []string{g.AMI.ID, g.AMI.Family.String(), g.AMI.Arch, g.AMI.Variant.String(),
			strconv.Itoa(len(g.InstanceTypes)), examples(names)})
	}
	r.table(rows)
	if len(m.Unmapped) == 0 {
		return
	}
	// Types with the same fix share a row, in the order of their first type.
	var fixes []string
	byFix := map[string][]string{}
	for _, u := range m.Unmapped {
		if _, ok := byFix[u.Fix]; !ok {
			fixes = append(fixes, u.Fix)
		}
		byFix[u.Fix] = append(byFix[u.Fix], u.InstanceType.Name)
	}
	rows = [][]string{{"TYPES", "UNMAPPED", "FIX"}}
	for _, fix := range fixes {
		rows = append(rows, []string{strconv.Itoa(len(byFix[fix])), examples(byFix[fix]), fix})
	}
	r.printf("\n")
	r.table(rows)
}

func (r *report) ranking(ranking weighting.Ranking, pools []weighting.NodePool, prices []offerings.Price) {
	r.title("4. Ranking: %d tiers, %d unranked, cheapest effective price first within a tier; one Karpenter NodePool per tier", len(ranking.Tiers), len(ranking.Unranked))
	cheapest := map[string]offerings.Price{}
	for _, p := range slices.SortedFunc(slices.Values(prices), offerings.ComparePrices) {
		if _, ok := cheapest[p.Offering.InstanceType]; !ok && p.Known {
			cheapest[p.Offering.InstanceType] = p
		}
	}
	rows := [][]string{{"TIER", "WEIGHT", "PATTERNS", "TYPES", "FIRST (CHEAPEST OFFERING, USD/H)"}}
	for _, t := range ranking.Tiers {
		names := make([]string, len(t.InstanceTypes))
		for i, it := range t.InstanceTypes {
			names[i] = it.Name
			if p, ok := cheapest[it.Name]; ok && i < maxExamples {
				names[i] = fmt.Sprintf("%s (%s %s %s)", it.Name, p.Offering.Zone, p.Offering.CapacityType, strconv.FormatFloat(p.Effective, 'f', -1, 64))
			}
		}
		rows = append(rows, []string{t.Tier.Name, strconv.Itoa(int(t.Tier.Weight)), strings.Join(t.Tier.Families, ","),
			strconv.Itoa(len(t.InstanceTypes)), examples(names)})
	}
	r.table(rows)
	known := 0
	for _, p := range prices {
		if p.Known {
			known++
		}
	}
	r.printf("  prices: %d of %d offerings known (the embedded snapshot, then GetProducts and DescribeSpotPriceHistory read live through a real *pricing.Client and *ec2.Client; spot prices are ec2fake's synthetic history); the rest stay unknown and rank last\n", known, len(prices))
	if len(ranking.Unranked) > 0 {
		unranked := slices.SortedFunc(slices.Values(ranking.Unranked), bySize)
		names := make([]string, len(unranked))
		for i, it := range unranked {
			names[i] = it.Name
		}
		r.printf("  unranked, no tier admits them: %s\n", examples(names))
	}
	r.printf("\n")
	rows = [][]string{{"NODEPOOL", "WEIGHT", "REQUIREMENTS"}}
	for _, p := range weighting.Order(pools) {
		if len(p.Requirements) == 0 {
			rows = append(rows, []string{p.Name, strconv.Itoa(int(p.Weight)), "(none: every type)"})
		}
		for i, req := range p.Requirements {
			row := []string{"", "", req.String()}
			if i == 0 {
				row[0], row[1] = p.Name, strconv.Itoa(int(p.Weight))
			}
			rows = append(rows, row)
		}
	}
	r.table(rows)
}

// demoNode is the simulated node of step 5.
type demoNode struct {
	instanceType compat.InstanceType
	ami          amiselect.AMI
}

// capacity records what the simulated node reports and shows the learned
// figure next to the catalog's.
func (r *report) capacity(m amiselect.Mapping, amis []amiselect.AMI) (demoNode, error) {
	ami, ok := m.AMIFor(nodeInstanceType)
	if !ok {
		return demoNode{}, fmt.Errorf("%s has no AMI in this selection, so no node of it can be simulated; choose an -alias with a standard amd64 AMI", nodeInstanceType)
	}
	var node demoNode
	for _, g := range m.Groups {
		for _, it := range g.InstanceTypes {
			if it.Name == nodeInstanceType {
				node = demoNode{instanceType: it, ami: ami}
			}
		}
	}

	cache, err := capacity.New(capacity.Options{})
	if err != nil {
		return demoNode{}, err
	}
	obs := capacity.Observation{NodeLabels: nodeLabels(node), ImageID: ami.ID, MemoryBytes: nodeMemoryKiB * 1024}
	if _, err := cache.Observe(obs, amis); err != nil {
		return demoNode{}, err
	}

	r.title("5. Capacity: node %s (%s, %s) reports memory %dKi", nodeHostname, nodeInstanceType, ami.ID, int64(nodeMemoryKiB))
	rows := [][]string{{"TYPE", "AMI", "CATALOG MiB", "LEARNED MiB", "LESS"}}
	for _, c := range cache.Apply(m) {
		if c.InstanceType.Name != nodeInstanceType || !c.Learned {
			continue
		}
		catalog, learned := c.InstanceType.MemoryMiB, c.MemoryBytes>>20
		rows = append(rows, []string{c.InstanceType.Name, ami.ID, strconv.FormatInt(catalog, 10), strconv.FormatInt(learned, 10),
			fmt.Sprintf("%.1f%%", 100*float64(catalog-learned)/float64(catalog))})
	}
	r.table(rows)
	st := cache.Stats()
	r.printf("  cache: %d recorded, %d refused, %d entries\n", st.Recorded, st.Refused, st.Len)
	if err := r.estimates(m, ami, cache); err != nil {
		return demoNode{}, err
	}
	return node, nil
}

// estimateTypes are the types the report estimates: the simulated node's,
// whose memory is now learned, and two it has not seen.
var estimateTypes = []string{nodeInstanceType, "m5.xlarge", "c7i-flex.large"}

// estimates shows what nodes of a few types have under the node's AMI
// family before they launch: capacity.Estimator with the cache as its
// memory source, so the simulated node's type uses what it reported.
func (r *report) estimates(m amiselect.Mapping, ami amiselect.AMI, learned *capacity.Cache) error {
	e, err := capacity.NewEstimator(capacity.Launch{Family: ami.Family, AMIID: ami.ID}, capacity.EstimateOptions{Learned: learned})
	if err != nil {
		return err
	}
	r.printf("\n  estimate under %s (capacity.Estimator; memory learned, else 160 MiB + 4%% less than published):\n", ami.Family)
	rows := [][]string{{"TYPE", "MEMORY", "FROM", "KUBE-RESERVED MEMORY", "ALLOCATABLE CPU", "ALLOCATABLE MEMORY", "PODS"}}
	for _, g := range m.Groups {
		if g.AMI.ID != ami.ID {
			continue
		}
		for _, it := range g.InstanceTypes {
			if !slices.Contains(estimateTypes, it.Name) {
				continue
			}
			est := e.Estimate(it)
			from := "model"
			if t, _ := est.Term(capacity.ResourceMemory, capacity.KindCapacity); t.Source == capacity.SourceLearned {
				from = "learned"
			}
			mem := func(v int64) string { return capacity.FormatQuantity(capacity.ResourceMemory, v) }
			rows = append(rows, []string{it.Name, mem(est.Capacity.Memory), from, mem(est.KubeReserved.Memory),
				capacity.FormatQuantity(capacity.ResourceCPU, est.Allocatable.CPU), mem(est.Allocatable.Memory), strconv.FormatInt(est.Allocatable.Pods, 10)})
		}
	}
	r.table(rows)
	return nil
}

// nodeLabels are the labels the simulated node registers with: its
// instance type's well-known labels, the OS (and Windows build) of its AMI,
// and a hostname.
func nodeLabels(n demoNode) map[string]string {
	labels := n.instanceType.Labels()
	labels[compat.LabelHostname] = nodeHostname
	labels[compat.LabelOS] = compat.OSLinux
	if reqs, ok := n.ami.Requirements.Get(compat.LabelWindowsBuild); ok {
		labels[compat.LabelOS] = compat.OSWindows
		if len(reqs) == 1 && reqs[0].Operator == compat.In && len(reqs[0].Values) == 1 {
			labels[compat.LabelWindowsBuild] = reqs[0].Values[0]
		}
	}
	return labels
}

// userData shows the userData, with the CA bundle elided: it is long and
// says nothing about taints.
func (r *report) userData(family compat.AMIFamily, overridden bool, ami amiselect.AMI, data []byte, caBundle string) {
	why := "the family of " + ami.ID
	if overridden {
		why = "-family"
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	r.title("6. userData: %s (%s), %d bytes of %d allowed, %d lines", family, why, len(data), userdata.MaxSize, len(lines))
	shown := lines
	if len(lines) > maxUserDataLines {
		shown = lines[:maxUserDataLines-4]
	}
	elided := fmt.Sprintf("%s...(%d base64 characters)", caBundle[:min(12, len(caBundle))], len(caBundle))
	for _, l := range shown {
		l = strings.ReplaceAll(l, caBundle, elided)
		if l == "" {
			r.printf("  |\n")
			continue
		}
		r.printf("  | %s\n", l)
	}
	if len(shown) < len(lines) {
		r.printf("  | ... %d more lines\n", len(lines)-len(shown))
	}
}

func (r *report) lint(family compat.AMIFamily, rep userdata.Report, cfg userdata.Config) {
	r.title("7. Lint: what the kubelet will register from the %s userData", family)
	rows := [][]string{{"TAINT", "EFFECT", "FROM"}}
	for _, t := range rep.Taints {
		rows = append(rows, []string{taintKeyValue(t.Taint), string(t.Effect), taintSource(t, cfg)})
	}
	r.table(rows)
	keys := make([]string, 0, len(rep.Labels))
	for k := range rep.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		keys[i] = k + "=" + rep.Labels[k]
	}
	r.printf("  labels: %s\n", strings.Join(keys, ", "))
	r.printf("  problems: none\n") // quickstart fails before this otherwise
}

func taintKeyValue(t userdata.Taint) string {
	if t.Value == "" {
		return t.Key
	}
	return t.Key + "=" + t.Value
}

// taintSource says which part of the config asked for t.
func taintSource(t userdata.RegisteredTaint, cfg userdata.Config) string {
	if t.Source == userdata.SourceKubelet {
		return "the kubelet itself (--cloud-provider=external)"
	}
	for _, s := range []struct {
		what   string
		taints []userdata.Taint
	}{
		{"taint", cfg.Taints},
		{"startup taint", cfg.StartupTaints},
		{"required (Karpenter)", cfg.Required()},
		{"required (Karpenter)", []userdata.Taint{userdata.UnregisteredTaint()}},
	} {
		if slices.ContainsFunc(s.taints, t.Taint.Matches) {
			return s.what
		}
	}
	return "not asked for"
}

// examples lists the first few names and how many more there are.
func examples(names []string) string {
	if len(names) <= maxExamples {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, ... (+%d)", strings.Join(names[:maxExamples], ", "), len(names)-maxExamples)
}
