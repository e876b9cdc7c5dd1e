package amimap

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ec2select/ec2select/compat"
)

// Group is an AMI and the instance types that launch with it.
type Group struct {
	AMI           AMI
	InstanceTypes []compat.InstanceType
}

// Unmapped is an instance type no AMI can run, with the reason each AMI
// refuses it.
type Unmapped struct {
	InstanceType compat.InstanceType
	// Reasons holds one error per AMI, in AMI order, each naming the AMI
	// and wrapping the *compat.IncompatibleError (or the errors.Join of
	// several) that says why the type cannot run it. Empty when there
	// were no AMIs.
	Reasons []error
	// Fix suggests what would let the type map, or keep it out.
	Fix string
}

// Mapping assigns instance types to AMIs; see [Map]. It is read-only once
// built and safe for concurrent use. The zero Mapping maps nothing.
type Mapping struct {
	// Groups lists the AMIs that received at least one instance type, in
	// AMI order; types within a group keep their input order.
	Groups []Group
	// Unmapped lists the types no AMI can run, in input order.
	Unmapped []Unmapped

	amis  []AMI
	types int
	index *typeIndex
}

// typeIndex finds an instance type's group by name; it is built on first
// use so that Map itself stays cheap.
type typeIndex struct {
	once   sync.Once
	groups map[string]int
}

// Map assigns each instance type exactly one AMI, the one [Choose] picks:
// the first in amis (which should be in [Select]'s newest-available order)
// whose requirements the type satisfies strictly and whose family runs it.
// A type no AMI fits lands in Unmapped with a reason per AMI. Map is pure
// and does not modify its arguments.
//
// If instance types share a name, AMIFor answers for the first of them
// that was mapped.
func Map(instanceTypes []compat.InstanceType, amis []AMI) Mapping {
	m := Mapping{amis: slices.Clone(amis), types: len(instanceTypes), index: &typeIndex{}}
	chosen := make([]int, len(instanceTypes))
	sizes := make([]int, len(amis))
	for i := range instanceTypes {
		chosen[i] = Choose(&instanceTypes[i], amis)
		if chosen[i] >= 0 {
			sizes[chosen[i]]++
		}
	}
	// Each AMI that received types is a group, sized once.
	group := make([]int, len(amis))
	for j, n := range sizes {
		group[j] = len(m.Groups)
		if n > 0 {
			m.Groups = append(m.Groups, Group{AMI: amis[j], InstanceTypes: make([]compat.InstanceType, 0, n)})
		}
	}
	for i, j := range chosen {
		if j < 0 {
			m.Unmapped = append(m.Unmapped, unmapped(instanceTypes[i], amis))
			continue
		}
		g := &m.Groups[group[j]]
		g.InstanceTypes = append(g.InstanceTypes, instanceTypes[i])
	}
	return m
}

// unmapped explains why no AMI runs t.
func unmapped(t compat.InstanceType, amis []AMI) Unmapped {
	u := Unmapped{InstanceType: t, Fix: suggest([]compat.InstanceType{t}, amis)}
	for _, a := range amis {
		u.Reasons = append(u.Reasons, fmt.Errorf("amiselect: %s cannot run %s: %w", t.Name, a, refusal(&t, &a)))
	}
	return u
}

// refusal says why a cannot run t: the family's exclusion, with compat's
// incompatibility inside, or compat's incompatibility alone.
func refusal(t *compat.InstanceType, a *AMI) error {
	if err := t.Compatible(a.Requirements); err != nil {
		return err
	}
	if s, ok := supportOf(a.Family); ok {
		if err := t.Compatible(s); err != nil {
			sup := a.Family.Support()
			return fmt.Errorf("%s (%s): %w", sup.Reason, sup.Source, err)
		}
	}
	// Conflict and Compatible disagree: compat's contract says they
	// cannot; say so rather than drop the reason.
	return errors.New("compat reported a conflict but no incompatibility")
}

