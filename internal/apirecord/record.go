// Package apirecord writes and compares the record of ec2select's exported
// API: one line per exported name, in the spirit of the Go project's
// api/go1.N.txt, so that a change to what importers can name shows up as a
// line added or removed, and a check can say which of them break importers.
//
// A line names the package by import path and then one fact:
//
//	pkg P, const Name Type
//	pkg P, const Name = value
//	pkg P, var Name Type
//	pkg P, func Name(T1, ...T2) (R1, R2)
//	pkg P, type Name struct
//	pkg P, type Name struct, Field Type
//	pkg P, type Name struct, embedded Type
//	pkg P, type Name interface
//	pkg P, type Name interface, M1(T) R
//	pkg P, type Name interface, unexported methods
//	pkg P, type Name Underlying
//	pkg P, type Name = Aliased
//	pkg P, method (Recv) Name(T) R
//
// Parameter names are not part of the API and are left out; types from
// other packages are qualified by their package's name.
package apirecord

import (
	"fmt"
	"go/constant"
	"go/types"
	"slices"
	"strings"
)

// Lines returns the record of pkg's exported API, sorted.
func Lines(pkg *types.Package) []string {
	w := writer{pkg: pkg}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		w.object(obj)
	}
	slices.Sort(w.lines)
	return slices.Compact(w.lines)
}

type writer struct {
	pkg   *types.Package
	lines []string
}

func (w *writer) emit(format string, args ...any) {
	w.lines = append(w.lines, "pkg "+w.pkg.Path()+", "+fmt.Sprintf(format, args...))
}

func (w *writer) qualifier(p *types.Package) string {
	if p == w.pkg {
		return ""
	}
	return p.Name()
}

func (w *writer) typeString(t types.Type) string {
	return types.TypeString(t, w.qualifier)
}

func (w *writer) object(obj types.Object) {
	switch obj := obj.(type) {
	case *types.Const:
		w.constant(obj)
	case *types.Var:
		w.emit("var %s %s", obj.Name(), w.typeString(obj.Type()))
	case *types.Func:
		w.emit("func %s%s", obj.Name(), w.signature(obj.Type().(*types.Signature)))
	case *types.TypeName:
		w.typeName(obj)
	}
}

func (w *writer) constant(c *types.Const) {
	t := c.Type()
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		w.emit("const %s %s", c.Name(), strings.TrimPrefix(b.Name(), "untyped "))
	} else {
		w.emit("const %s %s", c.Name(), w.typeString(t))
	}
	w.emit("const %s = %s", c.Name(), constantValue(c.Val()))
}

// constantValue writes a constant's value exactly: an integer in decimal,
// a string quoted, a float as its exact fraction's decimal form.
func constantValue(v constant.Value) string {
	switch v.Kind() {
	case constant.String:
		return v.ExactString()
	case constant.Float:
		if f, ok := constant.Float64Val(v); ok {
			return fmt.Sprint(f)
		}
	}
	return v.ExactString()
}

func (w *writer) typeName(tn *types.TypeName) {
	if tn.IsAlias() {
		w.emit("type %s = %s", tn.Name(), w.typeString(types.Unalias(tn.Type())))
		return
	}
	named, ok := tn.Type().(*types.Named)
	if !ok {
		return
	}
	head := tn.Name() + w.typeParams(named.TypeParams())
	switch u := named.Underlying().(type) {
	case *types.Struct:
		w.emit("type %s struct", head)
		w.fields(tn.Name(), u)
	case *types.Interface:
		w.iface(head, tn.Name(), u)
	default:
		w.emit("type %s %s", head, w.typeString(u))
	}
	w.methods(named)
}

func (w *writer) fields(name string, s *types.Struct) {
	for f := range s.Fields() {
		if !f.Exported() {
			continue
		}
		if f.Embedded() {
			w.emit("type %s struct, embedded %s", name, w.typeString(f.Type()))
			continue
		}
		w.emit("type %s struct, %s %s", name, f.Name(), w.typeString(f.Type()))
	}
}

func (w *writer) iface(head, name string, it *types.Interface) {
	w.emit("type %s interface", head)
	unexported := false
	for m := range it.Methods() {
		if !m.Exported() {
			unexported = true
			continue
		}
		w.emit("type %s interface, %s%s", name, m.Name(), w.signature(m.Type().(*types.Signature)))
	}
	if unexported {
		w.emit("type %s interface, unexported methods", name)
	}
	if !it.IsMethodSet() {
		// A constraint's type set is part of its API.
		w.emit("type %s interface, type set %s", name, w.typeString(it))
	}
}

func (w *writer) methods(named *types.Named) {
	for m := range named.Methods() {
		if !m.Exported() {
			continue
		}
		sig := m.Type().(*types.Signature)
		recv := named.Obj().Name()
		if _, ok := sig.Recv().Type().(*types.Pointer); ok {
			recv = "*" + recv
		}
		w.emit("method (%s) %s%s", recv, m.Name(), w.signature(sig))
	}
}

func (w *writer) typeParams(tps *types.TypeParamList) string {
	if tps.Len() == 0 {
		return ""
	}
	parts := make([]string, tps.Len())
	for i := range tps.Len() {
		tp := tps.At(i)
		parts[i] = tp.Obj().Name() + " " + w.typeString(tp.Constraint())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// signature writes a function's type parameters, parameter types and
// result types, without names.
func (w *writer) signature(sig *types.Signature) string {
	var b strings.Builder
	b.WriteString(w.typeParams(sig.TypeParams()))
	b.WriteString("(")
	params := sig.Params()
	for i := range params.Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		t := params.At(i).Type()
		if sig.Variadic() && i == params.Len()-1 {
			b.WriteString("..." + w.typeString(t.(*types.Slice).Elem()))
			continue
		}
		b.WriteString(w.typeString(t))
	}
	b.WriteString(")")
	results := sig.Results()
	switch results.Len() {
	case 0:
	case 1:
		b.WriteString(" " + w.typeString(results.At(0).Type()))
	default:
		parts := make([]string, results.Len())
		for i := range results.Len() {
			parts[i] = w.typeString(results.At(i).Type())
		}
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	return b.String()
}
