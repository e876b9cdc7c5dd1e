package capacity_test

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
)

// The differential test against nodeadm's own evaluation: see
// testdata/nodeadm-cel/README.md for how the recorded results were made.
const (
	nodeadmCELFile  = "testdata/nodeadm-cel/results.tsv.gz"
	nodeadmCELCount = 3000
	nodeadmCELSeed  = 40
)

var writeNodeadmInput = flag.String("write-nodeadm-input", "", "write the expressions and interface pairs of TestNodeadmCELDifferential to this file, for nodeadm's CalcMaxPods to evaluate")

// celGen draws maxPodsExpressions from the grammar users write: integer
// arithmetic over default_enis, ips_per_eni, max_pods and literals,
// comparisons and their conjunctions in ternaries, min- and max-style
// ternaries, unary minus, and double arithmetic converted back with
// int() or left as a double result; a few of its draws do not type-check
// (an int times a double), as users' mistakes do not.
type celGen struct{ r *rand.Rand }

func (g celGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g celGen) leaf() string {
	switch g.r.IntN(6) {
	case 0, 1:
		return "max_pods"
	case 2:
		return "default_enis"
	case 3:
		return "ips_per_eni"
	case 4:
		return g.pick("0", "1", "2", "16", "110", "250")
	}
	return strconv.Itoa(g.r.IntN(300))
}

func (g celGen) intExpr(depth int) string {
	if depth == 0 || g.r.IntN(4) == 0 {
		return g.leaf()
	}
	a, b := g.intExpr(depth-1), g.intExpr(depth-1)
	switch g.r.IntN(12) {
	case 0, 1, 2, 3, 4:
		op := g.pick("+", "-", "*", "*", "/", "%")
		if g.r.IntN(2) == 0 {
			return a + " " + op + " " + b
		}
		return "(" + a + " " + op + " " + b + ")"
	case 5, 6:
		return "(" + g.cond(depth-1) + " ? " + a + " : " + b + ")"
	case 7:
		return "(" + a + " < " + b + " ? " + a + " : " + b + ")" // min
	case 8:
		return "(" + a + " > " + b + " ? " + a + " : " + b + ")" // max
	case 9:
		return "-" + g.leaf()
	case 10:
		return "int(double(" + a + ") * " + g.pick("0.5", "0.9", "1.5", "2.0") + ")"
	}
	return "((" + a + ") - 1) * 16 + 2"
}

func (g celGen) cond(depth int) string {
	c := g.intExpr(depth) + " " + g.pick("<", "<=", ">", ">=", "==", "!=") + " " + g.intExpr(depth)
	if g.r.IntN(4) == 0 {
		c += " " + g.pick("&&", "||") + " " + g.leaf() + " " + g.pick("<", ">") + " " + g.leaf()
	}
	return c
}

func (g celGen) expr() string {
	switch g.r.IntN(20) {
	case 0:
		return "double(" + g.intExpr(2) + ") / " + g.pick("2.0", "3.0") // a double result, which nodeadm truncates
	case 1:
		return g.intExpr(2) + " * " + g.pick("1.5", "0.5") // does not type-check
	}
	for {
		// At least one operation: a bare variable or literal says little.
		if x := g.intExpr(1 + g.r.IntN(4)); strings.Contains(x, " ") {
			return x
		}
	}
}

