// Package sdkfield reads and writes fields of aws-sdk-go-v2's types by
// name. ec2fake uses it for the fields that SDK releases added after the
// lowest release the module requires (go.mod; README says which): code that
// names them this way compiles against every release from that floor up,
// and serves the fields wherever the release in use has them. Where it has
// not, a read finds nothing and a write does nothing, as on an object EC2
// sent without the field.
package sdkfield

import "reflect"

// field returns the exported field name of the struct p points to, and
// whether the release in use has it.
func field(p any, name string) (reflect.Value, bool) {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	f := v.Elem().FieldByName(name)
	return f, f.IsValid() && f.CanSet()
}

// Set stores v in the field name of the struct p points to, when the SDK
// release in use has that field with v's type, and reports whether it did.
func Set[T any](p any, name string, v T) bool {
	f, ok := field(p, name)
	if !ok || f.Type() != reflect.TypeFor[T]() {
		return false
	}
	rv := reflect.ValueOf(v) // T is the field's type: pointers, here, which need no copy
	if !rv.IsValid() {
		rv = reflect.Zero(f.Type()) // a nil interface
	}
	f.Set(rv)
	return true
}

// Get returns the field name of the struct p points to, when the SDK
// release in use has it with type T; else T's zero value and false.
func Get[T any](p any, name string) (T, bool) {
	var zero T
	f, ok := field(p, name)
	if !ok || f.Type() != reflect.TypeFor[T]() {
		return zero, false
	}
	return f.Interface().(T), true
}

// Each calls fn with a pointer to each element of the slice field name of
// the struct p points to (when the release in use has the field), until fn
// returns true, and reports whether it did.
func Each(p any, name string, fn func(elem any) bool) bool {
	f, ok := field(p, name)
	if !ok || f.Kind() != reflect.Slice {
		return false
	}
	for i := range f.Len() {
		if fn(f.Index(i).Addr().Interface()) {
			return true
		}
	}
	return false
}
