package shell

import (
	"bytes"
	"errors"

	"mvdan.cc/sh/v3/syntax"
)

// SyntaxError is a bash syntax error at a 1-based line of the script.
// Bash runs the complete commands before it, so [Walk] returns the calls
// found up to it together with the error.
type SyntaxError struct {
	Line int
	Err  error
}

func (e *SyntaxError) Error() string { return e.Err.Error() }

// Walk parses script as bash and walks it statement by statement,
// recording the calls of o.Target, the kubelet starts, the changes to the
// files o.Watch names and the constructs it cannot follow. A "-e" option
// on the "#!" line turns errexit on, as the kernel passes it to bash. It
// returns, when the script has a syntax error, a [*SyntaxError]; what was
// found before the error is still returned, because bash runs the
// commands it has read.
func Walk(script []byte, o Options) (Result, error) {
	w := newWalker(o, script)
	if shebangErrexit(script) {
		w.SetErrexit()
	}
	var r Result
	err := parseStmts(script, func(st *syntax.Stmt) bool {
		r.Stmts = append(r.Stmts, st)
		w.stmt(st, false)
		w.failing(st, false)
		if w.stopped {
			end := min(int(st.End().Offset()), len(script))
			r.SkipsTarget = bytes.Contains(script[end:], []byte(o.Target))
		}
		return !w.stopped
	})
	r.Calls, r.Opaque, r.Starts, r.Files = w.calls, w.opaque, w.starts, w.fs.ops
	r.StopLine, r.StopWhy = w.Stopped()
	if err != nil {
		line := 0
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			line = int(pe.Pos.Line())
		}
		return r, &SyntaxError{Line: line, Err: err}
	}
	return r, nil
}

// Result is what [Walk] finds in a script. Calls, Starts, Files and
// Opaque each hold their events in the order they run (a call or change
// in a branch where it would run); Seq orders them against each other.
type Result struct {
	Calls  []Call      // the target's calls
	Opaque []Construct // what the walker cannot follow
	// Starts are the commands that may start or restart the kubelet
	// (systemctl or service acting on its unit, the kubelet or nodeadm
	// binary run directly).
	Starts []Construct
	// Files are the changes the script makes, or may make, to the watched
	// files.
	Files []FileOp
	// StopLine is where the script certainly stops (exit at the top level,
	// or a failing command under errexit), StopWhy why; 0 if it runs to
	// its end. SkipsTarget reports that the text after the stop names the
	// target.
	StopLine    int
	StopWhy     string
	SkipsTarget bool
	// Stmts are the script's top-level statements as bash read them, up
	// to where the walk stopped (or a syntax error), for callers that
	// rewrite the script.
	Stmts []*syntax.Stmt
}

// shebangErrexit reports whether the "#!" line passes bash an option
// cluster containing 'e' ("#!/bin/bash -xe").
func shebangErrexit(script []byte) bool {
	first, _, _ := bytes.Cut(script, []byte("\n"))
	if !bytes.HasPrefix(first, []byte("#!")) {
		return false
	}
	fields := bytes.Fields(first[2:])
	if len(fields) < 2 {
		return false
	}
	for _, f := range fields[1:] {
		if len(f) > 1 && f[0] == '-' && f[1] != '-' && bytes.IndexByte(f, 'e') >= 0 {
			return true
		}
	}
	return false
}

// parseStmts parses src as bash and calls fn with each statement until fn
// returns false, as bash reads a script: it returns the error bash meets,
// one on a line up to the statement fn stopped at (an unclosed
// here-document there), not one after it. It parses the whole script
// with Parse, which every mvdan.cc/sh release from go.mod's on has alike:
// v3.14's Stmts, which ranges over StmtsSeq, panics on a script whose
// here-document is never closed (syntax/parser.go@v3.14.1 L261-291:
// StmtsSeq yields its final error after Stmts returned on the first).
func parseStmts(src []byte, fn func(*syntax.Stmt) bool) error {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), "")
	for _, st := range f.Stmts {
		if st == nil { // v3.14 keeps a nil for the statement an error ended
			continue
		}
		if !fn(st) {
			if err != nil && errorLine(err) > st.End().Line() {
				return nil
			}
			break
		}
	}
	return err
}

// errorLine is the line of a parse error, or 0 when it has none.
func errorLine(err error) uint {
	var pe syntax.ParseError
	var le syntax.LangError
	switch {
	case errors.As(err, &pe):
		return pe.Pos.Line()
	case errors.As(err, &le):
		return le.Pos.Line()
	}
	return 0
}
