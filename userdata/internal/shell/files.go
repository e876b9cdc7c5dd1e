package shell

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// OpKind is what a command does to a watched file.
type OpKind uint8

// The changes a script makes to a file.
const (
	// OpUnknown: the command may change the file in a way the walker does
	// not follow (What says which command).
	OpUnknown OpKind = iota
	// OpWrite: the file's content becomes Text.
	OpWrite
	// OpAppend: Text is added at the file's end.
	OpAppend
	// OpFilter: Tool (sed or jq) runs the program Text over the file and
	// the file becomes its output.
	OpFilter
	// OpRemove: the file is removed, or moved away.
	OpRemove
)

// FileOp is one change a script makes, or may make, to a watched file.
type FileOp struct {
	Seq  int // order among the script's calls, file changes and kubelet starts
	Line int
	// Path is the file, cleaned; for an OpUnknown whose file is not
	// known, the watched path the command names, or "" when it names none
	// (a file only known at boot, which may be any).
	Path string
	Kind OpKind
	// Text is the content (OpWrite, OpAppend) or the program (OpFilter).
	Text string
	// Tool is the program of an OpFilter ("sed" or "jq"), and Args its
	// options that the program text may use (jq's --arg NAME VALUE and
	// --argjson NAME JSON).
	Tool string
	Args []string
	Cond bool   // the change may not run
	What string // OpUnknown: the command, for people
}

// files is what the walker knows about the files a script writes: the
// changes to watched files, and the content of other files it writes that
// may later be moved or copied over a watched one. Subshells and command
// strings share it: a file written there stays written.
type files struct {
	watch []string // cleaned, absolute
	seq   int
	ops   []FileOp
	// tmp holds files outside the watch the script wrote, by path.
	tmp map[string]content
	// anyWatchedVar is set once a variable carries a watched path.
	anyWatchedVar bool
}

// content is what a file (or a command's output) holds: text, or a
// watched file's content as of its nth change, with filters run over it.
type content struct {
	known   bool
	text    string
	from    string // a watched file, "" for text
	base    int    // how many changes of from were made when it was read
	filters []FileOp
	// direct: the command itself reads from, after its redirections
	// have run (so "jq F x > x" reads the emptied x).
	direct bool
}

func newFiles(watch []string) *files {
	f := &files{tmp: map[string]content{}}
	for _, p := range watch {
		f.watch = append(f.watch, cleanPath(p))
	}
	return f
}

// next numbers the next recorded event.
func (f *files) next() int {
	f.seq++
	return f.seq
}

// watched returns the cleaned path when p (a file argument; relative
// paths are from /, cloud-init's working directory) is watched or under a
// watched directory; a glob is watched when it may match a watched path.
func (f *files) watched(p string) (string, bool) {
	if p == "" || len(f.watch) == 0 {
		return "", false
	}
	clean := cleanPath(p)
	glob := strings.ContainsAny(p, "*?[")
	for _, w := range f.watch {
		if strings.HasPrefix(clean, w) && (len(clean) == len(w) || clean[len(w)] == '/') {
			return clean, true
		}
		if glob {
			if ok, _ := path.Match(clean, w); ok {
				return w, true
			}
			if ok, _ := path.Match(path.Dir(clean), w); ok {
				return w, true
			}
		}
	}
	return "", false
}

// cleanPath is path.Clean of p made absolute (relative paths are from /),
// without allocating when p is already clean.
func cleanPath(p string) string {
	if strings.HasPrefix(p, "/") && !strings.Contains(p, "//") && !strings.Contains(p, "/.") && (len(p) == 1 || !strings.HasSuffix(p, "/")) {
		return p
	}
	return path.Clean("/" + p)
}

// mentions returns the watched path that text (an argument, or a word's
// source) names anywhere in it.
func (f *files) mentions(text string) (string, bool) {
	for _, w := range f.watch {
		if strings.Contains(text, w[1:]) {
			return w, true
		}
	}
	return "", false
}

func (w *Walker) addOp(op FileOp) {
	op.Seq = w.fs.next()
	if w.at > 0 {
		op.Line = w.at
	}
	op.Cond = op.Cond || w.mayNotRun()
	w.fs.ops = append(w.fs.ops, op)
}

