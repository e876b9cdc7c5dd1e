package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// unwrapCommand skips the wrappers that run another command (sudo, env,
// exec, command, nohup, nice, timeout, cloud-init-per, bash, sh) and
// applies what they do to the environment variable: sudo clears it unless
// -E or --preserve-env, env -i clears it and NAME=value sets it. script is
// set for a shell given a command string (sh -c SCRIPT).
func unwrapCommand(args []Arg, env Var, envName string) (_ []Arg, _ Var, script *Arg) {
	for len(args) > 0 && args[0].Known {
		base := path.Base(args[0].Value)
		if base == "bash" || base == "sh" || base == "dash" {
			var cmd *Arg
			args, cmd = unwrapShell(args[1:])
			if cmd != nil {
				return nil, env, cmd
			}
			continue
		}
		unwrap, isWrapper := wrappers[base]
		if !isWrapper {
			break
		}
		args, env = unwrap(args[1:], env, envName)
	}
	return args, env, nil
}

// wrappers map a wrapper command to what it does with its arguments (the
// words after its name) and the environment variable.
var wrappers = map[string]func(args []Arg, env Var, envName string) ([]Arg, Var){
	"exec":    plainWrapper(nil),
	"command": plainWrapper(nil),
	"nohup":   plainWrapper(nil),
	"nice":    plainWrapper(map[string]bool{"-n": true}),
	"timeout": func(args []Arg, env Var, _ string) ([]Arg, Var) {
		args = skipOptions(args, map[string]bool{"-s": true, "-k": true})
		return args[min(1, len(args)):], env // the duration
	},
	"cloud-init-per": func(args []Arg, env Var, _ string) ([]Arg, Var) {
		return args[min(2, len(args)):], env // FREQUENCY NAME COMMAND...
	},
	"sudo": unwrapSudo,
	"env":  unwrapEnv,
}

// plainWrapper skips options, of which those in takesValue take the next
// word.
func plainWrapper(takesValue map[string]bool) func([]Arg, Var, string) ([]Arg, Var) {
	return func(args []Arg, env Var, _ string) ([]Arg, Var) {
		return skipOptions(args, takesValue), env
	}
}

// unwrapSudo: sudo clears the environment unless told to keep it.
func unwrapSudo(args []Arg, env Var, _ string) ([]Arg, Var) {
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
	return skipOptions(args, map[string]bool{"-u": true, "-g": true, "-p": true, "-C": true, "-D": true, "-r": true, "-t": true, "-U": true, "-h": true}), env
}

// unwrapShell: a shell runs the script named by its first operand, or the
// command string after -c (an option cluster holding c, as in -xc, takes
// the first operand as the string).
func unwrapShell(args []Arg) ([]Arg, *Arg) {
	command := false
	for len(args) > 0 && args[0].Known && strings.HasPrefix(args[0].Value, "-") && args[0].Value != "-" {
		v := args[0].Value
		if v == "--" {
			args = args[1:]
			break
		}
		if !strings.HasPrefix(v, "--") && strings.Contains(v, "c") {
			command = true
		}
		if (v == "-o" || v == "+o") && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	if command {
		if len(args) == 0 {
			return nil, &Arg{Known: true} // bash: -c: option requires an argument
		}
		return nil, &args[0]
	}
	return args, nil
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

// maxCommandStrings bounds the nesting of sh -c inside sh -c.
const maxCommandStrings = 4

// commandString follows sh -c SCRIPT: a new shell, which inherits the
// exported variables (the environment variable as env says) and the files,
// runs SCRIPT. A string only known at boot is not followable. What it
// records is reported on the line of the sh -c; its exit, and its own set
// -e, end only that shell.
func (w *Walker) commandString(script Arg, fields []Arg, env Var, cond bool) {
	if !script.Known || w.depth >= maxCommandStrings {
		w.addOpaque(w.line, shellCommandString(fields))
		return
	}
	child := &Walker{
		target: w.target, envName: w.envName, vars: map[string]Var{}, fs: w.fs,
		src: []byte(script.Value), at: w.line, depth: w.depth + 1,
		path: slices.Clone(w.path), guards: w.guards, testing: w.testing, unsure: w.unsure, poisoned: w.poisoned,
	}
	for name, v := range w.vars {
		if v.Exported && name != w.envName {
			child.vars[name] = v
		}
	}
	if env.Known || len(env.Alts) > 0 || env.Set {
		env.Exported = true
		child.vars[w.envName] = env
	}
	// bash -c runs what it parsed before a syntax error only if the error
	// comes after a complete command; a string that does not parse runs
	// nothing, but "nothing" is not what its author meant, so it is not
	// followed.
	err := parseStmts(child.src, func(st *syntax.Stmt) bool {
		child.stmt(st, cond)
		child.failing(st, cond)
		return !child.stopped
	})
	if err != nil {
		w.addOpaque(w.line, shellCommandString(fields)+" that does not parse")
		return
	}
	name := "sh -c: "
	for _, f := range fields {
		if f.Known && shellName([]Arg{f}) {
			name = path.Base(f.Value) + " -c: "
			break
		}
	}
	for i := range child.opaque {
		child.opaque[i].What = name + child.opaque[i].What
	}
	for i := range child.starts {
		child.starts[i].What = name + child.starts[i].What
	}
	for i := range child.calls {
		// The string's own errexit ends that shell; whether the script
		// then stops depends on its errexit and the string's last status.
		c := &child.calls[i]
		c.ErrexitMaybe = c.ErrexitMaybe || c.Errexit || w.errexit != errexitOff
		c.Errexit = false
	}
	w.merge(child)
}
