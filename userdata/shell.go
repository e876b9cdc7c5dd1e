package userdata

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// This file walks a bash script's syntax tree in execution order, keeping
// the variables whose values are known without running anything, and
// records every call of a command with a given base name (bootstrap.sh).

// shVar is what the walker knows about one shell variable.
type shVar struct {
	value    string
	known    bool // the value is known; if false nothing is known
	set      bool
	exported bool
}

// shellArg is one argument of a recorded call after expansion.
type shellArg struct {
	value string
	known bool
	// multi: an unknown, unquoted expansion that may become any number of
	// arguments.
	multi bool
	// prefix is the static text the argument is known to start with.
	prefix string
	word   *syntax.Word
}

// shellCall is one recorded call.
type shellCall struct {
	line        int // 1-based line of the command word in the script
	args        []shellArg
	env         shVar // the environment variable asked for, as the callee sees it
	unknownName bool  // the command word could not be resolved
	word        *syntax.Word
	cond        bool     // the call may not run (a branch, loop, function, && or ||)
	path        []branch // the if/case arms the call is in
}

// branch is one arm of an if or case clause.
type branch struct {
	clause syntax.Node
	arm    int
}

// exclusive reports whether two calls are in different arms of the same
// if or case clause, so that at most one of them runs.
func exclusive(a, b shellCall) bool {
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

// shellWalker walks one script. It is used for one script only.
type shellWalker struct {
	target    string // base name of the command to record
	envName   string // environment variable to capture at each call
	vars      map[string]shVar
	allexport bool
	poisoned  bool // eval or source ran: unassigned variables are unknown
	stopped   bool // exit ran at the top level
	calls     []shellCall
	expandCfg *expand.Config
	path      []branch // the arms being walked
}

func newShellWalker(target, envName string) *shellWalker {
	return &shellWalker{target: target, envName: envName, vars: map[string]shVar{}}
}

// clone returns a walker for a subshell: same variables, own copy.
func (w *shellWalker) clone() *shellWalker {
	c := *w
	c.vars = make(map[string]shVar, len(w.vars))
	for k, v := range w.vars {
		c.vars[k] = v
	}
	c.calls = nil
	c.expandCfg = nil
	c.path = slices.Clone(w.path)
	return &c
}

func (w *shellWalker) merge(sub *shellWalker) {
	w.calls = append(w.calls, sub.calls...)
}

// Get implements expand.Environ over the known variables; the walker only
// expands words whose variables are all known.
func (w *shellWalker) Get(name string) expand.Variable {
	v, ok := w.vars[name]
	if !ok || !v.set || !v.known {
		return expand.Variable{}
	}
	return expand.Variable{Set: true, Kind: expand.String, Str: v.value, Exported: v.exported}
}

// Each implements expand.Environ.
func (w *shellWalker) Each(fn func(string, expand.Variable) bool) {
	for _, k := range sortedKeys(w.vars) {
		if v := w.Get(k); v.IsSet() && !fn(k, v) {
			return
		}
	}
}

// lookup returns what is known about a variable. A variable the script
// never assigned may come from the environment cloud-init provides, so it
// is unknown; envName (KUBELET_EXTRA_ARGS) is never in that environment.
func (w *shellWalker) lookup(name string) shVar {
	if v, ok := w.vars[name]; ok {
		return v
	}
	if name == w.envName && !w.poisoned {
		return shVar{known: true}
	}
	return shVar{}
}

func (w *shellWalker) stmts(list []*syntax.Stmt, cond bool) {
	for _, s := range list {
		if w.stopped {
			return
		}
		w.stmt(s, cond)
	}
}

func (w *shellWalker) stmt(s *syntax.Stmt, cond bool) {
	if s == nil || s.Cmd == nil {
		return
	}
	if s.Background || s.Coprocess {
		sub := w.clone()
		sub.command(s, true)
		w.merge(sub)
		return
	}
	w.command(s, cond)
}

func (w *shellWalker) command(s *syntax.Stmt, cond bool) {
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		w.call(c, cond)
	case *syntax.DeclClause:
		w.decl(c, cond)
	case *syntax.IfClause:
		w.ifClause(c, cond)
	case *syntax.WhileClause:
		w.stmts(c.Cond, true)
		w.stmts(c.Do, true)
	case *syntax.ForClause:
		if it, ok := c.Loop.(*syntax.WordIter); ok && it.Name != nil {
			w.assign(it.Name.Value, shVar{set: true}, true)
		}
		w.stmts(c.Do, true)
	case *syntax.CaseClause:
		for i, item := range c.Items {
			w.inArm(c, i, func() { w.stmts(item.Stmts, true) })
		}
	case *syntax.Block:
		w.stmts(c.Stmts, cond)
	case *syntax.Subshell:
		sub := w.clone()
		sub.stmts(c.Stmts, cond)
		w.merge(sub)
	case *syntax.BinaryCmd:
		if c.Op == syntax.AndStmt || c.Op == syntax.OrStmt {
			w.stmt(c.X, cond)
			w.stmt(c.Y, true)
			return
		}
		for _, side := range []*syntax.Stmt{c.X, c.Y} {
			sub := w.clone()
			sub.stmt(side, cond)
			w.merge(sub)
		}
	case *syntax.FuncDecl:
		// Calls inside a function body are recorded where the function is
		// defined; the linter does not follow calls of the function.
		sub := w.clone()
		sub.stmt(c.Body, true)
		w.merge(sub)
	case *syntax.TimeClause:
		w.stmt(c.Stmt, cond)
	case *syntax.CoprocClause:
		sub := w.clone()
		sub.stmt(c.Stmt, true)
		w.merge(sub)
	case *syntax.LetClause, *syntax.ArithmCmd:
		w.arithmAssigns(c)
	}
}

