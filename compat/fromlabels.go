package compat

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// InstanceTypeFromLabels is the inverse of [InstanceType.Labels]: it reads an
// instance type's facts back from well-known labels, such as a node's or
// those of a Karpenter cloudprovider.InstanceType (its requirements that
// pin one value). For every t, InstanceTypeFromLabels(t.Labels()) equals t
// on every field Labels carries.
//
// It reads what is there. Only two labels are required, because nothing
// can be mapped without them: node.kubernetes.io/instance-type (the name,
// which Map's groups and capacity's cache are keyed by) and
// kubernetes.io/arch (every AMI requires one). Either one missing or
// invalid is the error, which names the label and the fix. Every other
// label that is missing or cannot be read leaves its fact at the zero
// value; [ReadInstanceTypeLabels] says which, and why.
//
// Category, family, size, generation and capability-flex come from the
// name as [InstanceTypeFromEC2] derives them, when it parses; a label that
// disagrees with it is overruled. BareMetal comes from a size starting with
// "metal". OS is derived from the architecture and family as
// InstanceTypeFromEC2 derives it (Labels does not label os on a type that
// runs both Linux and Windows: two values are not a label); an os label of
// windows adds Windows in any case. A missing tenancy label leaves Tenancy
// "", either tenancy; a missing GPU or accelerator label means the type has
// none. Labels that are not instance labels (zone, capacity type, custom
// ones) are ignored.
func InstanceTypeFromLabels(labels map[string]string) (InstanceType, error) {
	t, _, err := ReadInstanceTypeLabels(labels)
	return t, err
}

// LabelNote is a fact [ReadInstanceTypeLabels] could not read from an
// instance type's labels: the label is missing, or its value is invalid or
// overruled. The fact is left at its zero value (VCPU 0, Hypervisor "",
// which reads as bare metal) unless Reason says otherwise; a caller that
// knows it better sets it.
type LabelNote struct {
	Key     string
	Value   string // the label's value; "" when Missing
	Missing bool
	Reason  string // what is wrong, and what the fact was read as
}

func (n LabelNote) String() string {
	if n.Missing {
		return fmt.Sprintf("compat: no label %s: %s", n.Key, n.Reason)
	}
	return fmt.Sprintf("compat: label %s=%q: %s", n.Key, n.Value, n.Reason)
}

// ReadInstanceTypeLabels is [InstanceTypeFromLabels], and also returns a
// note for every fact it left unset or read otherwise than its label says,
// in key order. A label whose absence is itself a fact (no instance-gpu-count
// on a type without a GPU, no tenancy, no os) gets none. The types of
// [InstanceType.Labels] come back without notes.
//
// The error, for a missing or invalid instance-type or kubernetes.io/arch
// label, names the label, its value and what would be valid.
func ReadInstanceTypeLabels(labels map[string]string) (InstanceType, []LabelNote, error) {
	t, err := readRequired(labels)
	if err != nil {
		return InstanceType{}, nil, err
	}
	var notes []LabelNote
	name, err := ParseInstanceTypeName(t.Name)
	parsed := err == nil
	if !parsed {
		notes = append(notes, LabelNote{Key: LabelInstanceType, Value: t.Name,
			Reason: "not an EC2 name (family.size, such as m5.large), so only their own labels give the category, family, size, generation and capability-flex"})
	}
	for i := range wellKnown.rows {
		r := &wellKnown.rows[i]
		if r.missing == notInstance || r.missing == required {
			continue
		}
		if note, noted := readLabel(&t, r, labels, name, parsed); noted {
			notes = append(notes, note)
		}
	}
	t.BareMetal = strings.HasPrefix(t.Size, "metal")
	if t.OS == nil {
		t.OS = supportedOS(t.Arch, t.Family)
	}
	notes = append(notes, deviceNotes(&t, labels)...)
	slices.SortStableFunc(notes, func(a, b LabelNote) int { return strings.Compare(a.Key, b.Key) })
	return t, notes, nil
}

