package compat

import (
	"fmt"
	"strconv"
	"strings"
)

// InstanceTypeFromLabels is the inverse of [InstanceType.Labels]: it reads an
// instance type's facts back from well-known labels, such as a node's or
// those of a Karpenter cloudprovider.InstanceType (its requirements that
// pin one value). For every t, InstanceTypeFromLabels(t.Labels()) equals t
// on every field Labels carries.
//
// The instance-type, kubernetes.io/arch, instance-cpu, instance-memory,
// instance-hypervisor and instance-encryption-in-transit-supported labels
// are required (Karpenter writes them for every type); category, family, size, generation and
// capability-flex, when absent, come from the name as [InstanceTypeFromEC2]
// derives them, and when present must agree with it. BareMetal comes from a
// size starting with "metal". OS is derived from the architecture and
// family as InstanceTypeFromEC2 derives it (Labels does not label os on a
// type that runs both Linux and Windows: two values are not a label); an
// os label of windows adds Windows in any case. A missing tenancy label
// leaves Tenancy "", either tenancy. GPU and
// accelerator labels need their count label. Labels that are not instance
// labels (zone, capacity type, custom ones) are ignored.
//
// The error names the first bad label, in key order, its value and what
// would be valid.
func InstanceTypeFromLabels(labels map[string]string) (InstanceType, error) {
	var t InstanceType
	for wk := range wellKnown {
		if !wellKnown[wk].instance {
			continue
		}
		v, ok := lookupLabel(labels, wellKnown[wk].key)
		if !ok {
			continue
		}
		if err := t.setFact(wk, v); err != nil {
			return InstanceType{}, fmt.Errorf("compat: label %s=%q: %w", wellKnown[wk].key, v, err)
		}
	}
	if err := t.completeFromName(labels); err != nil {
		return InstanceType{}, err
	}
	if err := t.checkDevices(labels); err != nil {
		return InstanceType{}, err
	}
	return t, nil
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

// setFact stores the value of the instance label at wellKnown[wk]: the
// inverse of fact for a label that pins one value.
func (t *InstanceType) setFact(wk int, v string) (err error) {
	switch wk {
	case wkInstanceType:
		t.Name = v
	case wkArch:
		t.Arch, err = oneOf(v, ArchAMD64, ArchARM64)
	case wkOS:
		t.OS, err = osFromLabel(v)
		if err == nil && t.Arch != ArchAMD64 && len(t.OS) > 1 {
			err = fmt.Errorf("Windows nodes run only on amd64; want %s", OSLinux)
		}
	case wkInstanceCategory:
		t.Category = v
	case wkInstanceFamily:
		t.Family = v
	case wkInstanceSize:
		t.Size = v
	case wkInstanceGeneration:
		t.Generation, err = positive(v)
	case wkInstanceCPU:
		t.VCPU, err = positive(v)
	case wkInstanceMemory:
		t.MemoryMiB, err = positive64(v)
	case wkInstanceHypervisor:
		t.Hypervisor = v
	case wkInstanceCPUManufacturer:
		t.CPUManufacturer = v
	case wkInstanceCPUClockSpeedMHz:
		t.CPUClockSpeedMHz, err = positive(v)
	case wkInstanceEncryptionInTransit:
		t.EncryptionInTransit, err = boolLabel(v)
	case wkInstanceCapabilityFlex:
		t.Flex, err = boolLabel(v)
	case wkInstanceLocalNVMe:
		t.LocalNVMeGB, err = positive64(v)
	case wkInstanceNetworkBandwidth:
		t.NetworkBandwidthMbps, err = positive(v)
	case wkInstanceEBSBandwidth:
		t.EBSBandwidthMbps, err = positive(v)
	case wkInstanceTenancy:
		t.Tenancy, err = oneOf(v, TenancyDefault, TenancyDedicated)
	default:
		err = t.setDeviceFact(wk, v)
	}
	return err
}

// setDeviceFact is setFact for the GPU and accelerator labels.
func (t *InstanceType) setDeviceFact(wk int, v string) (err error) {
	switch wk {
	case wkInstanceGPUCount:
		t.GPUCount, err = nonNegative(v) // 0 for fractional GPUs (g6f)
	case wkInstanceGPUManufacturer:
		t.GPUManufacturer = v
	case wkInstanceGPUName:
		t.GPUName = v
	case wkInstanceGPUMemory:
		t.GPUMemoryMiB, err = positive64(v)
	case wkInstanceAcceleratorCount:
		t.AcceleratorCount, err = nonNegative(v)
	case wkInstanceAcceleratorManufacturer:
		t.AcceleratorManufacturer = v
	case wkInstanceAcceleratorName:
		t.AcceleratorName = v
	}
	return err
}

// completeFromName checks the name-derived facts against the name, and
// fills in those the labels left out.
func (t *InstanceType) completeFromName(labels map[string]string) error {
	if t.Name == "" {
		return fmt.Errorf("compat: labels have no %s; an instance type needs its name", LabelInstanceType)
	}
	// Labels always writes these, and nothing else says what they are: a
	// missing hypervisor would read as bare metal, a missing
	// encryption-in-transit as false.
	for _, key := range []string{LabelArch, LabelInstanceCPU, LabelInstanceMemory, LabelInstanceHypervisor, LabelInstanceEncryptionInTransit} {
		if _, ok := lookupLabel(labels, key); !ok {
			return fmt.Errorf("compat: labels of %s have no %s; without it the type's facts are unknown (build it with InstanceTypeFromEC2 instead)", t.Name, key)
		}
	}
	parsed, err := ParseInstanceTypeName(t.Name)
	if err != nil {
		return fmt.Errorf("compat: label %s=%q: %w", LabelInstanceType, t.Name, err)
	}
	_, hasGeneration := labels[LabelInstanceGeneration]
	_, hasFlex := labels[LabelInstanceCapabilityFlex]
	derived := InstanceType{Category: parsed.Category, Family: parsed.Family, Size: parsed.Size, Generation: parsed.Generation, Flex: strings.Contains(parsed.Family, "-flex")}
	for _, f := range []struct {
		key       string
		got, want string
		labeled   bool
		set       func()
	}{
		{LabelInstanceCategory, t.Category, derived.Category, t.Category != "", func() { t.Category = derived.Category }},
		{LabelInstanceFamily, t.Family, derived.Family, t.Family != "", func() { t.Family = derived.Family }},
		{LabelInstanceSize, t.Size, derived.Size, t.Size != "", func() { t.Size = derived.Size }},
		{LabelInstanceGeneration, strconv.Itoa(t.Generation), strconv.Itoa(derived.Generation), hasGeneration, func() { t.Generation = derived.Generation }},
		{LabelInstanceCapabilityFlex, strconv.FormatBool(t.Flex), strconv.FormatBool(derived.Flex), hasFlex, func() { t.Flex = derived.Flex }},
	} {
		switch {
		case !f.labeled:
			f.set()
		case f.got != f.want:
			return fmt.Errorf("compat: label %s=%q disagrees with %s=%q, which says %q; correct or drop the label", f.key, f.got, LabelInstanceType, t.Name, f.want)
		}
	}
	t.BareMetal = strings.HasPrefix(t.Size, "metal")
	if t.OS == nil {
		t.OS = supportedOS(t.Arch, t.Family)
	}
	return nil
}

// checkDevices rejects GPU or accelerator labels without their count: the
// count label is what says the device is there, and Karpenter writes all of
// a device's labels or none.
func (t *InstanceType) checkDevices(labels map[string]string) error {
	for _, d := range []struct {
		count   string
		present bool // the type read has the device
		others  []string
	}{
		{LabelInstanceGPUCount, t.HasGPU(), []string{LabelInstanceGPUManufacturer, LabelInstanceGPUName, LabelInstanceGPUMemory}},
		{LabelInstanceAcceleratorCount, t.HasAccelerator(), []string{LabelInstanceAcceleratorManufacturer, LabelInstanceAcceleratorName}},
	} {
		if v, ok := labels[d.count]; ok {
			if !d.present {
				// Count 0 alone would read back as no device at all.
				return fmt.Errorf("compat: label %s=%q without the device's manufacturer or name; a count of 0 (a fractional GPU) needs them to say a device is there", d.count, v)
			}
			continue
		}
		for _, k := range d.others {
			if v, ok := labels[k]; ok {
				return fmt.Errorf("compat: label %s=%q without %s; label the device's count too (0 for a fractional GPU)", k, v, d.count)
			}
		}
	}
	return nil
}

func oneOf(v string, allowed ...string) (string, error) {
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", fmt.Errorf("want one of %s", strings.Join(allowed, ", "))
}

// osFromLabel reads a node's OS label. Linux says nothing about Windows
// support, which completeFromName derives; Windows proves it, and every
// type that runs Windows Server also runs Linux.
func osFromLabel(v string) ([]string, error) {
	switch v {
	case OSLinux:
		return nil, nil
	case OSWindows:
		return []string{OSLinux, OSWindows}, nil
	}
	return nil, fmt.Errorf("want %s or %s", OSLinux, OSWindows)
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
