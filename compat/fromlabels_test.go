package compat

import (
	"maps"
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

func TestInstanceTypeFromLabelsErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(map[string]string)
		want []string // substrings of the error
	}{
		{"no name", func(l map[string]string) { delete(l, LabelInstanceType) }, []string{"no " + LabelInstanceType}},
		{"no arch", func(l map[string]string) { delete(l, LabelArch) }, []string{"m5.large", "no " + LabelArch}},
		{"no cpu", func(l map[string]string) { delete(l, LabelInstanceCPU) }, []string{"no " + LabelInstanceCPU, "InstanceTypeFromEC2"}},
		{"no memory", func(l map[string]string) { delete(l, LabelInstanceMemory) }, []string{"no " + LabelInstanceMemory}},
		{"no hypervisor", func(l map[string]string) { delete(l, LabelInstanceHypervisor) }, []string{"no " + LabelInstanceHypervisor}},
		{"no encryption", func(l map[string]string) { delete(l, LabelInstanceEncryptionInTransit) }, []string{"no " + LabelInstanceEncryptionInTransit}},
		{"bad name", func(l map[string]string) { l[LabelInstanceType] = "m5" }, []string{LabelInstanceType + `="m5"`, "family.size"}},
		{"bad arch", func(l map[string]string) { l[LabelArch] = "x86_64" }, []string{LabelArch + `="x86_64"`, "amd64, arm64"}},
		{"bad os", func(l map[string]string) { l[LabelOS] = "darwin" }, []string{LabelOS + `="darwin"`, "linux or windows"}},
		{"windows on arm", func(l map[string]string) { l[LabelArch], l[LabelOS] = ArchARM64, OSWindows }, []string{LabelOS + `="windows"`, "amd64"}},
		{"cpu not a number", func(l map[string]string) { l[LabelInstanceCPU] = "two" }, []string{LabelInstanceCPU + `="two"`, "positive whole number"}},
		{"cpu zero", func(l map[string]string) { l[LabelInstanceCPU] = "0" }, []string{LabelInstanceCPU + `="0"`}},
		{"memory negative", func(l map[string]string) { l[LabelInstanceMemory] = "-1" }, []string{LabelInstanceMemory + `="-1"`}},
		{"bad bool", func(l map[string]string) { l[LabelInstanceCapabilityFlex] = "yes" }, []string{LabelInstanceCapabilityFlex + `="yes"`, "true or false"}},
		{"bad tenancy", func(l map[string]string) { l[LabelInstanceTenancy] = "host" }, []string{LabelInstanceTenancy + `="host"`, "default, dedicated"}},
		{"gpu count negative", func(l map[string]string) { l[LabelInstanceGPUCount] = "-1" }, []string{LabelInstanceGPUCount + `="-1"`, "from 0"}},
		{"family disagrees", func(l map[string]string) { l[LabelInstanceFamily] = "m6i" }, []string{LabelInstanceFamily + `="m6i"`, `says "m5"`}},
		{"generation disagrees", func(l map[string]string) { l[LabelInstanceGeneration] = "6" }, []string{LabelInstanceGeneration + `="6"`}},
		{"flex disagrees", func(l map[string]string) { l[LabelInstanceCapabilityFlex] = "true" }, []string{LabelInstanceCapabilityFlex + `="true"`}},
		{"gpu without count", func(l map[string]string) { l[LabelInstanceGPUName] = "t4" }, []string{LabelInstanceGPUName + `="t4"`, "without " + LabelInstanceGPUCount}},
		{"gpu count 0 alone", func(l map[string]string) { l[LabelInstanceGPUCount] = "0" }, []string{LabelInstanceGPUCount + `="0"`, "manufacturer or name"}},
		{"accelerator count 0 alone", func(l map[string]string) { l[LabelInstanceAcceleratorCount] = "0" }, []string{LabelInstanceAcceleratorCount + `="0"`}},
		{"accelerator without count", func(l map[string]string) { l[LabelInstanceAcceleratorName] = "inferentia" }, []string{"without " + LabelInstanceAcceleratorCount}},
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

// FuzzInstanceTypeFromLabels: any labels either fail or give a type whose
// own labels come back to it.
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
