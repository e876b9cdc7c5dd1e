package capacity

import (
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// Citations of the two CEL dialects, read at these commits.
const (
	citeNodeadmCEL   = "awslabs/amazon-eks-ami 81fec2e8 nodeadm/internal/kubelet/eni_max_pods.go:20-24 (variables), :61-73 (an error keeps the standard value), :79-114 (three int variables; the result converted to int and refused unless 0 < result ≤ MaxInt32); google/cel-go v0.29.2 (nodeadm/go.mod)"
	citeKarpenterCEL = "aws/karpenter-provider-aws 6e13b3e0 (#9326, after v1.14.1; alpha, behind the NodeClassCEL gate) pkg/cel/environment.go:65-76 (variables), :95-180 (min and max), :214-233 (int or double results), :247-276 (a double truncated, a non-finite one refused)"
)

// Variables are the instance facts a kubelet expression reads. nodeadm's
// maxPodsExpression reads default_enis, ips_per_eni and max_pods;
// Karpenter's NodeClassCEL expressions read all six.
type Variables struct {
	// DefaultENIs is default_enis: the interfaces of the default network
	// card.
	DefaultENIs int64
	// IPsPerENI is ips_per_eni: the IPv4 addresses per interface.
	IPsPerENI int64
	// MaxPods is max_pods: nodeadm's standard figure (interfaces × (IPv4
	// per interface − 1) + 2); for Karpenter, its pods capacity.
	MaxPods int64
	// VCPUs is vcpus (Karpenter only).
	VCPUs int64
	// MemoryMiB is memory_mib, the published memory (Karpenter only).
	MemoryMiB int64
	// InstanceType is instance_type (Karpenter only).
	InstanceType string
}

// dialect is which software compiles and evaluates an expression.
type dialect uint8

const (
	dialectNodeadm   dialect = iota + 1 // nodeadm's kubelet.maxPodsExpression
	dialectKarpenter                    // Karpenter's NodeClassCEL (alpha)
)

func (d dialect) String() string {
	if d == dialectKarpenter {
		return "NodeClassCEL expression"
	}
	return "maxPodsExpression"
}

// Expression is CEL text compiled once the way nodeadm or Karpenter
// compiles it, to be evaluated per instance type ([Expression.Eval]) the
// way that software evaluates it. Build one with [ParseMaxPodsExpression]
// or [ParseKarpenterExpression]. The zero value is no expression. An
// Expression is immutable and safe for concurrent use.
type Expression struct {
	text    string
	quoted  string // strconv.Quote(text), for rules
	dialect dialect
	prg     cel.Program
	info    *celast.SourceInfo
	root    int64 // the outermost node, whose value is the result
}

// ParseMaxPodsExpression compiles an AL2023 NodeConfig's
// spec.kubelet.maxPodsExpression as nodeadm does: CEL (google/cel-go, the
// version nodeadm builds with) over the int variables default_enis,
// ips_per_eni and max_pods, with CEL's standard library and nothing else.
// An empty text is no expression, as nodeadm reads it. An expression that
// does not compile is an [*ExpressionError] naming its line and column;
// nodeadm logs such an expression and keeps its standard max pods.
func ParseMaxPodsExpression(text string) (Expression, error) {
	if text == "" {
		return Expression{}, nil
	}
	return compile(text, dialectNodeadm)
}

// ParseKarpenterExpression compiles a kubeReserved or systemReserved
// value of an EC2NodeClass as Karpenter's NodeClassCEL feature compiles
// it: CEL over vcpus, memory_mib, default_enis, ips_per_eni, max_pods
// (ints) and instance_type (a string), with min and max of two numbers,
// giving an int or a double. NodeClassCEL is an alpha feature of
// karpenter-provider-aws (6e13b3e0, #9326, merged after v1.14.1, off by
// default); this follows it as merged and may have to change with it.
func ParseKarpenterExpression(text string) (Expression, error) {
	return compile(text, dialectKarpenter)
}

func compile(text string, d dialect) (Expression, error) {
	env, err := environment(d)
	if err != nil {
		return Expression{}, fmt.Errorf("capacity: building the CEL environment: %w", err) // a build defect, not the caller's
	}
	ast, issues := env.Compile(text)
	if issues != nil && issues.Err() != nil {
		first := issues.Errors()[0]
		return Expression{}, newExpressionError(text, d, first.Location, first.Message)
	}
	x := Expression{text: text, quoted: strconv.Quote(text), dialect: d, info: ast.NativeRep().SourceInfo(), root: ast.NativeRep().Expr().ID()}
	if d == dialectKarpenter {
		// environment.go:219-225: only int and double results.
		if t := ast.OutputType(); t != cel.IntType && t != cel.DoubleType {
			return Expression{}, x.errorAt(x.root, fmt.Sprintf("the expression gives %s; Karpenter takes only int or double", t))
		}
	}
	if x.prg, err = env.Program(ast); err != nil {
		return Expression{}, x.errorAt(x.root, err.Error())
	}
	return x, nil
}

// environments are built once: a cel.Env is immutable and safe for
// concurrent use once built.
var (
	nodeadmEnv = sync.OnceValues(func() (*cel.Env, error) {
		return cel.NewEnv(
			cel.Variable("default_enis", cel.IntType),
			cel.Variable("ips_per_eni", cel.IntType),
			cel.Variable("max_pods", cel.IntType),
		)
	})
	karpenterEnv = sync.OnceValues(func() (*cel.Env, error) {
		return cel.NewEnv(
			cel.Variable("vcpus", cel.IntType),
			cel.Variable("memory_mib", cel.IntType),
			cel.Variable("default_enis", cel.IntType),
			cel.Variable("ips_per_eni", cel.IntType),
			cel.Variable("max_pods", cel.IntType),
			cel.Variable("instance_type", cel.StringType),
			extremum("max", true),
			extremum("min", false),
		)
	})
)

func environment(d dialect) (*cel.Env, error) {
	if d == dialectKarpenter {
		return karpenterEnv()
	}
	return nodeadmEnv()
}

// extremum declares Karpenter's max or min: four overloads over int and
// double, int × int giving int and any double giving double, the left
// operand kept when it wins strictly, else the right one.
func extremum(name string, isMax bool) cel.EnvOption {
	double := func(v ref.Val) types.Double {
		if i, ok := v.(types.Int); ok {
			return types.Double(i)
		}
		return v.(types.Double)
	}
	ints := cel.BinaryBinding(func(l, r ref.Val) ref.Val {
		li, ri := l.(types.Int), r.(types.Int)
		if isMax && li > ri || !isMax && li < ri {
			return li
		}
		return ri
	})
	doubles := cel.BinaryBinding(func(l, r ref.Val) ref.Val {
		ld, rd := double(l), double(r)
		if isMax && ld > rd || !isMax && ld < rd {
			return ld
		}
		return rd
	})
	i, d := cel.IntType, cel.DoubleType
	return cel.Function(name,
		cel.Overload(name+"_int_int", []*cel.Type{i, i}, i, ints),
		cel.Overload(name+"_double_double", []*cel.Type{d, d}, d, doubles),
		cel.Overload(name+"_int_double", []*cel.Type{i, d}, d, doubles),
		cel.Overload(name+"_double_int", []*cel.Type{d, i}, d, doubles),
	)
}

// IsZero reports whether x is no expression.
func (x Expression) IsZero() bool { return x.prg == nil }

// String returns the expression's text.
func (x Expression) String() string { return x.text }

// Eval evaluates x for one instance type and returns the result as the
// software that reads the expression takes it, or an [*ExpressionError]
// naming the part of the expression that failed.
//
// For a maxPodsExpression that is nodeadm's evaluateCustomMaxPodsExpression:
// the value converted to an int as CEL converts it (a double truncated, a
// numeric string parsed), refused unless 0 < result ≤ 2^31−1. nodeadm
// then keeps its standard max pods. For a Karpenter expression: an int,
// or a finite double truncated toward zero; a negative result is returned
// for the caller to refuse.
func (x Expression) Eval(v Variables) (int64, error) {
	if x.IsZero() {
		return 0, fmt.Errorf("capacity: Eval of the zero Expression; parse one with ParseMaxPodsExpression or ParseKarpenterExpression")
	}
	if x.dialect == dialectKarpenter {
		return x.evalKarpenter(v)
	}
	return x.evalNodeadm(v)
}

// evalNodeadm is eni_max_pods.go:99-113, step by step: the evaluation's
// error is ignored and the value converted, as nodeadm does.
func (x Expression) evalNodeadm(v Variables) (int64, error) {
	raw, _, _ := x.prg.Eval(&activation{v})
	if raw == nil {
		// cel-go returns no value only when evaluation panics; nodeadm's
		// rawVal.ConvertToType would then panic too.
		return 0, x.errorAt(x.root, "cel-go failed inside its evaluation; nodeadm would crash on this expression")
	}
	if types.IsError(raw) {
		return 0, x.errorAt(x.nodeOf(raw), fmt.Sprint(raw.Value()))
	}
	cast := raw.ConvertToType(cel.IntType)
	if types.IsError(cast) {
		return 0, x.errorAt(x.nodeOf(raw), fmt.Sprintf("the result %v is not an integer: %v", raw.Value(), cast.Value()))
	}
	n, ok := cast.Value().(int64)
	if !ok {
		return 0, x.errorAt(x.root, fmt.Sprintf("the result %v is not an integer", raw.Value()))
	}
	if n > math.MaxInt32 || n <= 0 {
		return 0, x.errorAt(x.root, fmt.Sprintf("the result %d is not a positive integer below 2^31, which nodeadm requires", n))
	}
	return n, nil
}

// evalKarpenter is EvaluateExpression (environment.go:238-277).
func (x Expression) evalKarpenter(v Variables) (int64, error) {
	out, _, err := x.prg.Eval(&activation{v})
	if err != nil {
		return 0, x.errorAt(x.nodeOf(out), err.Error())
	}
	switch r := out.Value().(type) {
	case int64:
		return r, nil
	case float64:
		if math.IsInf(r, 0) || math.IsNaN(r) {
			return 0, x.errorAt(x.root, fmt.Sprintf("the result %v is not finite", r))
		}
		return int64(r), nil
	}
	return 0, x.errorAt(x.root, fmt.Sprintf("the result %v is of type %T, not a number", out.Value(), out.Value()))
}

// activation binds the variables by name for cel-go, as the maps nodeadm
// and Karpenter pass do (the same values; a variable the environment does
// not declare cannot be referenced, so binding all six is harmless), without
// building a map per evaluation.
type activation struct{ v Variables }

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "default_enis":
		return types.Int(a.v.DefaultENIs), true
	case "ips_per_eni":
		return types.Int(a.v.IPsPerENI), true
	case "max_pods":
		return types.Int(a.v.MaxPods), true
	case "vcpus":
		return types.Int(a.v.VCPUs), true
	case "memory_mib":
		return types.Int(a.v.MemoryMiB), true
	case "instance_type":
		return types.String(a.v.InstanceType), true
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

// nodeOf is the node an evaluation error was raised at, else the root.
func (x Expression) nodeOf(v ref.Val) int64 {
	if e, ok := v.(*types.Err); ok && e.NodeID() != 0 {
		return e.NodeID()
	}
	return x.root
}

func (x Expression) errorAt(id int64, msg string) *ExpressionError {
	return newExpressionError(x.text, x.dialect, x.info.GetStartLocation(id), msg)
}

// ExpressionError is an expression that does not compile, fails to
// evaluate, or gives a result the software reading it refuses.
type ExpressionError struct {
	// Expression is the expression's text.
	Expression string
	// Line and Column are where in it the error is, both 1-based, Column
	// in characters: the token that does not compile, the operation that
	// failed, or the outermost operation for a refused result.
	Line, Column int
	// Reason is what is wrong, in cel-go's words where it has them.
	Reason  string
	dialect dialect
}

func newExpressionError(text string, d dialect, at common.Location, reason string) *ExpressionError {
	line, col := max(at.Line(), 1), max(at.Column(), 0)+1
	return &ExpressionError{Expression: text, Line: line, Column: col, Reason: reason, dialect: d}
}

func (e *ExpressionError) Error() string {
	return fmt.Sprintf("capacity: %s %q, at %d:%d: %s", e.dialect, e.Expression, e.Line, e.Column, e.Reason)
}
