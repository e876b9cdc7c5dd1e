package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
)

// A generated directory is a set of deployments, each an EC2NodeClass file
// and the files of the NodePools that use it; a deployment may be a
// variant of another (its EC2NodeClass has the other's name: the two are
// alternatives, as a repository of examples holds them).
type deployment struct {
	class   string // the EC2NodeClass's name
	variant int    // the deployment it is a variant of, or -1
	files   []string
}

// dirPool is one generated NodePool.
type dirPool struct {
	name, class     string
	weight          int
	gpu, tainted    bool
	capacityType    string
	deployment, idx int
}

func (p dirPool) yaml() string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: %s\nspec:\n", p.name)
	if p.weight > 0 {
		fmt.Fprintf(&b, "  weight: %d\n", p.weight)
	}
	fmt.Fprintf(&b, "  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: %s}\n", p.class)
	if p.tainted {
		b.WriteString("      taints:\n        - {key: dedicated, effect: NoSchedule}\n")
	}
	family := "m7i"
	if p.gpu {
		family = "g5"
	}
	fmt.Fprintf(&b, "      requirements:\n        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [%s]}\n", family)
	fmt.Fprintf(&b, "        - {key: karpenter.sh/capacity-type, operator: In, values: [%s]}\n", p.capacityType)
	return b.String()
}

func classYAML(name, alias string) string {
	return fmt.Sprintf("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: %s\nspec:\n  role: KarpenterNodeRole-prod\n"+
		"  amiSelectorTerms:\n    - alias: %s\n  subnetSelectorTerms:\n    - tags: {karpenter.sh/discovery: prod}\n"+
		"  securityGroupSelectorTerms:\n    - tags: {karpenter.sh/discovery: prod}\n", name, alias)
}

// generated is a directory: its files' content, its deployments, and
// which resources each file defines.
type generated struct {
	files       map[string]string
	order       []string
	deployments []deployment
	defines     map[string][]string // file: kind/name
	fileOf      map[string]int      // file: deployment
}

func drawDirectory(t *rapid.T) generated {
	g := generated{files: map[string]string{}, defines: map[string][]string{}, fileOf: map[string]int{}}
	n := rapid.IntRange(1, 3).Draw(t, "deployments")
	for d := range n {
		dep := deployment{class: fmt.Sprintf("class%d", d), variant: -1}
		if d > 0 && rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("variant%d", d)) == 0 {
			dep.variant = rapid.IntRange(0, d-1).Draw(t, fmt.Sprintf("of%d", d))
			dep.class = g.deployments[dep.variant].class
		}
		alias := rapid.SampledFrom([]string{"al2023@latest", "bottlerocket@latest"}).Draw(t, fmt.Sprintf("alias%d", d))
		// A deployment is one file (as Karpenter's examples are) or a file
		// per resource; a variant may redefine the other's first NodePool.
		single := rapid.Bool().Draw(t, fmt.Sprintf("single%d", d))
		add := func(file, content, defines string) {
			if _, ok := g.files[file]; !ok {
				g.order = append(g.order, file)
				dep.files = append(dep.files, file)
			}
			g.files[file] += content
			g.fileOf[file] = d
			g.defines[file] = append(g.defines[file], defines)
		}
		classFile := fmt.Sprintf("d%d-class.yaml", d)
		if single {
			classFile = fmt.Sprintf("d%d.yaml", d)
		}
		add(classFile, classYAML(dep.class, alias), "EC2NodeClass/"+dep.class)
		for i := range rapid.IntRange(1, 2).Draw(t, fmt.Sprintf("pools%d", d)) {
			p := dirPool{name: fmt.Sprintf("pool%d-%d", d, i), class: dep.class, deployment: d, idx: i,
				weight:       rapid.SampledFrom([]int{0, 10, 20}).Draw(t, "weight"),
				gpu:          rapid.Bool().Draw(t, "gpu"),
				tainted:      rapid.IntRange(0, 3).Draw(t, "tainted") == 0,
				capacityType: rapid.SampledFrom([]string{"on-demand", "spot"}).Draw(t, "capacity type")}
			if i == 0 && dep.variant >= 0 && rapid.Bool().Draw(t, "same pool name") {
				p.name = fmt.Sprintf("pool%d-0", dep.variant)
			}
			file := classFile
			if !single {
				file = fmt.Sprintf("d%d-pool%d.yaml", d, i)
			}
			add(file, "---\n"+p.yaml(), "NodePool/"+p.name)
		}
		g.deployments = append(g.deployments, dep)
	}
	slices.Sort(g.order)
	return g
}

// conflict reports whether two files define a resource in common: the
// model of alternatives.
func (g generated) conflict(a, b string) bool {
	return a != b && slices.ContainsFunc(g.defines[a], func(r string) bool { return slices.Contains(g.defines[b], r) })
}

// applied reports whether the model applies two files together: not
// alternatives, and, when the directory has alternatives, of one
// deployment or of deployments that share an EC2NodeClass name.
func (g generated) applied(a, b string) bool {
	if g.conflict(a, b) {
		return false
	}
	any := false
	for _, f := range g.order {
		for _, h := range g.order {
			any = any || g.conflict(f, h)
		}
	}
	return !any || g.deployments[g.fileOf[a]].class == g.deployments[g.fileOf[b]].class
}

// typeMemo answers DescribeInstanceTypes once per page for every run of a
// test: the fake copies each page it serves, and the catalog's types are
// most of what a small directory costs to check.
type typeMemo struct {
	*ec2fake.Backend
	pages map[string]*ec2.DescribeInstanceTypesOutput
}

