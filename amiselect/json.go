package amiselect

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/compat"
)

// JSON: a Selection and a DriftPlan marshal with everything they tell
// (the reasons as sentences beside the data they are derived from), enums
// as their names and zero times left out, and unmarshal back to values
// that tell the same. An AMI's own encoding is amimap's.

// supersededJSON is a Superseded on the wire; Reason is written, and
// derived again when read.
type supersededJSON struct {
	AMI, Winner AMI
	Reason      string `json:",omitempty"`
}

// MarshalJSON writes the two AMIs and Reason().
func (s Superseded) MarshalJSON() ([]byte, error) {
	return json.Marshal(supersededJSON{AMI: s.AMI, Winner: s.Winner, Reason: s.Reason()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Superseded) UnmarshalJSON(data []byte) error {
	var w supersededJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*s = Superseded{AMI: w.AMI, Winner: w.Winner}
	return nil
}

// heldBackJSON is a HeldBack on the wire; Reason is written, and derived
// again when read.
type heldBackJSON struct {
	AMI, Winner AMI
	EligibleAt  time.Time
	SelectedAt  time.Time `json:",omitzero"`
	Reason      string    `json:",omitempty"`
}

// MarshalJSON writes the fields and Reason().
func (h HeldBack) MarshalJSON() ([]byte, error) {
	return json.Marshal(heldBackJSON{AMI: h.AMI, Winner: h.Winner, EligibleAt: h.EligibleAt, SelectedAt: h.SelectedAt, Reason: h.Reason()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (h *HeldBack) UnmarshalJSON(data []byte) error {
	var w heldBackJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*h = HeldBack{AMI: w.AMI, Winner: w.Winner, EligibleAt: w.EligibleAt, SelectedAt: w.SelectedAt}
	return nil
}

// selectionJSON is a Selection on the wire. At and MinAge are present for
// a Selection Select made; with them, the images every entry names are
// enough to ask the rule again.
type selectionJSON struct {
	At                *time.Time         `json:",omitempty"`
	MinAge            string             `json:",omitempty"`
	Alias             *aliasJSON         `json:",omitempty"`
	AMIs              []AMI              `json:",omitempty"`
	Rejected          []Rejection        `json:",omitempty"`
	MissingParameters []MissingParameter `json:",omitempty"`
	Superseded        []Superseded       `json:",omitempty"`
	HeldBack          []HeldBack         `json:",omitempty"`
	Changes           []Change           `json:",omitempty"`
}

// aliasJSON is the alias a Selection was resolved from.
type aliasJSON struct {
	Alias             string
	KubernetesVersion string
	Source            AliasSource
}

// MarshalJSON writes the Selection as data: its fields, and what its
// methods tell (Superseded, HeldBack, Changes, with each reason), the
// instant it was judged at and its MinAge, and the alias it was resolved
// from. Empty lists and zero times are left out.
func (s Selection) MarshalJSON() ([]byte, error) {
	w := selectionJSON{AMIs: s.AMIs, Rejected: s.Rejected, MissingParameters: s.MissingParameters}
	if p := s.pool(); p != nil {
		at := p.at
		w.At = &at
		if p.minAge > 0 {
			w.MinAge = p.minAge.String()
		}
		w.Superseded, w.HeldBack, w.Changes = p.superseded(), p.heldBack(), p.changes()
	}
	if r := s.from; r != nil {
		src := AliasByName
		if r.bySSM {
			src = AliasBySSM
		}
		w.Alias = &aliasJSON{Alias: r.alias.alias, KubernetesVersion: r.k8s, Source: src}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes. For a Selection Select
// made (one with At), it selects again, at At with its MinAge, from the
// images its AMIs, Superseded and HeldBack entries name, so that the
// result answers every method, PlanDrift included, as the original did;
// JSON whose AMIs are not what those images select then is an error.
func (s *Selection) UnmarshalJSON(data []byte) error {
	var w selectionJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	// An empty list is written as none, so it reads as none (nil).
	out := Selection{AMIs: nilIfEmpty(w.AMIs), Rejected: nilIfEmpty(w.Rejected), MissingParameters: nilIfEmpty(w.MissingParameters)}
	if w.Alias != nil {
		r, err := aliasFromJSON(*w.Alias)
		if err != nil {
			return err
		}
		out.from = r
	}
	if w.At != nil {
		var minAge time.Duration
		if w.MinAge != "" {
			d, err := time.ParseDuration(w.MinAge)
			if err != nil || d < 0 {
				return fmt.Errorf("amiselect: a Selection's MinAge %q is not a positive Go duration such as \"168h0m0s\"", w.MinAge)
			}
			minAge = d
		}
		at := *w.At
		again := Select(imagesOf(w), SelectOptions{Now: func() time.Time { return at }, MinAge: minAge})
		if !sameAMIs(again.AMIs, w.AMIs) {
			return fmt.Errorf("amiselect: a Selection's AMIs are not what the images it lists select at its At (%s) with its MinAge; was it edited?", at.Format(time.RFC3339))
		}
		out.src = again.src
	}
	*s = out
	return nil
}

func nilIfEmpty[T any](xs []T) []T {
	if len(xs) == 0 {
		return nil
	}
	return xs
}

func aliasFromJSON(a aliasJSON) (*resolution, error) {
	k8s, err := parseMinorVersion(a.KubernetesVersion)
	if err != nil {
		return nil, err
	}
	spec, err := parseAlias(a.Alias, a.KubernetesVersion, k8s)
	if err != nil {
		return nil, fmt.Errorf("amiselect: a Selection's alias: %w", err)
	}
	return &resolution{alias: spec, k8s: a.KubernetesVersion, bySSM: a.Source == AliasBySSM}, nil
}

// imageIdentity is what Select reads of an image.
type imageIdentity struct {
	id, name, arch, date string
	deprecates           time.Time
}

// imagesOf rebuilds the images a Selection's entries name: each entry is
// one image in one role, so an image appears in as many copies as it has
// entries in any one role.
func imagesOf(w selectionJSON) []ec2types.Image {
	type inRole struct {
		who imageIdentity
		key setKey
	}
	counts := map[inRole]int{}
	copies := map[imageIdentity]int{}
	var order []imageIdentity
	add := func(a *AMI) {
		who := imageIdentity{id: a.ID, name: a.Name, arch: a.Arch, date: a.CreationDate, deprecates: a.DeprecationTime}
		k := inRole{who, keyOf(a)}
		counts[k]++
		if _, seen := copies[who]; !seen {
			order = append(order, who)
		}
		copies[who] = max(copies[who], counts[k])
	}
	for i := range w.AMIs {
		add(&w.AMIs[i])
	}
	for i := range w.Superseded {
		add(&w.Superseded[i].AMI)
	}
	for i := range w.HeldBack {
		add(&w.HeldBack[i].AMI)
	}
	var images []ec2types.Image
	for _, who := range order {
		img := ec2types.Image{
			ImageId: aws.String(who.id), Name: aws.String(who.name), CreationDate: aws.String(who.date),
			Architecture: ec2Arch(who.arch), State: ec2types.ImageStateAvailable,
		}
		if !who.deprecates.IsZero() {
			img.DeprecationTime = aws.String(who.deprecates.Format(time.RFC3339Nano))
		}
		for range copies[who] {
			images = append(images, img)
		}
	}
	return images
}

// ec2Arch is the EC2 architecture of a Kubernetes one.
func ec2Arch(kube string) ec2types.ArchitectureValues {
	if kube == compat.ArchARM64 {
		return ec2types.ArchitectureValuesArm64
	}
	return ec2types.ArchitectureValuesX8664
}

// sameAMIs reports whether two lists name the same images in the same
// roles and order.
func sameAMIs(a, b []AMI) bool {
	return slices.EqualFunc(a, b, func(x, y AMI) bool {
		return x.ID == y.ID && x.Name == y.Name && keyOf(&x) == keyOf(&y) && x.Created.Equal(y.Created) && x.Deprecated == y.Deprecated
	})
}