// changes is how many changes a watched file has had so far.
func (f *files) changes(p string) int {
	n := 0
	for _, op := range f.ops {
		if op.Path == p {
			n++
		}
	}
	return n
}

// contentOf is what reading file p gives now.
func (w *Walker) contentOf(p string) content {
	if wp, ok := w.fs.watched(p); ok {
		return content{known: true, from: wp, base: w.fs.changes(wp)}
	}
	return w.fs.tmp[cleanPath(p)]
}

// store records that file p now holds c, as a change of a watched file or
// the content of another one.
func (w *Walker) store(p string, c content, appendTo bool, line int, what string, cond bool) {
	c.direct = false
	if wp, ok := w.fs.watched(p); ok {
		w.storeWatched(wp, c, appendTo, line, what, cond)
		return
	}
	key := cleanPath(p)
	old, tracked := w.fs.tmp[key]
	switch {
	case cond || w.mayNotRun() || !c.known:
		delete(w.fs.tmp, key)
	case !appendTo:
		w.fs.tmp[key] = c
	case tracked && old.known && old.from == "" && c.from == "":
		w.fs.tmp[key] = content{known: true, text: old.text + c.text}
	default:
		delete(w.fs.tmp, key)
	}
}

func (w *Walker) storeWatched(p string, c content, appendTo bool, line int, what string, cond bool) {
	switch {
	case !c.known:
		w.addOp(FileOp{Line: line, Path: p, Kind: OpUnknown, What: what, Cond: cond})
	case c.from == "" && appendTo:
		w.addOp(FileOp{Line: line, Path: p, Kind: OpAppend, Text: c.text, Cond: cond})
	case c.from == "":
		w.addOp(FileOp{Line: line, Path: p, Kind: OpWrite, Text: c.text, Cond: cond})
	case c.from == p && !appendTo && c.base == w.fs.changes(p):
		for _, f := range c.filters {
			f.Line, f.Path, f.Cond = line, p, cond
			w.addOp(f)
		}
	default:
		w.addOp(FileOp{Line: line, Path: p, Kind: OpUnknown, What: what + " (content from " + c.from + ")", Cond: cond})
	}
}

// touched records an unfollowed change of every watched path args name.
func (w *Walker) touched(args []Arg, line int, what string, cond bool) {
	seen := map[string]bool{}
	for _, a := range args {
		p, ok := w.argWatched(a)
		if ok && !seen[p] {
			seen[p] = true
			w.addOp(FileOp{Line: line, Path: p, Kind: OpUnknown, What: what, Cond: cond})
		}
	}
}

// changedUnknown records that a command that writes the files it names
// (sed -i, mv, cp, tee) changes one only known at boot: it may be any,
// the join's included.
func (w *Walker) changedUnknown(a Arg, line int, what string, cond bool) {
	if len(w.fs.watch) == 0 {
		return
	}
	p, _ := w.argWatched(a)
	w.addOp(FileOp{Line: line, Path: p, Kind: OpUnknown, What: what + " (" + Source(a.Word) + " is only known at boot)", Cond: cond})
}

// argWatched returns the watched path an argument is, names, or (when
// only known at boot) may be.
func (w *Walker) argWatched(a Arg) (string, bool) {
	if a.Known {
		if p, ok := w.fs.watched(a.Value); ok {
			return p, true
		}
		return w.fs.mentions(path.Clean(a.Value))
	}
	if p, ok := w.fs.mentions(Source(a.Word)); ok {
		return p, true
	}
	if w.wordWatched(a.Word) && len(w.fs.watch) > 0 {
		return w.fs.watch[0], true
	}
	return "", false
}

// wordWatched reports whether a word uses a variable that carries a
// watched path.
func (w *Walker) wordWatched(word *syntax.Word) bool {
	if word == nil || !w.fs.anyWatchedVar {
		return false
	}
	return !eachPart(word.Parts, func(n syntax.WordPart) bool {
		p, ok := n.(*syntax.ParamExp)
		return !ok || p.Param == nil || !w.lookup(p.Param.Value).Watched
	})
}

