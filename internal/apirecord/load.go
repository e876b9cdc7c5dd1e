package apirecord

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
)

// listed is the part of `go list -json` the loader reads.
type listed struct {
	ImportPath string
	Name       string
	Export     string
	DepOnly    bool
	Error      *struct{ Err string }
}

// Public reports whether importers outside the module can import the
// package at path: not a command, not under internal/ or examples/.
func Public(path, name string) bool {
	if name == "main" {
		return false
	}
	for _, elem := range strings.Split(path, "/") {
		if elem == "internal" || elem == "examples" || elem == "testdata" {
			return false
		}
	}
	return true
}

// Load type-checks the public packages matched by patterns (run in dir)
// from the compiler's export data, which `go list -export` builds, and
// returns them in import-path order.
func Load(dir string, patterns ...string) ([]*types.Package, error) {
	args := append([]string{"list", "-export", "-deps", "-json=ImportPath,Name,Export,DepOnly,Error"}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("apirecord: go list: %v\n%s", err, stderr.Bytes())
	}
	exports := map[string]string{}
	var targets []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("apirecord: reading go list output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("apirecord: package %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly && Public(p.ImportPath, p.Name) {
			targets = append(targets, p.ImportPath)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	pkgs := make([]*types.Package, 0, len(targets))
	for _, path := range targets {
		pkg, err := imp.Import(path)
		if err != nil {
			return nil, fmt.Errorf("apirecord: importing %s: %w", path, err)
		}
		pkgs = append(pkgs, pkg)
	}
	return pkgs, nil
}
