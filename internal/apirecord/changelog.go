package apirecord

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Changelog is the part of CHANGELOG.md (Keep a Changelog form) the check
// reads: the text under each "### Kind" heading of the Unreleased section.
type Changelog struct {
	// Unreleased maps a kind (Added, Changed, Deprecated, Removed, Fixed,
	// Security) to the text under it.
	Unreleased map[string]string
}

// ParseChangelog reads the "## [Unreleased]" section of a changelog. A
// changelog without one is an error: the check has nowhere to look.
func ParseChangelog(text string) (Changelog, error) {
	c := Changelog{Unreleased: map[string]string{}}
	in, found := false, false
	kind := ""
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			in = strings.HasPrefix(strings.ToLower(strings.TrimSpace(line[3:])), "[unreleased]")
			found = found || in
			kind = ""
		case in && strings.HasPrefix(line, "### "):
			kind = strings.TrimSpace(line[4:])
		case in && kind != "":
			c.Unreleased[kind] += line + "\n"
		}
	}
	if !found {
		return c, fmt.Errorf("apirecord: CHANGELOG.md has no \"## [Unreleased]\" section")
	}
	return c, nil
}

// names reports whether the text under any of kinds names symbol: the
// symbol, not followed by more of an identifier.
func (c Changelog) names(symbol string, kinds ...string) bool {
	re := regexp.MustCompile(regexp.QuoteMeta(symbol) + `($|[^A-Za-z0-9_])`)
	for _, k := range kinds {
		if re.MatchString(c.Unreleased[k]) {
			return true
		}
	}
	return false
}

// An Entry is one name a changelog must mention for a group of changed
// lines: a whole new or removed package, a whole new or removed type with
// its members, or one member.
type Entry struct {
	// Symbol is the name to mention: "pkg", "pkg.Name" or
	// "pkg.Type.Member".
	Symbol string
	// Breaking is true when any of the lines breaks importers.
	Breaking bool
	// Lines are the record lines that differ, removals first.
	Lines []string
	// Added is true when every line is new: the name did not exist.
	Added bool
}

// Entries groups the differences between two records under the names a
// changelog mentions, so that a new type is one entry, not one per field,
// and a new package one entry.
func Entries(older, newer []string) []Entry {
	return entries(Compare(older, newer), older, newer)
}

func entries(changes []Change, older, newer []string) []Entry {
	oldPkgs, newPkgs := packages(older), packages(newer)
	types := map[string]bool{} // type symbols whose head line changed
	for _, c := range changes {
		if isTypeHead(c.Line) {
			types[c.Symbol()] = true
		}
	}
	bySymbol := map[string]*Entry{}
	var order []string
	for _, c := range changes {
		owner := c.Symbol()
		pkg := linePackage(c.Line)
		switch {
		case c.Added && !oldPkgs[pkg], !c.Added && !newPkgs[pkg]:
			owner = pkg[strings.LastIndex(pkg, "/")+1:]
		case strings.Count(owner, ".") == 2 && types[owner[:strings.LastIndex(owner, ".")]]:
			owner = owner[:strings.LastIndex(owner, ".")]
		}
		e, ok := bySymbol[owner]
		if !ok {
			e = &Entry{Symbol: owner, Added: true}
			bySymbol[owner] = e
			order = append(order, owner)
		}
		e.Breaking = e.Breaking || c.Breaking
		e.Added = e.Added && c.Added
		e.Lines = append(e.Lines, c.Line)
	}
	out := make([]Entry, len(order))
	for i, s := range order {
		out[i] = *bySymbol[s]
	}
	return out
}

func isTypeHead(line string) bool {
	_, decl, _ := strings.Cut(line, ", ")
	if !strings.HasPrefix(decl, "type ") {
		return false
	}
	return !strings.Contains(decl, ", ")
}

func linePackage(line string) string {
	path, _, _ := strings.Cut(strings.TrimPrefix(line, "pkg "), ", ")
	return path
}

func packages(lines []string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lines {
		m[linePackage(l)] = true
	}
	return m
}

// Report is the result of a check: each problem is a sentence that names
// the symbol, the line and the file to update.
type Report struct {
	Problems []string
}

// Check compares the API generated from the code with the checked-in
// record (recordFile names it in messages) and, when a released record is
// given, the record with the release, against the changelog. Every
// difference between the code and the record is a problem; every entry
// between the release and the record must be named in the changelog's
// Unreleased section: a breaking one under Changed or Removed, an
// addition under Added (or anywhere in the section).
func Check(generated, recorded []string, recordFile string, released []string, releaseName string, log Changelog) Report {
	var r Report
	for _, c := range Compare(recorded, generated) {
		verb := "is in the code but not in"
		if !c.Added {
			verb = "is in the record but no longer in the code:"
		}
		r.Problems = append(r.Problems, fmt.Sprintf("%s %s %s\n\t%s\n\tif the change is meant, run `go run ./internal/apirecord/apicheck -w` to rewrite %s, then name %s in CHANGELOG.md under ## [Unreleased]",
			c.Symbol(), verb, recordFile, c.Line, recordFile, c.Symbol()))
	}
	if released == nil {
		return r
	}
	all := []string{"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
	for _, e := range Entries(released, recorded) {
		kinds, where := all, "anywhere in ## [Unreleased] (### Added for a new name)"
		if e.Breaking {
			kinds, where = []string{"Changed", "Removed"}, "under ### Changed or ### Removed of ## [Unreleased], with its replacement"
		}
		if log.names(e.Symbol, kinds...) {
			continue
		}
		what := "is new since " + releaseName
		if e.Breaking {
			what = "changed incompatibly since " + releaseName
		}
		r.Problems = append(r.Problems, fmt.Sprintf("%s %s, and CHANGELOG.md does not name it %s\n\t%s",
			e.Symbol, what, where, strings.Join(head(e.Lines, 5), "\n\t")))
	}
	return r
}

func head(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return append(slices.Clip(lines[:n]), fmt.Sprintf("… and %d more lines", len(lines)-n))
}
