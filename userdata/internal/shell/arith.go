package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
			w.assign(name, Var{Set: true})
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
