package amiselect

import (
	"encoding"
	"fmt"

	"github.com/ec2select/ec2select/amiselect/internal/enumtext"
)

// The package's enums are text on the wire (package internal/enumtext):
// each marshals as the name its String method gives and unmarshals from
// exactly that name. [Variant]'s methods are amimap's.

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

// MarshalText returns the reason's name, such as "held-back".
func (r DriftReason) MarshalText() ([]byte, error) {
	return enumtext.Marshal(r, NoDrift, DriftDeregistered, "amiselect: DriftReason")
}

// UnmarshalText sets r from a name MarshalText gives.
func (r *DriftReason) UnmarshalText(text []byte) error {
	return prefixed(enumtext.Unmarshal(r, text, NoDrift, DriftDeregistered, "drift reason"))
}

// MarshalText returns the kind's name, such as "not-available".
func (k RejectionKind) MarshalText() ([]byte, error) {
	return enumtext.Marshal(k, MissingID, InvalidDeprecationTime, "amiselect: RejectionKind")
}

// UnmarshalText sets k from a name MarshalText gives.
func (k *RejectionKind) UnmarshalText(text []byte) error {
	return prefixed(enumtext.Unmarshal(k, text, MissingID, InvalidDeprecationTime, "rejection kind"))
}

// MarshalText returns "by-name" or "by-ssm".
func (s AliasSource) MarshalText() ([]byte, error) {
	return enumtext.Marshal(s, AliasByName, AliasBySSM, "amiselect: AliasSource")
}

// UnmarshalText sets s from a name MarshalText gives.
func (s *AliasSource) UnmarshalText(text []byte) error {
	return prefixed(enumtext.Unmarshal(s, text, AliasByName, AliasBySSM, "alias source"))
}

// prefixed names the package in an error.
func prefixed(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("amiselect: %w", err)
}
