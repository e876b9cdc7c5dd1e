package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Arg is one argument of a recorded call after expansion.
type Arg struct {
	Value string
	Known bool
	// Multi: an unknown, unquoted expansion that may become any number of
	// arguments.
	Multi bool
	// Prefix is the static text the argument is known to start with.
	Prefix string
	// Word is the word of the script the argument comes from; for a call
	// inside a command string (sh -c '...') it is a word of that string.
	Word *syntax.Word
	// Line is the 1-based line of the script the word is on (for a
	// command string, the line of the sh -c).
	Line int
	// Origin is, for an unknown argument, the line where the unknown
	// value came from (see [Var.Origin]).
	Origin int
}

// Call is one recorded call of the target command.
type Call struct {
	Line int // 1-based line of the command word in the script
	// Seq orders the call among the script's calls, file changes and
	// kubelet starts.
	Seq  int
	Args []Arg
	// Env is the environment variable asked for, as the callee sees it.
	Env Var
	// UnknownName: the command word could not be resolved but its text
	// names the target.
	UnknownName bool
	Word        *syntax.Word
	// InString: the call is in a command string (sh -c '...'), so its
	// words' positions are in that string, not in the script.
	InString bool
	// Cond: the call may not run (a branch, loop, function, && or ||).
	Cond bool
	// Choice, when non-zero, is the line of the if, case, && or || whose
	// branch chose this call's arguments: the call is one of several
	// recorded for one command, one per set of values its variables may
	// have, exactly one of which runs.
	Choice int
	// Errexit: errexit is certainly on at the call, so a failing call ends
	// the script; ErrexitMaybe: it may be.
	Errexit, ErrexitMaybe bool
	path                  []branch // the if/case arms the call is in
	guarded               bool     // in a loop, function, && or || list, or background job
}

// branch is one arm of an if or case clause, or one of the argument lists
// of a call whose variables have several values.
type branch struct {
	clause syntax.Node
	arm    int
	// arms, when non-zero, is the number of argument lists of the call
	// (clause is the call's CallExpr); one of them runs.
	arms int
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

// Options says what [Walk] looks for.
type Options struct {
	// Target is the base name of the command whose calls are recorded.
	Target string
	// EnvName is the environment variable each call's [Call.Env] holds.
	EnvName string
	// Watch are the files and directories (and everything under them)
	// whose changes are recorded in [Result.Files].
	Watch []string
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
	starts    []Construct
	errexit   errexit
	expandCfg *expand.Config
	path      []branch // the arms being walked
	line      int      // the line of the command being walked
	testing   int      // > 0 inside an if/while condition or before && and ||, where errexit does not apply
	guards    int      // > 0 where code may not run for a reason other than an if/case arm
	unsure    int      // > 0 in a loop body, which may run any number of times
	condLines []int    // lines of the enclosing conditionals, innermost last
	inFunc    int      // > 0 inside a function body
	stopLine  int      // where the walk stopped (exit, or a failure under errexit)
	stopWhy   string
	fs        *files // shared with subshells and command strings: files are not copied
	// src is the text being walked, and at, when non-zero, the script
	// line every position in it is reported as (a command string's).
	src       []byte
	at        int
	depth     int    // command strings this one is nested in
	mentionAt []span // where src names a watched path, once computed
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
	Seq  int    // order among calls, file changes and kubelet starts
	What string // what it is, for people: "eval", "bash -c", ...
	Cond bool   // it may not run
	// EndsOnly: all it can do is end the script early (an exit, or a
	// failure under set -e, in a branch that may run), so what the walk
	// recorded after it may or may not run, and nothing else does.
	EndsOnly bool
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
	return newWalker(Options{Target: target, EnvName: envName}, nil)
}

func newWalker(o Options, src []byte) *Walker {
	return &Walker{target: o.Target, envName: o.EnvName, vars: map[string]Var{}, fs: newFiles(o.Watch), src: src}
}

// SetErrexit starts the walk with errexit on, as "#!/bin/bash -e" does.
func (w *Walker) SetErrexit() { w.errexit = errexitOn }

// Opaque returns the constructs met so far that the walker cannot follow,
// in order.
func (w *Walker) Opaque() []Construct { return w.opaque }

// pos is the script line of a position in the text being walked.
func (w *Walker) pos(p syntax.Pos) int {
	if w.at > 0 {
		return w.at
	}
	return int(p.Line())
}

func (w *Walker) addOpaque(line int, what string) {
	if w.at > 0 {
		line = w.at
	}
	w.opaque = append(w.opaque, Construct{Line: line, Seq: w.fs.next(), What: what, Cond: w.mayNotRun()})
}

// addEnd records an exit, or a failure under set -e, that may end the
// script in a branch that may run.
func (w *Walker) addEnd(line int, what string) {
	w.addOpaque(line, what)
	w.opaque[len(w.opaque)-1].EndsOnly = true
}

// mayNotRun reports whether the command being walked may not run.
func (w *Walker) mayNotRun() bool {
	return len(w.path) > 0 || w.guards > 0 || w.unsure > 0
}

// clone returns a walker for a subshell: same variables, own copy.
func (w *Walker) clone() *Walker {
	c := *w
	c.vars = cloneVars(w.vars)
	c.calls, c.opaque, c.starts = nil, nil, nil
	c.expandCfg = nil
	c.path = slices.Clone(w.path)
	return &c
}

func (w *Walker) merge(sub *Walker) {
	w.calls = append(w.calls, sub.calls...)
	w.opaque = append(w.opaque, sub.opaque...)
	w.starts = append(w.starts, sub.starts...)
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
		w.addEnd(int(s.Pos().Line()), "a failing command under set -e in a branch that may or may not run")
		return
	}
	w.stop(w.pos(s.Pos()), "a command that fails under set -e (errexit)")
}