// ifClause walks if/elif/else; mvdan.cc/sh represents elif and else as
// nested IfClauses (else with no condition).
func (w *shellWalker) ifClause(c *syntax.IfClause, cond bool) {
	arm := 0
	for cl := c; cl != nil; cl = cl.Else {
		w.stmts(cl.Cond, cond || arm > 0)
		w.inArm(c, arm, func() { w.stmts(cl.Then, true) })
		arm++
	}
}

// inArm walks fn inside one arm of an if or case clause.
func (w *shellWalker) inArm(clause syntax.Node, arm int, fn func()) {
	saved := w.path
	w.path = append(slices.Clip(w.path), branch{clause: clause, arm: arm})
	fn()
	w.path = saved
}

// arithmAssigns marks variables assigned inside arithmetic as unknown.
func (w *shellWalker) arithmAssigns(n syntax.Node) {
	syntax.Walk(n, func(n syntax.Node) bool {
		if b, ok := n.(*syntax.BinaryArithm); ok && b.Op >= syntax.Assgn && b.Op <= syntax.ShrAssgn {
			if word, ok := b.X.(*syntax.Word); ok {
				if name := word.Lit(); name != "" {
					w.assign(name, shVar{set: true}, true)
				}
			}
		}
		if u, ok := n.(*syntax.UnaryArithm); ok && (u.Op == syntax.Inc || u.Op == syntax.Dec) {
			if word, ok := u.X.(*syntax.Word); ok {
				if name := word.Lit(); name != "" {
					w.assign(name, shVar{set: true}, true)
				}
			}
		}
		return true
	})
}

// assign records a new value; in a conditional context the old and new
// values are both possible, so the variable stays known only if they agree.
func (w *shellWalker) assign(name string, v shVar, cond bool) {
	old := w.lookup(name)
	if w.allexport {
		v.exported = true
	}
	v.exported = v.exported || old.exported
	if cond && !(old.known && v.known && old.set == v.set && old.value == v.value) {
		v.known = false
	}
	w.vars[name] = v
}

// assignValue evaluates one assignment's value.
func (w *shellWalker) assignValue(a *syntax.Assign) shVar {
	if a.Array != nil || a.Index != nil {
		return shVar{set: true}
	}
	val, ok := "", true
	if a.Value != nil {
		val, ok = w.literal(a.Value)
	}
	if !ok {
		return shVar{set: true}
	}
	if a.Append {
		old := w.lookup(a.Name.Value)
		if !old.known {
			return shVar{set: true}
		}
		val = old.value + val
	}
	return shVar{value: val, known: true, set: true}
}

