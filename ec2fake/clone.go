package ec2fake

import "reflect"

// clone returns a deep copy of v: pointers, slices and maps reachable
// through exported fields are duplicated, so the copy shares no memory the
// caller could mutate. Struct values are first copied whole, which keeps
// unexported state such as time.Time's.
func clone[T any](v T) T {
	var out T
	deepCopy(reflect.ValueOf(&out).Elem(), reflect.ValueOf(&v).Elem())
	return out
}

func deepCopy(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := reflect.New(src.Type().Elem())
		deepCopy(n.Elem(), src.Elem())
		dst.Set(n)
	case reflect.Slice:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			deepCopy(n.Index(i), src.Index(i))
		}
		dst.Set(n)
	case reflect.Map:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			v := reflect.New(src.Type().Elem()).Elem()
			deepCopy(v, it.Value())
			n.SetMapIndex(it.Key(), v)
		}
		dst.Set(n)
	case reflect.Struct:
		dst.Set(src)
		t := src.Type()
		for i := range src.NumField() {
			if !t.Field(i).IsExported() {
				continue
			}
			switch f := src.Field(i); f.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Struct, reflect.Interface:
				deepCopy(dst.Field(i), f)
			}
		}
	case reflect.Interface:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		c := reflect.New(src.Elem().Type()).Elem()
		deepCopy(c, src.Elem())
		dst.Set(c)
	default:
		dst.Set(src)
	}
}
