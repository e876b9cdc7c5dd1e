package shell

import (
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/ec2select/ec2select/userdata/internal/systemd"
)

// Var is what the walker knows about one shell variable.
type Var struct {
	Value    string
	Known    bool // the value is known; if false see Alts, else nothing is known
	Set      bool
	Exported bool
	// List holds an indexed array's elements (NAME=(a b c)); Indexed
	// marks such a variable.
	List    []string
	Indexed bool
	// Alts, when Known is false, are the values the variable may have
	// (each Known, not an array): branches of an if, case, && or || that
	// each assign a static value. nil when nothing is known.
	Alts []Var
	// Origin is the line where an unknown value came from (the command
	// substitution, or the conditional that may or may not assign, or
	// that chose among Alts); 0 when it comes from outside the script.
	Origin int
	// Watched: the value, or the text it was built from, names a watched
	// path, so a command using it may touch that path.
	Watched bool
}

// maxAlts bounds the values a variable may have before the walker stops
// tracking them; maxCombinations bounds the argument lists one call may
// have.
const (
	maxAlts         = 8
	maxCombinations = 16
)

// sameVar reports whether two descriptions of a variable say the same.
func sameVar(a, b Var) bool {
	if a.Known != b.Known || a.Set != b.Set || a.Value != b.Value || a.Indexed != b.Indexed ||
		!slices.Equal(a.List, b.List) || len(a.Alts) != len(b.Alts) {
		return false
	}
	for i := range a.Alts {
		if !sameVar(a.Alts[i], b.Alts[i]) {
			return false
		}
	}
	return a.Known || len(a.Alts) > 0
}

// values are the scalar values a variable may have, or ok false when it
// may have any (unknown, or an array).
func (v Var) values() ([]Var, bool) {
	switch {
	case v.Known && !v.Indexed:
		return []Var{{Value: v.Value, Known: true, Set: v.Set}}, true
	case !v.Known && len(v.Alts) > 0:
		return v.Alts, true
	}
	return nil, false
}

// Get implements expand.Environ over the known variables; the walker only
// expands words whose variables are all known.
func (w *Walker) Get(name string) expand.Variable {
	v, ok := w.vars[name]
	if !ok || !v.Set || !v.Known {
		return expand.Variable{}
	}
	if v.Indexed {
		return expand.Variable{Set: true, Kind: expand.Indexed, List: v.List, Exported: v.Exported}
	}
	return expand.Variable{Set: true, Kind: expand.String, Str: v.Value, Exported: v.Exported}
}

// Each implements expand.Environ.
func (w *Walker) Each(fn func(string, expand.Variable) bool) {
	for _, k := range sortedVarNames(w.vars) {
		if v := w.Get(k); v.IsSet() && !fn(k, v) {
			return
		}
	}
}

// lookup returns what is known about a variable. A variable the script
// never assigned may come from the environment cloud-init provides, so it
// is unknown; envName (KUBELET_EXTRA_ARGS) is never in that environment.
func (w *Walker) lookup(name string) Var { return w.lookupIn(w.vars, name) }

func (w *Walker) lookupIn(vars map[string]Var, name string) Var {
	if v, ok := vars[name]; ok {
		return v
	}
	if name == w.envName && !w.poisoned {
		return Var{Known: true}
	}
	return Var{}
}

// assign records a new value. Where the assignment may run any number of
// times (a loop body), the old and new values are both possible, so the
// variable stays known only if they agree; if, case, && and || arms are
// walked on copies of the variables and joined instead ([Walker.fork]).
func (w *Walker) assign(name string, v Var) {
	old := w.lookup(name)
	if w.allexport {
		v.Exported = true
	}
	v.Exported = v.Exported || old.Exported
	if w.unsure > 0 && (v.Known || len(v.Alts) > 0) && !sameVar(old, v) {
		v = Var{Set: true, Exported: v.Exported, Watched: v.Watched || old.Watched}
		v.Origin = w.line
		if n := len(w.condLines); n > 0 {
			v.Origin = w.condLines[0]
		}
	}
	if !v.Known && v.Origin == 0 {
		v.Origin = w.line
	}
	w.vars[name] = v
}

