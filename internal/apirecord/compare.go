package apirecord

import (
	"slices"
	"strings"
)

// Change is one line that differs between two records.
type Change struct {
	// Line is the record line, as written in the record.
	Line string
	// Added is true for a line only the newer record has; false for a
	// line only the older one has (a name removed, or its old form).
	Added bool
	// Breaking is true when code written against the older record can
	// stop compiling: every removed line, and a method added to an
	// interface that importers could implement.
	Breaking bool
}

// Symbol is the name a changelog entry uses for the line's subject:
// "pkg.Name" for a package-level name, "pkg.Type.Member" for a field or
// method, where pkg is the last element of the import path.
func (c Change) Symbol() string { return Symbol(c.Line) }

// Compare returns the lines that differ between the older and newer
// records, removals first, each group in record order.
func Compare(older, newer []string) []Change {
	oldSet := make(map[string]bool, len(older))
	for _, l := range older {
		oldSet[l] = true
	}
	newSet := make(map[string]bool, len(newer))
	for _, l := range newer {
		newSet[l] = true
	}
	var changes []Change
	for _, l := range older {
		if !newSet[l] {
			changes = append(changes, Change{Line: l, Breaking: true})
		}
	}
	for _, l := range newer {
		if !oldSet[l] {
			changes = append(changes, Change{Line: l, Added: true, Breaking: addedMethodBreaks(l, oldSet)})
		}
	}
	return changes
}

// addedMethodBreaks reports whether an added line is a method added to an
// interface that existed before and that importers could implement (it
// had no unexported methods): every implementation outside the module
// stops satisfying it.
func addedMethodBreaks(line string, older map[string]bool) bool {
	head, rest, ok := strings.Cut(line, " interface, ")
	if !ok || rest == "unexported methods" || strings.HasPrefix(rest, "type set ") {
		return false
	}
	if !older[head+" interface"] && !olderGeneric(head, older) {
		return false
	}
	return !older[head+" interface, unexported methods"]
}

// olderGeneric reports whether the older record has the interface head
// with type parameters ("type Name[T any] interface").
func olderGeneric(head string, older map[string]bool) bool {
	for l := range older {
		if strings.HasPrefix(l, head+"[") && strings.HasSuffix(l, " interface") {
			return true
		}
	}
	return false
}

// Symbol returns the changelog name of a record line (see [Change.Symbol]).
func Symbol(line string) string {
	rest, ok := strings.CutPrefix(line, "pkg ")
	if !ok {
		return line
	}
	path, decl, ok := strings.Cut(rest, ", ")
	if !ok {
		return line
	}
	pkg := path[strings.LastIndex(path, "/")+1:]
	kind, decl, _ := strings.Cut(decl, " ")
	switch kind {
	case "method":
		// (Recv) Name(...)
		recv, after, _ := strings.Cut(strings.TrimPrefix(decl, "("), ") ")
		return pkg + "." + strings.TrimPrefix(recv, "*") + "." + identifier(after)
	case "type":
		name := identifier(decl)
		if _, member, ok := strings.Cut(decl, ", "); ok {
			member = strings.TrimPrefix(member, "embedded ")
			if member == "unexported methods" || strings.HasPrefix(member, "type set ") {
				return pkg + "." + name
			}
			return pkg + "." + name + "." + identifier(strings.TrimPrefix(member, "*"))
		}
		return pkg + "." + name
	}
	return pkg + "." + identifier(decl)
}

// identifier returns the Go identifier s starts with (a package-qualified
// embedded type keeps only its last part).
func identifier(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	})
	if end >= 0 {
		s = s[:end]
	}
	return s[strings.LastIndex(s, ".")+1:]
}

// Breaking reports whether any change breaks importers.
func Breaking(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool { return c.Breaking })
}
