// Package enumtext is how amiselect's and amimap's enums are text on the
// wire: each marshals as the name its String method gives and unmarshals
// from exactly that name, so JSON, logs and flags read the same word. A
// value without a name does not marshal, and an unknown name does not
// unmarshal; both errors quote the value.
package enumtext

import "fmt"

// Enum is a named enum of the two packages: a small integer with a
// String method.
type Enum interface {
	~uint8
	String() string
}

// Marshal returns v's name, or an error for a value outside first..last
// (which has none); what names the type in the error.
func Marshal[E Enum](v, first, last E, what string) ([]byte, error) {
	if v < first || v > last {
		return nil, fmt.Errorf("%s %d has no name; use one of the package's constants", what, uint8(v))
	}
	return []byte(v.String()), nil
}

// Unmarshal sets *v to the value among first..last named text, or returns
// an error quoting text and the names accepted.
func Unmarshal[E Enum](v *E, text []byte, first, last E, what string) error {
	var names []string
	for e := first; e <= last; e++ {
		if e.String() == string(text) {
			*v = e
			return nil
		}
		names = append(names, fmt.Sprintf("%q", e.String()))
	}
	return fmt.Errorf("%q is not a %s; use one of %v", text, what, names)
}
