package shell

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/ec2select/ec2select/userdata/internal/systemd"
)

// Var is what the walker knows about one shell variable.
type Var struct {
	Value    string
	Known    bool // the value is known; if false nothing is known
	Set      bool
	Exported bool
	// List holds an indexed array's elements (NAME=(a b c)); Indexed
	// marks such a variable.
	List    []string
	Indexed bool
	// Origin is the line where an unknown value came from (the command
	// substitution, or the conditional that may or may not assign); 0
	// when it comes from outside the script.
	Origin int
}

// Arg is one argument of a recorded call after expansion.
type Arg struct {
	Value string
	Known bool
	// Multi: an unknown, unquoted expansion that may become any number of
	// arguments.
	Multi bool
	// Prefix is the static text the argument is known to start with.
	Prefix string
	// Word is the word of the script the argument comes from.
	Word *syntax.Word
	// Origin is, for an unknown argument, the line where the unknown
	// value came from (see [Var.Origin]).
	Origin int
}

// Call is one recorded call of the target command.
type Call struct {
	Line int // 1-based line of the command word in the script
	Args []Arg
	// Env is the environment variable asked for, as the callee sees it.
	Env Var
	// UnknownName: the command word could not be resolved but its text
	// names the target.
	UnknownName bool
	Word        *syntax.Word
	// Cond: the call may not run (a branch, loop, function, && or ||).
	Cond bool
	// Errexit: errexit is certainly on at the call, so a failing call ends
	// the script; ErrexitMaybe: it may be.
	Errexit, ErrexitMaybe bool
	path                  []branch // the if/case arms the call is in
	guarded               bool     // in a loop, function, && or || list, or background job
}

// branch is one arm of an if or case clause.
type branch struct {
	clause syntax.Node
	arm    int
	// guarded: the clause itself may not run (it is in a loop, a
	// function, after && or ||, or in another clause's arm).
	guarded bool
}

// Exclusive reports whether two calls are in different arms of the same
// if or case clause, so that at most one of them runs.
func Exclusive(a, b Call) bool {
	for i := 0; i < len(a.path) && i < len(b.path); i++ {
		if a.path[i].clause != b.path[i].clause {
			return false
		}
		if a.path[i].arm != b.path[i].arm {
			return true
		}
	}
	return false
}

// Walker walks one script. It is used for one script only.
type Walker struct {
	target    string // base name of the command to record
	envName   string // environment variable to capture at each call
	vars      map[string]Var
	allexport bool
	poisoned  bool // eval or source ran: unassigned variables are unknown
	stopped   bool // exit ran at the top level
	calls     []Call
	opaque    []Construct
	errexit   errexit
	expandCfg *expand.Config
	path      []branch // the arms being walked
	line      int      // the line of the command being walked
	testing   int      // > 0 inside an if/while condition or before && and ||, where errexit does not apply
	guards    int      // > 0 where code may not run for a reason other than an if/case arm
	condLines []int    // lines of the enclosing conditionals, innermost last
	inFunc    int      // > 0 inside a function body
	stopLine  int      // where the walk stopped (exit, or a failure under errexit)
	stopWhy   string
}

// Stopped returns the line where the script certainly stops, and why;
// 0 when it runs to its end.
func (w *Walker) Stopped() (int, string) { return w.stopLine, w.stopWhy }

func (w *Walker) stop(line int, why string) {
	w.stopped, w.stopLine, w.stopWhy = true, line, why
}

// conditional walks fn inside a construct that may or may not run its
// body, so that an assignment made unknown there is traced to it.
func (w *Walker) conditional(line int, fn func()) {
	w.condLines = append(w.condLines, line)
	fn()
	w.condLines = w.condLines[:len(w.condLines)-1]
}

// tested walks fn where a failing command does not trigger errexit.
func (w *Walker) tested(fn func()) {
	w.testing++
	fn()
	w.testing--
}

// Construct is something in a script the walker cannot follow: the
// command it runs may be the target, or start what the target starts.
type Construct struct {
	Line int    // 1-based line in the script
	What string // what it is, for people: "eval", "bash -c", ...
}

