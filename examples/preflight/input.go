package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/internal/manifest"
)

// input is one file read, or standard input.
type input struct {
	name string
	data []byte
	// dir is set for a file a directory argument found.
	dir bool
}

// document is one YAML document of an input, with the line it starts on,
// so that every finding can name file and line.
type document struct {
	file string
	line int // 1-based line of the document's first line
	data []byte
}

func (d document) at(offset int) string { return fmt.Sprintf("%s:%d", d.file, d.line+offset) }

// lineOf is the offset of the first line of d for which match is true, or
// of its first line that is neither blank nor a comment.
func (d document) lineOf(match func(line string) bool) int {
	lines := strings.Split(string(d.data), "\n")
	for i, l := range lines {
		if match(strings.TrimSpace(l)) {
			return i
		}
	}
	for i, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return i
		}
	}
	return 0
}

func hasPrefix(p string) func(string) bool {
	return func(l string) bool { return strings.HasPrefix(l, p) }
}

// where is the line of a document's kind, where findings about the whole
// resource point.
func (d document) where() string { return d.at(d.lineOf(hasPrefix("kind:"))) }

// manifestExtensions are the files a directory argument reads.
var manifestExtensions = []string{".yaml", ".yml"}

// readInputs reads every argument: "-" (or none) is standard input, a
// directory is every YAML file under it (hidden directories, such as .git,
// skipped), in lexical order of path, and anything else is a file.
func readInputs(stdin io.Reader, args []string) ([]input, error) {
	if len(args) == 0 {
		args = []string{"-"}
	}
	var inputs []input
	for _, a := range args {
		if a == "-" {
			data, err := io.ReadAll(stdin)
			if err != nil {
				return nil, cli.Inputf("reading standard input: %v", err)
			}
			inputs = append(inputs, input{name: "<stdin>", data: data})
			continue
		}
		info, err := os.Stat(a)
		if err != nil {
			return nil, cli.Inputf("reading %s: %v; name a manifest file, a directory of them, or - for standard input", a, errorText(err))
		}
		if !info.IsDir() {
			data, err := os.ReadFile(a)
			if err != nil {
				return nil, cli.Inputf("reading %s: %v", a, errorText(err))
			}
			inputs = append(inputs, input{name: a, data: data})
			continue
		}
		files, err := manifestFiles(a)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, cli.Inputf("reading %s: %v", f, errorText(err))
			}
			inputs = append(inputs, input{name: f, data: data, dir: true})
		}
	}
	return inputs, nil
}

// errorText drops the path an *fs.PathError repeats.
func errorText(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// manifestFiles lists the YAML files under dir.
func manifestFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if slices.Contains(manifestExtensions, strings.ToLower(filepath.Ext(path))) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, cli.Inputf("reading directory %s: %v", dir, err)
	}
	slices.Sort(files)
	return files, nil
}

// split cuts an input into documents as kubectl does. A stream kubectl
// cannot cut (text after "---") is one finding, and no documents.
func split(in input, out *findings) []document {
	docs, err := manifest.Split(in.data)
	if err != nil {
		out.add(unreadable(in, 0, err))
		return nil
	}
	res := make([]document, len(docs))
	for i, d := range docs {
		res[i] = document{in.name, d.Line, d.Data}
	}
	return res
}

// unreadable is the finding for a document kubectl cannot read: an error
// when it looks like it holds a Karpenter resource, a notice for any other
// YAML file a directory argument swept in, and a notice for a template
// (Helm, Go), which is not a manifest until rendered.
func unreadable(in input, line int, err error) Finding {
	where := in.name
	if line > 0 {
		where = fmt.Sprintf("%s:%d", in.name, line)
	}
	f := Finding{Severity: SevError, Code: codeUnreadable, Where: where,
		Message: fmt.Sprintf("kubectl cannot read this YAML (%v), so it applies none of it", err),
		Fix:     "fix the YAML"}
	switch {
	case bytes.Contains(in.data, []byte("{{")):
		f.Severity, f.Code = SevNotice, codeTemplate
		f.Message = fmt.Sprintf("this looks like a template, not a manifest (%v); preflight checks manifests", err)
		f.Fix = "render it first (helm template ... | preflight -, or kustomize build | preflight -)"
	case !mentionsKarpenter(in.data):
		f.Severity, f.Code = SevNotice, codeSkippedFile
		f.Message = fmt.Sprintf("not a Karpenter manifest, and not YAML kubectl can read (%v); skipped", err)
		f.Fix = "none needed, unless it should hold an EC2NodeClass or NodePool"
	}
	return f
}

func mentionsKarpenter(data []byte) bool {
	return bytes.Contains(data, []byte("karpenter.sh/")) || bytes.Contains(data, []byte("karpenter.k8s.aws/"))
}
