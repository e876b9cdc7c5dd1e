package amiselect

import (
	"encoding"
	"fmt"
)

// The package's enums are text on the wire: each marshals as the name its
// String method gives and unmarshals from exactly that name, so JSON,
// logs and flags read the same word. An unknown value does not marshal
// (it has no name), and an unknown name does not unmarshal.

var (
	_ encoding.TextMarshaler   = Variant(0)
	_ encoding.TextUnmarshaler = (*Variant)(nil)
	_ encoding.TextMarshaler   = DriftReason(0)
	_ encoding.TextUnmarshaler = (*DriftReason)(nil)
	_ encoding.TextMarshaler   = RejectionKind(0)
	_ encoding.TextUnmarshaler = (*RejectionKind)(nil)
	_ encoding.TextMarshaler   = AliasSource(0)
	_ encoding.TextUnmarshaler = (*AliasSource)(nil)
)

// enum is one of the package's named enums.
type enum interface {
	~uint8
	String() string
}

// marshalEnum returns v's name, or an error for a value without one.
func marshalEnum[E enum](v E, last E, what string) ([]byte, error) {
	if v > last {
		return nil, fmt.Errorf("amiselect: %s %d has no name; use one of the package's constants", what, uint8(v))
	}
	return []byte(v.String()), nil
}

// unmarshalEnum sets *v to the value named text among first..last, or
// returns an error naming text and the names accepted.
func unmarshalEnum[E enum](v *E, text []byte, first, last E, what string) error {
	var names []string
	for e := first; e <= last; e++ {
		if e.String() == string(text) {
			*v = e
			return nil
		}
		names = append(names, fmt.Sprintf("%q", e.String()))
	}
	return fmt.Errorf("amiselect: %q is not a %s; use one of %v", text, what, names)
}

// MarshalText returns the variant's name: "standard", "nvidia", "neuron"
// or "unspecified".
func (v Variant) MarshalText() ([]byte, error) { return marshalEnum(v, Neuron, "Variant") }

// UnmarshalText sets v from a name MarshalText gives.
func (v *Variant) UnmarshalText(text []byte) error {
	return unmarshalEnum(v, text, Unspecified, Neuron, "variant")
}

// MarshalText returns the reason's name, such as "held-back".
func (r DriftReason) MarshalText() ([]byte, error) {
	return marshalEnum(r, DriftDeregistered, "DriftReason")
}

// UnmarshalText sets r from a name MarshalText gives.
func (r *DriftReason) UnmarshalText(text []byte) error {
	return unmarshalEnum(r, text, NoDrift, DriftDeregistered, "drift reason")
}

// MarshalText returns the kind's name, such as "not-available".
func (k RejectionKind) MarshalText() ([]byte, error) {
	if k == 0 {
		return nil, fmt.Errorf("amiselect: RejectionKind 0 has no name; use one of the package's constants")
	}
	return marshalEnum(k, InvalidDeprecationTime, "RejectionKind")
}

// UnmarshalText sets k from a name MarshalText gives.
func (k *RejectionKind) UnmarshalText(text []byte) error {
	return unmarshalEnum(k, text, MissingID, InvalidDeprecationTime, "rejection kind")
}

// MarshalText returns "by-name" or "by-ssm".
func (s AliasSource) MarshalText() ([]byte, error) { return marshalEnum(s, AliasBySSM, "AliasSource") }

// UnmarshalText sets s from a name MarshalText gives.
func (s *AliasSource) UnmarshalText(text []byte) error {
	return unmarshalEnum(s, text, AliasByName, AliasBySSM, "alias source")
}