func (m *typeMemo) DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	key := fmt.Sprintf("%s|%d|%v|%v", aws.ToString(in.NextToken), aws.ToInt32(in.MaxResults), in.InstanceTypes, in.Filters)
	if out, ok := m.pages[key]; ok {
		return out, nil
	}
	out, err := m.Backend.DescribeInstanceTypes(ctx, in, opts...)
	if err == nil {
		m.pages[key] = out
	}
	return out, err
}

// run checks files as preflight does, under a directory or named on the
// command line, against the shared catalog.
func (g generated) run(t *rapid.T, b *typeMemo, opts options, files []string, dir bool) Report {
	var inputs []input
	for _, f := range files {
		inputs = append(inputs, input{name: "dir/" + f, data: []byte(g.files[f]), dir: dir})
	}
	out := &findings{}
	m := readManifests(inputs, out)
	r, err := check(context.Background(), b, b.Backend, "catalog", opts, m, out)
	if err != nil {
		t.Fatal(err)
	}
	r.Findings = out.sorted()
	return r
}

func findingKey(f Finding) string {
	return string(f.Severity) + " " + f.Code + " " + f.Where + " " + strings.Join(f.Subjects, ", ")
}

func keys(r Report) map[string]bool {
	out := map[string]bool{}
	for _, f := range r.Findings {
		out[findingKey(f)] = true
	}
	return out
}

// TestDirectoryRun (issue 43): a directory run reports every cross-file
// finding that running the files of one deployment together reports (a
// finding none of its files reports alone: a pair's, a GPU NodePool above
// another's, two NodePools at one weight), and none about a pair it did
// not form: every finding about a NodePool and an EC2NodeClass is about a
// pair of its report, every pair is of a NodePool and an EC2NodeClass of
// its name in a file that is not an alternative to the NodePool's, and
// two NodePools at one weight are of files the model applies together.
func TestDirectoryRun(t *testing.T) {
	backend, err := cli.Offline(ec2fake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := &typeMemo{backend, map[string]*ec2.DescribeInstanceTypesOutput{}}
	opts, _, err := parseFlags(io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(t *rapid.T) {
		g := drawDirectory(t)
		dir := g.run(t, b, opts, g.order, true)
		got := keys(dir)
		for _, dep := range g.deployments {
			alone := map[string]bool{}
			for _, f := range dep.files {
				maps.Copy(alone, keys(g.run(t, b, opts, []string{f}, false)))
			}
			for _, f := range g.run(t, b, opts, dep.files, false).Findings {
				if k := findingKey(f); !alone[k] && !got[k] {
					t.Errorf("the run of %v reports the cross-file finding %s; the directory run does not", dep.files, k)
				}
			}
		}
		formed := map[string]bool{}
		for _, p := range dir.Pairs {
			formed["NodePool "+p.NodePool+"|EC2NodeClass "+p.NodeClass] = true
			g.checkPair(t, p)
		}
		for _, f := range dir.Findings {
			g.checkSubjects(t, f, formed)
		}
	})
}

// checkPair fails for a pair whose EC2NodeClass is not one the NodePool
// names in a file applied with it.
func (g generated) checkPair(t *rapid.T, p Pair) {
	pools, classes := g.filesDefining("NodePool/"+p.NodePool), g.filesDefining("EC2NodeClass/"+p.NodeClass)
	if p.Alternative != "" { // the one of several: its file is named
		file, _, _ := strings.Cut(strings.TrimPrefix(p.Alternative, "dir/"), ":")
		classes = []string{file}
	}
	ok := slices.ContainsFunc(pools, func(pool string) bool {
		return slices.ContainsFunc(classes, func(c string) bool { return !g.conflict(pool, c) })
	})
	if !ok {
		t.Errorf("pair %s × %s: no EC2NodeClass of that name in a file applied with one defining the NodePool (%v, %v)", p.NodePool, p.NodeClass, pools, classes)
	}
}

// checkSubjects fails for a finding about a NodePool and an EC2NodeClass
// that are not a pair, or about two NodePools not applied together.
func (g generated) checkSubjects(t *rapid.T, f Finding, formed map[string]bool) {
	var pools, classes []string
	for _, s := range f.Subjects {
		switch {
		case strings.HasPrefix(s, "NodePool "):
			pools = append(pools, s)
		case strings.HasPrefix(s, "EC2NodeClass "):
			classes = append(classes, s)
		}
	}
	for _, p := range pools {
		for _, c := range classes {
			if !formed[p+"|"+c] {
				t.Errorf("finding %s is about %s and %s, which the run did not pair", findingKey(f), p, c)
			}
		}
	}
	if len(pools) == 2 {
		as := g.filesDefining("NodePool/" + strings.TrimPrefix(pools[0], "NodePool "))
		bs := g.filesDefining("NodePool/" + strings.TrimPrefix(pools[1], "NodePool "))
		ok := slices.ContainsFunc(as, func(a string) bool {
			return slices.ContainsFunc(bs, func(b string) bool { return g.applied(a, b) })
		})
		if !ok {
			t.Errorf("finding %s is about NodePools of %v and %v, which are not applied together", findingKey(f), as, bs)
		}
	}
}

func (g generated) filesDefining(r string) []string {
	var out []string
	for _, f := range g.order {
		if slices.Contains(g.defines[f], r) {
			out = append(out, f)
		}
	}
	return out
}
