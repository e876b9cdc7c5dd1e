package shell

import (
	"bytes"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// eachPart calls fn on every part of a word, nested ones included (inside
// double quotes, and the words of a parameter expansion); it stops when
// fn returns false and reports whether it went through. It does what
// syntax.Walk does for words, without its cost per node.
func eachPart(parts []syntax.WordPart, fn func(syntax.WordPart) bool) bool {
	for _, p := range parts {
		if !fn(p) {
			return false
		}
		switch p := p.(type) {
		case *syntax.DblQuoted:
			if !eachPart(p.Parts, fn) {
				return false
			}
		case *syntax.ParamExp:
			for _, w := range paramWords(p) {
				if !eachPart(w.Parts, fn) {
					return false
				}
			}
		}
	}
	return true
}

// paramWords are the words inside a parameter expansion.
func paramWords(p *syntax.ParamExp) []*syntax.Word {
	var out []*syntax.Word
	if p.Exp != nil && p.Exp.Word != nil {
		out = append(out, p.Exp.Word)
	}
	if p.Repl != nil {
		if p.Repl.Orig != nil {
			out = append(out, p.Repl.Orig)
		}
		if p.Repl.With != nil {
			out = append(out, p.Repl.With)
		}
	}
	return out
}

// literal expands a word as an assignment value (no splitting).
func (w *Walker) literal(word *syntax.Word) (string, bool) {
	if word == nil {
		return "", true
	}
	if !w.static(word) {
		return "", false
	}
	s, err := expand.Literal(w.config(), word)
	return s, err == nil
}

// document expands a here-document body as bash does (parameters, no
// splitting; a quoted delimiter leaves it literal, which the parser has
// already done).
func (w *Walker) document(word *syntax.Word) (string, bool) {
	if word == nil {
		return "", true
	}
	if !w.static(word) {
		return "", false
	}
	s, err := expand.Document(w.config(), word)
	return s, err == nil
}

// fields expands a command argument into the words the command receives.
func (w *Walker) fields(word *syntax.Word) []Arg {
	line := w.pos(word.Pos())
	if w.static(word) {
		if out, err := expand.Fields(w.config(), word); err == nil {
			args := make([]Arg, len(out))
			for i, f := range out {
				args[i] = Arg{Value: f, Known: true, Prefix: f, Word: word, Line: line}
			}
			return args
		}
	}
	return []Arg{{Multi: unquotedDynamic(word), Prefix: staticPrefix(word), Word: word, Line: line, Origin: w.wordOrigin(word)}}
}

// wordOrigin is the line an unknown word's value comes from: the origin of
// its first unknown variable, else the word's own line.
func (w *Walker) wordOrigin(word *syntax.Word) int {
	origin := 0
	eachPart(word.Parts, func(n syntax.WordPart) bool {
		if p, ok := n.(*syntax.ParamExp); ok && origin == 0 && p.Param != nil {
			if v := w.lookup(p.Param.Value); !v.Known {
				origin = v.Origin
			}
		}
		return origin == 0
	})
	if origin == 0 || w.at > 0 {
		origin = w.pos(word.Pos())
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

// static reports whether a word can be expanded without running anything:
// no command, arithmetic or process substitution, no tilde (which would
// look up users), and only parameters whose values are known.
func (w *Walker) static(word *syntax.Word) bool {
	if len(word.Parts) > 0 {
		if lit, ok := word.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
			return false
		}
	}
	return eachPart(word.Parts, func(n syntax.WordPart) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
			return false
		case *syntax.ParamExp:
			if n.Excl || n.Names != 0 || n.Slice != nil || n.Width || n.Param == nil || !wholeArray(n.Index) || !computable(n.Exp) {
				return false
			}
			if v := w.lookup(n.Param.Value); !v.Known || assigns(n) && (!v.Set || v.Value == "") {
				return false // unknown, or ${X:=word} would assign X
			}
		}
		return true
	})
}

// computable reports whether mvdan.cc/sh computes an expansion's
// operator: of the ${X@op} transformations it computes only Q and E, and
// panics on the others bash has (v3.12.0 expand/param.go:312-335).
func computable(e *syntax.Expansion) bool {
	if e == nil || e.Op != syntax.OtherParamOps {
		return true
	}
	op, ok := literalWord(e.Word)
	return ok && (op == "Q" || op == "E")
}

// assigns reports ${X:=word} and ${X=word}, which assign X.
func assigns(p *syntax.ParamExp) bool {
	return p.Exp != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull)
}

// expansions applies what expanding a command's words does besides
// producing them: the commands of command and process substitutions run
// (in a subshell: their variables do not come back, their calls and file
// changes do), arithmetic assigns, and ${X:=word} assigns X. n is a
// simple command, a declaration, a [[ ]] test or one word.
func (w *Walker) expansions(n syntax.Node, cond bool) {
	switch n := n.(type) {
	case *syntax.CallExpr:
		for _, a := range n.Assigns {
			w.assignExpansions(a, cond)
		}
		for _, word := range n.Args {
			w.wordExpansions(word, cond)
		}
	case *syntax.DeclClause:
		for _, a := range n.Args {
			w.assignExpansions(a, cond)
		}
	case *syntax.Word:
		w.wordExpansions(n, cond)
	case *syntax.TestClause:
		syntax.Walk(n, func(n syntax.Node) bool {
			if word, ok := n.(*syntax.Word); ok {
				w.wordExpansions(word, cond)
				return false
			}
			return true
		})
	}
}

func (w *Walker) assignExpansions(a *syntax.Assign, cond bool) {
	if a.Value != nil {
		w.wordExpansions(a.Value, cond)
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Value != nil {
				w.wordExpansions(e.Value, cond)
			}
		}
	}
}

func (w *Walker) wordExpansions(word *syntax.Word, cond bool) {
	if word == nil {
		return
	}
	eachPart(word.Parts, func(n syntax.WordPart) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			w.subshell(func(sub *Walker) { sub.stmts(n.Stmts, cond) })
		case *syntax.ProcSubst:
			w.subshell(func(sub *Walker) {
				sub.guards++
				sub.stmts(n.Stmts, true)
			})
		case *syntax.ArithmExp:
			w.arithmAssigns(n.X)
		case *syntax.ParamExp:
			if assigns(n) && n.Param != nil {
				if v := w.lookup(n.Param.Value); !v.Known || !v.Set || v.Value == "" {
					w.assign(n.Param.Value, Var{Set: true})
				}
			}
			if n.Index != nil {
				w.arithmAssigns(n.Index) // ${A[i++]}
			}
			if n.Slice != nil && n.Slice.Offset != nil {
				w.arithmAssigns(n.Slice.Offset)
			}
			if n.Slice != nil && n.Slice.Length != nil {
				w.arithmAssigns(n.Slice.Length)
			}
		}
		return true
	})
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
