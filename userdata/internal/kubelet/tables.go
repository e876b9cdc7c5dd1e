package kubelet

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// The tables of what each release has, recorded under upstream/ (its
// README says where they come from): the flags, the feature gates and the
// dependencies between gates. Each is read once, on first use.
var (
	//go:embed upstream/kubelet-flags.txt
	flagsText string
	//go:embed upstream/kubelet-gates.txt
	gatesText string
	//go:embed upstream/kubelet-gate-deps.txt
	gateDepsText string

	// flagTable and gateTable map a name to its row: one character per
	// release from FirstMinor (see the files' headers).
	flagTable = sync.OnceValue(func() map[string]string { return mustRows(flagsText, "flags", "bv.?") })
	gateTable = sync.OnceValue(func() map[string]string { return mustRows(gatesText, "gates", "tfTF.") })
	// gateDeps are the feature gates that need another on: in the releases
	// in, the kubelet exits when gate is on and needs is off.
	gateDeps = sync.OnceValue(func() []gateDep { return mustDeps(gateDepsText) })
)

type gateDep struct {
	gate, needs string
	in          Releases
}

// mustRows reads "name row" lines, skipping '#' comments; the files are
// the package's own, so a malformed one is a bug its tests catch.
func mustRows(text, what, chars string) map[string]string {
	rows, err := parseRows(text, chars)
	if err != nil {
		panic(fmt.Sprintf("kubelet: upstream %s table: %v", what, err))
	}
	return rows
}

func parseRows(text, chars string) (map[string]string, error) {
	rows := map[string]string{}
	for n, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, row, ok := strings.Cut(line, " ")
		if !ok || len(row) != LastMinor-FirstMinor+1 || strings.Trim(row, chars) != "" || rows[name] != "" {
			return nil, fmt.Errorf("line %d %q is not a name and one of %q per release, once", n+1, line, chars)
		}
		rows[name] = row
	}
	return rows, nil
}

func mustDeps(text string) []gateDep {
	var deps []gateDep
	for n, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 {
			panic(fmt.Sprintf("kubelet: upstream gate dependencies: line %d %q", n+1, line))
		}
		lo, err1 := strconv.Atoi(f[2])
		hi, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || Span(lo, hi) == 0 {
			panic(fmt.Sprintf("kubelet: upstream gate dependencies: line %d %q", n+1, line))
		}
		deps = append(deps, gateDep{f[0], f[1], Span(lo, hi)})
	}
	return deps
}