// errexit is what the walker knows about bash's errexit option (set -e).
type errexit uint8

const (
	errexitOff errexit = iota
	errexitOn
	errexitMaybe // set or cleared in a branch that may not run
)

// NewWalker returns a walker recording the calls of the command whose base
// name is target, and the environment variable envName as each call sees
// it.
func NewWalker(target, envName string) *Walker {
	return &Walker{target: target, envName: envName, vars: map[string]Var{}}
}

// SetErrexit starts the walk with errexit on, as "#!/bin/bash -e" does.
func (w *Walker) SetErrexit() { w.errexit = errexitOn }

// Opaque returns the constructs met so far that the walker cannot follow,
// in order.
func (w *Walker) Opaque() []Construct { return w.opaque }

func (w *Walker) addOpaque(line int, what string) {
	w.opaque = append(w.opaque, Construct{Line: line, What: what})
}

// clone returns a walker for a subshell: same variables, own copy.
func (w *Walker) clone() *Walker {
	c := *w
	c.vars = make(map[string]Var, len(w.vars))
	for k, v := range w.vars {
		c.vars[k] = v
	}
	c.calls = nil
	c.expandCfg = nil
	c.path = slices.Clone(w.path)
	return &c
}

func (w *Walker) merge(sub *Walker) {
	w.calls = append(w.calls, sub.calls...)
	w.opaque = append(w.opaque, sub.opaque...)
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
func (w *Walker) lookup(name string) Var {
	if v, ok := w.vars[name]; ok {
		return v
	}
	if name == w.envName && !w.poisoned {
		return Var{Known: true}
	}
	return Var{}
}

func (w *Walker) stmts(list []*syntax.Stmt, cond bool) {
	for _, s := range list {
		if w.stopped {
			return
		}
		w.stmt(s, cond)
		w.failing(s, cond)
	}
}

// failing stops the walk at a statement that certainly fails (false) when
// errexit is on: bash exits there (set -e), so later statements never run.
// When errexit may or may not be on, what follows is not followable.
func (w *Walker) failing(s *syntax.Stmt, cond bool) {
	if w.testing > 0 || s.Negated || s.Background || w.errexit == errexitOff {
		return
	}
	if constantCondition([]*syntax.Stmt{s}) != conditionFalse {
		return
	}
	if w.inFunc > 0 {
		return // function bodies are not followed into their calls
	}
	if w.errexit == errexitMaybe || cond {
		// Bash exits here if this runs and errexit is on; neither is
		// certain.
		w.addOpaque(int(s.Pos().Line()), "a failing command under set -e in a branch that may or may not run")
		return
	}
	w.stop(int(s.Pos().Line()), "a command that fails under set -e (errexit)")
}

func (w *Walker) stmt(s *syntax.Stmt, cond bool) {
	if s == nil || s.Cmd == nil {
		return
	}
	w.line = int(s.Pos().Line())
	if s.Background || s.Coprocess {
		sub := w.clone()
		sub.guards++
		sub.command(s, true)
		w.merge(sub)
		return
	}
	w.command(s, cond)
}

func (w *Walker) command(s *syntax.Stmt, cond bool) {
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		w.call(c, cond)
	case *syntax.DeclClause:
		w.decl(c, cond)
	case *syntax.IfClause:
		w.ifClause(c, cond)
	case *syntax.WhileClause, *syntax.ForClause:
		w.conditional(int(c.Pos().Line()), func() { w.guarded(func() { w.branches(c) }) })
	case *syntax.CaseClause:
		w.conditional(int(c.Pos().Line()), func() { w.branches(c) })
	case *syntax.Block:
		w.stmts(c.Stmts, cond)
	case *syntax.Subshell:
		w.subshell(func(sub *Walker) { sub.stmts(c.Stmts, cond) })
	case *syntax.BinaryCmd:
		w.binary(c, cond)
	case *syntax.FuncDecl:
		// Calls inside a function body are recorded where the function is
		// defined; the linter does not follow calls of the function, so an
		// exit in it (a die helper) is not taken for one that runs.
		w.subshell(func(sub *Walker) {
			sub.inFunc++
			sub.guards++
			sub.stmt(c.Body, true)
		})
	case *syntax.TimeClause:
		w.stmt(c.Stmt, cond)
	case *syntax.CoprocClause:
		w.subshell(func(sub *Walker) { sub.stmt(c.Stmt, true) })
	case *syntax.LetClause, *syntax.ArithmCmd:
		w.arithmAssigns(c)
	}
}

