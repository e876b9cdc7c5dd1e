package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/weighting"
)

// policyGrammar is the -policy syntax, shown in -h.
const policyGrammar = `policy  = tier { ";" tier }
tier    = name "=" weight ":" pattern { "," pattern }
name    a DNS-1123 label ("flex"), unique; its NodePool is named default-<name>
weight  1 to 100, unique; each type goes to the highest-weight tier it matches
pattern a glob over the instance family ("c7i-flex", "c7*", "*"), or, with a
        dot, over the whole type name ("c7i.*large"); "*" matches any run of
        characters, "?" exactly one
example 'flex=100:c7i-flex,m7i-flex;rest=1:*' (quote it: ';' and '*' are
        special to the shell)`

// parsePolicy reads a weighting policy written in policyGrammar. Syntax
// errors name the tier and show the expected form; everything else
// (names, weights, patterns) is checked by weighting.Policy.Validate, whose
// errors say what to fix.
func parsePolicy(s string) (weighting.Policy, error) {
	var p weighting.Policy
	if strings.TrimSpace(s) == "" {
		return p, fmt.Errorf("empty; write at least one tier, e.g. %q", defaultPolicy)
	}
	for i, raw := range strings.Split(s, ";") {
		tier := strings.TrimSpace(raw)
		name, rest, ok := strings.Cut(tier, "=")
		if !ok {
			return p, fmt.Errorf("tier %d %q has no '='; write name=weight:pattern,pattern", i+1, tier)
		}
		weight, patterns, ok := strings.Cut(rest, ":")
		if !ok {
			return p, fmt.Errorf("tier %d %q has no ':' after the weight; write name=weight:pattern,pattern", i+1, tier)
		}
		w, err := strconv.ParseInt(strings.TrimSpace(weight), 10, 32)
		if err != nil {
			return p, fmt.Errorf("tier %d %q: weight %q is not a whole number; use 1 to 100", i+1, tier, strings.TrimSpace(weight))
		}
		t := weighting.Tier{Name: strings.TrimSpace(name), Weight: int32(w)}
		for _, pat := range strings.Split(patterns, ",") {
			t.Families = append(t.Families, strings.TrimSpace(pat))
		}
		p.Tiers = append(p.Tiers, t)
	}
	if err := p.Validate(); err != nil {
		return weighting.Policy{}, err
	}
	return p, nil
}