func (w *Walker) stmt(s *syntax.Stmt, cond bool) {
	if s == nil {
		return
	}
	w.line = w.pos(s.Pos())
	if s.Cmd == nil {
		w.redirectOnly(s, cond) // ">file" truncates or creates it
		return
	}
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
	if c, ok := s.Cmd.(*syntax.CallExpr); ok {
		w.call(s, c, cond)
		return
	}
	w.redirects(s, cond)
	switch c := s.Cmd.(type) {
	case *syntax.DeclClause:
		w.expansions(c, cond)
		w.decl(c)
	case *syntax.IfClause:
		w.ifClause(c, cond)
	case *syntax.WhileClause, *syntax.ForClause:
		w.conditional(w.pos(c.Pos()), func() {
			w.guarded(func() {
				w.unsure++
				w.loop(c)
				w.unsure--
			})
		})
	case *syntax.CaseClause:
		w.expansions(c.Word, cond)
		w.conditional(w.pos(c.Pos()), func() { w.caseClause(c) })
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
	case *syntax.TestClause:
		w.expansions(c, cond)
	}
}

// loop walks the body of a while or for loop, which may run any number of
// times.
func (w *Walker) loop(c syntax.Command) {
	switch c := c.(type) {
	case *syntax.WhileClause:
		w.stmts(c.Cond, true)
		w.stmts(c.Do, true)
	case *syntax.ForClause:
		if it, ok := c.Loop.(*syntax.WordIter); ok && it.Name != nil {
			watched := false
			for _, item := range it.Items {
				w.expansions(item, true)
				watched = watched || w.wordWatched(item)
			}
			w.assign(it.Name.Value, Var{Set: true, Watched: watched})
		}
		w.stmts(c.Do, true)
	}
}

// caseClause walks each item of a case clause on its own copy of the
// variables; one runs, or none when no pattern is *.
func (w *Walker) caseClause(c *syntax.CaseClause) {
	arms := make([]func(), len(c.Items))
	bodies := make([]syntax.Node, len(c.Items))
	for i, item := range c.Items {
		arms[i] = func() { w.inArm(c, i, func() { w.stmts(item.Stmts, true) }) }
		bodies[i] = item
	}
	_, complete := clauseArms(c)
	w.fork(w.pos(c.Pos()), arms, bodies, complete)
}

