package compat

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// keyRow is one well-known key and, for an instance key, everything the
// package does with it: how to read it from an InstanceType, how to set it
// from a label value, what a missing label means and whether its values
// are whole numbers. Labels, Requirements, FromNodeLabels,
// InstanceTypeFromLabels and Compatible's index all read the table of
// rows; adding a key is adding a row.
type keyRow struct {
	label string
	// missing says what an instance type's labels without this key mean;
	// notInstance marks keys no instance type states (zone, capacity
	// type), which get and set leave nil.
	missing missing
	// numeric marks keys whose values are whole numbers, so that Gt, Lt,
	// Gte and Lte apply; get's fact then carries n, not s.
	numeric bool
	get     func(*InstanceType) fact
	set     func(*InstanceType, string) error
	// name, for the facts an instance type's name states (family, size…),
	// is the label value the parsed name gives; nil for the others.
	name func(InstanceTypeName) string
}

// missing says what it means when an instance type's labels lack a key.
type missing uint8

const (
	notInstance missing = iota // no instance fact: the key is an offering's or a node's
	required                   // InstanceTypeFromLabels fails: the type cannot be mapped without it
	unknown                    // the fact is unknown: left at its zero value, and noted
	absent                     // the type has no such property (no GPU), or it follows from others (os)
	unsaid                     // the type has the property, and the labels do not say which (tenancy)
)

// instance reports whether the key states a fact of an instance type.
func (r *keyRow) instance() bool { return r.missing != notInstance }

// fact is what an instance type states on one key: no label, one value,
// either of two values (os on a type that runs Windows too, tenancy on an
// instance type), or, for windows-build on a Windows-capable type, any
// value but "" or no label at all.
type fact struct {
	s      string // the value of a key that is not numeric
	n      int64  // the value of a numeric key
	has    bool   // the type has the label
	either string // a second value the label may take instead of s
	anyBut bool   // the label may be absent or anything but s
}

func none() fact                    { return fact{} }
func text(s string) fact            { return fact{s: s, has: s != ""} }
func present(s string) fact         { return fact{s: s, has: true} } // "" included
func boolean(b bool) fact           { return present(strconv.FormatBool(b)) }
func number(n int64, has bool) fact { return fact{n: n, has: has} }
func either(a, b string) fact       { return fact{s: a, either: b, has: true} }

// pinned returns the label value f pins, if it pins one.
func (r *keyRow) pinned(f fact) (string, bool) {
	switch {
	case !f.has || f.either != "" || f.anyBut:
		return "", false
	case r.numeric:
		return strconv.FormatInt(f.n, 10), true
	}
	return f.s, true
}

// entry states t's fact on the key at wk as a requirement entry. Its values
// are appended to vals, which is returned: callers pass a buffer on the
// stack, or the shared slice of a whole requirement set.
func (r *keyRow) entry(t *InstanceType, wk int, vals []value) (entry, []value) {
	f := r.get(t)
	e := entry{key: r.label, wk: wk}
	start := len(vals)
	switch {
	case f.anyBut:
		e.absent, e.complement = true, true
		vals = append(vals, value{s: f.s})
	case !f.has:
		e.absent = true
		return e, vals
	case r.numeric:
		vals = append(vals, value{s: strconv.FormatInt(f.n, 10), n: f.n, isInt: true})
	case f.either != "":
		// Sorted, as entries keep their values.
		a, b := f.s, f.either
		if b < a {
			a, b = b, a
		}
		vals = append(vals, value{s: a}, value{s: b})
	default:
		vals = append(vals, value{s: f.s})
	}
	e.values = vals[start:len(vals):len(vals)]
	return e, vals
}