// watchedText reports whether an assignment's text, or its value, names a
// watched path, so that the variable carries it.
func (w *Walker) watchedText(a *syntax.Assign) bool {
	if len(w.fs.watch) == 0 {
		return false
	}
	found := w.srcMentions(a.Pos(), a.End()) || a.Value != nil && w.wordWatched(a.Value)
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			found = found || e.Value != nil && w.wordWatched(e.Value)
		}
	}
	if found {
		w.fs.anyWatchedVar = true
	}
	return found
}

// srcMentions reports whether the text between two positions of the
// walked text names a watched path.
func (w *Walker) srcMentions(from, to syntax.Pos) bool {
	start, end := int(from.Offset()), int(to.Offset())
	if start < 0 || end > len(w.src) || start >= end {
		return false
	}
	if w.mentionAt == nil {
		w.mentionAt = mentionSpans(w.src, w.fs.watch)
	}
	i, _ := slices.BinarySearchFunc(w.mentionAt, start, func(m span, at int) int { return m.at - at })
	for ; i < len(w.mentionAt) && w.mentionAt[i].at < end; i++ {
		if w.mentionAt[i].end <= end {
			return true
		}
	}
	return false
}

// span is where a watched path is named in the walked text.
type span struct{ at, end int }

// mentionSpans are the places where src names a watched path (without
// its leading slash, as [files.mentions] matches), sorted; never nil, so
// that it is computed once per text instead of once per word. Watched
// paths share a few first components (etc/, usr/), so src is searched
// once per distinct first component.
func mentionSpans(src []byte, watch []string) []span {
	out := []span{}
	byHead := map[string][]string{}
	var heads []string
	for _, w := range watch {
		rel := w[1:]
		head, _, _ := strings.Cut(rel, "/")
		if _, ok := byHead[head]; !ok {
			heads = append(heads, head)
		}
		byHead[head] = append(byHead[head], rel)
	}
	for _, head := range heads {
		for off := 0; ; {
			i := bytes.Index(src[off:], []byte(head))
			if i < 0 {
				break
			}
			at := off + i
			for _, rel := range byHead[head] {
				if bytes.HasPrefix(src[at:], []byte(rel)) {
					out = append(out, span{at: at, end: at + len(rel)})
				}
			}
			off = at + 1
		}
	}
	slices.SortFunc(out, func(a, b span) int { return a.at - b.at })
	return out
}

// touches reports whether a simple command may touch a watched file or a
// file the walker tracks: its text names a watched path, it uses a
// variable carrying one, or it writes a file.
func (w *Walker) touches(s *syntax.Stmt, c *syntax.CallExpr) bool {
	if len(w.fs.watch) == 0 {
		return false
	}
	if w.srcMentions(s.Pos(), s.End()) {
		return true
	}
	for _, r := range s.Redirs {
		if r.Op == syntax.RdrOut || r.Op == syntax.ClbOut {
			return true // it may create a file later moved over a watched one
		}
		if r.Op == syntax.AppOut {
			if t, ok := literalWord(r.Word); ok {
				if _, tracked := w.fs.tmp[cleanPath(t)]; tracked {
					return true
				}
			}
		}
	}
	for _, word := range c.Args {
		if w.wordWatched(word) {
			return true
		}
	}
	if name, ok := literalWord(c.Args[0]); ok && fileWriters[path.Base(name)] {
		for _, word := range c.Args[1:] {
			if _, literal := literalWord(word); !literal {
				if _, quoted := quotedLiteral(word); !quoted {
					return true // it may write a file only known at boot
				}
			}
		}
	}
	return false
}

// fileWriters are commands that change the files their arguments name.
var fileWriters = map[string]bool{"sed": true, "mv": true, "cp": true, "tee": true}

// output is one output redirection of a command.
type output struct {
	target  Arg
	appends bool
	stdout  bool // it receives the command's standard output alone
}

