package amimap

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ec2select/ec2select/amiselect/internal/enumtext"
	"github.com/ec2select/ec2select/compat"
)

// amiJSON is an AMI on the wire: its requirements as a list, zero times
// and empty strings left out.
type amiJSON struct {
	ID              string
	Name            string           `json:",omitempty"`
	Arch            string           `json:",omitempty"`
	Family          compat.AMIFamily `json:",omitempty"`
	Variant         Variant
	Release         string               `json:",omitempty"`
	Created         time.Time            `json:",omitzero"`
	CreationDate    string               `json:",omitempty"`
	Deprecated      bool                 `json:",omitempty"`
	DeprecationTime time.Time            `json:",omitzero"`
	Requirements    []compat.Requirement `json:",omitempty"`
}

// MarshalJSON writes the AMI with its requirements as a list of
// compat.Requirement, its variant as a word and without zero times.
func (a AMI) MarshalJSON() ([]byte, error) {
	return json.Marshal(amiJSON{
		ID: a.ID, Name: a.Name, Arch: a.Arch, Family: a.Family, Variant: a.Variant, Release: a.Release,
		Created: a.Created, CreationDate: a.CreationDate, Deprecated: a.Deprecated, DeprecationTime: a.DeprecationTime,
		Requirements: a.Requirements.List(),
	})
}

// UnmarshalJSON reads what MarshalJSON writes; requirements are compiled
// as compat.NewRequirements does, and an invalid one is an error.
func (a *AMI) UnmarshalJSON(data []byte) error {
	var w amiJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	var reqs compat.Requirements
	if len(w.Requirements) > 0 {
		r, err := compat.NewRequirements(w.Requirements...)
		if err != nil {
			return fmt.Errorf("amimap: AMI %s: %w", w.ID, err)
		}
		reqs = r
	}
	*a = AMI{
		ID: w.ID, Name: w.Name, Arch: w.Arch, Family: w.Family, Variant: w.Variant, Release: w.Release,
		Created: w.Created, CreationDate: w.CreationDate, Deprecated: w.Deprecated, DeprecationTime: w.DeprecationTime,
		Requirements: reqs,
	}
	return nil
}

// MarshalText returns the variant's name: "standard", "nvidia", "neuron"
// or "unspecified".
func (v Variant) MarshalText() ([]byte, error) {
	return enumtext.Marshal(v, Unspecified, Neuron, "amimap: Variant")
}

// UnmarshalText sets v from a name MarshalText gives.
func (v *Variant) UnmarshalText(text []byte) error {
	if err := enumtext.Unmarshal(v, text, Unspecified, Neuron, "variant"); err != nil {
		return fmt.Errorf("amimap: %w", err)
	}
	return nil
}