func nodeadmCELExpressions() []string {
	g := celGen{rand.New(rand.NewPCG(nodeadmCELSeed, nodeadmCELSeed))}
	seen := map[string]bool{}
	out := make([]string, 0, nodeadmCELCount)
	for len(out) < nodeadmCELCount {
		if x := g.expr(); !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// nodeadmPair is a type's interfaces and addresses per interface as
// nodeadm reads them.
type nodeadmPair struct{ enis, ipv4 int64 }

// nodeadmCELPairs are the pairs of every catalog type, nodeadm's snapshot
// first (eni_max_pods.go:33-44), and a few small ones where results reach
// 0 and below.
func nodeadmCELPairs(t testing.TB) ([]nodeadmPair, map[string]nodeadmPair) {
	enis := refENIs(t)
	byType := map[string]nodeadmPair{}
	set := map[nodeadmPair]bool{{1, 1}: true, {1, 2}: true, {2, 2}: true}
	for _, it := range estCatalog() {
		p, ok := nodeadmPair{}, false
		if f, in := enis[it.Name]; in {
			p, ok = nodeadmPair{f[0], f[1]}, true
		} else if e, i, own := ownFacts(it); own {
			p, ok = nodeadmPair{e, i}, true
		}
		if ok {
			byType[it.Name], set[p] = p, true
		}
	}
	pairs := make([]nodeadmPair, 0, len(set))
	for p := range set {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(a, b nodeadmPair) int {
		if a.enis != b.enis {
			return int(a.enis - b.enis)
		}
		return int(a.ipv4 - b.ipv4)
	})
	return pairs, byType
}

// TestNodeadmCELDifferential: each of 3,000 expressions drawn from the
// grammar users write gives, for every catalog type, the max pods nodeadm's
// own CalcMaxPods (amazon-eks-ami 81fec2e8
// nodeadm/internal/kubelet/eni_max_pods.go:61-114, cel-go v0.29.2) gives
// for the type's interfaces: Eval's result where it succeeds, nodeadm's
// standard value where it fails, and the estimate's pods capacity and
// kube-reserved memory from that figure.
func TestNodeadmCELDifferential(t *testing.T) {
	exprs := nodeadmCELExpressions()
	pairs, byType := nodeadmCELPairs(t)
	if *writeNodeadmInput != "" {
		writeNodeadmCELInput(t, *writeNodeadmInput, pairs, exprs)
		return
	}
	recorded, recordedPairs := readNodeadmCEL(t)
	if diff := slicesDiff(exprs, keysInOrder(recorded, exprs)); diff != "" {
		t.Fatalf("the recorded expressions are not the grammar's draws: %s; regenerate them (testdata/nodeadm-cel/README.md)", diff)
	}
	col := map[nodeadmPair]int{}
	for i, p := range recordedPairs {
		col[p] = i
	}
	for _, p := range pairs {
		if _, ok := col[p]; !ok {
			t.Fatalf("the recorded results lack the pair %v; regenerate them", p)
		}
	}
	failures, rejected, compiled := 0, 0, 0
	for _, text := range exprs {
		want := recorded[text]
		x, err := capacity.ParseMaxPodsExpression(text)
		if err != nil {
			rejected++
		} else {
			compiled++
		}
		for _, p := range pairs {
			std := p.enis*(p.ipv4-1) + 2
			got := std
			if err == nil {
				if v, evalErr := x.Eval(capacity.Variables{DefaultENIs: p.enis, IPsPerENI: p.ipv4, MaxPods: std}); evalErr == nil {
					got = v
				}
			}
			if w := want[col[p]]; got != w && failures < 20 {
				failures++
				t.Errorf("%q with default_enis %d, ips_per_eni %d: %d, nodeadm %d", text, p.enis, p.ipv4, got, w)
			}
		}
	}
	t.Logf("%d expressions (%d compile, %d do not) × %d interface pairs", len(exprs), compiled, rejected, len(pairs))
	if compiled < len(exprs)*9/10 {
		t.Errorf("only %d of %d expressions compile; the grammar should mostly give expressions users would keep", compiled, len(exprs))
	}
	// Every catalog type, through the estimator, under every 25th
	// expression that compiles.
	types := estCatalog()
	for i, text := range exprs {
		if i%25 != 0 {
			continue
		}
		e, err := capacity.NewEstimator(capacity.Launch{Family: compat.AL2023, MaxPodsExpression: text}, capacity.EstimateOptions{})
		if err != nil {
			continue
		}
		for _, it := range types {
			p, ok := byType[it.Name]
			if !ok {
				continue
			}
			est := e.Estimate(it)
			w := recorded[text][col[p]]
			if est.Capacity.Pods != w || est.KubeReserved.Memory != mib(11*w+255) {
				t.Errorf("%q on %s: pods %d, kube-reserved memory %d; nodeadm %d, %d", text, it.Name, est.Capacity.Pods, est.KubeReserved.Memory, w, mib(11*w+255))
				break
			}
		}
	}
}

// writeNodeadmCELInput writes the harness's input: a line of pairs, then
// one expression per line (expressions hold no newline or tab).
func writeNodeadmCELInput(t *testing.T, path string, pairs []nodeadmPair, exprs []string) {
	var b strings.Builder
	b.WriteString(formatPairs(pairs))
	b.WriteByte('\n')
	for _, x := range exprs {
		b.WriteString(x)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d expressions and %d pairs to %s", len(exprs), len(pairs), path)
}

func formatPairs(pairs []nodeadmPair) string {
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		parts[i] = fmt.Sprintf("%d:%d", p.enis, p.ipv4)
	}
	return "pairs\t" + strings.Join(parts, ",")
}

// readNodeadmCEL reads the recorded results: "#" comments, a "pairs"
// line of enis:ipv4 pairs, then "expression<TAB>result,result,…" in the
// pairs' order.
func readNodeadmCEL(t *testing.T) (map[string][]int64, []nodeadmPair) {
	t.Helper()
	f, err := os.Open(nodeadmCELFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]int64{}
	var pairs []nodeadmPair
	s := bufio.NewScanner(z)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		line := s.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, rest, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("line %q has no tab", line)
		}
		if key == "pairs" && pairs == nil {
			for _, p := range strings.Split(rest, ",") {
				e, i, _ := strings.Cut(p, ":")
				en, err1 := strconv.ParseInt(e, 10, 64)
				ip, err2 := strconv.ParseInt(i, 10, 64)
				if err1 != nil || err2 != nil {
					t.Fatalf("bad pair %q", p)
				}
				pairs = append(pairs, nodeadmPair{en, ip})
			}
			continue
		}
		var vals []int64
		for _, v := range strings.Split(rest, ",") {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("bad result %q for %q", v, key)
			}
			vals = append(vals, n)
		}
		if len(vals) != len(pairs) {
			t.Fatalf("%q has %d results for %d pairs", key, len(vals), len(pairs))
		}
		out[key] = vals
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out, pairs
}

// keysInOrder returns the expressions of want that recorded has, in
// want's order, so that a missing one shows in the diff.
func keysInOrder(recorded map[string][]int64, want []string) []string {
	var out []string
	for _, x := range want {
		if _, ok := recorded[x]; ok {
			out = append(out, x)
		}
	}
	if len(recorded) != len(want) {
		out = append(out, fmt.Sprintf("(%d recorded)", len(recorded)))
	}
	return out
}

func slicesDiff(want, got []string) string {
	if slices.Equal(want, got) {
		return ""
	}
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			return fmt.Sprintf("at %d: want %q, got %q", i, want[i], got[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(want), len(got))
}
