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
// recording the calls of target. It returns the calls and, when the
// script has a syntax error, a [*SyntaxError]; the calls before the error
// are still returned, because bash runs the commands it has read.
func Walk(script []byte, target, envName string) ([]Call, error) {
	w := NewWalker(target, envName)
	err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Stmts(bytes.NewReader(script), func(st *syntax.Stmt) bool {
		w.stmt(st, false)
		return !w.stopped
	})
	if err != nil {
		line := 0
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			line = int(pe.Pos.Line())
		}
		return w.calls, &SyntaxError{Line: line, Err: err}
	}
	return w.calls, nil
}