// branches walks the bodies of loops and case clauses, which may run any
// number of times.
func (w *Walker) branches(c syntax.Command) {
	switch c := c.(type) {
	case *syntax.WhileClause:
		w.stmts(c.Cond, true)
		w.stmts(c.Do, true)
	case *syntax.ForClause:
		if it, ok := c.Loop.(*syntax.WordIter); ok && it.Name != nil {
			w.assign(it.Name.Value, Var{Set: true}, true)
		}
		w.stmts(c.Do, true)
	case *syntax.CaseClause:
		for i, item := range c.Items {
			w.inArm(c, i, func() { w.stmts(item.Stmts, true) })
		}
	}
}

// binary walks && and || lists (the right side may not run) and pipelines
// (each side in its own subshell).
func (w *Walker) binary(c *syntax.BinaryCmd, cond bool) {
	if c.Op == syntax.AndStmt || c.Op == syntax.OrStmt {
		w.tested(func() { w.stmt(c.X, cond) })
		w.conditional(int(c.Pos().Line()), func() { w.guarded(func() { w.stmt(c.Y, true) }) })
		return
	}
	for _, side := range []*syntax.Stmt{c.X, c.Y} {
		w.subshell(func(sub *Walker) { sub.stmt(side, cond) })
	}
}

// subshell walks fn in a copy of the walker whose variable changes do not
// come back; what it records does.
func (w *Walker) subshell(fn func(sub *Walker)) {
	sub := w.clone()
	fn(sub)
	w.merge(sub)
}

// ifClause walks if/elif/else; mvdan.cc/sh represents elif and else as
// nested IfClauses (else with no condition).
func (w *Walker) ifClause(c *syntax.IfClause, cond bool) {
	arm, certain := 0, !cond
	for cl := c; cl != nil; cl = cl.Else {
		w.tested(func() { w.stmts(cl.Cond, cond || arm > 0) })
		outcome := constantCondition(cl.Cond)
		if outcome == conditionFalse {
			arm++
			continue // this arm never runs
		}
		runs := certain && outcome == conditionTrue || certain && len(cl.Cond) == 0
		w.conditional(int(c.Pos().Line()), func() {
			w.inArm(c, arm, func() { w.stmts(cl.Then, !runs) })
		})
		if outcome == conditionTrue {
			return // later arms never run
		}
		certain = false
		arm++
	}
}

// inArm walks fn inside one arm of an if or case clause.
func (w *Walker) inArm(clause syntax.Node, arm int, fn func()) {
	saved := w.path
	w.path = append(slices.Clip(w.path), branch{clause: clause, arm: arm, guarded: w.guards > 0 || len(saved) > 0})
	fn()
	w.path = saved
}

// guarded walks fn where what runs may not run for a reason other than an
// if or case arm: loops, && and || lists, function bodies.
func (w *Walker) guarded(fn func()) {
	w.guards++
	fn()
	w.guards--
}

// Exhaustive reports whether at least one of the calls certainly runs:
// they are directly in the arms of one if/elif/else or case clause that
// itself runs, that has an else (or a * pattern), and they cover every
// arm.
func Exhaustive(calls []Call) bool {
	if len(calls) == 0 {
		return false
	}
	first := calls[0]
	if len(first.path) != 1 || first.path[0].guarded || first.guarded {
		return false
	}
	total, complete := clauseArms(first.path[0].clause)
	covered := map[int]bool{}
	for _, c := range calls {
		if len(c.path) != 1 || c.guarded || c.path[0].clause != first.path[0].clause {
			return false
		}
		covered[c.path[0].arm] = true
	}
	return complete && len(covered) == total
}

