package powershell

import "strings"

// Call is a call of the walker's target script.
type Call struct {
	Line int // 1-based line of the command name
	// Params maps canonical parameter names to the bound argument.
	Params map[string]Token
}

// Walker follows a PowerShell script's statements in order, keeping the
// variables whose values are literals and recording every call of one
// target script.
type Walker struct {
	target     string           // lower-case file name of the target script
	params     []string         // the target's parameters
	positional []string         // the target's positional parameters, in order
	vars       map[string]Token // lower-case name → value token
	// Calls are the calls of the target, in order.
	Calls []Call
	// Opaque are the statements it cannot follow, in order.
	Opaque []Opaque
	// Stopped is set when exit, return, throw or break ran at the top
	// level, on line StopLine.
	Stopped  bool
	StopLine int
}

// NewWalker returns a walker recording calls of the script whose file name
// is target, binding arguments to params (matched ignoring case, by any
// unambiguous prefix, as PowerShell does) and to the positional
// parameters, in order.
func NewWalker(target string, params, positional []string) *Walker {
	return &Walker{target: strings.ToLower(target), params: params, positional: positional, vars: map[string]Token{}}
}

// Eval returns the value of a token and whether it is known before the
// script runs.
func (w *Walker) Eval(t Token) (string, bool) {
	switch t.kind {
	case kindString, kindWord:
		if len(t.vars) > 0 {
			return w.expand(t)
		}
		return t.value, t.known
	case kindVar:
		return w.variable(t.value)
	}
	return string(unknown), false
}

// variable is the value of a variable: one the script assigned a literal,
// or one of the environment variables Windows itself defines.
func (w *Walker) variable(name string) (string, bool) {
	name = strings.ToLower(name)
	if v, ok := w.vars[name]; ok {
		return v.value, v.known
	}
	if v, ok := windowsEnv[name]; ok {
		return v, true
	}
	return string(unknown), false
}

// windowsEnv are environment variables Windows Server defines for every
// process, which the EKS Windows AMIs' paths use: ProgramFiles is
// C:\Program Files on 64-bit Windows (Microsoft's "Recognized environment
// variables"; the EKS user guide's Start-EKSBootstrap.ps1 path is
// "$env:ProgramFiles\Amazon\EKS\Start-EKSBootstrap.ps1").
var windowsEnv = map[string]string{"env:programfiles": `C:\Program Files`}