// LaunchGroup is one image and every instance type that launches with it,
// whichever of the image's requirement sets admitted them: what a
// provisioner turns into one launch template.
type LaunchGroup struct {
	// ImageID is the image's ID.
	ImageID string
	// AMIs are the image's roles that received types (one per variant),
	// in AMI order.
	AMIs []AMI
	// InstanceTypes are the types of each role in turn, each role's in
	// input order.
	InstanceTypes []compat.InstanceType
}

// LaunchGroups merges the Groups of one image: one group per AMI ID, in
// the order of each ID's first AMI. An image serving two variants (AL2's
// accelerated image, Bottlerocket's x86_64 image) yields one group, not
// two. The result is fresh on every call; the instance type slices are
// shared with Groups only when an image has one role.
func (m Mapping) LaunchGroups() []LaunchGroup {
	if len(m.Groups) == 0 {
		return nil
	}
	out := make([]LaunchGroup, 0, len(m.Groups))
	at := make(map[string]int, len(m.Groups))
	for _, g := range m.Groups {
		i, seen := at[g.AMI.ID]
		if !seen {
			at[g.AMI.ID] = len(out)
			out = append(out, LaunchGroup{ImageID: g.AMI.ID, AMIs: []AMI{g.AMI}, InstanceTypes: g.InstanceTypes})
			continue
		}
		lg := &out[i]
		lg.AMIs = append(lg.AMIs, g.AMI)
		// Copy before appending: the first role's slice views Map's
		// shared backing array.
		lg.InstanceTypes = append(slices.Clip(lg.InstanceTypes), g.InstanceTypes...)
	}
	return out
}

// AMIFor returns the AMI an instance type, by name, is mapped to.
func (m Mapping) AMIFor(instanceType string) (AMI, bool) {
	if m.index == nil {
		for _, g := range m.Groups {
			for _, t := range g.InstanceTypes {
				if t.Name == instanceType {
					return g.AMI, true
				}
			}
		}
		return AMI{}, false
	}
	m.index.once.Do(func() {
		m.index.groups = make(map[string]int)
		for gi, g := range m.Groups {
			for _, t := range g.InstanceTypes {
				if _, dup := m.index.groups[t.Name]; !dup {
					m.index.groups[t.Name] = gi
				}
			}
		}
	})
	gi, ok := m.index.groups[instanceType]
	if !ok {
		return AMI{}, false
	}
	return m.Groups[gi].AMI, true
}

// Err returns nil when at least one instance type was mapped. Otherwise it
// returns a *NoCompatibleAMIError explaining, per AMI, the requirement most
// types conflict on, and suggesting a fix.
func (m Mapping) Err() error {
	if len(m.Groups) > 0 {
		return nil
	}
	e := &NoCompatibleAMIError{InstanceTypes: m.types}
	types := make([]compat.InstanceType, len(m.Unmapped))
	for i, u := range m.Unmapped {
		types[i] = u.InstanceType
	}
	for j, a := range m.amis {
		e.AMIs = append(e.AMIs, conflictOf(a, j, m.Unmapped))
	}
	e.Fix = suggest(types, m.amis)
	return e
}

// NoCompatibleAMIError says that no instance type can run any selected AMI
// (the "no instance types satisfy requirements of amis" of Karpenter),
// why, and what would fix it.
type NoCompatibleAMIError struct {
	// InstanceTypes is how many types were offered.
	InstanceTypes int
	// AMIs explains each AMI, in AMI order.
	AMIs []AMIConflict
	// Fix suggests a change, such as a NodePool requirement.
	Fix string
}

// AMIConflict is the requirement of one AMI that most instance types fail.
type AMIConflict struct {
	AMI AMI
	// Key is the requirement key most types conflict on: among keys tied
	// for the most conflicts, kubernetes.io/arch, then kubernetes.io/os,
	// then node.kubernetes.io/windows-build, then by name.
	Key string
	// Conflicting is how many types conflict on Key.
	Conflicting int
	// Instance lists the types' distinct constraints on Key ("arm64",
	// "DoesNotExist"), sorted; Required is the AMI's.
	Instance []string
	Required string
}