// redirections expands a statement's redirections: where its output goes,
// and its standard input when static (a here-document, a here-string, or
// a file whose content is known).
func (w *Walker) redirections(s *syntax.Stmt, cond bool) (outs []output, stdin content) {
	for _, r := range s.Redirs {
		if r.Word != nil {
			w.expansions(r.Word, cond)
		}
		if r.Hdoc != nil {
			w.expansions(r.Hdoc, cond)
		}
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
		switch r.Op {
		case syntax.RdrOut, syntax.ClbOut, syntax.AppOut:
			if notAFile(r.Word) {
				continue
			}
			outs = append(outs, output{target: w.target1(r.Word), appends: r.Op == syntax.AppOut, stdout: fd == "" || fd == "1"})
		case syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
			if notAFile(r.Word) {
				continue
			}
			outs = append(outs, output{target: w.target1(r.Word), appends: r.Op == syntax.AppAll})
		case syntax.DplOut:
			if t, ok := literalWord(r.Word); !ok || (t != "-" && strings.Trim(t, "0123456789") != "") {
				outs = append(outs, output{target: w.target1(r.Word)})
			}
		case syntax.Hdoc, syntax.DashHdoc:
			text, ok := w.document(r.Hdoc)
			stdin = content{known: ok, text: text}
		case syntax.WordHdoc:
			text, ok := w.literal(r.Word)
			stdin = content{known: ok, text: text + "\n"}
		case syntax.RdrIn:
			if t := w.target1(r.Word); t.Known {
				stdin = w.contentOf(t.Value)
			}
		}
	}
	return outs, stdin
}

// notAFile reports a redirection to a device (/dev/null, /dev/console)
// or to a process substitution (>(tee log)), which changes no file.
func notAFile(word *syntax.Word) bool {
	if len(word.Parts) == 1 {
		if _, ok := word.Parts[0].(*syntax.ProcSubst); ok {
			return true
		}
	}
	t, ok := literalWord(word)
	return ok && strings.HasPrefix(t, "/dev/")
}

// target1 expands a redirection's word (bash does not split it).
func (w *Walker) target1(word *syntax.Word) Arg {
	if t, ok := literalWord(word); ok {
		return Arg{Value: t, Known: true, Word: word, Line: w.pos(word.Pos())}
	}
	v, ok := w.literal(word)
	return Arg{Value: v, Known: ok, Word: word, Line: w.pos(word.Pos())}
}

// redirects records what a command's output redirections do when the
// walker does not know its output.
func (w *Walker) redirects(s *syntax.Stmt, cond bool) {
	outs, _ := w.redirections(s, cond)
	for _, o := range outs {
		w.writeOutput(o, content{}, "a command writing its output", cond)
	}
}

// redirectOnly: a statement that is only a redirection (">file") empties
// or creates the file.
func (w *Walker) redirectOnly(s *syntax.Stmt, cond bool) {
	outs, _ := w.redirections(s, cond)
	for _, o := range outs {
		w.writeOutput(o, content{known: true}, "a redirection", cond)
	}
}

func (w *Walker) writeOutput(o output, c content, what string, cond bool) {
	if !o.stdout {
		c = content{}
	}
	if c.direct && o.target.Known && !o.appends {
		if p, ok := w.fs.watched(o.target.Value); ok && p == c.from {
			// The redirection empties the file before the command reads
			// it, so the command reads nothing and writes nothing.
			c = content{known: true}
		}
	}
	if !o.target.Known {
		p, ok := w.argWatched(o.target)
		if ok || !o.appends && len(w.fs.watch) > 0 {
			// Appending to a file only known at boot (a log) is let go;
			// replacing one may replace any.
			w.addOp(FileOp{Line: o.target.Line, Path: p, Kind: OpUnknown, What: what + " to a file only known at boot", Cond: cond})
		}
		return
	}
	w.store(o.target.Value, c, o.appends, o.target.Line, what, cond)
}

// readOnly are commands that read the files they name and write none of
// them (their output goes where their redirections say).
var readOnly = map[string]bool{
	"cat": true, "grep": true, "egrep": true, "fgrep": true, "test": true, "[": true, "ls": true, "stat": true,
	"head": true, "tail": true, "wc": true, "md5sum": true, "sha1sum": true, "sha256sum": true, "sha512sum": true,
	"diff": true, "cmp": true, "file": true, "readlink": true, "realpath": true, "dirname": true, "basename": true,
	"echo": true, "printf": true, "jq": true, "sed": true, "logger": true, "mkdir": true, "true": true, ":": true,
	"base64": true,
}