// readRequired reads the labels an instance type cannot do without, first:
// the other labels' setters may read them (os reads the architecture).
func readRequired(labels map[string]string) (InstanceType, error) {
	var t InstanceType
	for i := range wellKnown.rows {
		r := &wellKnown.rows[i]
		if r.missing != required {
			continue
		}
		v, ok := lookupLabel(labels, r.label)
		if !ok {
			return InstanceType{}, fmt.Errorf("compat: labels have no %s; an instance type cannot be mapped without it (label it, or build the type with InstanceTypeFromEC2)", r.label)
		}
		if err := r.set(&t, v); err != nil {
			return InstanceType{}, fmt.Errorf("compat: label %s=%q: %w", r.label, v, err)
		}
	}
	return t, nil
}

// readLabel sets r's fact from its label, or from the parsed name for the
// facts a name states, and says why when it could not.
func readLabel(t *InstanceType, r *keyRow, labels map[string]string, name InstanceTypeName, parsed bool) (note LabelNote, noted bool) {
	v, ok := lookupLabel(labels, r.label)
	if r.name != nil && parsed {
		if want := r.name(name); v != want {
			if ok {
				note = LabelNote{Key: r.label, Value: v, Reason: fmt.Sprintf("disagrees with %s=%q, which says %q; read as %q", LabelInstanceType, t.Name, want, want)}
			}
			v, ok = want, true
		}
	}
	switch {
	case !ok && r.missing == unknown:
		return LabelNote{Key: r.label, Missing: true, Reason: "the fact is unknown and left at its zero value"}, true
	case !ok:
		return LabelNote{}, false
	}
	if err := r.set(t, v); err != nil {
		return LabelNote{Key: r.label, Value: v, Reason: err.Error() + "; ignored"}, true
	}
	return note, note.Key != ""
}

// lookupLabel finds key, or its deprecated beta twin, in labels.
func lookupLabel(labels map[string]string, key string) (string, bool) {
	if v, ok := labels[key]; ok {
		return v, true
	}
	if beta := betaKey(key); beta != "" {
		v, ok := labels[beta]
		return v, ok
	}
	return "", false
}

// deviceNotes notes GPU or accelerator labels without their count, and a
// count of 0 alone: the count label is what says the device is there, and
// Karpenter writes all of a device's labels or none.
func deviceNotes(t *InstanceType, labels map[string]string) []LabelNote {
	var notes []LabelNote
	for _, d := range []struct {
		count   string
		present bool // the type read has the device
		others  []string
	}{
		{LabelInstanceAcceleratorCount, t.HasAccelerator(), []string{LabelInstanceAcceleratorManufacturer, LabelInstanceAcceleratorName}},
		{LabelInstanceGPUCount, t.HasGPU(), []string{LabelInstanceGPUManufacturer, LabelInstanceGPUMemory, LabelInstanceGPUName}},
	} {
		if v, ok := labels[d.count]; ok {
			if !d.present {
				notes = append(notes, LabelNote{Key: d.count, Value: v, Reason: "a count of 0 without the device's manufacturer or name reads as no device (a fractional GPU has them)"})
			}
			continue
		}
		for _, k := range d.others {
			if v, ok := labels[k]; ok {
				notes = append(notes, LabelNote{Key: k, Value: v, Reason: fmt.Sprintf("without %s the device's count is unknown; read as 0", d.count)})
				break
			}
		}
	}
	return notes
}

func oneOf(v string, allowed ...string) (string, error) {
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", fmt.Errorf("want one of %s", strings.Join(allowed, ", "))
}

func boolLabel(v string) (bool, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("want true or false")
}

func positive(v string) (int, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a positive whole number below 2^31")
	}
	return int(n), nil
}

func positive64(v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a positive whole number below 2^63")
	}
	return n, nil
}

func nonNegative(v string) (int, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a whole number from 0 to 2^31-1")
	}
	return int(n), nil
}