func (e *NoCompatibleAMIError) Error() string {
	var b strings.Builder
	switch {
	case e.InstanceTypes == 0:
		b.WriteString("amiselect: no instance types to map; the NodePool's requirements or the catalog leave none")
		return b.String()
	case len(e.AMIs) == 0:
		fmt.Fprintf(&b, "amiselect: no AMIs to map %d instance types to", e.InstanceTypes)
	default:
		fmt.Fprintf(&b, "amiselect: none of %d instance types can run any of %d AMIs: ", e.InstanceTypes, len(e.AMIs))
		for i, c := range e.AMIs {
			if i > 0 {
				b.WriteString("; ")
			}
			if c.Key == "" {
				fmt.Fprintf(&b, "%s: no conflict recorded", c.AMI)
				continue
			}
			fmt.Fprintf(&b, "%s: %d of %d types conflict on %s (instance %s, AMI %s)",
				c.AMI, c.Conflicting, e.InstanceTypes, c.Key, joinCapped(c.Instance, "/", 4), c.Required)
		}
	}
	if e.Fix != "" {
		b.WriteString("; fix: ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// conflictOf tallies, over the unmapped types, the keys on which AMI j
// refuses them.
func conflictOf(a AMI, j int, us []Unmapped) AMIConflict {
	counts := map[string]int{}
	instance := map[string]map[string]struct{}{}
	required := map[string]string{}
	for _, u := range us {
		if j >= len(u.Reasons) {
			continue
		}
		for _, ie := range incompatibilities(u.Reasons[j]) {
			counts[ie.Key]++
			if instance[ie.Key] == nil {
				instance[ie.Key] = map[string]struct{}{}
			}
			instance[ie.Key][describeRequirement(ie.Instance)] = struct{}{}
			required[ie.Key] = describeRequirement(ie.Required)
		}
	}
	c := AMIConflict{AMI: a}
	for k, n := range counts {
		if n > c.Conflicting || (n == c.Conflicting && keyRank(k) < keyRank(c.Key)) ||
			(n == c.Conflicting && keyRank(k) == keyRank(c.Key) && k < c.Key) {
			c.Key, c.Conflicting = k, n
		}
	}
	if c.Key != "" {
		for v := range instance[c.Key] {
			c.Instance = append(c.Instance, v)
		}
		slices.Sort(c.Instance)
		c.Required = required[c.Key]
	}
	return c
}

// keyRank orders the keys that explain a conflict best first.
func keyRank(k string) int {
	switch k {
	case compat.LabelArch:
		return 0
	case compat.LabelOS:
		return 1
	case compat.LabelWindowsBuild:
		return 2
	case "":
		return 4
	}
	return 3
}

// incompatibilities unpacks the *compat.IncompatibleError values of one
// Compatible error (one, or an errors.Join of several), wrapped or not.
func incompatibilities(err error) []*compat.IncompatibleError {
	var out []*compat.IncompatibleError
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case *compat.IncompatibleError:
			out = append(out, e)
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				walk(inner)
			}
		default:
			walk(errors.Unwrap(err))
		}
	}
	walk(err)
	return out
}

// describeRequirement renders one side of a conflict briefly: the values
// of an In, else the requirement without its key.
func describeRequirement(r compat.Requirement) string {
	switch r.Operator {
	case "":
		return "undefined"
	case compat.In:
		return strings.Join(r.Values, ",")
	case compat.NotIn:
		return "NotIn [" + strings.Join(r.Values, " ") + "]"
	case compat.Exists, compat.DoesNotExist:
		return string(r.Operator)
	}
	return string(r.Operator) + " " + strings.Join(r.Values, " ")
}

func joinCapped(vs []string, sep string, limit int) string {
	if len(vs) > limit {
		return strings.Join(vs[:limit], sep) + sep + "… (" + strconv.Itoa(len(vs)) + " in all)"
	}
	return strings.Join(vs, sep)
}
