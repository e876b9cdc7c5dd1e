package karpenterpage

import (
	"fmt"
	"strings"
)

// Type is one instance type as the page lists it: its labels and its
// allocatable resources, both as printed.
type Type struct {
	Name      string
	Labels    map[string]string
	Resources map[string]string
}

// Parse reads the reference page (website/content/en/<version>/
// reference/instance-types.md in aws/karpenter-provider-aws). Its grammar,
// as hack/docs/instancetypes_gen writes it:
//
//	"## " family " Family"
//	"### `" name "`"
//	"#### Labels"    then table rows " |" key "|" value "|"
//	"#### Resources" then table rows " |" resource "|" quantity "|"
//
// Header rows ("| Label | Value |", "|--|--|") and prose are skipped. A
// type listed twice, a row outside a type, or a row that is not two cells
// is an error: the page format changed and the generator must be looked at.
func Parse(text string) ([]Type, error) {
	var types []Type
	seen := map[string]bool{}
	var cur *Type
	var table map[string]string
	for n, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "### `"):
			name := strings.TrimSuffix(strings.TrimPrefix(line, "### `"), "`")
			if name == "" || strings.ContainsAny(name, "` ") || seen[name] {
				return nil, fmt.Errorf("karpenterpage: line %d: bad or repeated type heading %q", n+1, line)
			}
			seen[name] = true
			types = append(types, Type{Name: name, Labels: map[string]string{}, Resources: map[string]string{}})
			cur, table = &types[len(types)-1], nil
		case strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "# "):
			cur, table = nil, nil
		case line == "#### Labels" && cur != nil:
			table = cur.Labels
		case line == "#### Resources" && cur != nil:
			table = cur.Resources
		case strings.HasPrefix(line, " |") && table != nil:
			if err := addRow(table, line); err != nil {
				return nil, fmt.Errorf("karpenterpage: line %d (%s): %w", n+1, cur.Name, err)
			}
		}
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("karpenterpage: no instance types found: not Karpenter's instance-types reference page")
	}
	return types, nil
}

func addRow(table map[string]string, line string) error {
	cells := strings.Split(strings.TrimSpace(line), "|")
	// " |k|v|" splits into "", k, v, "".
	if len(cells) != 4 || cells[0] != "" || cells[3] != "" {
		return fmt.Errorf("table row %q is not |key|value|", line)
	}
	k, v := cells[1], cells[2]
	if k == "--" || k == " Label " || k == " Resource " {
		return nil
	}
	if _, dup := table[k]; dup {
		return fmt.Errorf("key %q appears twice", k)
	}
	table[k] = v
	return nil
}
