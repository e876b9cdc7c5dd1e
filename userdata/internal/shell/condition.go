package shell

import (
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// condition is what the walker knows about a command's exit status.
type condition uint8

const (
	conditionUnknown condition = iota
	conditionTrue
	conditionFalse
)

// constantCondition evaluates a condition list whose status is known
// without running anything: true, :, false, and test/[ ] comparing
// literal strings (= !=) or literal integers (-eq -ne -lt -le -gt -ge).
// The list's status is its last command's.
func constantCondition(list []*syntax.Stmt) condition {
	if len(list) == 0 {
		return conditionUnknown
	}
	s := list[len(list)-1]
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 || len(c.Assigns) > 0 || len(s.Redirs) > 0 || s.Background {
		return conditionUnknown
	}
	switch c.Args[0].Lit() {
	case "true", ":", "false", "[", "test":
	default:
		return conditionUnknown // the common case: decided without allocating
	}
	words := make([]string, 0, len(c.Args))
	for _, a := range c.Args {
		w, ok := literalWord(a)
		if lit := a.Lit(); lit == "[" || lit == "]" {
			w, ok = lit, true
		}
		if !ok {
			if q, qok := quotedLiteral(a); qok {
				w = q
			} else {
				return conditionUnknown
			}
		}
		words = append(words, w)
	}
	out := literalStatus(words)
	if s.Negated && out != conditionUnknown {
		out = conditionTrue + conditionFalse - out
	}
	return out
}

func literalStatus(words []string) condition {
	switch words[0] {
	case "true", ":":
		return conditionTrue
	case "false":
		return conditionFalse
	case "[":
		if words[len(words)-1] != "]" {
			return conditionUnknown
		}
		return testStatus(words[1 : len(words)-1])
	case "test":
		return testStatus(words[1:])
	}
	return conditionUnknown
}

// testStatus evaluates "a OP b" for the operators it knows.
func testStatus(args []string) condition {
	if len(args) != 3 {
		return conditionUnknown
	}
	a, op, b := args[0], args[1], args[2]
	switch op {
	case "=", "==":
		return status(a == b)
	case "!=":
		return status(a != b)
	}
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA != nil || errB != nil {
		return conditionUnknown
	}
	switch op {
	case "-eq":
		return status(x == y)
	case "-ne":
		return status(x != y)
	case "-lt":
		return status(x < y)
	case "-le":
		return status(x <= y)
	case "-gt":
		return status(x > y)
	case "-ge":
		return status(x >= y)
	}
	return conditionUnknown
}

func status(ok bool) condition {
	if ok {
		return conditionTrue
	}
	return conditionFalse
}

// quotedLiteral returns a word that is one quoted literal ('x' or "x").
func quotedLiteral(word *syntax.Word) (string, bool) {
	if len(word.Parts) != 1 {
		return "", false
	}
	switch p := word.Parts[0].(type) {
	case *syntax.SglQuoted:
		return p.Value, !p.Dollar
	case *syntax.DblQuoted:
		if len(p.Parts) == 0 {
			return "", true
		}
		if len(p.Parts) == 1 {
			if lit, ok := p.Parts[0].(*syntax.Lit); ok {
				return lit.Value, true
			}
		}
	}
	return "", false
}