// binary walks && and || lists (the right side may not run) and pipelines
// (each side in its own subshell).
func (w *Walker) binary(c *syntax.BinaryCmd, cond bool) {
	if c.Op == syntax.AndStmt || c.Op == syntax.OrStmt {
		w.tested(func() { w.stmt(c.X, cond) })
		line := w.pos(c.Pos())
		w.conditional(line, func() {
			w.guarded(func() { w.fork(line, []func(){func() { w.stmt(c.Y, true) }}, []syntax.Node{c.Y}, false) })
		})
		return
	}
	if w.pipeIntoFile(c, cond) {
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
// nested IfClauses (else with no condition). Each arm that may run is
// walked on its own copy of the variables, and the copies are joined.
func (w *Walker) ifClause(c *syntax.IfClause, cond bool) {
	arm, certain := 0, !cond
	line := w.pos(c.Pos())
	var arms []func()
	var bodies []syntax.Node
	exhaustive := false
	for cl := c; cl != nil; cl = cl.Else {
		w.tested(func() { w.stmts(cl.Cond, cond || arm > 0) })
		outcome := constantCondition(cl.Cond)
		if outcome == conditionFalse {
			arm++
			continue // this arm never runs
		}
		runs := certain && outcome == conditionTrue || certain && len(cl.Cond) == 0
		n := arm
		arms = append(arms, func() {
			w.conditional(line, func() { w.inArm(c, n, func() { w.stmts(cl.Then, !runs) }) })
		})
		for _, st := range cl.Then {
			bodies = append(bodies, st)
		}
		if outcome == conditionTrue || len(cl.Cond) == 0 {
			exhaustive = true
			break // later arms never run
		}
		certain = false
		arm++
	}
	w.fork(line, arms, bodies, exhaustive)
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
// arm; or they are the argument lists of one call that runs.
func Exhaustive(calls []Call) bool {
	if len(calls) == 0 {
		return false
	}
	first := calls[0]
	if len(first.path) != 1 || first.path[0].guarded || first.guarded {
		return false
	}
	total, complete := first.path[0].count()
	covered := map[int]bool{}
	for _, c := range calls {
		if len(c.path) != 1 || c.guarded || c.path[0].clause != first.path[0].clause {
			return false
		}
		covered[c.path[0].arm] = true
	}
	return complete && len(covered) == total
}

func (b branch) count() (int, bool) {
	if b.arms > 0 {
		return b.arms, true
	}
	return clauseArms(b.clause)
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

// call handles a simple command: assignments, the builtins that change
// variables or stop the script, calls of the target, and what the command
// does to watched files.
func (w *Walker) call(s *syntax.Stmt, c *syntax.CallExpr, cond bool) {
	w.expansions(c, cond)
	if len(c.Args) == 0 {
		w.redirects(s, cond)
		for _, a := range c.Assigns {
			w.assign(a.Name.Value, w.assignValue(a))
		}
		return
	}
	w.line = w.pos(c.Pos())
	touches := w.touches(s, c)
	if name, literal := literalWord(c.Args[0]); literal && !w.interesting(name) && !touches {
		w.redirects(s, cond)
		return // most commands cannot matter: skip expanding their arguments
	}
	var fields []Arg
	for _, word := range c.Args {
		fields = append(fields, w.fields(word)...)
	}
	if len(fields) == 0 {
		w.redirects(s, cond)
		return // every word expanded to nothing: bash runs no command
	}
	if !fields[0].Known {
		w.redirects(s, cond)
		w.unknownCommand(c, fields[0], cond)
		return
	}
	if builtin, ok := builtins[fields[0].Value]; ok {
		builtin(w, fields[1:], cond)
		if fields[0].Value == "printf" {
			w.fileEffects(s, fields, cond) // it also writes its output
			return
		}
		w.redirects(s, cond)
		return
	}
	w.record(s, c, fields, cond)
}

// unknownCommand handles a command whose name is only known at boot: it
// may be anything, the target included.
func (w *Walker) unknownCommand(c *syntax.CallExpr, name Arg, cond bool) {
	if strings.Contains(name.Prefix+Source(c.Args[0]), w.target) {
		w.calls = append(w.calls, Call{Line: w.pos(c.Args[0].Pos()), Seq: w.fs.next(), UnknownName: true, Word: c.Args[0],
			InString: w.at > 0, Cond: cond, path: slices.Clone(w.path)})
		return
	}
	w.addOpaque(w.pos(c.Args[0].Pos()), "a command whose name is only known at boot ("+Source(c.Args[0])+")")
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
	w.forgetAll()
}

func (w *Walker) exit(_ []Arg, cond bool) {
	switch {
	case !cond:
		w.stop(w.line, "exit")
	case w.inFunc == 0:
		// It ends the script if its branch runs, which is not known.
		w.addEnd(w.line, "exit in a branch that may or may not run")
	}
}

// record applies the command's prefix assignment of the environment
// variable and the wrappers (sudo, env, sh -c, ...), then records the call
// when the command run is the target, the kubelet start when it starts the
// kubelet, and what it does to watched files.
func (w *Walker) record(s *syntax.Stmt, c *syntax.CallExpr, fields []Arg, cond bool) {
	env := w.commandEnv(c)
	args, env, script := unwrapCommand(fields, env, w.envName)
	if script != nil {
		w.redirects(s, cond)
		w.commandString(*script, fields, env, cond)
		return
	}
	if len(args) == 0 {
		w.redirects(s, cond)
		if shellName(fields) {
			w.addOpaque(w.line, "a shell reading commands from its input")
		}
		return
	}
	if !args[0].Known {
		w.redirects(s, cond)
		w.unknownCommand(c, args[0], cond)
		return
	}
	if what := opaqueCommand(args, w.target); what != "" {
		w.redirects(s, cond)
		w.addOpaque(args[0].Line, what)
		return
	}
	isTarget := path.Base(args[0].Value) == w.target
	if what := startsKubelet(args); what != "" && !isTarget {
		w.redirects(s, cond)
		w.starts = append(w.starts, Construct{Line: args[0].Line, Seq: w.fs.next(), What: what, Cond: cond || w.mayNotRun()})
		return
	}
	if !isTarget {
		w.fileEffects(s, args, cond)
		return
	}
	w.redirects(s, cond)
	if names := w.altNames(c.Args); len(names) > 0 || len(env.Alts) > 0 {
		if w.recordChoices(c, names) {
			return
		}
	}
	w.calls = append(w.calls, w.newCall(args, env, cond))
}

// commandEnv is the environment variable as the command sees it: exported
// from the script, or set by the command's prefix assignment.
func (w *Walker) commandEnv(c *syntax.CallExpr) Var {
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
	return env
}

func (w *Walker) newCall(args []Arg, env Var, cond bool) Call {
	return Call{
		Line:     args[0].Line,
		Seq:      w.fs.next(),
		Args:     args[1:],
		Env:      env,
		Word:     args[0].Word,
		InString: w.at > 0,
		Cond:     cond,
		path:     slices.Clone(w.path),
		// A call tested by if, while, && or || does not trigger errexit.
		Errexit:      w.errexit == errexitOn && w.testing == 0,
		ErrexitMaybe: w.errexit == errexitMaybe && w.testing == 0,
		guarded:      w.guards > 0 || w.testing > 0,
	}
}

// recordChoices records one call of the target for each combination of
// the values of the variables with [Var.Alts] its words or environment
// use; exactly one of them runs. It reports false, recording nothing,
// when there are too many combinations or an argument stays unknown.
func (w *Walker) recordChoices(c *syntax.CallExpr, names []string) bool {
	if env := w.commandEnv(c); len(env.Alts) > 0 && !slices.Contains(names, w.envName) {
		names = append(names, w.envName)
	}
	choice := 0
	for _, name := range names {
		if o := w.lookup(name).Origin; choice == 0 || o > 0 && o < choice {
			choice = o
		}
	}
	var calls []Call
	complete := w.eachCombination(names, func() {
		var fields []Arg
		for _, word := range c.Args {
			fields = append(fields, w.fields(word)...)
		}
		args, env, script := unwrapCommand(fields, w.commandEnv(c), w.envName)
		if script != nil || len(args) == 0 || !args[0].Known || path.Base(args[0].Value) != w.target {
			calls = nil
			return
		}
		call := w.newCall(args, env, true)
		call.Choice = choice
		calls = append(calls, call)
	})
	if !complete || len(calls) == 0 {
		return false
	}
	for i := range calls {
		calls[i].path = append(calls[i].path, branch{clause: c, arm: i, arms: len(calls), guarded: w.guards > 0 || len(w.path) > 0})
		calls[i].Cond = true
		calls[i].Seq = calls[0].Seq
	}
	w.calls = append(w.calls, calls...)
	return true
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
	if !ok || hasSpecial(lit.Value) {
		return "", false
	}
	return lit.Value, true
}

// hasSpecial reports whether an unquoted literal holds a character bash
// gives a meaning to (escape, tilde, brace, glob).
func hasSpecial(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '~', '{', '*', '?', '[':
			return true
		}
	}
	return false
}
