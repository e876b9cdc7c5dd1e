package userdata

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// layers orders the package's files so that references between them run
// one way: the vocabulary, then the models of other software, then Lint's
// shared steps, each family's Lint and Lint itself, then Render's shared
// steps, each family's Render and Render itself (which asks Lint about
// custom userData). The first pattern a file matches gives its layer.
var layers = []struct {
	pattern string
	layer   int
}{
	{"doc.go", 0}, {"text.go", 0}, {"code.go", 0}, {"taint.go", 1}, {"labels.go", 1}, {"verdict.go", 2},
	{"kubelet.go", 3}, // the model of the kubelet; nodeadm's and Bottlerocket's are internal packages
	{"config.go", 4}, {"report.go", 4},
	{"lint_al2_kubeletconfig.go", 4}, // the AMI's kubelet-config.json, which AL2's analysis runs once per text of
	{"linter.go", 5},
	{"lint_cloudinit.go", 6}, {"lint_kubelet.go", 6},
	{"lint_al2_bootstrap.go", 7}, {"lint_al2_bootfiles.go", 7},
	{"lint_*.go", 8},
	{"lint.go", 9},
	{"render_plan.go", 10},
	{"render_cloudinit.go", 11},
	{"render_*.go", 12},
	{"render.go", 13},
	{"migrate_plan.go", 14},
	{"migrate_*.go", 15},
	{"migrate.go", 16},
}

func layerOf(file string) (int, bool) {
	for _, l := range layers {
		if ok, _ := filepath.Match(l.pattern, file); ok {
			return l.layer, true
		}
	}
	return 0, false
}

// TestLayout: every file of the package has a layer, and refers only to
// top-level names declared in files of lower layers. Names are matched as
// go/parser leaves them: an identifier a file does not declare itself is
// one of another file's top-level names (methods called through a value
// are not seen, but their receiver types are).
func TestLayout(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	declared := map[string]string{} // top-level name → file
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
		for n := range f.Scope.Objects {
			declared[n] = name
		}
	}
	var wrong []string
	for name, f := range files {
		from, ok := layerOf(name)
		if !ok {
			t.Errorf("%s has no layer; add it to layers", name)
			continue
		}
		seen := map[string]bool{}
		for _, id := range f.Unresolved {
			def, ok := declared[id.Name]
			if !ok || seen[id.Name] {
				continue
			}
			seen[id.Name] = true
			if to, _ := layerOf(def); to >= from {
				wrong = append(wrong, name+" → "+def+" ("+id.Name+")")
			}
		}
	}
	sort.Strings(wrong)
	for _, w := range wrong {
		t.Errorf("%s: a reference to the same or a higher layer", w)
	}
}