// clauseArms counts a clause's arms and whether one of them is taken
// when no other is (an else, or a case pattern that is just *).
func clauseArms(n syntax.Node) (int, bool) {
	switch c := n.(type) {
	case *syntax.IfClause:
		total, complete := 0, false
		for cl := c; cl != nil; cl = cl.Else {
			total++
			complete = len(cl.Cond) == 0
		}
		return total, complete
	case *syntax.CaseClause:
		complete := false
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				complete = complete || p.Lit() == "*"
			}
		}
		return len(c.Items), complete
	}
	return 0, false
}

// arithmAssignOps are the arithmetic operators that assign to their left
// operand. They are listed, not ranged over: mvdan.cc/sh numbers Assgn
// after ShrAssgn, so no range from one to the other holds them all.
var arithmAssignOps = map[syntax.BinAritOperator]bool{
	syntax.Assgn: true, syntax.AddAssgn: true, syntax.SubAssgn: true, syntax.MulAssgn: true,
	syntax.QuoAssgn: true, syntax.RemAssgn: true, syntax.AndAssgn: true, syntax.OrAssgn: true,
	syntax.XorAssgn: true, syntax.ShlAssgn: true, syntax.ShrAssgn: true,
}

// arithmAssigns marks variables assigned inside arithmetic as unknown.
// Bash evaluates the text of a quoted word (let 'X=1') and the value of a
// variable used in arithmetic as expressions themselves, so those are
// read as arithmetic too; a quoted word only known at boot may assign
// anything.
func (w *Walker) arithmAssigns(n syntax.Node) { w.arithm(n, 0) }

// maxArithmDepth bounds the evaluation of variables whose values are
// expressions that name other variables.
const maxArithmDepth = 8

func (w *Walker) arithm(n syntax.Node, depth int) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryArithm:
			if arithmAssignOps[n.Op] {
				w.arithmTarget(n.X)
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				w.arithmTarget(n.X)
			}
		case *syntax.Word:
			w.arithmWord(n, depth)
			return false
		}
		return true
	})
}

func (w *Walker) arithmTarget(x syntax.ArithmExpr) {
	if word, ok := x.(*syntax.Word); ok {
		if name := word.Lit(); name != "" {
			w.assign(name, Var{Set: true}, true)
		}
	}
}

// arithmWord evaluates a word inside arithmetic: a variable name or a
// parameter whose value is an expression, or a quoted expression.
func (w *Walker) arithmWord(word *syntax.Word, depth int) {
	if depth >= maxArithmDepth {
		w.forgetAll()
		return
	}
	text, ok := "", false
	switch {
	case syntax.ValidName(word.Lit()):
		v := w.lookup(word.Lit())
		text, ok = v.Value, v.Known
		if !v.Known {
			return // an unknown number; see the package doc
		}
	default:
		text, ok = w.literal(word)
	}
	if !ok {
		if hasQuotes(word) {
			w.forgetAll() // let "$EXPR": any variable may be assigned
		}
		return
	}
	if !strings.ContainsAny(text, "=+-") {
		return
	}
	expr, err := syntax.NewParser().Arithmetic(strings.NewReader(text))
	if err != nil || expr == nil {
		return // bash fails on it and assigns nothing
	}
	w.arithm(expr, depth+1)
}