// fileEffects records what an ordinary command does to watched files:
// sed -i, output redirections of known content (echo, printf, cat of a
// here-document, jq and sed over a file), mv, cp and rm of files whose
// content is known, tee of a known input; anything else that names a
// watched path is an [OpUnknown].
func (w *Walker) fileEffects(s *syntax.Stmt, args []Arg, cond bool) {
	outs, stdin := w.redirections(s, cond)
	name := path.Base(args[0].Value)
	what := name
	out := content{}
	switch name {
	case "sed":
		out = w.sed(args[1:], cond)
		out.direct = true
	case "jq":
		out = w.jq(args[1:])
		out.direct = true
	case "echo":
		out = echoOutput(args[1:])
		if sub, ok := w.substitutedFilter(args[1:]); ok {
			out = sub
		}
	case "printf":
		out = printfOutput(args[1:])
	case "cat":
		out = w.catOutput(args[1:], stdin)
		out.direct = out.from != ""
	case "tee":
		out = w.tee(args[1:], stdin, cond)
	case "mv", "cp":
		w.move(name, args[1:], cond)
	case "rm":
		w.remove(args[1:], cond)
	default:
		if !readOnly[name] {
			w.touched(args[1:], w.line, strings.Join(argText(args), " "), cond)
		}
	}
	if name == "sed" && slices.ContainsFunc(args[1:], func(a Arg) bool { return a.Known && strings.HasPrefix(a.Value, "-i") || a.Value == "--in-place" }) {
		what = "sed -i"
	}
	for _, o := range outs {
		w.writeOutput(o, out, what, cond)
	}
}

// argText is a command's words for people, "?" for those only known at
// boot.
func argText(args []Arg) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if a.Known {
			out = append(out, a.Value)
		} else {
			out = append(out, Source(a.Word))
		}
	}
	return out
}

// echoOutput is bash's builtin echo: its words joined by spaces and a
// newline, unless -n; -e (escapes) is not followed.
func echoOutput(args []Arg) content {
	newline := true
	for len(args) > 0 && args[0].Known && (args[0].Value == "-n" || args[0].Value == "-E") {
		newline = newline && args[0].Value != "-n"
		args = args[1:]
	}
	words := make([]string, 0, len(args))
	for _, a := range args {
		if !a.Known || a.Value == "-e" {
			return content{}
		}
		words = append(words, a.Value)
	}
	text := strings.Join(words, " ")
	if newline {
		text += "\n"
	}
	return content{known: true, text: text}
}