// expand substitutes the variables of an expandable string.
func (w *Walker) expand(t Token) (string, bool) {
	var b strings.Builder
	known, next := true, 0
	for _, r := range t.value {
		switch r {
		case varRef:
			v, ok := w.variable(t.vars[next])
			next++
			b.WriteString(v)
			known = known && ok
		case unknown:
			b.WriteRune(r)
			known = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), known
}

// Walk follows the statements of a lexed script.
func (w *Walker) Walk(toks []Token) {
	for _, st := range statements(toks) {
		if w.Stopped {
			return
		}
		w.statement(st)
	}
}

func (w *Walker) statement(st []Token) {
	for len(st) > 0 && st[0].kind == kindType {
		st = st[1:]
	}
	if len(st) == 0 {
		return
	}
	if st[0].kind == kindVar && len(st) > 1 && st[1].kind == kindOp && strings.HasSuffix(st[1].value, "=") {
		name := strings.ToLower(st[0].value)
		if st[1].value == "=" && len(st) == 3 && st[2].kind != kindGroup {
			v, known := w.Eval(st[2])
			w.vars[name] = Token{kind: kindString, value: v, known: known}
		} else {
			w.vars[name] = Token{kind: kindString, value: string(unknown)}
		}
		return
	}
	if st[0].kind == kindWord && st[0].depth == 0 {
		switch strings.ToLower(st[0].value) {
		case "exit", "return", "throw", "break":
			w.Stopped, w.StopLine = true, st[0].line
			return
		}
	}
	var name Token
	var args []Token
	switch {
	case st[0].kind == kindOp && st[0].value == "&", st[0].kind == kindWord && st[0].value == ".":
		if len(st) < 2 {
			return
		}
		name, args = st[1], st[2:]
	case st[0].kind == kindWord:
		name, args = st[0], st[1:]
	default:
		return
	}
	v, known := w.Eval(name)
	if strings.HasSuffix(strings.ToLower(v), w.target) {
		w.Calls = append(w.Calls, Call{Line: name.line, Params: w.bindParams(args)})
		return
	}
	if what := opaqueCommand(v, known, name, args); what != "" {
		w.Opaque = append(w.Opaque, Opaque{Line: name.line, What: what})
	}
}

// Opaque is a statement the walker cannot follow: it may run the target
// or start the kubelet in a way the walker does not see.
type Opaque struct {
	Line int
	What string
}

// opaqueCommands run code the walker cannot read, or start the kubelet.
var opaqueCommands = map[string]string{
	"invoke-expression": "Invoke-Expression, which runs a string", "iex": "Invoke-Expression, which runs a string",
	"invoke-command": "Invoke-Command, which runs a script block", "icm": "Invoke-Command, which runs a script block",
	"start-process": "Start-Process, which runs another program", "powershell": "another PowerShell", "powershell.exe": "another PowerShell",
	"pwsh": "another PowerShell", "pwsh.exe": "another PowerShell", "cmd": "cmd.exe", "cmd.exe": "cmd.exe",
	"kubelet": "the kubelet, run directly", "kubelet.exe": "the kubelet, run directly",
}

// opaqueCommand says why a called command is not followable: a command
// whose name is only known at run time, one that runs code given as text,
// or a service command acting on the kubelet.
func opaqueCommand(v string, known bool, name Token, args []Token) string {
	if !known {
		return "a command whose name is only known at run time (" + name.raw + ")"
	}
	base := strings.ToLower(v[strings.LastIndexAny(v, `\/`)+1:])
	if what := opaqueCommands[base]; what != "" {
		return what
	}
	switch base {
	case "start-service", "restart-service", "set-service", "sc", "sc.exe", "net", "net.exe":
		for _, a := range args {
			if s, _, _ := a.Literal(); strings.Contains(strings.ToLower(s), "kubelet") || !a.known {
				return base + " acting on the kubelet service"
			}
		}
	}
	return ""
}

// bindParams binds arguments to the target's parameters: -Name value,
// -Name:value, and by position.
func (w *Walker) bindParams(args []Token) map[string]Token {
	params := map[string]Token{}
	var positional []Token
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.kind == kindWord && strings.Contains(a.value, ">") {
			continue // a redirection such as 3>&1
		}
		r := []rune(a.value)
		if a.kind != kindWord || len(r) < 2 || !isDash(r[0]) {
			positional = append(positional, a)
			continue
		}
		name, inline, hasColon := strings.Cut(string(r[1:]), ":")
		var value Token
		switch {
		case hasColon && inline != "":
			value = Token{kind: kindString, value: inline, known: true, line: a.line}
		case i+1 < len(args) && (hasColon || !isParam(args[i+1])):
			i++
			value = args[i]
		default:
			value = Token{kind: kindString, value: "True", known: true, line: a.line} // a switch
		}
		if canon := w.paramName(name); canon != "" {
			params[canon] = value
		}
	}
	// Positional arguments fill, in order, the positional parameters not
	// bound by name.
	for _, canon := range w.positional {
		if len(positional) == 0 {
			break
		}
		if _, set := params[canon]; !set {
			params[canon] = positional[0]
			positional = positional[1:]
		}
	}
	return params
}

func isParam(t Token) bool {
	r := []rune(t.value)
	return t.kind == kindWord && len(r) > 1 && isDash(r[0]) && (r[1] == '_' || isLetter(r[1]))
}

func isLetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

func (w *Walker) paramName(name string) string {
	l := strings.ToLower(name)
	match := ""
	for _, p := range w.params {
		pl := strings.ToLower(p)
		if pl == l {
			return p
		}
		if strings.HasPrefix(pl, l) {
			if match != "" {
				return "" // ambiguous: PowerShell refuses it
			}
			match = p
		}
	}
	return match
}
