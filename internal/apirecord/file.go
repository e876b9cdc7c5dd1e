package apirecord

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// header starts every record file; lines starting with # are comments.
const header = `# The exported API of github.com/ec2select/ec2select: one line per name.
# Written by: go run ./internal/apirecord/apicheck -w   Checked by: .ci/run
`

// ReadFile reads a record, skipping comments and blank lines.
func ReadFile(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// WriteFile writes a record with its header, making its directory if
// need be.
func WriteFile(path string, lines []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(header+strings.Join(lines, "\n")+"\n"), 0o644)
}

var releaseFile = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)\.txt$`)

// LatestRelease returns the record of the newest release in dir (files
// named vMAJOR.MINOR.PATCH.txt), or "" when there is none.
func LatestRelease(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var best []int
	name := ""
	for _, e := range ents {
		m := releaseFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		v := make([]int, 3)
		for i := range v {
			v[i], _ = strconv.Atoi(m[i+1])
		}
		if best == nil || slices.Compare(v, best) > 0 {
			best, name = v, e.Name()
		}
	}
	if name == "" {
		return "", nil
	}
	return filepath.Join(dir, name), nil
}