// fork walks each arm on its own copy of the variables, then joins what
// the arms leave: a variable the arms (and, unless one arm certainly runs,
// the state before them) leave with different static values has all of
// them as [Var.Alts]. line is the clause's, the origin of what it makes
// unknown or chooses. bodies are the arms' statements: arms that assign no
// variable (most of them: a test, then a command) are walked in place.
func (w *Walker) fork(line int, arms []func(), bodies []syntax.Node, exhaustive bool) {
	if !mayAssign(bodies) {
		for _, arm := range arms {
			arm()
		}
		return
	}
	before := w.vars
	outcomes := make([]map[string]Var, 0, len(arms)+1)
	for _, arm := range arms {
		w.vars = cloneVars(before)
		arm()
		outcomes = append(outcomes, w.vars)
	}
	w.vars = before
	if !exhaustive {
		outcomes = append(outcomes, before)
	}
	if len(outcomes) == 1 && len(arms) == 1 && w.unsure == 0 {
		w.vars = outcomes[0]
		return
	}
	names := map[string]bool{}
	for _, o := range outcomes {
		for k := range o {
			names[k] = true
		}
	}
	joined := make(map[string]Var, len(names))
	for name := range names {
		joined[name] = w.join(outcomes, name, line)
	}
	for _, name := range slices.Sorted(maps.Keys(joined)) {
		if v := joined[name]; !sameVar(v, w.lookup(name)) || v.Exported != w.lookup(name).Exported {
			w.assign(name, v)
		}
	}
}

// mayAssign reports whether walking the statements may change a variable
// of the walker: an assignment, a loop variable, a builtin that sets or
// forgets variables ([builtins], declarations), a command whose name is
// only known at boot, ${X:=word}, or arithmetic. Subshells, command
// substitutions and function bodies do not count: their variables do not
// come back (the walker does not follow calls of functions).
func mayAssign(nodes []syntax.Node) bool {
	for _, n := range nodes {
		if assigning(n) {
			return true
		}
	}
	return false
}

func assigning(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Stmt:
		for _, r := range n.Redirs {
			if wordAssigns(r.Word) || wordAssigns(r.Hdoc) {
				return true
			}
		}
		return n.Cmd != nil && assigning(n.Cmd)
	case *syntax.CaseItem:
		return stmtsAssign(n.Stmts)
	case *syntax.CallExpr:
		if len(n.Assigns) > 0 || len(n.Args) == 0 {
			return true
		}
		if name, ok := literalWord(n.Args[0]); !ok || builtins[name] != nil {
			return true
		}
		return slices.ContainsFunc(n.Args, wordAssigns)
	case *syntax.IfClause:
		for cl := n; cl != nil; cl = cl.Else {
			if stmtsAssign(cl.Cond) || stmtsAssign(cl.Then) {
				return true
			}
		}
		return false
	case *syntax.WhileClause:
		return stmtsAssign(n.Cond) || stmtsAssign(n.Do)
	case *syntax.CaseClause:
		if wordAssigns(n.Word) {
			return true
		}
		for _, item := range n.Items {
			if stmtsAssign(item.Stmts) {
				return true
			}
		}
		return false
	case *syntax.Block:
		return stmtsAssign(n.Stmts)
	case *syntax.BinaryCmd:
		return assigning(n.X) || assigning(n.Y)
	case *syntax.TimeClause:
		return assigning(n.Stmt)
	case *syntax.Subshell, *syntax.FuncDecl, *syntax.CoprocClause:
		return false
	default:
		return true // for, declarations, let, (( )), [[ ]]
	}
}

func stmtsAssign(list []*syntax.Stmt) bool {
	for _, st := range list {
		if assigning(st) {
			return true
		}
	}
	return false
}

// wordAssigns reports whether expanding a word may assign: ${X:=word},
// arithmetic, or an array index or slice (arithmetic too).
func wordAssigns(word *syntax.Word) bool {
	if word == nil {
		return false
	}
	return !eachPart(word.Parts, func(n syntax.WordPart) bool {
		switch n := n.(type) {
		case *syntax.ArithmExp:
			return false
		case *syntax.ParamExp:
			return !assigns(n) && n.Index == nil && n.Slice == nil
		}
		return true
	})
}

