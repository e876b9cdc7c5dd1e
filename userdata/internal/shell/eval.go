package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Eval runs script, which may only assign variables, with the given
// variables set and nothing else known, and returns every variable's
// value at its end. ok is false when it does anything else (runs a
// command, redirects, substitutes a command) or uses a variable it was
// not given: what a caller cannot follow.
func Eval(script string, vars map[string]string) (map[string]string, bool) {
	w := newWalker(Options{}, []byte(script))
	for k, v := range vars {
		w.vars[k] = Var{Value: v, Known: true, Set: true}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, false
	}
	for _, st := range f.Stmts {
		c, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(c.Args) > 0 || len(st.Redirs) > 0 || st.Background || st.Coprocess || st.Negated {
			return nil, false
		}
		for _, a := range c.Assigns {
			v := w.assignValue(a)
			if !v.Known || v.Indexed {
				return nil, false
			}
			w.vars[a.Name.Value] = v
		}
	}
	out := make(map[string]string, len(w.vars))
	for k, v := range w.vars {
		out[k] = v.Value
	}
	return out, true
}