func (w *shellWalker) decl(c *syntax.DeclClause, cond bool) {
	export := c.Variant.Value == "export"
	switch c.Variant.Value {
	case "export", "declare", "typeset", "readonly", "local":
	default:
		for _, a := range c.Args {
			if a.Name != nil {
				w.assign(a.Name.Value, shVar{set: true}, true)
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
			w.assign(name, shVar{set: true}, true)
			continue
		}
		var v shVar
		if a.Naked {
			v = w.lookup(name)
		} else {
			v = w.assignValue(a)
		}
		if export {
			v.exported = true
		}
		if unexport {
			v.exported = false
			w.vars[name] = v
			continue
		}
		w.assign(name, v, cond)
	}
}

// call handles a simple command: assignments, the builtins that change
// variables, exit, and calls of the target.
func (w *shellWalker) call(c *syntax.CallExpr, cond bool) {
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			w.assign(a.Name.Value, w.assignValue(a), cond)
		}
		return
	}
	if name, literal := literalWord(c.Args[0]); literal && !w.interesting(name) {
		return // most commands cannot matter: skip expanding their arguments
	}
	var fields []shellArg
	for _, word := range c.Args {
		fields = append(fields, w.fields(word)...)
	}
	if len(fields) == 0 {
		return // every word expanded to nothing: bash runs no command
	}
	prefixEnv, hasPrefix := shVar{}, false
	for _, a := range c.Assigns {
		if a.Name.Value == w.envName {
			prefixEnv, hasPrefix = w.assignValue(a), true
			prefixEnv.exported = true
		}
	}
	name := fields[0]
	if !name.known {
		if strings.Contains(name.prefix+wordSource(c.Args[0]), w.target) {
			w.calls = append(w.calls, shellCall{line: int(c.Args[0].Pos().Line()), unknownName: true, word: c.Args[0], cond: cond, path: slices.Clone(w.path)})
		}
		return
	}
	switch name.value {
	case "unset":
		for _, f := range fields[1:] {
			if f.known && !strings.HasPrefix(f.value, "-") {
				w.assign(f.value, shVar{known: true}, cond)
			}
		}
		return
	case "set":
		for i, f := range fields[1:] {
			switch {
			case f.value == "-o" && i+2 < len(fields) && fields[i+2].value == "allexport":
				w.allexport = !cond
			case f.value == "+o" && i+2 < len(fields) && fields[i+2].value == "allexport":
				w.allexport = false
			case strings.HasPrefix(f.value, "-") && strings.Contains(f.value, "a") && !strings.HasPrefix(f.value, "--"):
				w.allexport = !cond
			case strings.HasPrefix(f.value, "+") && strings.Contains(f.value, "a"):
				w.allexport = false
			}
		}
		return
	case "eval", "source", ".":
		w.poisoned = true
		for k, v := range w.vars {
			v.known = false
			w.vars[k] = v
		}
		return
	case "read", "mapfile", "readarray", "getopts", "printf":
		for _, f := range fields[1:] {
			if f.known && validEnvName(f.value) {
				w.assign(f.value, shVar{set: true}, true)
			}
		}
		return
	case "exit":
		if !cond {
			w.stopped = true
		}
		return
	}
	env := w.lookup(w.envName)
	if !env.exported {
		env = shVar{known: env.known || !w.poisoned}
	}
	if hasPrefix {
		env = prefixEnv
	}
	args, env, ok := unwrapCommand(fields, env, w.envName)
	if !ok || len(args) == 0 {
		return
	}
	if args[0].known && path.Base(args[0].value) == w.target {
		w.calls = append(w.calls, shellCall{
			line: int(args[0].word.Pos().Line()),
			args: args[1:],
			env:  env,
			word: args[0].word,
			cond: cond,
			path: slices.Clone(w.path),
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
	"bash": true, "sh": true, "dash": true,
}

func (w *shellWalker) interesting(name string) bool {
	base := path.Base(name)
	return base == w.target || commandsOfInterest[base]
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
// exec, command, nohup, nice, timeout, bash, sh) and applies what they do
// to the environment variable: sudo clears it unless -E or
// --preserve-env, env -i clears it and NAME=value sets it.
func unwrapCommand(args []shellArg, env shVar, envName string) ([]shellArg, shVar, bool) {
	for len(args) > 0 {
		if !args[0].known {
			return args, env, true
		}
		switch path.Base(args[0].value) {
		case "exec", "command", "nohup":
			args = skipOptions(args[1:], nil)
		case "nice":
			args = skipOptions(args[1:], map[string]bool{"-n": true})
		case "timeout":
			args = skipOptions(args[1:], map[string]bool{"-s": true, "-k": true})
			if len(args) > 0 {
				args = args[1:] // the duration
			}
		case "sudo":
			preserve := false
			for _, a := range args[1:] {
				if !a.known || !strings.HasPrefix(a.value, "-") {
					break
				}
				if a.value == "-E" || strings.HasPrefix(a.value, "--preserve-env") || (!strings.HasPrefix(a.value, "--") && strings.Contains(a.value, "E")) {
					preserve = true
				}
			}
			if !preserve {
				env = shVar{known: true}
			}
			args = skipOptions(args[1:], map[string]bool{"-u": true, "-g": true, "-p": true, "-C": true, "-D": true, "-r": true, "-t": true, "-U": true, "-h": true})
		case "env":
			args, env = unwrapEnv(args[1:], env, envName)
		case "bash", "sh", "dash":
			rest := args[1:]
			for len(rest) > 0 && rest[0].known && strings.HasPrefix(rest[0].value, "-") {
				if strings.Contains(rest[0].value, "c") && !strings.HasPrefix(rest[0].value, "--") {
					return nil, env, false // the command is a string; not followed
				}
				if rest[0].value == "-o" || rest[0].value == "+o" {
					rest = rest[1:]
				}
				rest = rest[1:]
			}
			args = rest
		default:
			return args, env, true
		}
	}
	return args, env, true
}

// unwrapEnv applies env's options and NAME=value arguments.
func unwrapEnv(args []shellArg, env shVar, envName string) ([]shellArg, shVar) {
	for len(args) > 0 && args[0].known {
		v := args[0].value
		switch {
		case v == "-i" || v == "-" || v == "--ignore-environment":
			env = shVar{known: true}
		case v == "-u" && len(args) > 1:
			if args[1].value == envName || !args[1].known {
				env = shVar{known: args[1].known}
			}
			args = args[1:]
		case strings.HasPrefix(v, "-"):
		case strings.Contains(v, "="):
			if k, val, _ := strings.Cut(v, "="); k == envName {
				env = shVar{value: val, known: true, set: true, exported: true}
			}
		default:
			return args, env
		}
		args = args[1:]
	}
	return args, env
}

func skipOptions(args []shellArg, takesValue map[string]bool) []shellArg {
	for len(args) > 0 && args[0].known && strings.HasPrefix(args[0].value, "-") {
		if args[0].value == "--" {
			return args[1:]
		}
		if takesValue[args[0].value] && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	return args
}

// literal expands a word as an assignment value (no splitting).
func (w *shellWalker) literal(word *syntax.Word) (string, bool) {
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
func (w *shellWalker) fields(word *syntax.Word) []shellArg {
	if w.static(word) {
		var out []string
		if w.safely(func() error {
			f, err := expand.Fields(w.config(), word)
			out = f
			return err
		}) {
			args := make([]shellArg, len(out))
			for i, f := range out {
				args[i] = shellArg{value: f, known: true, prefix: f, word: word}
			}
			return args
		}
	}
	return []shellArg{{multi: unquotedDynamic(word), prefix: staticPrefix(word), word: word}}
}

// config returns the walker's expansion config, reused across words
// (mvdan.cc/sh re-reads IFS from the environment on every expansion).
func (w *shellWalker) config() *expand.Config {
	if w.expandCfg == nil {
		w.expandCfg = &expand.Config{Env: w}
	}
	return w.expandCfg
}

// safely runs an expansion from mvdan.cc/sh, turning an error or a panic
// inside it into "not known".
func (w *shellWalker) safely(fn func() error) (ok bool) {
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
func (w *shellWalker) static(word *syntax.Word) bool {
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
			if n.Excl || n.Names != 0 || n.Index != nil || n.Slice != nil || n.Width || n.Param == nil {
				ok = false
			} else if v := w.lookup(n.Param.Value); !v.known {
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

// wordSource is a word's raw text, for spotting the target's name in a
// word the walker cannot expand.
func wordSource(word *syntax.Word) string {
	var b bytes.Buffer
	if err := syntax.NewPrinter().Print(&b, word); err != nil {
		return ""
	}
	return b.String()
}
