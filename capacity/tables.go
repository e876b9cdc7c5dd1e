package capacity

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// The tables the AMI families ship, recorded under upstream/ with their
// provenance (upstream/README.md).
var (
	//go:embed upstream/al2-eni-max-pods.txt
	al2MaxPodsFile string
	//go:embed upstream/bottlerocket-eni-max-pods.txt
	bottlerocketMaxPodsFile string
	//go:embed upstream/al2023-instance-info.txt
	al2023InstanceInfoFile string
)

// MaxPodsTable is an eni-max-pods file: a max-pods figure per instance
// type, as AL2's bootstrap.sh and Bottlerocket's pluto read it. The zero
// value is an empty table. Build one with [ParseMaxPodsTable], or take a
// family's own with [AL2MaxPodsTable] or [BottlerocketMaxPodsTable].
type MaxPodsTable struct {
	names []string // in file order
	pods  map[string]int64
}

// ParseMaxPodsTable reads an eni-max-pods file: one "instance-type
// max-pods" pair per line, separated by spaces or tabs; lines starting with
// '#' and blank lines are ignored. It refuses any other line, a count that
// is not a positive integer below 2^31, and a type listed twice, naming the
// line, so that a table read here is exactly the table the boot agent
// reads.
func ParseMaxPodsTable(text string) (MaxPodsTable, error) {
	t := MaxPodsTable{pods: map[string]int64{}}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return MaxPodsTable{}, fmt.Errorf("capacity: eni-max-pods line %d %q is not \"instance-type max-pods\"", n+1, line)
		}
		pods, err := strconv.ParseInt(f[1], 10, 32)
		if err != nil || pods <= 0 {
			return MaxPodsTable{}, fmt.Errorf("capacity: eni-max-pods line %d: max pods %q for %s is not a positive integer", n+1, f[1], f[0])
		}
		if _, dup := t.pods[f[0]]; dup {
			return MaxPodsTable{}, fmt.Errorf("capacity: eni-max-pods line %d lists %s a second time; keep one line per instance type", n+1, f[0])
		}
		t.names = append(t.names, f[0])
		t.pods[f[0]] = pods
	}
	return t, nil
}

// Len returns the number of instance types in t.
func (t MaxPodsTable) Len() int { return len(t.names) }

// Lookup returns the max pods t lists for instanceType, as pluto reads it:
// the line whose first word is the name.
func (t MaxPodsTable) Lookup(instanceType string) (int64, bool) {
	v, ok := t.pods[instanceType]
	return v, ok
}

// lookupAWK returns what AL2's bootstrap.sh gets from the table:
//
//	awk "/^${INSTANCE_TYPE}/"' { print $2 }'
//
// prints the second word of every line that the name, as a regular
// expression anchored at the line's start, matches, so "." in the name
// matches any character and a name that is a prefix of longer ones matches
// them too. It returns the figure when exactly one line matches, and
// matches > 1 when several do (bootstrap.sh then does arithmetic on a
// multi-line value and fails). A name the table lists matches its own
// line only (TestEmbeddedTables checks every line of AL2's table), so a
// listed name is a map lookup.
func (t MaxPodsTable) lookupAWK(instanceType string) (pods int64, matches int) {
	if v, ok := t.pods[instanceType]; ok {
		return v, 1
	}
	for _, name := range t.names {
		if awkPrefix(instanceType, name) {
			pods = t.pods[name]
			matches++
		}
	}
	return pods, matches
}

// awkPrefix reports whether the regular expression ^pattern matches line's
// first word, for a pattern made of EC2 instance-type characters: "." is
// any character and every other character is itself.
func awkPrefix(pattern, word string) bool {
	if len(word) < len(pattern) {
		return false
	}
	for i := range len(pattern) {
		if pattern[i] != '.' && pattern[i] != word[i] {
			return false
		}
	}
	return true
}

// AL2MaxPodsTable returns AL2's /etc/eks/eni-max-pods.txt, from the last
// amazon-eks-ami tree with AL2 (0ab84280, 1197 types). See
// upstream/README.md.
func AL2MaxPodsTable() MaxPodsTable { return embeddedTables().al2 }

// BottlerocketMaxPodsTable returns Bottlerocket's /usr/share/eks/eni-max-pods
// as bottlerocket-core-kit 96d45ad5 has it (942 types). An image ships the
// copy of its release; a newer type missing from it gets 110 pods and no
// memory reservation, so when you know your release's file, pass it as
// [EstimateOptions.BottlerocketMaxPods]. See upstream/README.md.
func BottlerocketMaxPodsTable() MaxPodsTable { return embeddedTables().bottlerocket }

// interfaces is one line of nodeadm's instance-info.jsonl.
type interfaces struct{ enis, ipv4 int64 }

type tables struct {
	al2, bottlerocket MaxPodsTable
	nodeadm           map[string]interfaces
}

// embeddedTables parses the embedded files once; they are never modified
// afterwards. A parse failure is a build defect that TestEmbeddedTables
// catches, so it panics rather than returning an error every caller would
// have to handle.
var embeddedTables = sync.OnceValue(func() tables {
	al2, err := ParseMaxPodsTable(al2MaxPodsFile)
	if err != nil {
		panic(err)
	}
	br, err := ParseMaxPodsTable(bottlerocketMaxPodsFile)
	if err != nil {
		panic(err)
	}
	info, err := parseInstanceInfo(al2023InstanceInfoFile)
	if err != nil {
		panic(err)
	}
	return tables{al2: al2, bottlerocket: br, nodeadm: info}
})

// parseInstanceInfo reads upstream/al2023-instance-info.txt: "type
// defaultMaxENIs ipv4AddressesPerInterface" per line.
func parseInstanceInfo(text string) (map[string]interfaces, error) {
	out := map[string]interfaces{}
	for n, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("capacity: instance-info line %d %q has %d fields, want 3", n+1, line, len(f))
		}
		enis, err1 := strconv.ParseInt(f[1], 10, 32)
		ipv4, err2 := strconv.ParseInt(f[2], 10, 32)
		if err1 != nil || err2 != nil || enis <= 0 || ipv4 <= 0 {
			return nil, fmt.Errorf("capacity: instance-info line %d %q: counts must be positive integers", n+1, line)
		}
		out[f[0]] = interfaces{enis, ipv4}
	}
	return out, nil
}