// printfOutput follows printf FORMAT with no conversion but %% and the
// escapes \n and \t, and printf '%s\n' WORDS...
func printfOutput(args []Arg) content {
	if len(args) == 0 || !args[0].Known {
		return content{}
	}
	for _, a := range args {
		if !a.Known {
			return content{}
		}
	}
	format := args[0].Value
	if strings.HasPrefix(format, "-") {
		return content{} // printf -v VAR writes a variable, not its output
	}
	if format == `%s\n` || format == "%s\n" {
		var b strings.Builder
		for _, a := range args[1:] {
			b.WriteString(a.Value + "\n")
		}
		return content{known: true, text: b.String()}
	}
	if len(args) > 1 || strings.Contains(strings.ReplaceAll(format, "%%", ""), "%") {
		return content{}
	}
	text := strings.NewReplacer(`\n`, "\n", `\t`, "\t", "%%", "%").Replace(format)
	if strings.Contains(text, `\`) {
		return content{}
	}
	return content{known: true, text: text}
}

// catOutput: cat of known files, or of its standard input.
func (w *Walker) catOutput(args []Arg, stdin content) content {
	if len(args) == 0 || len(args) == 1 && args[0].Known && args[0].Value == "-" {
		return stdin
	}
	if len(args) == 1 && args[0].Known && !strings.HasPrefix(args[0].Value, "-") {
		return w.contentOf(args[0].Value)
	}
	return content{}
}

// substitutedFilter recognizes echo "$(jq FILTER FILE)" (or sed), the
// way bootstrap.sh itself rewrites kubelet-config.json: bash runs the
// substitution before the redirection empties the file.
func (w *Walker) substitutedFilter(args []Arg) (content, bool) {
	if len(args) != 1 || args[0].Known || args[0].Word == nil {
		return content{}, false
	}
	parts := args[0].Word.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return content{}, false
	}
	cs, ok := parts[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 || len(cs.Stmts[0].Redirs) > 0 {
		return content{}, false
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 {
		return content{}, false
	}
	var fields []Arg
	for _, word := range call.Args {
		fields = append(fields, w.fields(word)...)
	}
	if len(fields) == 0 || !fields[0].Known {
		return content{}, false
	}
	var c content
	switch path.Base(fields[0].Value) {
	case "jq":
		c = w.jq(fields[1:])
	case "sed":
		c = w.sedOutput(fields[1:])
	default:
		return content{}, false
	}
	if !c.known {
		return content{}, false
	}
	// echo adds a newline, which neither JSON nor a line-based file minds.
	return c, true
}

// tee copies its standard input to its files (appending with -a) and to
// its output.
func (w *Walker) tee(args []Arg, stdin content, cond bool) content {
	appendTo := false
	var targets []Arg
	for _, a := range args {
		switch {
		case a.Known && (a.Value == "-a" || a.Value == "--append"):
			appendTo = true
		case a.Known && strings.HasPrefix(a.Value, "-") && len(targets) == 0:
		default:
			targets = append(targets, a)
		}
	}
	for _, t := range targets {
		w.writeOutput(output{target: t, appends: appendTo, stdout: true}, stdin, "tee", cond)
	}
	return stdin
}

// pipeIntoFile follows "echo TEXT | tee FILE" and "cat <<EOF | tee FILE":
// tee's input is the left side's known output.
func (w *Walker) pipeIntoFile(c *syntax.BinaryCmd, cond bool) bool {
	if c.Op != syntax.Pipe || len(w.fs.watch) == 0 {
		return false
	}
	left, lok := c.X.Cmd.(*syntax.CallExpr)
	right, rok := c.Y.Cmd.(*syntax.CallExpr)
	if !lok || !rok || len(left.Args) == 0 || len(right.Args) == 0 || len(c.Y.Redirs) > 0 {
		return false
	}
	rightArgs := w.unwrapped(right)
	if len(rightArgs) == 0 || !rightArgs[0].Known || path.Base(rightArgs[0].Value) != "tee" {
		return false
	}
	leftArgs := w.unwrapped(left)
	if len(leftArgs) == 0 || !leftArgs[0].Known {
		return false
	}
	_, stdin := w.redirections(c.X, cond)
	var out content
	switch path.Base(leftArgs[0].Value) {
	case "echo":
		out = echoOutput(leftArgs[1:])
	case "printf":
		out = printfOutput(leftArgs[1:])
	case "cat":
		out = w.catOutput(leftArgs[1:], stdin)
	default:
		return false
	}
	w.line = w.pos(c.Y.Pos())
	w.tee(rightArgs[1:], out, cond)
	return true
}

// unwrapped is a simple command's words after its wrappers.
func (w *Walker) unwrapped(c *syntax.CallExpr) []Arg {
	var fields []Arg
	for _, word := range c.Args {
		fields = append(fields, w.fields(word)...)
	}
	args, _, script := unwrapCommand(fields, Var{}, w.envName)
	if script != nil {
		return nil
	}
	return args
}

// move follows mv and cp: the destination (a file, or a directory
// holding the source's name) gets the source's content; mv removes the
// source.
func (w *Walker) move(name string, args []Arg, cond bool) {
	var operands []Arg
	for _, a := range args {
		if a.Known && strings.HasPrefix(a.Value, "-") {
			if a.Value == "-t" || strings.HasPrefix(a.Value, "--target-directory") || a.Value == "-S" {
				w.touched(args, w.line, name+" "+strings.Join(argText(args), " "), cond)
				return
			}
			continue
		}
		operands = append(operands, a)
	}
	if len(operands) >= 2 && !operands[len(operands)-1].Known {
		w.changedUnknown(operands[len(operands)-1], w.line, name+" "+strings.Join(argText(args), " "), cond)
		return
	}
	if len(operands) != 2 || !operands[0].Known || !operands[1].Known {
		w.touched(args, w.line, name+" "+strings.Join(argText(args), " "), cond)
		return
	}
	src, dst := operands[0].Value, operands[1].Value
	if strings.HasSuffix(dst, "/") || w.isWatchedDir(dst) {
		dst = path.Join(dst, path.Base(src))
	}
	c := w.contentOf(src)
	w.store(dst, c, false, w.line, name+" "+src+" "+dst, cond)
	if name == "mv" {
		if p, ok := w.fs.watched(src); ok {
			w.addOp(FileOp{Line: w.line, Path: p, Kind: OpRemove, Cond: cond})
		} else {
			delete(w.fs.tmp, cleanPath(src))
		}
	}
}

// isWatchedDir reports whether p is one of the watched directories or a
// directory under one (a path ending in ".d").
func (w *Walker) isWatchedDir(p string) bool {
	clean := cleanPath(p)
	return strings.HasSuffix(clean, ".d") && w.fs.isWatchedPath(clean)
}

func (f *files) isWatchedPath(p string) bool {
	_, ok := f.watched(p)
	return ok
}

// remove follows rm: each named watched file is removed.
func (w *Walker) remove(args []Arg, cond bool) {
	for _, a := range args {
		if a.Known && strings.HasPrefix(a.Value, "-") {
			continue
		}
		p, ok := w.argWatched(a)
		switch {
		case ok && a.Known && !strings.ContainsAny(a.Value, "*?["):
			w.addOp(FileOp{Line: w.line, Path: p, Kind: OpRemove, Cond: cond})
		case ok:
			w.addOp(FileOp{Line: w.line, Path: p, Kind: OpUnknown, What: "rm " + strings.Join(argText(args), " "), Cond: cond})
		case a.Known:
			delete(w.fs.tmp, cleanPath(a.Value))
		}
	}
}

// sedOptions is a sed command line read as GNU sed reads it.
type sedOptions struct {
	inPlace bool
	script  string
	files   []Arg
	ok      bool // every option is known and followed
}

func parseSed(args []Arg) sedOptions {
	o := sedOptions{ok: true}
	var scripts []string
	haveScript := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.Known:
			o.files = append(o.files, a)
			o.ok = o.ok && haveScript
			if !haveScript {
				return sedOptions{}
			}
		case a.Value == "--":
			o.files = append(o.files, args[i+1:]...)
			i = len(args)
		case a.Value == "--in-place" || strings.HasPrefix(a.Value, "--in-place="):
			o.inPlace = true
		case a.Value == "--expression" && i+1 < len(args) && args[i+1].Known:
			scripts, haveScript = append(scripts, args[i+1].Value), true
			i++
		case strings.HasPrefix(a.Value, "--expression="):
			scripts, haveScript = append(scripts, strings.TrimPrefix(a.Value, "--expression=")), true
		case strings.HasPrefix(a.Value, "--"):
			o.ok = o.ok && sedLongFlags[a.Value]
		case strings.HasPrefix(a.Value, "-") && len(a.Value) > 1:
			var script string
			var took bool
			script, took, o.inPlace, o.ok = sedCluster(a.Value[1:], args[i+1:], o.inPlace, o.ok)
			if took {
				i++
			}
			if script != "\x00" {
				scripts, haveScript = append(scripts, script), true
			}
		case !haveScript:
			scripts, haveScript = append(scripts, a.Value), true
		default:
			o.files = append(o.files, a)
		}
	}
	o.script = strings.Join(scripts, "\n")
	o.ok = o.ok && haveScript
	return o
}

var sedLongFlags = map[string]bool{"--regexp-extended": true, "--quiet": true, "--silent": true, "--separate": true,
	"--unbuffered": true, "--null-data": true, "--posix": true, "--debug": true, "--follow-symlinks": true, "--sandbox": true}

// sedCluster reads one short-option cluster: -n, -E, -r, -s, -u, -z; -i
// takes the rest of the cluster as a backup suffix; -e takes the rest, or
// the next argument, as script ("\x00" when there is none); -f and -l are
// not followed.
func sedCluster(cluster string, rest []Arg, inPlace, ok bool) (script string, took, _ bool, _ bool) {
	for j := 0; j < len(cluster); j++ {
		switch cluster[j] {
		case 'n', 'E', 'r', 's', 'u', 'z':
		case 'i':
			return "\x00", false, true, ok
		case 'e':
			if j+1 < len(cluster) {
				return cluster[j+1:], false, inPlace, ok
			}
			if len(rest) == 0 || !rest[0].Known {
				return "\x00", false, inPlace, false
			}
			return rest[0].Value, true, inPlace, ok
		default:
			return "\x00", false, inPlace, false
		}
	}
	return "\x00", false, inPlace, ok
}

// sed follows sed -i over watched files and tracked ones, and returns
// what sed prints otherwise.
func (w *Walker) sed(args []Arg, cond bool) content {
	o := parseSed(args)
	if !o.inPlace {
		return w.sedOutput(args)
	}
	filter := FileOp{Kind: OpFilter, Tool: "sed", Text: o.script}
	for _, f := range o.files {
		if !f.Known {
			w.changedUnknown(f, w.line, "sed "+strings.Join(argText(args), " "), cond)
			continue
		}
		if !o.ok {
			w.touched([]Arg{f}, w.line, "sed "+strings.Join(argText(args), " "), cond)
			continue
		}
		if p, ok := w.fs.watched(f.Value); ok {
			op := filter
			op.Line, op.Path, op.Cond = w.line, p, cond
			w.addOp(op)
			continue
		}
		key := cleanPath(f.Value)
		if t, tracked := w.fs.tmp[key]; tracked && t.known && t.from != "" && !cond && !w.mayNotRun() {
			t.filters = append(slices.Clip(t.filters), filter)
			w.fs.tmp[key] = t
		} else {
			delete(w.fs.tmp, key)
		}
	}
	return content{}
}

// sedOutput is what sed without -i prints: its one input file, filtered.
func (w *Walker) sedOutput(args []Arg) content {
	o := parseSed(args)
	if !o.ok || o.inPlace || len(o.files) != 1 || !o.files[0].Known {
		return content{}
	}
	return filtered(w.contentOf(o.files[0].Value), FileOp{Kind: OpFilter, Tool: "sed", Text: o.script})
}

// jq is what jq prints: its one input file through the filter. --arg and
// --argjson are kept for the filter's $names; other options that change
// what is read (-n, -s, -f, --slurpfile, --rawfile) are not followed.
func (w *Walker) jq(args []Arg) content {
	var opts []string
	filter, haveFilter := "", false
	var inputs []Arg
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.Known:
			return content{}
		case (a.Value == "--arg" || a.Value == "--argjson") && i+2 < len(args):
			if !args[i+1].Known || !args[i+2].Known {
				return content{}
			}
			opts = append(opts, a.Value, args[i+1].Value, args[i+2].Value)
			i += 2
		case a.Value == "-r" || a.Value == "-c" || a.Value == "-M" || a.Value == "-S" || a.Value == "-e" ||
			a.Value == "--raw-output" || a.Value == "--compact-output" || a.Value == "--monochrome-output" || a.Value == "--sort-keys" || a.Value == "--tab":
		case strings.HasPrefix(a.Value, "-") && a.Value != "-":
			return content{}
		case !haveFilter:
			filter, haveFilter = a.Value, true
		default:
			inputs = append(inputs, a)
		}
	}
	if !haveFilter || len(inputs) != 1 {
		return content{}
	}
	return filtered(w.contentOf(inputs[0].Value), FileOp{Kind: OpFilter, Tool: "jq", Text: filter, Args: opts})
}

// filtered is c with one more filter run over it.
func filtered(c content, f FileOp) content {
	switch {
	case !c.known:
		return content{}
	case c.from == "":
		return content{} // a filter over known text is not computed
	}
	c.filters = append(slices.Clip(c.filters), f)
	return c
}

// Files returns the changes to watched files recorded so far, in order.
func (w *Walker) Files() []FileOp { return w.fs.ops }