// keyRows is the table of well-known keys, sorted by label (a test
// checks): Kubernetes', Karpenter core's and the AWS provider's.
var keyRows = [...]keyRow{
	{label: LabelCapacityReservationID},
	{label: LabelCapacityReservationInterruptible},
	{label: LabelCapacityReservationType},
	{label: LabelInstanceAcceleratorCount, missing: absent, numeric: true,
		get: func(t *InstanceType) fact { return number(int64(t.AcceleratorCount), t.HasAccelerator()) },
		set: func(t *InstanceType, v string) (err error) { t.AcceleratorCount, err = nonNegative(v); return err }},
	{label: LabelInstanceAcceleratorManufacturer, missing: absent,
		get: func(t *InstanceType) fact { return text(t.AcceleratorManufacturer) },
		set: func(t *InstanceType, v string) error { t.AcceleratorManufacturer = v; return nil }},
	{label: LabelInstanceAcceleratorName, missing: absent,
		get: func(t *InstanceType) fact { return text(t.AcceleratorName) },
		set: func(t *InstanceType, v string) error { t.AcceleratorName = v; return nil }},
	{label: LabelInstanceCapabilityFlex, missing: unknown,
		get:  func(t *InstanceType) fact { return boolean(t.Flex) },
		set:  func(t *InstanceType, v string) (err error) { t.Flex, err = boolLabel(v); return err },
		name: func(n InstanceTypeName) string { return strconv.FormatBool(isFlex(n.Family)) }},
	{label: LabelInstanceCategory, missing: unknown,
		get:  func(t *InstanceType) fact { return text(t.Category) },
		set:  func(t *InstanceType, v string) error { t.Category = v; return nil },
		name: func(n InstanceTypeName) string { return n.Category }},
	{label: LabelInstanceCPU, missing: unknown, numeric: true,
		get: func(t *InstanceType) fact { return number(int64(t.VCPU), t.VCPU > 0) },
		set: func(t *InstanceType, v string) (err error) { t.VCPU, err = positive(v); return err }},
	{label: LabelInstanceCPUManufacturer, missing: unknown,
		get: func(t *InstanceType) fact { return text(t.CPUManufacturer) },
		set: func(t *InstanceType, v string) error { t.CPUManufacturer = v; return nil }},
	// Karpenter labels every type, "0" where EC2 publishes no clock
	// (karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go:300-304).
	{label: LabelInstanceCPUClockSpeedMHz, missing: unknown, numeric: true,
		get: func(t *InstanceType) fact { return number(int64(t.CPUClockSpeedMHz), true) },
		set: func(t *InstanceType, v string) (err error) { t.CPUClockSpeedMHz, err = nonNegative(v); return err }},
	{label: LabelInstanceEBSBandwidth, missing: absent, numeric: true,
		get: func(t *InstanceType) fact { return number(int64(t.EBSBandwidthMbps), t.EBSBandwidthMbps > 0) },
		set: func(t *InstanceType, v string) (err error) { t.EBSBandwidthMbps, err = positive(v); return err }},
	{label: LabelInstanceEncryptionInTransit, missing: unknown,
		get: func(t *InstanceType) fact { return boolean(t.EncryptionInTransit) },
		set: func(t *InstanceType, v string) (err error) { t.EncryptionInTransit, err = boolLabel(v); return err }},
	{label: LabelInstanceFamily, missing: unknown,
		get:  func(t *InstanceType) fact { return text(t.Family) },
		set:  func(t *InstanceType, v string) error { t.Family = v; return nil },
		name: func(n InstanceTypeName) string { return n.Family }},
	{label: LabelInstanceGeneration, missing: unknown, numeric: true,
		get:  func(t *InstanceType) fact { return number(int64(t.Generation), t.Generation > 0) },
		set:  func(t *InstanceType, v string) (err error) { t.Generation, err = positive(v); return err },
		name: func(n InstanceTypeName) string { return strconv.Itoa(n.Generation) }},
	{label: LabelInstanceGPUCount, missing: absent, numeric: true,
		get: func(t *InstanceType) fact { return number(int64(t.GPUCount), t.HasGPU()) },
		set: func(t *InstanceType, v string) (err error) { t.GPUCount, err = nonNegative(v); return err }}, // 0: a fractional GPU (g6f)
	{label: LabelInstanceGPUManufacturer, missing: absent,
		get: func(t *InstanceType) fact { return text(t.GPUManufacturer) },
		set: func(t *InstanceType, v string) error { t.GPUManufacturer = v; return nil }},
	{label: LabelInstanceGPUMemory, missing: absent, numeric: true,
		get: func(t *InstanceType) fact { return number(t.GPUMemoryMiB, t.HasGPU() && t.GPUMemoryMiB > 0) },
		set: func(t *InstanceType, v string) (err error) { t.GPUMemoryMiB, err = positive64(v); return err }},
	{label: LabelInstanceGPUName, missing: absent,
		get: func(t *InstanceType) fact { return text(t.GPUName) },
		set: func(t *InstanceType, v string) error { t.GPUName = v; return nil }},
	// "" on bare metal is a value, as Karpenter labels it.
	{label: LabelInstanceHypervisor, missing: unknown,
		get: func(t *InstanceType) fact { return present(t.Hypervisor) },
		set: func(t *InstanceType, v string) error { t.Hypervisor = v; return nil }},
	{label: LabelInstanceLocalNVMe, missing: absent, numeric: true,
		get: func(t *InstanceType) fact { return number(t.LocalNVMeGB, t.LocalNVMeGB > 0) },
		set: func(t *InstanceType, v string) (err error) { t.LocalNVMeGB, err = positive64(v); return err }},
	{label: LabelInstanceMemory, missing: unknown, numeric: true,
		get: func(t *InstanceType) fact { return number(t.MemoryMiB, t.MemoryMiB > 0) },
		set: func(t *InstanceType, v string) (err error) { t.MemoryMiB, err = positive64(v); return err }},
	{label: LabelInstanceNetworkBandwidth, missing: absent, numeric: true,
		get: func(t *InstanceType) fact { return number(int64(t.NetworkBandwidthMbps), t.NetworkBandwidthMbps > 0) },
		set: func(t *InstanceType, v string) (err error) { t.NetworkBandwidthMbps, err = positive(v); return err }},
	{label: LabelInstanceSize, missing: unknown,
		get:  func(t *InstanceType) fact { return text(t.Size) },
		set:  func(t *InstanceType, v string) error { t.Size = v; return nil },
		name: func(n InstanceTypeName) string { return n.Size }},
	{label: LabelInstanceTenancy, missing: unsaid, get: tenancyFact, set: setTenancy},
	{label: LabelNitroSandbox},
	{label: LabelPlacementGroupID},
	{label: LabelPlacementGroupPartition},
	{label: LabelCapacityType},
	{label: LabelNodePool},
	{label: LabelArch, missing: required,
		get: func(t *InstanceType) fact { return text(t.Arch) },
		set: func(t *InstanceType, v string) (err error) { t.Arch, err = oneOf(v, ArchAMD64, ArchARM64); return err }},
	{label: LabelOS, missing: absent, get: osFact, set: setOS},
	{label: LabelInstanceType, missing: required,
		get: func(t *InstanceType) fact { return text(t.Name) },
		set: setName},
	{label: LabelWindowsBuild, missing: absent, get: windowsBuildFact,
		// A node's build says nothing of the type that its os label
		// does not.
		set: func(*InstanceType, string) error { return nil }},
	{label: LabelAWSZoneID},
	{label: LabelRegion},
	{label: LabelZone},
}