// join is what a variable may be after a clause whose arms left it as in
// outcomes.
func (w *Walker) join(outcomes []map[string]Var, name string, line int) Var {
	first := w.lookupIn(outcomes[0], name)
	var out Var
	exported, watched, same := false, false, true
	var alts []Var
	mayBeAny := false
	for _, o := range outcomes {
		v := w.lookupIn(o, name)
		exported, watched = exported || v.Exported, watched || v.Watched
		same = same && sameVar(first, v)
		vals, ok := v.values()
		if !ok {
			mayBeAny = true
			if out.Origin == 0 {
				out.Origin = v.Origin
			}
			continue
		}
		for _, val := range vals {
			if !slices.ContainsFunc(alts, func(a Var) bool { return sameVar(a, val) }) {
				alts = append(alts, val)
			}
		}
	}
	switch {
	case same:
		out = first
	case mayBeAny || len(alts) > maxAlts:
		out = Var{Set: true, Origin: out.Origin}
		if out.Origin == 0 {
			out.Origin = line
		}
	case len(alts) == 1:
		out = alts[0]
	default:
		out = Var{Set: true, Alts: alts, Origin: line}
	}
	out.Exported, out.Watched = exported, watched
	return out
}

func cloneVars(m map[string]Var) map[string]Var {
	c := make(map[string]Var, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// assignValue evaluates one assignment's value. A value that depends on
// variables with [Var.Alts] has every value they give.
func (w *Walker) assignValue(a *syntax.Assign) Var {
	v := w.assignValueOnce(a)
	if !v.Known && a.Array == nil && a.Index == nil && a.Value != nil {
		if alts := w.altValues(a); len(alts) > 0 {
			v = Var{Set: true, Alts: alts, Origin: w.altOrigin(a.Value)}
		}
	}
	v.Watched = v.Watched || w.watchedText(a)
	return v
}

func (w *Walker) assignValueOnce(a *syntax.Assign) Var {
	if a.Array != nil && a.Index == nil {
		return w.arrayValue(a)
	}
	if a.Array != nil || a.Index != nil {
		return Var{Set: true}
	}
	val, ok := "", true
	if a.Value != nil {
		val, ok = w.literal(a.Value)
	}
	if !ok {
		return Var{Set: true, Origin: w.wordOrigin(a.Value)}
	}
	if a.Append {
		old := w.lookup(a.Name.Value)
		if !old.Known {
			return Var{Set: true, Origin: old.Origin}
		}
		val = old.Value + val
	}
	return Var{Value: val, Known: true, Set: true}
}

// altValues evaluates a scalar assignment once for each combination of
// the values of the variables with [Var.Alts] it uses; nil when it uses
// none, or uses one that is unknown, or there are too many.
func (w *Walker) altValues(a *syntax.Assign) []Var {
	names := w.altNames([]*syntax.Word{a.Value})
	if a.Append && len(w.lookup(a.Name.Value).Alts) > 0 && !slices.Contains(names, a.Name.Value) {
		names = append(names, a.Name.Value)
	}
	if len(names) == 0 {
		return nil
	}
	var out []Var
	complete := w.eachCombination(names, func() {
		v := w.assignValueOnce(a)
		if !v.Known {
			out = nil
			return
		}
		v.Exported = false
		if !slices.ContainsFunc(out, func(o Var) bool { return sameVar(o, v) }) {
			out = append(out, v)
		}
	})
	if !complete || len(out) > maxAlts {
		return nil
	}
	return out
}

// altNames are the variables with [Var.Alts] that words use.
func (w *Walker) altNames(words []*syntax.Word) []string {
	var names []string
	for _, word := range words {
		eachPart(word.Parts, func(n syntax.WordPart) bool {
			if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil {
				if v := w.lookup(p.Param.Value); len(v.Alts) > 0 && !slices.Contains(names, p.Param.Value) {
					names = append(names, p.Param.Value)
				}
			}
			return true
		})
	}
	slices.Sort(names)
	return names
}

// altOrigin is the line of the clause that chose the first variable with
// [Var.Alts] that word uses.
func (w *Walker) altOrigin(word *syntax.Word) int {
	for _, name := range w.altNames([]*syntax.Word{word}) {
		return w.lookup(name).Origin
	}
	return w.line
}

// eachCombination calls fn once for each combination of the values of
// the named variables, each set to one of its [Var.Alts] for the call.
// It reports false, calling fn for none, when there are more than
// maxCombinations.
func (w *Walker) eachCombination(names []string, fn func()) bool {
	n := 1
	saved := make([]Var, len(names))
	for i, name := range names {
		saved[i] = w.lookup(name)
		n *= len(saved[i].Alts)
		if n > maxCombinations {
			return false
		}
	}
	for k := range n {
		rest := k
		for i, name := range names {
			alt := saved[i].Alts[rest%len(saved[i].Alts)]
			rest /= len(saved[i].Alts)
			alt.Exported = saved[i].Exported
			w.vars[name] = alt
		}
		w.expandCfg = nil
		fn()
	}
	for i, name := range names {
		w.vars[name] = saved[i]
	}
	w.expandCfg = nil
	return true
}

// arrayValue evaluates NAME=(words) and NAME+=(words): each element
// word expands to fields as a command argument does. An element with an
// index ([1]=x) or an unknown expansion makes the array unknown.
func (w *Walker) arrayValue(a *syntax.Assign) Var {
	var list []string
	if a.Append {
		old := w.lookup(a.Name.Value)
		if !old.Known || (!old.Indexed && old.Set) {
			return Var{Set: true}
		}
		list = slices.Clone(old.List)
	}
	for _, e := range a.Array.Elems {
		if e.Index != nil || e.Value == nil {
			return Var{Set: true}
		}
		for _, f := range w.fields(e.Value) {
			if !f.Known {
				return Var{Set: true, Origin: f.Origin}
			}
			list = append(list, f.Value)
		}
	}
	return Var{Known: true, Set: true, Indexed: true, List: list}
}

func (w *Walker) decl(c *syntax.DeclClause) {
	export := c.Variant.Value == "export"
	switch c.Variant.Value {
	case "export", "declare", "typeset", "readonly", "local":
	default:
		for _, a := range c.Args {
			if a.Name != nil {
				w.assign(a.Name.Value, Var{Set: true})
			}
		}
		return
	}
	unexport, dynamic := false, false
	for _, a := range c.Args {
		if a.Name == nil {
			opt, ok := w.literal(a.Value)
			switch {
			case !ok:
				dynamic = true
			case strings.HasPrefix(opt, "-") && strings.Contains(opt, "x"):
				export = true
			case strings.HasPrefix(opt, "+") && strings.Contains(opt, "x"), export && opt == "-n":
				unexport = true
			case strings.HasPrefix(opt, "-") && strings.ContainsAny(opt, "aAn"):
				dynamic = true
			}
			continue
		}
		name := a.Name.Value
		if dynamic {
			w.assign(name, Var{Set: true})
			continue
		}
		var v Var
		if a.Naked {
			v = w.lookup(name)
		} else {
			v = w.assignValue(a)
		}
		if export {
			v.Exported = true
		}
		if unexport {
			v.Exported = false
			w.vars[name] = v
			continue
		}
		w.assign(name, v)
	}
}

// readVars marks the variables a builtin reads input into as unknown.
func (w *Walker) readVars(args []Arg, _ bool) {
	for _, f := range args {
		if f.Known && systemd.ValidEnvName(f.Value) {
			w.assign(f.Value, Var{Set: true})
		}
	}
}

func (w *Walker) unset(args []Arg, _ bool) {
	for _, f := range args {
		if f.Known && !strings.HasPrefix(f.Value, "-") {
			w.assign(f.Value, Var{Known: true})
		}
	}
}

// forgetAll makes every variable unknown.
func (w *Walker) forgetAll() {
	for k, v := range w.vars {
		v.Known, v.Alts = false, nil
		if v.Origin == 0 {
			v.Origin = w.line
		}
		w.vars[k] = v
	}
}

func sortedVarNames(m map[string]Var) []string { return slices.Sorted(maps.Keys(m)) }
