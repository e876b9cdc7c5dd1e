package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
)

// tagFlags collects repeated -tag key=value flags.
type tagFlags map[string]string

func (t tagFlags) String() string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		keys[i] = k + "=" + t[k]
	}
	return strings.Join(keys, ",")
}

func (t tagFlags) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	switch {
	case !ok:
		return fmt.Errorf("%q is not key=value; write e.g. team=platform, or team=* for any value", s)
	case k == "":
		return fmt.Errorf("%q has an empty key; write key=value", s)
	case v == "":
		return fmt.Errorf("%q has an empty value; write %s=* to match any value", s, k)
	}
	if old, dup := t[k]; dup {
		return fmt.Errorf("tag %q given twice (%q and %q); an image has one value per tag, so keep one", k, old, v)
	}
	t[k] = v
	return nil
}

// termSpec is one entry of an EC2NodeClass's spec.amiSelectorTerms, as
// written in YAML or JSON.
type termSpec struct {
	Alias string            `json:"alias,omitempty"`
	ID    string            `json:"id,omitempty"`
	Name  string            `json:"name,omitempty"`
	Owner string            `json:"owner,omitempty"`
	Tags  map[string]string `json:"tags,omitempty"`
}

// parseTermsFile reads selector terms from YAML or JSON in one of three
// shapes: the list of terms itself, an object with an amiSelectorTerms
// list, or a whole EC2NodeClass (spec.amiSelectorTerms). Fields of a term
// other than alias, id, name, owner and tags are an error, so a typo is
// not silently ignored.
func parseTermsFile(data []byte) ([]amiselect.Term, error) {
	doc, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("not valid YAML or JSON: %w", err)
	}
	doc = bytes.TrimSpace(doc)
	list := doc
	if bytes.HasPrefix(doc, []byte("{")) {
		var obj struct {
			AMISelectorTerms json.RawMessage `json:"amiSelectorTerms"`
			Spec             struct {
				AMISelectorTerms json.RawMessage `json:"amiSelectorTerms"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(doc, &obj); err != nil {
			return nil, fmt.Errorf("cannot read it as an EC2NodeClass: %w", err)
		}
		switch {
		case obj.AMISelectorTerms != nil:
			list = obj.AMISelectorTerms
		case obj.Spec.AMISelectorTerms != nil:
			list = obj.Spec.AMISelectorTerms
		default:
			return nil, errors.New("no amiSelectorTerms; write a list of terms, an object with amiSelectorTerms, or an EC2NodeClass")
		}
	}
	dec := json.NewDecoder(bytes.NewReader(list))
	dec.DisallowUnknownFields()
	var specs []termSpec
	if err := dec.Decode(&specs); err != nil {
		return nil, fmt.Errorf("amiSelectorTerms: %w; each term is an object with alias, id, name, owner or tags (string values)", err)
	}
	if len(specs) == 0 {
		return nil, errors.New("amiSelectorTerms is empty; give at least one term")
	}
	terms := make([]amiselect.Term, len(specs))
	for i, s := range specs {
		terms[i] = amiselect.Term{Alias: s.Alias, ID: s.ID, Name: s.Name, Owner: s.Owner, Tags: s.Tags}
	}
	return terms, nil
}

// describeTerm writes a term as it would appear in amiSelectorTerms.
func describeTerm(t amiselect.Term) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+": "+v)
		}
	}
	add("alias", t.Alias)
	add("id", t.ID)
	add("name", t.Name)
	add("owner", t.Owner)
	if len(t.Tags) > 0 {
		keys := make([]string, 0, len(t.Tags))
		for k := range t.Tags {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			keys[i] = k + ": " + t.Tags[k]
		}
		add("tags", "{"+strings.Join(keys, ", ")+"}")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// parseTypeList reads comma-separated instance type names (-types).
func parseTypeList(s string) ([]string, error) {
	var names []string
	for i, f := range strings.Split(s, ",") {
		name := strings.TrimSpace(f)
		if name == "" {
			return nil, fmt.Errorf("entry %d is empty; separate names with single commas, as in m5.large,g5g.xlarge", i+1)
		}
		if _, err := compat.ParseInstanceTypeName(name); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		names = append(names, name)
	}
	return dedupe(names), nil
}

// parseTypeFile reads instance type names one per line (-types-file);
// blank lines and lines starting with # are skipped.
func parseTypeFile(data []byte) ([]string, error) {
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		name := strings.TrimSpace(sc.Text())
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		if _, err := compat.ParseInstanceTypeName(name); err != nil {
			return nil, fmt.Errorf("line %d: %w; write one instance type per line", line, err)
		}
		names = append(names, name)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, errors.New("no instance types in it; write one per line, e.g. m5.large")
	}
	return dedupe(names), nil
}

// dedupe drops repeated names, keeping the first of each.
func dedupe(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