func setName(t *InstanceType, v string) error {
	if v == "" {
		return fmt.Errorf("an instance type needs a name, such as m5.large")
	}
	t.Name = v
	return nil
}

// osFact is the OSes a type runs: os lists each, so that every node of
// the type, whichever OS it runs, satisfies the type's requirements.
func osFact(t *InstanceType) fact {
	if slices.Contains(t.OS, OSWindows) {
		return either(OSLinux, OSWindows)
	}
	return present(OSLinux)
}

// setOS reads a node's OS label. Linux says nothing about Windows support,
// which follows from the architecture and family; Windows proves it, and
// every type that runs Windows Server also runs Linux.
func setOS(t *InstanceType, v string) error {
	switch {
	case v == OSLinux:
		return nil
	case v != OSWindows:
		return fmt.Errorf("want %s or %s", OSLinux, OSWindows)
	case t.Arch != ArchAMD64:
		//lint:ignore ST1005 Windows is a proper noun
		return fmt.Errorf("Windows nodes run only on amd64; want %s", OSLinux)
	}
	t.OS = []string{OSLinux, OSWindows}
	return nil
}

// windowsBuildFact: a Linux node of a Windows-capable type has no
// windows-build label and a Windows node has its build's; NotIn [""] is
// the one requirement both satisfy. The os key keeps Windows AMIs off
// Linux-only types.
func windowsBuildFact(t *InstanceType) fact {
	if slices.Contains(t.OS, OSWindows) {
		return fact{anyBut: true}
	}
	return none()
}

// tenancyFact: an instance type is offered with either tenancy, as
// Karpenter offers it (instance-tenancy In [default dedicated]); one
// instance has one.
func tenancyFact(t *InstanceType) fact {
	if t.Tenancy == "" {
		return either(TenancyDefault, TenancyDedicated)
	}
	return text(t.Tenancy)
}

func setTenancy(t *InstanceType, v string) (err error) {
	t.Tenancy, err = oneOf(v, TenancyDefault, TenancyDedicated)
	return err
}

// maxWellKnown bounds the table, so that Requirements index its keys in an
// array rather than a map or a slice of their own.
const maxWellKnown = 48

var _ [maxWellKnown - len(keyRows)]struct{} // the table fits the index

// keyTable is the rows sorted by label, and what is derived from them once.
type keyTable struct {
	rows      []keyRow
	index     map[string]int // label → position in rows
	instances int            // how many rows are instance keys
}

// wellKnown is the table the package reads. It is never mutated; tests
// swap in a table with a key more to show that one row is all a key
// takes.
var wellKnown = newKeyTable(keyRows[:])

func newKeyTable(rows []keyRow) *keyTable {
	t := &keyTable{rows: slices.Clone(rows), index: make(map[string]int, len(rows))}
	slices.SortFunc(t.rows, func(a, b keyRow) int { return strings.Compare(a.label, b.label) })
	for i := range t.rows {
		t.index[t.rows[i].label] = i
		if t.rows[i].instance() {
			t.instances++
		}
	}
	return t
}

// wellKnownIndex returns the position of key in the table, or -1. It runs
// for every label a requirement set is built from; lookups afterwards go
// through the position stored in each entry, which keeps Compatible free
// of string hashing.
func wellKnownIndex(key string) int {
	if i, ok := wellKnown.index[key]; ok {
		return i
	}
	return -1
}
