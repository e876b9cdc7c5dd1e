package compat

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func m5Labels() map[string]string {
	return map[string]string{
		LabelInstanceType: "m5.large", LabelArch: ArchAMD64, LabelInstanceCategory: "m", LabelInstanceFamily: "m5",
		LabelInstanceGeneration: "5", LabelInstanceSize: "large", LabelInstanceCPU: "2", LabelInstanceMemory: "8192",
		LabelInstanceHypervisor: "nitro", LabelInstanceCPUManufacturer: "intel", LabelInstanceNetworkBandwidth: "750",
		LabelInstanceEncryptionInTransit: "false", LabelInstanceCapabilityFlex: "false",
	}
}

func TestInstanceTypeFromLabels(t *testing.T) {
	m5 := InstanceType{
		Name: "m5.large", Family: "m5", Category: "m", Size: "large", Generation: 5, Arch: ArchAMD64, VCPU: 2, MemoryMiB: 8192,
		Hypervisor: "nitro", OS: []string{OSLinux, OSWindows}, CPUManufacturer: "intel", NetworkBandwidthMbps: 750,
	}
	with := func(base InstanceType, f func(*InstanceType)) InstanceType { f(&base); return base }
	tests := []struct {
		name   string
		labels map[string]string
		edit   func(map[string]string)
		want   InstanceType
	}{
		{name: "karpenter labels", labels: m5Labels(), want: m5},
		{
			name: "a node's labels: beta keys, tenancy, zone, custom",
			edit: func(l map[string]string) {
				delete(l, LabelInstanceType)
				delete(l, LabelArch)
				l["beta.kubernetes.io/instance-type"], l["beta.kubernetes.io/arch"] = "m5.large", ArchAMD64
				l[LabelInstanceTenancy], l[LabelZone], l["example.com/team"] = TenancyDedicated, "us-east-1a", "a"
			},
			want: with(m5, func(t *InstanceType) { t.Tenancy = TenancyDedicated }),
		},
		{
			name: "name-derived facts filled in",
			edit: func(l map[string]string) {
				for _, k := range []string{LabelInstanceCategory, LabelInstanceFamily, LabelInstanceGeneration, LabelInstanceSize, LabelInstanceCapabilityFlex} {
					delete(l, k)
				}
			},
			want: m5,
		},
		{
			name: "a Windows node proves Windows support",
			labels: map[string]string{
				LabelInstanceType: "c7i-flex.metal-24xl", LabelArch: ArchAMD64, LabelOS: OSWindows, LabelInstanceCPU: "96", LabelInstanceMemory: "196608",
				LabelInstanceHypervisor: "", LabelInstanceEncryptionInTransit: "true",
			},
			want: InstanceType{EncryptionInTransit: true, Name: "c7i-flex.metal-24xl", Family: "c7i-flex", Category: "c", Size: "metal-24xl", Generation: 7, Arch: ArchAMD64,
				VCPU: 96, MemoryMiB: 196608, Flex: true, BareMetal: true, OS: []string{OSLinux, OSWindows}},
		},
		{
			name: "a fractional GPU: count 0",
			labels: map[string]string{
				LabelInstanceType: "g6f.large", LabelArch: ArchAMD64, LabelInstanceCPU: "2", LabelInstanceMemory: "8192",
				LabelInstanceGPUCount: "0", LabelInstanceGPUManufacturer: "nvidia", LabelInstanceGPUName: "l4", LabelInstanceGPUMemory: "2861",
				LabelInstanceHypervisor: "nitro", LabelInstanceEncryptionInTransit: "false",
			},
			want: InstanceType{Hypervisor: "nitro", Name: "g6f.large", Family: "g6f", Category: "g", Size: "large", Generation: 6, Arch: ArchAMD64, VCPU: 2, MemoryMiB: 8192,
				GPUManufacturer: "nvidia", GPUName: "l4", GPUMemoryMiB: 2861, OS: []string{OSLinux, OSWindows}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			labels := tt.labels
			if labels == nil {
				labels = m5Labels()
			}
			if tt.edit != nil {
				tt.edit(labels)
			}
			got, err := InstanceTypeFromLabels(labels)
			if err != nil {
				t.Fatalf("InstanceTypeFromLabels: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInstanceTypeFromLabelsErrors: only the labels nothing can be mapped
// without fail the call.
func TestInstanceTypeFromLabelsErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(map[string]string)
		want []string // substrings of the error
	}{
		{"no name", func(l map[string]string) { delete(l, LabelInstanceType) }, []string{"no " + LabelInstanceType, "InstanceTypeFromEC2"}},
		{"empty name", func(l map[string]string) { l[LabelInstanceType] = "" }, []string{LabelInstanceType + `=""`, "needs a name"}},
		{"no arch", func(l map[string]string) { delete(l, LabelArch) }, []string{"no " + LabelArch}},
		{"bad arch", func(l map[string]string) { l[LabelArch] = "x86_64" }, []string{LabelArch + `="x86_64"`, "amd64, arm64"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			labels := m5Labels()
			tt.edit(labels)
			_, err := InstanceTypeFromLabels(labels)
			if err == nil {
				t.Fatalf("InstanceTypeFromLabels(%v) = nil error", labels)
			}
			for _, w := range append(tt.want, "compat: ") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestReadInstanceTypeLabelsNotes: every other label that is missing or
// unreadable leaves its fact unset and is noted, in key order.
func TestReadInstanceTypeLabelsNotes(t *testing.T) {
	m5 := InstanceType{
		Name: "m5.large", Family: "m5", Category: "m", Size: "large", Generation: 5, Arch: ArchAMD64, VCPU: 2, MemoryMiB: 8192,
		Hypervisor: "nitro", OS: []string{OSLinux, OSWindows}, CPUManufacturer: "intel", NetworkBandwidthMbps: 750, CPUClockSpeedMHz: 3100,
	}
	with := func(f func(*InstanceType)) InstanceType { t := m5; f(&t); return t }
	type note struct {
		key, value string
		missing    bool
		reason     string // a substring of Reason
	}
	tests := []struct {
		name  string
		edit  func(map[string]string)
		want  InstanceType
		notes []note
	}{
		{"no hypervisor", func(l map[string]string) { delete(l, LabelInstanceHypervisor) }, with(func(t *InstanceType) { t.Hypervisor = "" }),
			[]note{{LabelInstanceHypervisor, "", true, "unknown"}}},
		{"no encryption", func(l map[string]string) { delete(l, LabelInstanceEncryptionInTransit) }, m5,
			[]note{{LabelInstanceEncryptionInTransit, "", true, "unknown"}}},
		{"no cpu or memory", func(l map[string]string) { delete(l, LabelInstanceCPU); delete(l, LabelInstanceMemory) },
			with(func(t *InstanceType) { t.VCPU, t.MemoryMiB = 0, 0 }),
			[]note{{LabelInstanceCPU, "", true, "zero value"}, {LabelInstanceMemory, "", true, "zero value"}}},
		// Karpenter labels an unpublished clock "0" (karpenter-provider-aws
		// bde00654cd31, pkg/providers/instancetype/types.go:300-304).
		{"clock 0", func(l map[string]string) { l[LabelInstanceCPUClockSpeedMHz] = "0" }, with(func(t *InstanceType) { t.CPUClockSpeedMHz = 0 }), nil},
		{"cpu not a number", func(l map[string]string) { l[LabelInstanceCPU] = "two" }, with(func(t *InstanceType) { t.VCPU = 0 }),
			[]note{{LabelInstanceCPU, "two", false, "positive whole number"}}},
		{"cpu zero", func(l map[string]string) { l[LabelInstanceCPU] = "0" }, with(func(t *InstanceType) { t.VCPU = 0 }),
			[]note{{LabelInstanceCPU, "0", false, "positive"}}},
		{"memory negative", func(l map[string]string) { l[LabelInstanceMemory] = "-1" }, with(func(t *InstanceType) { t.MemoryMiB = 0 }),
			[]note{{LabelInstanceMemory, "-1", false, "positive"}}},
		{"bad os", func(l map[string]string) { l[LabelOS] = "darwin" }, m5, []note{{LabelOS, "darwin", false, "linux or windows"}}},
		{"windows on arm", func(l map[string]string) { l[LabelArch], l[LabelOS] = ArchARM64, OSWindows },
			with(func(t *InstanceType) { t.Arch, t.OS = ArchARM64, []string{OSLinux} }),
			[]note{{LabelOS, OSWindows, false, "only on amd64"}}},
		{"bad tenancy", func(l map[string]string) { l[LabelInstanceTenancy] = "host" }, m5,
			[]note{{LabelInstanceTenancy, "host", false, "default, dedicated"}}},
		{"gpu count negative", func(l map[string]string) { l[LabelInstanceGPUCount] = "-1" }, m5,
			[]note{{LabelInstanceGPUCount, "-1", false, "from 0"}, {LabelInstanceGPUCount, "-1", false, "reads as no device"}}},
		{"family disagrees", func(l map[string]string) { l[LabelInstanceFamily] = "m6i" }, m5,
			[]note{{LabelInstanceFamily, "m6i", false, `which says "m5"`}}},
		{"generation disagrees", func(l map[string]string) { l[LabelInstanceGeneration] = "6" }, m5,
			[]note{{LabelInstanceGeneration, "6", false, `read as "5"`}}},
		{"flex disagrees", func(l map[string]string) { l[LabelInstanceCapabilityFlex] = "yes" }, m5,
			[]note{{LabelInstanceCapabilityFlex, "yes", false, `which says "false"`}}},
		{"name-derived labels missing", func(l map[string]string) {
			for _, k := range []string{LabelInstanceCategory, LabelInstanceFamily, LabelInstanceGeneration, LabelInstanceSize, LabelInstanceCapabilityFlex} {
				delete(l, k)
			}
		}, m5, nil},
		{"a name that is no EC2 name", func(l map[string]string) { l[LabelInstanceType] = "default-instance-type" },
			with(func(t *InstanceType) { t.Name = "default-instance-type" }),
			[]note{{LabelInstanceType, "default-instance-type", false, "not an EC2 name"}}},
		{"no EC2 name, no name labels", func(l map[string]string) {
			l[LabelInstanceType] = "small-instance-type"
			delete(l, LabelInstanceFamily)
			delete(l, LabelInstanceGeneration)
		}, with(func(t *InstanceType) {
			t.Name, t.Family, t.Generation, t.OS = "small-instance-type", "", 0, []string{OSLinux, OSWindows}
		}),
			[]note{{LabelInstanceFamily, "", true, "unknown"}, {LabelInstanceGeneration, "", true, "unknown"}, {LabelInstanceType, "small-instance-type", false, "not an EC2 name"}}},
		{"gpu without count", func(l map[string]string) { l[LabelInstanceGPUName] = "t4" }, with(func(t *InstanceType) { t.GPUName = "t4" }),
			[]note{{LabelInstanceGPUName, "t4", false, "without " + LabelInstanceGPUCount}}},
		{"gpu count 0 alone", func(l map[string]string) { l[LabelInstanceGPUCount] = "0" }, m5,
			[]note{{LabelInstanceGPUCount, "0", false, "manufacturer or name"}}},
		{"accelerator count 0 alone", func(l map[string]string) { l[LabelInstanceAcceleratorCount] = "0" }, m5,
			[]note{{LabelInstanceAcceleratorCount, "0", false, "reads as no device"}}},
		{"accelerator without count", func(l map[string]string) { l[LabelInstanceAcceleratorName] = "inferentia" }, with(func(t *InstanceType) { t.AcceleratorName = "inferentia" }),
			[]note{{LabelInstanceAcceleratorName, "inferentia", false, "without " + LabelInstanceAcceleratorCount}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			labels := m5Labels()
			labels[LabelInstanceCPUClockSpeedMHz] = "3100"
			tt.edit(labels)
			got, notes, err := ReadInstanceTypeLabels(labels)
			if err != nil {
				t.Fatalf("ReadInstanceTypeLabels: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("type mismatch (-want +got):\n%s", diff)
			}
			if len(notes) != len(tt.notes) {
				t.Fatalf("notes %v; want %d", notes, len(tt.notes))
			}
			for i, w := range tt.notes {
				n := notes[i]
				if n.Key != w.key || n.Value != w.value || n.Missing != w.missing || !strings.Contains(n.Reason, w.reason) {
					t.Errorf("note %d = %+v; want %s=%q (missing %t), a reason with %q", i, n, w.key, w.value, w.missing, w.reason)
				}
				if s := n.String(); !strings.HasPrefix(s, "compat: ") || !strings.Contains(s, w.key) {
					t.Errorf("note %d says %q; want it prefixed and naming %s", i, s, w.key)
				}
			}
			if plain, err := InstanceTypeFromLabels(labels); err != nil || !cmp.Equal(plain, got) {
				t.Errorf("InstanceTypeFromLabels = %+v, %v; want ReadInstanceTypeLabels' type", plain, err)
			}
		})
	}
}

// TestKarpenterCoreFakeInstanceTypes: the labels Karpenter core's fake
// instance types pin (kubernetes-sigs/karpenter v1.14.1 6e7eab7a0f48,
// pkg/cloudprovider/fake/instancetype.go:163-186: a name, an architecture,
// an os only when there is one, a zone and capacity type only when one
// offering, and the fake's own size, special and integer keys;
// cloudprovider.go:233-264 and instancetype.go:369-425 name them) all
// convert, and map onto the standard AMI of their architecture as
// Karpenter maps them: they have no GPU and no accelerator.
func TestKarpenterCoreFakeInstanceTypes(t *testing.T) {
	tests := []struct {
		labels map[string]string
		os     []string
	}{
		{map[string]string{LabelInstanceType: "default-instance-type", LabelArch: ArchAMD64, "size": "small", "integer": "4"}, []string{OSLinux, OSWindows}},
		{map[string]string{LabelInstanceType: "arm-instance-type", LabelArch: ArchARM64, "size": "large", "special": "optional", "integer": "16"}, []string{OSLinux}},
		{map[string]string{LabelInstanceType: "fake-it-3", LabelArch: ArchAMD64, "size": "small", "integer": "4"}, []string{OSLinux, OSWindows}},
		{map[string]string{LabelInstanceType: "16-cpu-64-mem-arm64-windows-test-zone-1-spot", LabelArch: ArchARM64, LabelOS: OSWindows,
			LabelZone: "test-zone-1", LabelCapacityType: "spot", "size": "large", "special": "optional", "integer": "16"}, []string{OSLinux}},
		{map[string]string{LabelInstanceType: "1-cpu-1-mem-amd64-linux-test-zone-2-on-demand", LabelArch: ArchAMD64, LabelOS: OSLinux,
			LabelZone: "test-zone-2", LabelCapacityType: "on-demand", "size": "small", "integer": "1"}, []string{OSLinux, OSWindows}},
	}
	for _, tt := range tests {
		name := tt.labels[LabelInstanceType]
		t.Run(name, func(t *testing.T) {
			it, notes, err := ReadInstanceTypeLabels(tt.labels)
			if err != nil {
				t.Fatalf("ReadInstanceTypeLabels: %v", err)
			}
			if it.Name != name || it.Arch != tt.labels[LabelArch] || !slices.Equal(it.OS, tt.os) || it.HasGPU() || it.HasAccelerator() {
				t.Errorf("got %s %s %v (GPU %t, accelerator %t); want %s %s %v, neither", it.Name, it.Arch, it.OS, it.HasGPU(), it.HasAccelerator(), name, tt.labels[LabelArch], tt.os)
			}
			if len(notes) == 0 || notes[len(notes)-1].Key != LabelInstanceType {
				t.Errorf("notes %v; want them to say the name is no EC2 name, among others", notes)
			}
			for _, arch := range []string{ArchAMD64, ArchARM64} {
				standard := standardVariant().Intersect(MustRequirements(req(LabelArch, In, arch)))
				if _, conflict := it.Conflict(standard); conflict != (arch != it.Arch) {
					t.Errorf("the standard %s AMI: conflict %t; want %t", arch, conflict, arch != it.Arch)
				}
			}
		})
	}
}

// FuzzInstanceTypeFromLabels: any labels with a name and an architecture
// give a type, whose own labels come back to it.
func FuzzInstanceTypeFromLabels(f *testing.F) {
	f.Add("m5.large", "amd64", "2", "8192", "", "nitro", "750", "")
	f.Add("g6f.large", "amd64", "2", "8192", "windows", "", "0", "dedicated")
	f.Add("u-6tb1.metal", "arm64", "448", "6291456", "linux", "", "x", "host")
	f.Fuzz(func(t *testing.T, name, arch, cpu, memory, os, hypervisor, gpus, tenancy string) {
		labels := map[string]string{LabelInstanceType: name, LabelArch: arch, LabelInstanceCPU: cpu, LabelInstanceMemory: memory, LabelInstanceHypervisor: hypervisor, LabelInstanceEncryptionInTransit: "false"}
		for k, v := range map[string]string{LabelOS: os, LabelInstanceGPUCount: gpus, LabelInstanceTenancy: tenancy} {
			if v != "" {
				labels[k] = v
			}
		}
		it, err := InstanceTypeFromLabels(labels)
		if err != nil {
			// Only the required labels fail the call.
			if name != "" && (arch == ArchAMD64 || arch == ArchARM64) {
				t.Fatalf("InstanceTypeFromLabels(%v) with a name and an architecture: %v", labels, err)
			}
			return
		}
		back, err := InstanceTypeFromLabels(it.Labels())
		if err != nil {
			t.Fatalf("InstanceTypeFromLabels(%v) = %+v, whose labels %v fail: %v", labels, it, it.Labels(), err)
		}
		if diff := cmp.Diff(it, back); diff != "" {
			t.Fatalf("labels of %+v do not come back (-want +got):\n%s", it, diff)
		}
		if !maps.Equal(it.Labels(), back.Labels()) {
			t.Fatalf("labels %v come back as %v", it.Labels(), back.Labels())
		}
	})
}