func hasQuotes(word *syntax.Word) bool {
	for _, p := range word.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

// forgetAll makes every variable unknown.
func (w *Walker) forgetAll() {
	for k, v := range w.vars {
		v.Known = false
		if v.Origin == 0 {
			v.Origin = w.line
		}
		w.vars[k] = v
	}
}

// assign records a new value; in a conditional context the old and new
// values are both possible, so the variable stays known only if they agree.
func (w *Walker) assign(name string, v Var, cond bool) {
	old := w.lookup(name)
	if w.allexport {
		v.Exported = true
	}
	v.Exported = v.Exported || old.Exported
	if cond && v.Known && !(old.Known && old.Set == v.Set && old.Value == v.Value && slices.Equal(old.List, v.List)) {
		v.Known = false
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

// assignValue evaluates one assignment's value.
func (w *Walker) assignValue(a *syntax.Assign) Var {
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

func (w *Walker) decl(c *syntax.DeclClause, cond bool) {
	export := c.Variant.Value == "export"
	switch c.Variant.Value {
	case "export", "declare", "typeset", "readonly", "local":
	default:
		for _, a := range c.Args {
			if a.Name != nil {
				w.assign(a.Name.Value, Var{Set: true}, true)
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
			w.assign(name, Var{Set: true}, true)
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
		w.assign(name, v, cond)
	}
}

// call handles a simple command: assignments, the builtins that change
// variables or stop the script, and calls of the target.
func (w *Walker) call(c *syntax.CallExpr, cond bool) {
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			w.assign(a.Name.Value, w.assignValue(a), cond)
		}
		return
	}
	w.line = int(c.Pos().Line())
	if name, literal := literalWord(c.Args[0]); literal && !w.interesting(name) {
		return // most commands cannot matter: skip expanding their arguments
	}
	var fields []Arg
	for _, word := range c.Args {
		fields = append(fields, w.fields(word)...)
	}
	if len(fields) == 0 {
		return // every word expanded to nothing: bash runs no command
	}
	if !fields[0].Known {
		w.unknownCommand(c, fields[0], cond)
		return
	}
	if builtin, ok := builtins[fields[0].Value]; ok {
		builtin(w, fields[1:], cond)
		return
	}
	w.record(c, fields, cond)
}

// unknownCommand handles a command whose name is only known at boot: it
// may be anything, the target included.
func (w *Walker) unknownCommand(c *syntax.CallExpr, name Arg, cond bool) {
	if strings.Contains(name.Prefix+Source(c.Args[0]), w.target) {
		w.calls = append(w.calls, Call{Line: int(c.Args[0].Pos().Line()), UnknownName: true, Word: c.Args[0], Cond: cond, path: slices.Clone(w.path)})
		return
	}
	w.addOpaque(int(c.Args[0].Pos().Line()), "a command whose name is only known at boot ("+Source(c.Args[0])+")")
}

// builtins are the builtins that change what the walker knows.
var builtins = map[string]func(w *Walker, args []Arg, cond bool){
	"unset":     (*Walker).unset,
	"set":       (*Walker).set,
	"eval":      (*Walker).poison,
	"source":    (*Walker).poison,
	".":         (*Walker).poison,
	"read":      (*Walker).readVars,
	"mapfile":   (*Walker).readVars,
	"readarray": (*Walker).readVars,
	"getopts":   (*Walker).readVars,
	"printf":    (*Walker).readVars,
	"exit":      (*Walker).exit,
}

func (w *Walker) unset(args []Arg, cond bool) {
	for _, f := range args {
		if f.Known && !strings.HasPrefix(f.Value, "-") {
			w.assign(f.Value, Var{Known: true}, cond)
		}
	}
}

// set follows allexport (set -a, set -o allexport), under which every
// later assignment is exported, and errexit (set -e, set -o errexit).
func (w *Walker) set(args []Arg, cond bool) {
	for i, f := range args {
		next := ""
		if i+1 < len(args) {
			next = args[i+1].Value
		}
		w.setErrexit(f.Value, next, cond)
		switch {
		case f.Value == "-o" && next == "allexport":
			w.allexport = !cond
		case f.Value == "+o" && next == "allexport":
			w.allexport = false
		case strings.HasPrefix(f.Value, "-") && strings.Contains(f.Value, "a") && !strings.HasPrefix(f.Value, "--"):
			w.allexport = !cond
		case strings.HasPrefix(f.Value, "+") && strings.Contains(f.Value, "a"):
			w.allexport = false
		}
	}
}

// setErrexit follows one option word of set.
func (w *Walker) setErrexit(opt, next string, cond bool) {
	on := ""
	switch {
	case (opt == "-o" || opt == "+o") && next == "errexit":
		on = opt[:1]
	case len(opt) > 1 && (opt[0] == '-' || opt[0] == '+') && opt[1] != '-' && opt[1] != 'o' && strings.Contains(opt, "e"):
		on = opt[:1]
	default:
		return
	}
	want := errexitOff
	if on == "-" {
		want = errexitOn
	}
	if cond && want != w.errexit {
		want = errexitMaybe
	}
	w.errexit = want
}

// poison follows eval, source and '.': any variable may now have any
// value.
func (w *Walker) poison([]Arg, bool) {
	w.addOpaque(w.line, "eval, source or '.': runs text the walker cannot read")
	w.poisoned = true
	for k, v := range w.vars {
		v.Known = false
		w.vars[k] = v
	}
}

// readVars marks the variables a builtin reads input into as unknown.
func (w *Walker) readVars(args []Arg, _ bool) {
	for _, f := range args {
		if f.Known && systemd.ValidEnvName(f.Value) {
			w.assign(f.Value, Var{Set: true}, true)
		}
	}
}

func (w *Walker) exit(_ []Arg, cond bool) {
	switch {
	case !cond:
		w.stop(w.line, "exit")
	case w.inFunc == 0:
		// It ends the script if its branch runs, which is not known.
		w.addOpaque(w.line, "exit in a branch that may or may not run")
	}
}

// record applies the command's prefix assignment of the environment
// variable and the wrappers (sudo, env, ...), and records the call when
// the command run is the target.
func (w *Walker) record(c *syntax.CallExpr, fields []Arg, cond bool) {
	env := w.lookup(w.envName)
	if !env.Exported {
		env = Var{Known: env.Known || !w.poisoned}
	}
	for _, a := range c.Assigns {
		if a.Name.Value == w.envName {
			env = w.assignValue(a)
			env.Exported = true
		}
	}
	args, env, ok := unwrapCommand(fields, env, w.envName)
	if !ok {
		w.addOpaque(w.line, shellCommandString(fields))
		return
	}
	if len(args) == 0 {
		if shellName(fields) {
			w.addOpaque(w.line, "a shell reading commands from its input")
		}
		return
	}
	if !args[0].Known {
		w.unknownCommand(c, args[0], cond)
		return
	}
	if what := opaqueCommand(args, w.target); what != "" {
		w.addOpaque(int(args[0].Word.Pos().Line()), what)
		return
	}
	if path.Base(args[0].Value) == w.target {
		w.calls = append(w.calls, Call{
			Line: int(args[0].Word.Pos().Line()),
			Args: args[1:],
			Env:  env,
			Word: args[0].Word,
			Cond: cond,
			path: slices.Clone(w.path),
			// A call tested by if, while, && or || does not trigger errexit.
			Errexit:      w.errexit == errexitOn && w.testing == 0,
			ErrexitMaybe: w.errexit == errexitMaybe && w.testing == 0,
			guarded:      w.guards > 0 || w.testing > 0,
		})
	}
}

// commandsOfInterest are the commands whose arguments the walker needs:
// builtins that change variables or stop the script, and wrappers that run
// another command.
var commandsOfInterest = map[string]bool{
	"unset": true, "set": true, "eval": true, "source": true, ".": true, "read": true, "mapfile": true,
	"readarray": true, "getopts": true, "printf": true, "exit": true,
	"exec": true, "command": true, "nohup": true, "nice": true, "timeout": true, "sudo": true, "env": true,
	"bash": true, "sh": true, "dash": true, "trap": true, "cloud-init-per": true,
}

func (w *Walker) interesting(name string) bool {
	base := path.Base(name)
	return base == w.target || commandsOfInterest[base] || opaqueCommands[base] != "" ||
		strings.ContainsRune(name, '/') || kubeletStarters[base]
}

// literalWord returns a word's text when it is one literal without quotes,
// escapes or expansions.
func literalWord(word *syntax.Word) (string, bool) {
	if len(word.Parts) != 1 {
		return "", false
	}
	lit, ok := word.Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(lit.Value, "\\~{*?[") {
		return "", false
	}
	return lit.Value, true
}

// unwrapCommand skips the wrappers that run another command (sudo, env,
// exec, command, nohup, nice, timeout, cloud-init-per, bash, sh) and
// applies what they do to the environment variable: sudo clears it unless
// -E or --preserve-env, env -i clears it and NAME=value sets it. ok is
// false for a shell given a command string (-c).
func unwrapCommand(args []Arg, env Var, envName string) ([]Arg, Var, bool) {
	for len(args) > 0 && args[0].Known {
		unwrap, isWrapper := wrappers[path.Base(args[0].Value)]
		if !isWrapper {
			break
		}
		var ok bool
		args, env, ok = unwrap(args[1:], env, envName)
		if !ok {
			return nil, env, false
		}
	}
	return args, env, true
}

// wrappers map a wrapper command to what it does with its arguments (the
// words after its name) and the environment variable.
var wrappers = map[string]func(args []Arg, env Var, envName string) ([]Arg, Var, bool){
	"exec":    plainWrapper(nil),
	"command": plainWrapper(nil),
	"nohup":   plainWrapper(nil),
	"nice":    plainWrapper(map[string]bool{"-n": true}),
	"timeout": func(args []Arg, env Var, _ string) ([]Arg, Var, bool) {
		args = skipOptions(args, map[string]bool{"-s": true, "-k": true})
		return args[min(1, len(args)):], env, true // the duration
	},
	"cloud-init-per": func(args []Arg, env Var, _ string) ([]Arg, Var, bool) {
		return args[min(2, len(args)):], env, true // FREQUENCY NAME COMMAND...
	},
	"sudo": unwrapSudo,
	"env": func(args []Arg, env Var, envName string) ([]Arg, Var, bool) {
		args, env = unwrapEnv(args, env, envName)
		return args, env, true
	},
	"bash": unwrapShell,
	"sh":   unwrapShell,
	"dash": unwrapShell,
}

// plainWrapper skips options, of which those in takesValue take the next
// word.
func plainWrapper(takesValue map[string]bool) func([]Arg, Var, string) ([]Arg, Var, bool) {
	return func(args []Arg, env Var, _ string) ([]Arg, Var, bool) {
		return skipOptions(args, takesValue), env, true
	}
}

// unwrapSudo: sudo clears the environment unless told to keep it.
func unwrapSudo(args []Arg, env Var, _ string) ([]Arg, Var, bool) {
	preserve := false
	for _, a := range args {
		if !a.Known || !strings.HasPrefix(a.Value, "-") {
			break
		}
		long := strings.HasPrefix(a.Value, "--")
		preserve = preserve || a.Value == "-E" || strings.HasPrefix(a.Value, "--preserve-env") || (!long && strings.Contains(a.Value, "E"))
	}
	if !preserve {
		env = Var{Known: true}
	}
	return skipOptions(args, map[string]bool{"-u": true, "-g": true, "-p": true, "-C": true, "-D": true, "-r": true, "-t": true, "-U": true, "-h": true}), env, true
}

// unwrapShell: a shell runs the script named by its first operand; a
// command string (-c) is not followed.
func unwrapShell(args []Arg, env Var, _ string) ([]Arg, Var, bool) {
	for len(args) > 0 && args[0].Known && strings.HasPrefix(args[0].Value, "-") {
		if strings.Contains(args[0].Value, "c") && !strings.HasPrefix(args[0].Value, "--") {
			return nil, env, false
		}
		if (args[0].Value == "-o" || args[0].Value == "+o") && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	return args, env, true
}

// unwrapEnv applies env's options and NAME=value arguments.
func unwrapEnv(args []Arg, env Var, envName string) ([]Arg, Var) {
	for len(args) > 0 && args[0].Known {
		v := args[0].Value
		switch {
		case v == "-i" || v == "-" || v == "--ignore-environment":
			env = Var{Known: true}
		case v == "-u" && len(args) > 1:
			if args[1].Value == envName || !args[1].Known {
				env = Var{Known: args[1].Known}
			}
			args = args[1:]
		case strings.HasPrefix(v, "-"):
		case strings.Contains(v, "="):
			if k, val, _ := strings.Cut(v, "="); k == envName {
				env = Var{Value: val, Known: true, Set: true, Exported: true}
			}
		default:
			return args, env
		}
		args = args[1:]
	}
	return args, env
}

func skipOptions(args []Arg, takesValue map[string]bool) []Arg {
	for len(args) > 0 && args[0].Known && strings.HasPrefix(args[0].Value, "-") {
		if args[0].Value == "--" {
			return args[1:]
		}
		if takesValue[args[0].Value] && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	return args
}

// literal expands a word as an assignment value (no splitting).
func (w *Walker) literal(word *syntax.Word) (string, bool) {
	if word == nil {
		return "", true
	}
	if !w.static(word) {
		return "", false
	}
	var out string
	ok := w.safely(func() error {
		s, err := expand.Literal(w.config(), word)
		out = s
		return err
	})
	return out, ok
}

// fields expands a command argument into the words the command receives.
func (w *Walker) fields(word *syntax.Word) []Arg {
	if w.static(word) {
		var out []string
		if w.safely(func() error {
			f, err := expand.Fields(w.config(), word)
			out = f
			return err
		}) {
			args := make([]Arg, len(out))
			for i, f := range out {
				args[i] = Arg{Value: f, Known: true, Prefix: f, Word: word}
			}
			return args
		}
	}
	return []Arg{{Multi: unquotedDynamic(word), Prefix: staticPrefix(word), Word: word, Origin: w.wordOrigin(word)}}
}

// wordOrigin is the line an unknown word's value comes from: the origin of
// its first unknown variable, else the word's own line.
func (w *Walker) wordOrigin(word *syntax.Word) int {
	origin := 0
	syntax.Walk(word, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && origin == 0 && p.Param != nil {
			if v := w.lookup(p.Param.Value); !v.Known {
				origin = v.Origin
			}
		}
		return origin == 0
	})
	if origin == 0 {
		origin = int(word.Pos().Line())
	}
	return origin
}

// config returns the walker's expansion config, reused across words
// (mvdan.cc/sh re-reads IFS from the environment on every expansion).
func (w *Walker) config() *expand.Config {
	if w.expandCfg == nil {
		w.expandCfg = &expand.Config{Env: w}
	}
	return w.expandCfg
}

// safely runs an expansion from mvdan.cc/sh, turning an error or a panic
// inside it into "not known".
func (w *Walker) safely(fn func() error) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return fn() == nil
}

// static reports whether a word can be expanded without running anything:
// no command, arithmetic or process substitution, no tilde (which would
// look up users), and only parameters whose values are known.
func (w *Walker) static(word *syntax.Word) bool {
	if len(word.Parts) > 0 {
		if lit, ok := word.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
			return false
		}
	}
	ok := true
	syntax.Walk(word, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
			ok = false
		case *syntax.ParamExp:
			if n.Excl || n.Names != 0 || n.Slice != nil || n.Width || n.Param == nil || !wholeArray(n.Index) {
				ok = false
			} else if v := w.lookup(n.Param.Value); !v.Known {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// unquotedDynamic reports whether a word has an expansion outside double
// quotes, which word splitting may turn into several arguments or none.
func unquotedDynamic(word *syntax.Word) bool {
	for _, p := range word.Parts {
		switch p.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob, *syntax.BraceExp:
			return true
		}
	}
	return false
}

// staticPrefix is the text a word certainly starts with.
func staticPrefix(word *syntax.Word) string {
	var b strings.Builder
	for _, p := range word.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(strings.ReplaceAll(p.Value, `\`, ""))
		case *syntax.SglQuoted:
			if p.Dollar {
				return b.String()
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return b.String()
				}
				b.WriteString(lit.Value)
			}
		default:
			return b.String()
		}
	}
	return b.String()
}

// Source is a word's raw text, for spotting the target's name in a
// word the walker cannot expand.
func Source(word *syntax.Word) string {
	var b bytes.Buffer
	if err := syntax.NewPrinter().Print(&b, word); err != nil {
		return ""
	}
	return b.String()
}

func sortedVarNames(m map[string]Var) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// wholeArray accepts no index, or [@] and [*], the indexes that expand
// every element; other indexes are not followed.
func wholeArray(index syntax.ArithmExpr) bool {
	if index == nil {
		return true
	}
	word, ok := index.(*syntax.Word)
	if !ok {
		return false
	}
	lit := word.Lit()
	return lit == "@" || lit == "*"
}
